/* Signals from outside the guest: one probe per argument. Each prints
 * "ready" once it is about to wait; the test then signals the host process
 * (kill from outside, as a shell's kill or job control would) and compares
 * what the guest printed and how it ended with qemu-alpha's. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
static sem_t sem;

static void on_usr1(int sig)
{
    caught = sig == SIGUSR1;
}

static void on_usr1_post(int sig)
{
    caught = sig == SIGUSR1;
    sem_post(&sem);
}

static void handle(void (*h)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
}

static void ready(void)
{
    puts("ready");
    fflush(stdout);
}

static const char *err(int r)
{
    return r == -1 ? strerror(errno) : "no error";
}

static void *idle_thread(void *a)
{
    /* Another guest thread, blocked too: nothing in the guest can send
     * the signal. */
    pthread_mutex_t *m = a;
    pthread_mutex_lock(m);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "pause")) {
        handle(on_usr1, 0);
        ready();
        int r = pause();
        printf("pause: %d (%s), handler ran: %d\n", r, err(r), caught);
    } else if (!strcmp(what, "sigsuspend")) {
        handle(on_usr1, 0);
        sigset_t block, none;
        sigemptyset(&block);
        sigaddset(&block, SIGUSR1);
        sigprocmask(SIG_BLOCK, &block, NULL);
        sigemptyset(&none);
        ready();
        int r = sigsuspend(&none);
        printf("sigsuspend: %d (%s), handler ran: %d\n", r, err(r), caught);
    } else if (!strcmp(what, "futex")) {
        /* Two threads blocked in futex waits; the handler posts the
         * semaphore main waits on. */
        static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_t t;
        pthread_mutex_lock(&m);
        pthread_create(&t, NULL, idle_thread, &m);
        sem_init(&sem, 0, 0);
        handle(on_usr1_post, SA_RESTART);
        ready();
        int r;
        while ((r = sem_wait(&sem)) == -1 && errno == EINTR)
            ;
        printf("sem_wait: %d, handler ran: %d\n", r, caught);
    } else if (!strcmp(what, "read")) {
        /* stdin is a pipe the test keeps open: the read waits. */
        handle(on_usr1, 0);
        ready();
        char b[16];
        ssize_t r = read(0, b, sizeof b);
        printf("read: %zd (%s), handler ran: %d\n", r, err(r), caught);
    } else if (!strcmp(what, "default")) {
        /* SIGUSR1 left at its default: it ends the process. */
        ready();
        pause();
        puts("not reached");
    } else if (!strcmp(what, "stop")) {
        ready();
        kill(getpid(), SIGSTOP);
        puts("continued after SIGSTOP");
    } else if (!strcmp(what, "tstp")) {
        /* SIGTSTP at its default stops the process; SIGCONT continues the
         * read, which then sees end of input. */
        ready();
        char b[16];
        ssize_t r = read(0, b, sizeof b);
        printf("read after the stop: %zd\n", r);
    } else if (!strcmp(what, "getppid")) {
        /* The parent exits at once; the child waits (bounded) to be
         * re-parented and says whether getppid followed. */
        pid_t parent = getpid();
        pid_t c = fork();
        if (c == 0) {
            for (int i = 0; i < 500 && getppid() == parent; i++) {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
            printf("child: getppid changed from the dead parent: %d\n", getppid() != parent);
            return 0;
        }
        return 0;
    } else {
        fprintf(stderr, "usage: outside pause|sigsuspend|futex|read|default|stop|tstp|getppid\n");
        return 2;
    }
    return 0;
}
