/* Two threads store to adjacent chars of one struct. Pre-BWX (ev4) each
   store is LDQ_U/INSBL/MSKBL/STQ_U on the shared quadword, so one thread's
   write-back can restore the other's byte to a stale value. With BWX (ev56)
   each store is one STB: nothing is lost. */
#include "explore.h"

static struct {
    volatile unsigned char a;
    volatile unsigned char b;
} s ISOLATED;

NOINLINE void *writer_a(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)i;
    return NULL;
}

NOINLINE void *writer_b(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)(i + 1);
    return NULL;
}

int main(void)
{
    const thread_fn fns[] = {writer_a, writer_b};
    void *const args[] = {(void *)&s.a, (void *)&s.b};
    run_threads(2, fns, args);
    printf("a=%d b=%d\n", s.a, s.b);
    return 0;
}
