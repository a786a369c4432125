/* A short and a char in one quadword, each stored by its own thread.
   Pre-BWX the short store is LDQ_U/INSWL/MSKWL/STQ_U and the char store
   LDQ_U/INSBL/MSKBL/STQ_U on the same quadword: either can lose the other.
   With BWX they are STW and STB: nothing is lost. */
#include "explore.h"

static struct {
    volatile unsigned short w;
    volatile unsigned char c;
} s ISOLATED;

NOINLINE void *writer_short(void *arg)
{
    volatile unsigned short *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned short)(i * 257);
    return NULL;
}

NOINLINE void *writer_char(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)(i + 1);
    return NULL;
}

int main(void)
{
    const thread_fn fns[] = {writer_short, writer_char};
    void *const args[] = {(void *)&s.w, (void *)&s.c};
    run_threads(2, fns, args);
    printf("w=%d c=%d\n", s.w, s.c);
    return 0;
}
