/* The same byte atomics with each counter in its own 128-byte block (the
   seed's advice): beyond any lock range of ev4/ev56, so nothing is
   reported. Exit 0: atomics lose no update in any schedule. */
#include "explore.h"

static _Atomic unsigned char ca ISOLATED;
static _Atomic unsigned char cb ISOLATED;

NOINLINE void *count_a(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        __atomic_fetch_add(&ca, 1, __ATOMIC_RELAXED);
    return arg;
}

NOINLINE void *count_b(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        __atomic_fetch_add(&cb, 1, __ATOMIC_RELAXED);
    return arg;
}

int main(void)
{
    const thread_fn fns[] = {count_a, count_b};
    run_threads(2, fns, NULL);
    printf("a=%d b=%d\n", ca, cb);
    return ca == (unsigned char)ITERS && cb == (unsigned char)ITERS ? 0 : 1;
}
