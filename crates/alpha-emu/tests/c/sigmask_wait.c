/* status: 0 */
/* cflags: -pthread */
/* Waits with a temporary signal mask: ppoll, pselect6, epoll_pwait and
   sigsuspend install their mask for the wait only. A signal the temporary
   mask lets through ends the wait with EINTR, its handler runs with the
   temporary mask (plus sa_mask and the signal) and the caller's own mask
   is back after the handler; a wait that ends with a ready descriptor or
   a timeout restores the caller's mask at once and leaves the signal
   pending (Linux's restore_saved_sigmask_unless). Expected: exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t usr1, usr2_blocked_inside, usr1_blocked_inside;

static void handler(int sig)
{
    (void)sig;
    sigset_t cur;
    sigprocmask(SIG_SETMASK, NULL, &cur);
    usr1++;
    usr2_blocked_inside = sigismember(&cur, SIGUSR2);
    usr1_blocked_inside = sigismember(&cur, SIGUSR1);
}

/* The caller's mask: 1 when SIGUSR1 is blocked and SIGUSR2 is not. */
static int own_mask(void)
{
    sigset_t cur;
    sigprocmask(SIG_SETMASK, NULL, &cur);
    return sigismember(&cur, SIGUSR1) && !sigismember(&cur, SIGUSR2);
}

static int usr1_pending(void)
{
    sigset_t p;
    sigpending(&p);
    return sigismember(&p, SIGUSR1);
}

static void *late_kill(void *arg)
{
    (void)arg;
    struct timespec d = { 0, 50 * 1000 * 1000 };
    nanosleep(&d, NULL);
    kill(getpid(), SIGUSR1);
    return NULL;
}

static void report(const char *what, int r, int err, int before)
{
    printf("%s: r %d eintr %d ran %d usr2-blocked-in-handler %d usr1-blocked-in-handler %d own-mask-after %d\n",
           what, r, r < 0 && err == EINTR, usr1 - before, usr2_blocked_inside,
           usr1_blocked_inside, own_mask());
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);

    sigset_t usr1set, waitmask;
    sigemptyset(&usr1set);
    sigaddset(&usr1set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1set, NULL);
    sigemptyset(&waitmask);
    sigaddset(&waitmask, SIGUSR2); /* lets SIGUSR1 through, blocks SIGUSR2 */

    int pfd[2];
    CHECK(pipe(pfd) == 0);
    struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
    struct timespec five = { 5, 0 }, zero = { 0, 0 };

    /* A pending signal the temporary mask unblocks ends ppoll at once. */
    int before = usr1;
    raise(SIGUSR1);
    int r = ppoll(&pf, 1, &five, &waitmask);
    report("ppoll pending", r, errno, before);

    /* A ready descriptor wins over the signal, which stays pending. */
    CHECK(write(pfd[1], "x", 1) == 1);
    before = usr1;
    raise(SIGUSR1);
    r = ppoll(&pf, 1, &five, &waitmask);
    printf("ppoll ready: r %d ran %d still-pending %d own-mask-after %d\n", r, usr1 - before,
           usr1_pending(), own_mask());
    char c;
    CHECK(read(pfd[0], &c, 1) == 1);

    /* A zero timeout with the signal pending: still the descriptor scan
       first; nothing is ready, so the signal ends it. */
    before = usr1;
    r = ppoll(&pf, 1, &zero, &waitmask);
    report("ppoll zero timeout", r, errno, before);

    /* A mask that keeps SIGUSR1 blocked: a timeout, signal left pending. */
    before = usr1;
    raise(SIGUSR1);
    struct timespec short_wait = { 0, 10 * 1000 * 1000 };
    r = ppoll(&pf, 1, &short_wait, &usr1set);
    printf("ppoll still blocked: r %d ran %d still-pending %d own-mask-after %d\n", r,
           usr1 - before, usr1_pending(), own_mask());
    sigsuspend(&waitmask); /* takes it */

    /* pselect with a pending signal, and one sent while it waits. */
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(pfd[0], &rd);
    before = usr1;
    raise(SIGUSR1);
    r = pselect(pfd[0] + 1, &rd, NULL, NULL, &five, &waitmask);
    report("pselect pending", r, errno, before);

    pthread_t th;
    FD_ZERO(&rd);
    FD_SET(pfd[0], &rd);
    before = usr1;
    pthread_create(&th, NULL, late_kill, NULL);
    r = pselect(pfd[0] + 1, &rd, NULL, NULL, &five, &waitmask);
    report("pselect woken", r, errno, before);
    pthread_join(th, NULL);

    /* epoll_pwait: the same rules. */
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 7 }, out;
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &ev) == 0);
    before = usr1;
    raise(SIGUSR1);
    r = epoll_pwait(ep, &out, 1, 5000, &waitmask);
    report("epoll_pwait pending", r, errno, before);
    before = usr1;
    pthread_create(&th, NULL, late_kill, NULL);
    r = epoll_pwait(ep, &out, 1, 5000, &waitmask);
    report("epoll_pwait woken", r, errno, before);
    pthread_join(th, NULL);

    /* sigsuspend: the handler runs with the suspend mask too. */
    before = usr1;
    raise(SIGUSR1);
    r = sigsuspend(&waitmask);
    report("sigsuspend", r, errno, before);

    /* A null mask leaves the caller's mask alone: SIGUSR1 stays blocked. */
    before = usr1;
    raise(SIGUSR1);
    r = ppoll(&pf, 1, &short_wait, NULL);
    printf("ppoll no mask: r %d ran %d still-pending %d own-mask-after %d\n", r, usr1 - before,
           usr1_pending(), own_mask());
    sigprocmask(SIG_UNBLOCK, &usr1set, NULL);
    printf("after unblock ran %d\n", usr1 - before);

    CHECK(usr1 == 9);
    printf("sigmask_wait: %d failures\n", failures);
    return failures;
}
