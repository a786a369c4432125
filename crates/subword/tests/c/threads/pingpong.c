/* Two threads hand a turn back and forth N times (argv[1]) through a mutex
 * and two condition variables, while B more threads (argv[2]) sit blocked
 * on a condition variable nobody signals until the end: what one switch
 * costs, with and without many blocked threads beside the two. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv[2] = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int turn, done;
static long rounds;

static void *sleeper(void *a)
{
    (void)a;
    pthread_mutex_lock(&m);
    while (!done)
        pthread_cond_wait(&never, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *player(void *a)
{
    int me = (int)(long)a;
    pthread_mutex_lock(&m);
    for (long i = 0; i < rounds; i++) {
        while (turn != me)
            pthread_cond_wait(&turn_cv[me], &m);
        turn = !me;
        pthread_cond_signal(&turn_cv[!me]);
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 100000;
    int blocked = argc > 2 ? atoi(argv[2]) : 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 65536);
    pthread_t *s = malloc(sizeof *s * (blocked + 1));
    for (int i = 0; i < blocked; i++)
        if (pthread_create(&s[i], &attr, sleeper, NULL) != 0)
            return 1;
    pthread_t p[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&p[i], &attr, player, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(p[i], NULL);
    pthread_mutex_lock(&m);
    done = 1;
    pthread_cond_broadcast(&never);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < blocked; i++)
        pthread_join(s[i], NULL);
    printf("%ld rounds beside %d blocked threads\n", rounds, blocked);
    return 0;
}
