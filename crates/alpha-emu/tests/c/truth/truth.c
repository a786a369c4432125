/* Host I/O, blocking and identity as the guest sees them; one probe per
   argv[1]. Used by crates/subword/tests/alpha_linux_truth.rs, which sets up
   the host side (stdout on /dev/full or closed, a reader that leaves, a
   stdin that is a file or a pipe held open) and compares subword with
   qemu-alpha and with what Linux must do. Reports go to stderr (stdout is
   often the thing under test). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_sigpipe;
static void on_sigpipe(int s) { (void)s; got_sigpipe = 1; }

/* Write lines until write fails; report errno and exit 5. */
static int write_until_error(void) {
    for (long i = 0; i < 1000000; i++) {
        if (write(1, "hello world\n", 12) < 0) {
            int e = errno;
            fprintf(stderr, "write failed: %s (sigpipe handler ran: %d)\n", strerror(e),
                    (int)got_sigpipe);
            return 5;
        }
    }
    return 0;
}

static int pipefd[2];
static void *late_writer(void *a) {
    (void)a;
    volatile unsigned long s = 0;
    for (unsigned long i = 0; i < 3000000; i++) s += i;
    write(pipefd[1], "x", 1);
    return 0;
}

static void *stdin_reader(void *a) {
    (void)a;
    char b[16];
    ssize_t n = read(0, b, sizeof b);
    fprintf(stderr, "reader got %zd\n", n);
    return 0;
}

int main(int argc, char **argv) {
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "write")) return write_until_error();
    if (!strcmp(m, "sigpipe-ignored")) {
        signal(SIGPIPE, SIG_IGN);
        return write_until_error();
    }
    if (!strcmp(m, "sigpipe-handled")) {
        signal(SIGPIPE, on_sigpipe);
        return write_until_error();
    }
    if (!strcmp(m, "short-write")) {
        /* Non-blocking stdout on a pipe nobody drains: one big write
           returns what the pipe took. */
        fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
        static char big[1 << 20];
        memset(big, 'z', sizeof big);
        ssize_t n = write(1, big, sizeof big);
        ssize_t again = write(1, big, sizeof big);
        fprintf(stderr, "wrote %zd then %zd (%s)\n", n, again,
                again < 0 ? strerror(errno) : "ok");
        return 0;
    }
    if (!strcmp(m, "pipe-wait")) {
        /* read of an empty pipe whose writer is open blocks until the
           other thread writes. */
        pipe(pipefd);
        pthread_t t;
        pthread_create(&t, 0, late_writer, 0);
        char c = 0;
        ssize_t n = read(pipefd[0], &c, 1);
        pthread_join(t, 0);
        fprintf(stderr, "read %zd '%c'\n", n, c);
        return 0;
    }
    if (!strcmp(m, "stdin-thread")) {
        /* One thread blocks in read(0); the main thread keeps running and
           says so on stdout; the input comes only after that. */
        pthread_t t;
        pthread_create(&t, 0, stdin_reader, 0);
        volatile unsigned long s = 0;
        for (unsigned long i = 0; i < 3000000; i++) s += i;
        write(1, "computed\n", 9);
        pthread_join(t, 0);
        return 0;
    }
    if (!strcmp(m, "ident")) {
        fprintf(stderr, "uid=%d euid=%d gid=%d egid=%d pid=%d ppid=%d\n", (int)getuid(),
                (int)geteuid(), (int)getgid(), (int)getegid(), (int)getpid(), (int)getppid());
        return 0;
    }
    if (!strcmp(m, "umask")) {
        mode_t old = umask(077);
        mode_t again = umask(old);
        fprintf(stderr, "umask old=%03o again=%03o\n", (unsigned)old, (unsigned)again);
        return 0;
    }
    if (!strcmp(m, "waitpid")) {
        int st;
        pid_t r = waitpid(-1, &st, 0);
        fprintf(stderr, "waitpid=%d (%s)\n", (int)r, r < 0 ? strerror(errno) : "ok");
        return 0;
    }
    if (!strcmp(m, "lseek-stdin")) {
        off_t o = lseek(0, 4, SEEK_SET);
        char b[6] = {0};
        ssize_t n = read(0, b, 5);
        fprintf(stderr, "lseek=%ld read=%zd '%s'\n", (long)o, n, b);
        return 0;
    }
    if (!strcmp(m, "poll")) {
        /* poll and select over a pipe: nothing yet (timeout 0), a late
           writer thread wakes an infinite poll, a timed poll times out,
           select sees the write end writable, a closed writer is POLLHUP. */
        pipe(pipefd);
        struct pollfd pf = {pipefd[0], POLLIN, 0};
        int a = poll(&pf, 1, 0);
        pthread_t t;
        pthread_create(&t, 0, late_writer, 0);
        int b = poll(&pf, 1, -1);
        int brev = pf.revents;
        pthread_join(t, 0);
        char c;
        read(pipefd[0], &c, 1);
        int d = poll(&pf, 1, 50);
        fd_set w;
        FD_ZERO(&w);
        FD_SET(pipefd[1], &w);
        struct timeval tv = {0, 0};
        int e = select(pipefd[1] + 1, 0, &w, 0, &tv);
        int eset = FD_ISSET(pipefd[1], &w);
        close(pipefd[1]);
        int f = poll(&pf, 1, -1);
        fprintf(stderr, "poll %d, %d rev=%#x, %d; select %d set=%d; hup %d rev=%#x\n", a, b, brev,
                d, e, eset, f, pf.revents);
        return 0;
    }
    fprintf(stderr, "unknown probe %s\n", m);
    return 2;
}
