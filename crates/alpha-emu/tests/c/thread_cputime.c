/* status: 0 */
/* cflags: -pthread */
/* Per-thread CPU clocks: a thread that spins accumulates CPU time on its
   own CLOCK_THREAD_CPUTIME_ID (and RUSAGE_THREAD), a thread blocked in a
   read meanwhile does not, and the process clock counts both; another
   thread's clock read through pthread_getcpuclockid is not supported by
   every personality, so it is not used. Prints only relations, which
   hold on any load. Expected: exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static int pfd[2];
static long long busy_ns, idle_ns, idle_rusage_ns;

static long long clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *spinner(void *arg)
{
    (void)arg;
    volatile unsigned long x = 1;
    while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < 100 * 1000000LL)
        for (int i = 0; i < 10000; i++) x = x * 6364136223846793005UL + 1;
    busy_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    char c = 'x';
    CHECK(write(pfd[1], &c, 1) == 1);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    char c;
    CHECK(read(pfd[0], &c, 1) == 1);
    idle_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    struct rusage ru;
    CHECK(getrusage(RUSAGE_THREAD, &ru) == 0);
    idle_rusage_ns = ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL
                     + ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
    return NULL;
}

int main(void)
{
    CHECK(pipe(pfd) == 0);
    long long main_before = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    pthread_t a, b;
    pthread_create(&b, NULL, waiter, NULL);
    pthread_create(&a, NULL, spinner, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    long long main_after = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    long long process = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    printf("spinner reached 100 ms of its own CPU: %d\n", busy_ns >= 100 * 1000000LL);
    printf("waiter used under a quarter of that: %d\n", idle_ns < busy_ns / 4);
    printf("waiter's RUSAGE_THREAD under a quarter too: %d\n", idle_rusage_ns < busy_ns / 4);
    printf("main, joining, under a quarter: %d\n", main_after - main_before < busy_ns / 4);
    printf("process clock counts the spinner: %d\n", process >= busy_ns);
    CHECK(busy_ns >= 100 * 1000000LL && idle_ns < busy_ns / 4 && idle_rusage_ns < busy_ns / 4);
    CHECK(main_after - main_before < busy_ns / 4 && process >= busy_ns);
    printf("thread_cputime: %d failures\n", failures);
    return failures;
}
