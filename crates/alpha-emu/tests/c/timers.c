/* status: 0 */
/* Real time and interval timers: the host's clocks, sleeping that really
   sleeps (and is cut short by a signal with the time left), alarm() and
   setitimer(ITIMER_REAL/VIRTUAL/PROF) firing in a busy loop, POSIX timers
   with SIGEV_SIGNAL and SIGEV_THREAD_ID (si_code SI_TIMER, si_value),
   timer_gettime, times() and getrusage(). Prints only what does not depend
   on timing; the bounds are generous. Expected: exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t hits[65];
static volatile int last_code, last_value, last_tid_ok;

static void handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    hits[sig]++;
    last_code = si->si_code;
    if (si->si_code == SI_TIMER) last_value = si->si_value.sival_int;
}

static double now(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts) != 0) return -1;
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(sig, &sa, 0);
}

/* Wait until `sig` has been handled. The signal is blocked while `hits`
   is tested, so one arriving just before the wait is left pending for
   sigsuspend rather than lost ahead of a pause() that would never end. */
static void wait_for(int sig)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, sig);
    sigprocmask(SIG_BLOCK, &block, &old);
    while (!hits[sig]) sigsuspend(&old);
    sigprocmask(SIG_SETMASK, &old, 0);
}

int main(void)
{
    /* Host time, not a fixed epoch: after 2025-01-01. */
    time_t t = time(0);
    struct timeval tv;
    CHECK(gettimeofday(&tv, 0) == 0);
    CHECK(t > 1735689600);
    CHECK(tv.tv_sec - t >= 0 && tv.tv_sec - t < 5);
    printf("realtime: host\n");

    static const clockid_t clocks[] = {
        CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
        CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
        CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME};
    for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        struct timespec ts, res;
        CHECK(clock_gettime(clocks[i], &ts) == 0);
        CHECK(clock_getres(clocks[i], &res) == 0);
        CHECK(res.tv_sec == 0 && res.tv_nsec > 0);
    }
    struct timespec bad;
    CHECK(clock_gettime(42, &bad) == -1 && errno == EINVAL);
    printf("clocks: %u readable\n", (unsigned)(sizeof clocks / sizeof clocks[0]));

    /* Relative and absolute sleeps take at least their time; times()
       counts in sysconf(_SC_CLK_TCK) ticks (AT_CLKTCK: the kernel's
       USER_HZ 1024 on Alpha, 100 under qemu-alpha). */
    double m0 = now(CLOCK_MONOTONIC);
    struct tms tm;
    clock_t c0 = times(&tm);
    struct timespec d = {0, 100000000};
    CHECK(nanosleep(&d, 0) == 0);
    double m1 = now(CLOCK_MONOTONIC);
    clock_t c1 = times(&tm);
    long hz = sysconf(_SC_CLK_TCK);
    CHECK(hz == 100 || hz == 1024);
    CHECK(m1 - m0 >= 0.099 && m1 - m0 < 5);
    CHECK((double)(c1 - c0) / hz >= 0.08 && (double)(c1 - c0) / hz < 5);
    struct timespec abs;
    clock_gettime(CLOCK_MONOTONIC, &abs);
    abs.tv_nsec += 50000000;
    if (abs.tv_nsec >= 1000000000) { abs.tv_sec++; abs.tv_nsec -= 1000000000; }
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, 0) == 0);
    CHECK(now(CLOCK_MONOTONIC) - m1 >= 0.049);
    d.tv_nsec = 1000000000;
    CHECK(nanosleep(&d, 0) == -1 && errno == EINVAL);
    printf("sleep: slept\n");

    /* alarm(1) in a busy loop: the handler runs. */
    on(SIGALRM);
    alarm(1);
    volatile unsigned long spin = 0;
    double a0 = now(CLOCK_MONOTONIC);
    while (!hits[SIGALRM] && now(CLOCK_MONOTONIC) - a0 < 10) spin++;
    CHECK(hits[SIGALRM] == 1);
    CHECK(last_code == SI_KERNEL);
    printf("alarm: fired %d\n", hits[SIGALRM]);

    /* A signal cuts a sleep short: EINTR and the time left. */
    struct itimerval it = {{0, 0}, {0, 50000}};
    CHECK(setitimer(ITIMER_REAL, &it, 0) == 0);
    struct timespec longsleep = {5, 0}, rem = {0, 0};
    CHECK(nanosleep(&longsleep, &rem) == -1 && errno == EINTR);
    CHECK(rem.tv_sec >= 4 && rem.tv_sec <= 5);
    CHECK(hits[SIGALRM] == 2);
    printf("interrupted sleep: EINTR\n");

    /* A periodic ITIMER_REAL seen by pause(). */
    struct itimerval per = {{0, 20000}, {0, 20000}}, cur;
    CHECK(setitimer(ITIMER_REAL, &per, 0) == 0);
    CHECK(getitimer(ITIMER_REAL, &cur) == 0);
    CHECK(cur.it_interval.tv_usec == 20000 && cur.it_value.tv_sec == 0);
    while (hits[SIGALRM] < 5) pause();
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, &cur) == 0);
    CHECK(cur.it_interval.tv_usec == 20000);
    CHECK(getitimer(ITIMER_REAL, &cur) == 0);
    CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0);
    /* A slow host may deliver one more period between the last pause()
       and the timer going off: at least five is what every run agrees on. */
    printf("periodic: %s\n", hits[SIGALRM] >= 5 ? "at least 5" : "fewer than 5");

    /* CPU-time itimers fire in a busy loop. */
    on(SIGVTALRM);
    on(SIGPROF);
    struct itimerval cpu = {{0, 0}, {0, 10000}};
    CHECK(setitimer(ITIMER_VIRTUAL, &cpu, 0) == 0);
    CHECK(setitimer(ITIMER_PROF, &cpu, 0) == 0);
    a0 = now(CLOCK_MONOTONIC);
    while ((!hits[SIGVTALRM] || !hits[SIGPROF]) && now(CLOCK_MONOTONIC) - a0 < 20) spin++;
    CHECK(hits[SIGVTALRM] == 1 && hits[SIGPROF] == 1);
    printf("virtual: %d prof: %d\n", hits[SIGVTALRM], hits[SIGPROF]);

    /* POSIX timers. */
    on(SIGUSR1);
    on(SIGUSR2);
    timer_t tid1, tid2;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    ev.sigev_value.sival_int = 1234;
    CHECK(timer_create(CLOCK_MONOTONIC, &ev, &tid1) == 0);
    struct itimerspec its = {{0, 0}, {0, 30000000}}, got;
    CHECK(timer_settime(tid1, 0, &its, 0) == 0);
    CHECK(timer_gettime(tid1, &got) == 0);
    CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec > 0 &&
          got.it_value.tv_nsec <= 30000000);
    wait_for(SIGUSR1);
    CHECK(last_code == SI_TIMER && last_value == 1234);
    CHECK(timer_gettime(tid1, &got) == 0);
    CHECK(got.it_value.tv_sec == 0 && got.it_value.tv_nsec == 0);
    CHECK(timer_delete(tid1) == 0);
    printf("posix signal: code %s value %d\n", last_code == SI_TIMER ? "SI_TIMER" : "?", last_value);

    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGUSR2;
    ev._sigev_un._tid = syscall(SYS_gettid);
    ev.sigev_value.sival_int = 77;
    CHECK(timer_create(CLOCK_REALTIME, &ev, &tid2) == 0);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    its.it_value.tv_sec = rt.tv_sec;
    its.it_value.tv_nsec = rt.tv_nsec + 20000000;
    if (its.it_value.tv_nsec >= 1000000000) { its.it_value.tv_sec++; its.it_value.tv_nsec -= 1000000000; }
    CHECK(timer_settime(tid2, TIMER_ABSTIME, &its, 0) == 0);
    wait_for(SIGUSR2);
    CHECK(last_value == 77);
    CHECK(timer_delete(tid2) == 0);
    CHECK(timer_delete(tid2) == -1 && errno == EINVAL);
    printf("posix thread id: value %d\n", last_value);

    /* CPU time was used; none by children. */
    CHECK(times(&tm) != (clock_t)-1);
    CHECK(tm.tms_utime + tm.tms_stime > 0);
    CHECK(tm.tms_cutime == 0);
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    CHECK(ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0 || ru.ru_stime.tv_usec > 0);
    CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0);
    CHECK(ru.ru_utime.tv_sec == 0 && ru.ru_utime.tv_usec == 0);
    printf("cpu time: used\n");
    return failures;
}
