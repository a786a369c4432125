/* Threadring (the Benchmarks Game's description): 503 threads in a ring,
 * thread k hands a token to thread k+1 (503 to 1); each hand-off takes one
 * from the token; the thread that receives it at 0 prints its number.
 * Each thread sleeps on its own POSIX semaphore. */
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define RING 503

static sem_t turn[RING];
static long token;

static void *member(void *arg)
{
    long me = (long)arg;
    for (;;) {
        while (sem_wait(&turn[me]) != 0)
            ;
        if (token == 0) {
            printf("%ld\n", me + 1);
            fflush(stdout);
            exit(0);
        }
        token--;
        sem_post(&turn[(me + 1) % RING]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    token = argc > 1 ? atol(argv[1]) : 1000;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
    for (long i = 0; i < RING; i++)
        sem_init(&turn[i], 0, 0);
    for (long i = 0; i < RING; i++) {
        pthread_t t;
        int e = pthread_create(&t, &attr, member, (void *)i);
        if (e != 0) {
            fprintf(stderr, "pthread_create %ld failed: %d\n", i, e);
            return 1;
        }
    }
    sem_post(&turn[0]);
    for (;;)
        pause();
}
