/* Byte counters updated with GCC's byte atomics (__atomic_fetch_add on
   _Atomic unsigned char: an LDQ_L/STQ_C loop on the containing quadword).
   No store is ever lost. count_a and count_b share one quadword: their
   STQ_C failures are ordinary contention on the locked quadword itself.
   count_c's counter is 8 bytes further, in the next quadword but inside the
   32-byte lock range of ev4/ev56: a store by one makes the other's STQ_C
   fail although they touch different quadwords (lock-range contention). */
#include "explore.h"

static struct {
    _Atomic unsigned char a;
    _Atomic unsigned char b;
    unsigned char pad[6];
    _Atomic unsigned char c;
} s ISOLATED;

NOINLINE void *count_a(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        __atomic_fetch_add(&s.a, 1, __ATOMIC_RELAXED);
    return arg;
}

NOINLINE void *count_b(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        __atomic_fetch_add(&s.b, 1, __ATOMIC_RELAXED);
    return arg;
}

NOINLINE void *count_c(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        __atomic_fetch_add(&s.c, 1, __ATOMIC_RELAXED);
    return arg;
}

int main(void)
{
    const thread_fn fns[] = {count_a, count_b, count_c};
    run_threads(3, fns, NULL);
    printf("a=%d b=%d c=%d\n", s.a, s.b, s.c);
    return s.a == (unsigned char)ITERS && s.b == (unsigned char)ITERS &&
                   s.c == (unsigned char)ITERS
               ? 0
               : 1;
}
