/* glibc's lost wake-up on a pre-BWX build (Debian's glibc for Alpha is
   built without BWX): start_thread stores `pd->exiting = true` with an
   LDQ_U…STQ_U of the quadword that also holds `pd->exit_lock`, while
   holding that lock. pthread_kill(t, 0) on the exiting thread waits for
   exit_lock in __lll_lock_wait_private, whose STL_C sets the lock word to
   2; the stale write-back restores 1, the unlock sees no waiter and skips
   the futex wake, and the waiter sleeps for ever. */
#include <pthread.h>
#include <signal.h>

static void *quick(void *arg) { return arg; }

int main(void) {
    for (int round = 0; round < 4; round++) {
        pthread_t t;
        pthread_create(&t, 0, quick, 0);
        for (int i = 0; i < 20; i++)
            pthread_kill(t, 0);
        pthread_join(t, 0);
    }
    return 0;
}
