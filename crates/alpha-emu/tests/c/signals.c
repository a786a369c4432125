/* status: 0 */
/* Signal handlers: raise/kill with SA_SIGINFO, blocked and pending signals,
   a SIGSEGV handler that escapes with siglongjmp, integer division by zero
   (libgcc's __divq uses the gentrap PALcall: SIGFPE FPE_INTDIV), and an
   alternate signal stack. Expected: exit 0. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t hits[65];
static volatile int last_code, on_alt;
static sigjmp_buf env;
static char altstack[65536];

static void handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    hits[sig]++;
    last_code = si->si_code;
    char probe;
    on_alt = (&probe >= altstack && &probe < altstack + sizeof altstack);
    if (sig == SIGSEGV || sig == SIGFPE) siglongjmp(env, sig);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    int sigs[] = { SIGUSR1, SIGUSR2, SIGSEGV, SIGFPE, SIGTERM };
    for (unsigned i = 0; i < 5; i++) sigaction(sigs[i], &sa, NULL);

    raise(SIGUSR1);
    kill(getpid(), SIGUSR2);
    printf("usr1 %d usr2 %d code-tkill %d\n", hits[SIGUSR1], hits[SIGUSR2], last_code == SI_USER || last_code == SI_TKILL);

    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    raise(SIGTERM);
    sigpending(&pend);
    printf("term pending %d delivered %d\n", sigismember(&pend, SIGTERM), hits[SIGTERM]);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    printf("term after unblock %d\n", hits[SIGTERM]);

    if (sigsetjmp(env, 1) == 0) {
        volatile int *bad = (int *)OPAQUE((uintptr_t)16);
        *bad = 1;
        printf("no fault\n");
    }
    printf("segv %d code-maperr %d\n", hits[SIGSEGV], last_code == SEGV_MAPERR);

    if (sigsetjmp(env, 1) == 0) {
        volatile long q = OPAQUE(10L) / OPAQUE(0L);
        printf("no trap %ld\n", q);
    }
    printf("fpe %d code-intdiv %d\n", hits[SIGFPE], last_code == FPE_INTDIV);

    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
    CHECK(sigaltstack(&ss, NULL) == 0);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    printf("usr1 %d on altstack %d\n", hits[SIGUSR1], on_alt);

    signal(SIGUSR2, SIG_IGN);
    raise(SIGUSR2);
    printf("ignored usr2 still %d\n", hits[SIGUSR2]);
    CHECK(hits[SIGUSR1] == 2 && hits[SIGTERM] == 1 && hits[SIGSEGV] == 1 && hits[SIGFPE] == 1);
    printf("signals: %d failures\n", failures);
    return failures;
}
