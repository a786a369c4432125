/* A done flag next to data in one quadword: one thread keeps updating the
   data byte while another sets the flag once. Pre-BWX the data thread's
   STQ_U can write the flag back as 0 (the classic lost wake-up), or the
   flag's STQ_U can restore a stale data byte. With BWX nothing is lost.
   main reports the flag after joining instead of waiting on it, so a lost
   flag shows in the output (done=0) rather than as a hang. */
#include "explore.h"

static struct {
    volatile unsigned char data;
    volatile unsigned char done;
} s ISOLATED;

NOINLINE void *fill_data(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)i;
    return NULL;
}

NOINLINE void *set_done(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (volatile int i = 0; i < ITERS / 4; i++)
        ;
    *p = 1;
    return NULL;
}

int main(void)
{
    const thread_fn fns[] = {fill_data, set_done};
    void *const args[] = {(void *)&s.data, (void *)&s.done};
    run_threads(2, fns, args);
    printf("data=%d done=%d\n", s.data, s.done);
    return 0;
}
