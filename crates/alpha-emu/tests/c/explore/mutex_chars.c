/* Adjacent chars, every store made inside one lock, so the
   read-modify-writes never overlap and nothing is lost on any model. Exit 0
   in every schedule.

   The lock is a binary POSIX semaphore rather than a pthread_mutex_t:
   glibc's mutex keeps its lock word and its __owner/__nusers fields 8 bytes
   apart, inside one 32-byte ev4/ev56 lock range, so a waiter's LDL_L/STL_C
   exchange on the lock word fails when the holder stores __owner: a genuine
   lock-range contention inside glibc, which the explorer rightly reports.
   A semaphore keeps its count and waiter count in one quadword (every
   LL/SC and store hits the locked quadword itself), so this program is
   clean of every kind of finding. */
#include <semaphore.h>
#include "explore.h"

static sem_t lock ISOLATED;
static struct {
    volatile unsigned char a;
    volatile unsigned char b;
} s ISOLATED;

NOINLINE void *locked_a(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS / 4; i++) {
        sem_wait(&lock);
        *p = (unsigned char)i;
        sem_post(&lock);
    }
    return NULL;
}

NOINLINE void *locked_b(void *arg)
{
    volatile unsigned char *p = arg;
    wait_start();
    for (int i = 1; i <= ITERS / 4; i++) {
        sem_wait(&lock);
        *p = (unsigned char)(i + 1);
        sem_post(&lock);
    }
    return NULL;
}

int main(void)
{
    const thread_fn fns[] = {locked_a, locked_b};
    void *const args[] = {(void *)&s.a, (void *)&s.b};
    sem_init(&lock, 0, 1);
    run_threads(2, fns, args);
    printf("a=%d b=%d\n", s.a, s.b);
    return s.a == ITERS / 4 && s.b == ITERS / 4 + 1 ? 0 : 1;
}
