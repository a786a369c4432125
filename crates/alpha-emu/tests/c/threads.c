/* status: 0 */
/* cflags: -pthread */
/* pthreads with deterministic output: workers sum disjoint ranges, a
   mutex-protected counter, a condition variable hand-off, thread-local
   storage, join. Expected: exit 0. */
#include <pthread.h>
#include "check.h"

#define NT 4
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn;
static __thread long tls_value;
static long results[NT];
static int order[NT], norder;

static void *worker(void *arg)
{
    long id = (long)arg;
    tls_value = id * 1000;
    long s = 0;
    for (long i = id * 100000; i < (id + 1) * 100000; i++) s += i % 7;
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&mu);
        counter++;
        pthread_mutex_unlock(&mu);
    }
    /* take turns in id order */
    pthread_mutex_lock(&mu);
    while (turn != id) pthread_cond_wait(&cv, &mu);
    order[norder++] = (int)id;
    turn++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    results[id] = s + tls_value;
    return (void *)(id + 10);
}

int main(void)
{
    pthread_t t[NT];
    tls_value = -1;
    for (long i = 0; i < NT; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
    for (int i = 0; i < NT; i++) {
        void *ret;
        CHECK(pthread_join(t[i], &ret) == 0);
        printf("thread %d returned %ld result %ld\n", i, (long)ret, results[i]);
    }
    printf("counter %ld order %d%d%d%d main tls %ld\n", counter, order[0], order[1], order[2], order[3], tls_value);
    CHECK(counter == NT * 1000 && tls_value == -1);
    printf("threads: %d failures\n", failures);
    return failures;
}
