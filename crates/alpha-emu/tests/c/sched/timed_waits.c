/* Threads that wait for time and for each other through the kernel: a
   sleeper (usleep), a pipe between two threads (the reader blocks in
   read), a condition variable waited on with a timeout nobody signals,
   and an interval timer whose SIGALRM handler counts. Whatever the
   schedule, the output is the same; under `alpha explore` nothing here
   is a deadlock: every wait ends. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static volatile int alarms;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void on_alarm(int sig) { (void)sig; alarms++; }

static void *sleeper(void *arg)
{
    for (int i = 0; i < 3; i++)
        usleep(1000);
    return arg;
}

static void *writer(void *arg)
{
    for (int i = 0; i < 4; i++) {
        char b = 'a' + i;
        if (write(fds[1], &b, 1) != 1)
            return (void *)1;
        usleep(200);
    }
    close(fds[1]);
    return arg;
}

static void *reader(void *arg)
{
    char buf[8];
    int n = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += r;
    buf[n] = 0;
    printf("read %s\n", buf);
    return arg;
}

static void *timed(void *arg)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 2000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&m);
    int r = pthread_cond_timedwait(&c, &m, &ts);
    pthread_mutex_unlock(&m);
    printf("timedwait %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
    return arg;
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    struct itimerval it = {{0, 500}, {0, 500}};
    setitimer(ITIMER_REAL, &it, 0);
    if (pipe(fds) != 0)
        return 2;
    pthread_t t[4];
    pthread_create(&t[0], 0, sleeper, 0);
    pthread_create(&t[1], 0, writer, 0);
    pthread_create(&t[2], 0, reader, 0);
    pthread_create(&t[3], 0, timed, 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], 0);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, 0);
    printf("joined; alarms %s\n", alarms > 0 ? "fired" : "never fired");
    return 0;
}
