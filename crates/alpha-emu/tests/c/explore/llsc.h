/* Harness for the hand-written LDQ_L/STQ_C programs: two threads each add
   1 to a shared quadword ITERS times with the program's increment
   function. A sequence that breaks a forward-progress rule may fail its
   STQ_C every time on real hardware, so each increment gives up after
   MAX_TRIES failed attempts; main prints the count and exits 0 whatever
   it is. */
#include "explore.h"

#define MAX_TRIES 8

static volatile long counter ISOLATED;
static volatile long other ISOLATED;

/* One attempt at counter += 1: the STQ_C status (0 = failed). */
static long attempt(void);

NOINLINE void *incrementer(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        for (int tries = 0; tries < MAX_TRIES; tries++)
            if (attempt())
                break;
    return arg;
}

int main(void)
{
    const thread_fn fns[] = {incrementer, incrementer};
    run_threads(2, fns, NULL);
    printf("counter=%ld\n", counter);
    return 0;
}
