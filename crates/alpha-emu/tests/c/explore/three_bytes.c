/* Three threads on three bytes of one quadword. Pre-BWX any write-back can
   restore either neighbour's byte; with BWX (STB) nothing is lost. */
#include "explore.h"

static struct {
    volatile unsigned char a, b, c;
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

NOINLINE void *writer_c(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)(i + 2);
    return NULL;
}

int main(void)
{
    const thread_fn fns[] = {writer_a, writer_b, writer_c};
    void *const args[] = {(void *)&s.a, (void *)&s.b, (void *)&s.c};
    run_threads(3, fns, args);
    printf("a=%d b=%d c=%d\n", s.a, s.b, s.c);
    return 0;
}
