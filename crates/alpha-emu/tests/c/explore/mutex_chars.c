/* Adjacent chars, every store made under one mutex: the read-modify-writes
   never overlap, so nothing is lost on any model. Exit 0 in every
   schedule. */
#include "explore.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    volatile unsigned char a;
    volatile unsigned char b;
} s ISOLATED;

NOINLINE void *locked_a(void *arg)
{
    wait_start();
    for (int i = 1; i <= ITERS / 4; i++) {
        pthread_mutex_lock(&mu);
        s.a = (unsigned char)i;
        pthread_mutex_unlock(&mu);
    }
    return arg;
}

NOINLINE void *locked_b(void *arg)
{
    wait_start();
    for (int i = 1; i <= ITERS / 4; i++) {
        pthread_mutex_lock(&mu);
        s.b = (unsigned char)(i + 1);
        pthread_mutex_unlock(&mu);
    }
    return arg;
}

int main(void)
{
    const thread_fn fns[] = {locked_a, locked_b};
    run_threads(2, fns, NULL);
    printf("a=%d b=%d\n", s.a, s.b);
    return s.a == ITERS / 4 && s.b == ITERS / 4 + 1 ? 0 : 1;
}
