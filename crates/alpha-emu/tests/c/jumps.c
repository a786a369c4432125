/* status: 0 */
/* setjmp/longjmp out of nested frames, sigsetjmp with a signal mask, and
   values of non-volatile locals after the jump. Expected: exit 0. */
#include <setjmp.h>
#include <signal.h>
#include "check.h"

static jmp_buf jb;
static int depth_reached;

static void dive(int n)
{
    char pad[100];
    pad[n % 100] = (char)n;
    depth_reached = n + pad[n % 100] * 0;
    if (n == 50) longjmp(jb, n * 2);
    dive(n + 1);
}

int main(void)
{
    volatile int count = 0;
    int r = setjmp(jb);
    count++;
    if (r == 0) dive(0);
    printf("setjmp returned %d after %d entries, depth %d\n", r, count, depth_reached);
    CHECK(r == 100 && count == 2);
    sigjmp_buf sj;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    if (sigsetjmp(sj, 1) == 0) {
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        siglongjmp(sj, 7);
    }
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("mask restored %d\n", sigismember(&now, SIGUSR1));
    CHECK(sigismember(&now, SIGUSR1) == 1);
    /* longjmp with 0 becomes 1 */
    volatile int second = 0;
    int v = setjmp(jb);
    if (!second) {
        second = 1;
        longjmp(jb, 0);
    }
    CHECK(v == 1);
    printf("jumps: %d failures\n", failures);
    return failures;
}
