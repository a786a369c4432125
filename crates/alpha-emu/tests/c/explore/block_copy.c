/* A BWX-era block copy: a 6-byte struct in an 8-aligned slot is copied by
   a quadword read-modify-write (LDQ, merge the 6 bytes, STQ), as GCC's
   block moves do for the leading and trailing parts of objects that do not
   end on a quadword boundary (what GCC 15's -msafe-partial addresses). The
   merge writes bytes 6 and 7 back with the values it loaded, so a
   neighbour's STB to byte 6 in between is lost, with or without BWX. */
#include "explore.h"

struct six {
    unsigned char c[6];
};

static struct {
    struct six name;
    volatile unsigned char flag;
} s ISOLATED;

static volatile unsigned long source = 0x0000665544332211UL;

/* Copy 6 bytes into an 8-aligned destination by merging them into the
   destination quadword. */
NOINLINE void copy_name(struct six *dst, unsigned long src)
{
    volatile unsigned long *q = (volatile unsigned long *)dst;
    unsigned long old = *q;
    *q = (old & 0xffff000000000000UL) | (src & 0x0000ffffffffffffUL);
}

NOINLINE void *copier(void *arg)
{
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        copy_name(&s.name, source + (unsigned long)i);
    return arg;
}

NOINLINE void *set_flag(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)(i + 1);
    return NULL;
}

int main(void)
{
    const thread_fn fns[] = {copier, set_flag};
    void *const args[] = {NULL, (void *)&s.flag};
    run_threads(2, fns, args);
    printf("name0=%d flag=%d\n", s.name.c[0], s.flag);
    return 0;
}
