/* An unaligned short crossing a quadword boundary (a packed struct: bytes 7
   and 8), stored by one thread while another stores the byte just after it
   (byte 9, in the second quadword). Pre-BWX (ev4) GCC writes the short with
   LDQ_U/INSWL/INSWH/MSKWL/MSKWH and two STQ_U, read-modify-writes of both
   quadwords, so the second STQ_U can restore a stale byte 9 (and the byte
   store's STQ_U can restore a stale byte 8). With BWX (ev56) GCC writes it
   as two STB: the short can tear, but no store is lost. */
#include "explore.h"

struct __attribute__((packed)) rec {
    unsigned char pad[7];
    unsigned short w;
    unsigned char next;
};

static volatile struct rec s ISOLATED;

NOINLINE void *writer_short(void *arg)
{
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        s.w = (unsigned short)(i * 257);
    return arg;
}

NOINLINE void *writer_next(void *arg)
{
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        s.next = (unsigned char)(i + 1);
    return arg;
}

int main(void)
{
    const thread_fn fns[] = {writer_short, writer_next};
    run_threads(2, fns, NULL);
    printf("w=%d next=%d\n", s.w, s.next);
    return 0;
}
