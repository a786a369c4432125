/* Two threads take two mutexes in opposite orders. Run one after the
   other (the default schedule) nothing happens; preempted after the first
   lock, each thread waits for the other's mutex for ever. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static volatile int shared;

__attribute__((noinline)) void *take_12(void *arg)
{
    pthread_mutex_lock(&m1);
    shared++;
    pthread_mutex_lock(&m2);
    shared++;
    pthread_mutex_unlock(&m2);
    pthread_mutex_unlock(&m1);
    return arg;
}

__attribute__((noinline)) void *take_21(void *arg)
{
    pthread_mutex_lock(&m2);
    shared++;
    pthread_mutex_lock(&m1);
    shared++;
    pthread_mutex_unlock(&m1);
    pthread_mutex_unlock(&m2);
    return arg;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, take_12, NULL);
    pthread_create(&b, NULL, take_21, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d\n", shared);
    return 0;
}
