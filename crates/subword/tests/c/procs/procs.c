/* Process probes for subword's differential suite: one probe per first
 * argument; only the parent prints after it has reaped the child, so the
 * output has one order. Alpha signal numbers are printed as the guest's
 * <signal.h> spells them (SIGUSR1 30, SIGCHLD 20). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void report(const char *what, int st) {
    if (WIFEXITED(st))
        printf("%s: exited %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("%s: killed by signal %d\n", what, WTERMSIG(st));
    else
        printf("%s: status 0x%x\n", what, st);
}

static pid_t reap(const char *what, pid_t pid) {
    int st = 0;
    pid_t r = waitpid(pid, &st, 0);
    if (r != pid) {
        printf("%s: waitpid returned %d (%s)\n", what, (int)r, strerror(errno));
        return r;
    }
    report(what, st);
    return r;
}

static const char *errname(int e) {
    switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOEXEC: return "ENOEXEC";
    case EFAULT: return "EFAULT";
    case ECHILD: return "ECHILD";
    case EAGAIN: return "EAGAIN";
    case ELOOP: return "ELOOP";
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    case EPERM: return "EPERM";
    default: return "other";
    }
}

/* "R ERRNO" of a call's result, the errno read after the call. */
static void show(const char *what, long r) {
    int e = errno;
    printf("%s: %ld %s\n", what, r, r < 0 ? errname(e) : "");
}

static volatile sig_atomic_t got;
static void on_sig(int s) { got = s; }

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *p = argc > 1 ? argv[1] : "";
    if (!strcmp(p, "fork-exit")) {
        pid_t c = fork();
        if (c == 0) _exit(7);
        reap("child", c);
        pid_t c2 = fork();
        if (c2 == 0) exit(0);
        reap("second child", c2);
        return 0;
    }
    if (!strcmp(p, "fork-signal")) {
        pid_t c = fork();
        if (c == 0) { raise(SIGUSR1); _exit(1); }
        reap("raise SIGUSR1", c);
        c = fork();
        if (c == 0) { *(volatile int *)0 = 1; _exit(1); }
        reap("null store", c);
        c = fork();
        if (c == 0) { abort(); }
        reap("abort", c);
        return 0;
    }
    if (!strcmp(p, "pipe")) {
        int fd[2];
        if (pipe(fd)) return 9;
        if (write(fd[1], "written before fork\n", 20) != 20) return 9;
        pid_t c = fork();
        if (c == 0) {
            char buf[64];
            ssize_t n = read(fd[0], buf, 20);
            close(fd[0]);
            static const char msg[] = "hello from the child\n";
            if (write(fd[1], buf, n) != n || write(fd[1], msg, sizeof msg - 1) < 0) _exit(2);
            _exit(0);
        }
        close(fd[1]);
        reap("child", c);
        char buf[128];
        size_t got_n = 0;
        ssize_t n;
        while ((n = read(fd[0], buf + got_n, sizeof buf - 1 - got_n)) > 0) got_n += n;
        buf[got_n] = 0;
        printf("parent read %zu bytes:\n%s", got_n, buf);
        printf("after the child's exit read gives %zd\n", read(fd[0], buf, 1));
        return 0;
    }
    if (!strcmp(p, "getppid")) {
        pid_t me = getpid();
        pid_t c = fork();
        if (c == 0) _exit(getppid() == me && getpid() != me ? 0 : 1);
        printf("fork returned a pid other than ours: %d\n", c > 0 && c != me);
        reap("child (0: getppid is the parent, getpid is new)", c);
        return 0;
    }
    if (!strcmp(p, "pgrp")) {
        pid_t c = fork();
        if (c == 0) {
            int ok = 0;
            if (getpgrp() == getpgid(0)) ok |= 1;
            if (setsid() == getpid() && getsid(0) == getpid()) ok |= 2;
            if (getpgrp() == getpid() && getpgid(0) == getpid()) ok |= 4;
            if (setpgid(0, 0) == -1 && errno == EPERM) ok |= 8;
            _exit(ok);
        }
        reap("child (15: setsid, getpgid, getsid, setpgid agree)", c);
        show("getpgid(-5)", getpgid(-5));
        return 0;
    }
    if (!strcmp(p, "wait")) {
        int st;
        show("waitpid with no child", waitpid(-1, &st, 0));
        int fd[2];
        if (pipe(fd)) return 9;
        pid_t c = fork();
        if (c == 0) { char b; close(fd[1]); _exit(read(fd[0], &b, 1) == 0 ? 3 : 4); }
        close(fd[0]);
        printf("WNOHANG while it runs: %d\n", (int)waitpid(c, &st, WNOHANG));
        close(fd[1]);
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int r = waitid(P_PID, c, &si, WEXITED | WNOWAIT);
        printf("waitid WNOWAIT: %d signo %s code %s status %d pid ok %d\n", r,
               si.si_signo == SIGCHLD ? "SIGCHLD" : "?",
               si.si_code == CLD_EXITED ? "CLD_EXITED" : "?", si.si_status, si.si_pid == c);
        memset(&si, 0, sizeof si);
        r = waitid(P_ALL, 0, &si, WEXITED);
        printf("waitid: %d status %d pid ok %d\n", r, si.si_status, si.si_pid == c);
        show("then waitpid", waitpid(c, &st, 0));
        c = fork();
        if (c == 0) { kill(getpid(), SIGTERM); _exit(1); }
        memset(&si, 0, sizeof si);
        r = waitid(P_PID, c, &si, WEXITED);
        printf("waitid of a killed child: code %s status %d\n",
               si.si_code == CLD_KILLED ? "CLD_KILLED" : "?", si.si_status);
        c = fork();
        if (c == 0) _exit(1);
        show("wait4 into a bad status pointer", syscall(SYS_wait4, c, (int *)8, 0, NULL));
        show("then", waitpid(-1, &st, 0));
        return 0;
    }
    if (!strcmp(p, "sigchld")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sig;
        sigaction(SIGCHLD, &sa, NULL);
        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGCHLD);
        sigprocmask(SIG_BLOCK, &block, &old);
        pid_t c = fork();
        if (c == 0) _exit(4);
        while (!got) sigsuspend(&old);
        printf("SIGCHLD handler ran with signal %d\n", (int)got);
        reap("child", c);
        return 0;
    }
    if (!strcmp(p, "kill")) {
        int fd[2];
        if (pipe(fd)) return 9;
        /* SIGUSR1 stays blocked in the child until sigsuspend opens it: a
           signal arriving between the test of `got` and pause() would be
           handled there and leave pause() waiting for ever. */
        sigset_t usr1, old;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigprocmask(SIG_BLOCK, &usr1, &old);
        pid_t c = fork();
        if (c == 0) {
            signal(SIGUSR1, on_sig);
            if (write(fd[1], "r", 1) != 1) _exit(2);
            while (!got) sigsuspend(&old);
            _exit(got == SIGUSR1 ? 42 : 43);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        char b;
        if (read(fd[0], &b, 1) != 1) return 9;
        printf("kill SIGUSR1: %d\n", kill(c, SIGUSR1));
        reap("child with a SIGUSR1 handler", c);
        c = fork();
        if (c == 0) { for (;;) pause(); }
        printf("kill SIGTERM: %d\n", kill(c, SIGTERM));
        reap("pausing child", c);
        c = fork();
        if (c == 0) { signal(SIGTERM, SIG_IGN); if (write(fd[1], "r", 1) != 1) _exit(2); sleep(1); _exit(6); }
        if (read(fd[0], &b, 1) != 1) return 9;
        kill(c, SIGTERM);
        reap("child ignoring SIGTERM", c);
        errno = 0;
        printf("kill of a reaped pid: %d %s\n", kill(c, 0), errno == ESRCH ? "ESRCH" : "?");
        return 0;
    }
    if (!strcmp(p, "nocldwait")) {
        /* SIGCHLD ignored: children leave no zombie, and wait blocks until
         * they have all ended, then fails with ECHILD. */
        signal(SIGCHLD, SIG_IGN);
        pid_t c = fork();
        if (c == 0) { usleep(100000); _exit(3); }
        int st = 0;
        errno = 0;
        show("SIG_IGN: waitpid(-1) after the child ended", waitpid(-1, &st, 0));
        errno = 0;
        show("SIG_IGN: kill(child, 0), no zombie left", kill(c, 0));
        /* Back to the default: the child is a zombie until reaped. */
        signal(SIGCHLD, SIG_DFL);
        c = fork();
        if (c == 0) _exit(7);
        usleep(100000);
        errno = 0;
        show("SIG_DFL: kill(zombie, 0)", kill(c, 0));
        reap("SIG_DFL child", c);
        return 0;
    }
    if (!strcmp(p, "sa-nocldwait")) {
        /* SA_NOCLDWAIT with a handler: no zombie either (wait gets
         * ECHILD), and the handler still runs, as Linux raises SIGCHLD. */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sig;
        sa.sa_flags = SA_NOCLDWAIT | SA_RESTART;
        sigaction(SIGCHLD, &sa, NULL);
        pid_t c = fork();
        if (c == 0) _exit(5);
        int st = 0;
        errno = 0;
        show("SA_NOCLDWAIT: waitpid(child)", waitpid(c, &st, 0));
        while (!got) usleep(1000);
        printf("SA_NOCLDWAIT: handler ran with signal %d\n", (int)got);
        return 0;
    }
    if (!strcmp(p, "kill-all")) {
        /* kill(-1, sig) reaches the child and the grandchild, not the
         * caller; with nobody else left it is ESRCH. */
        signal(SIGUSR1, on_sig);
        sigset_t usr1, old;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigprocmask(SIG_BLOCK, &usr1, &old);
        int fd[2];
        if (pipe(fd)) return 9;
        pid_t c = fork();
        if (c == 0) {
            pid_t g = fork();
            if (g == 0) {
                if (write(fd[1], "g", 1) != 1) _exit(2);
                while (!got) sigsuspend(&old);
                _exit(got == SIGUSR1 ? 43 : 44);
            }
            if (write(fd[1], "c", 1) != 1) _exit(2);
            while (!got) sigsuspend(&old);
            int st = 0;
            waitpid(g, &st, 0);
            _exit(WIFEXITED(st) && WEXITSTATUS(st) == 43 ? 42 : 41);
        }
        char b[2];
        if (read(fd[0], b, 1) != 1 || read(fd[0], b + 1, 1) != 1) return 9;
        errno = 0;
        show("kill(-1, SIGUSR1)", kill(-1, SIGUSR1));
        sigprocmask(SIG_SETMASK, &old, NULL);
        printf("caller's own handler ran: %d\n", got != 0);
        reap("child (42: it and its child were signalled)", c);
        errno = 0;
        show("kill(-1, 0) with no other process", kill(-1, 0));
        return 0;
    }
    if (!strcmp(p, "vfork")) {
        pid_t c = vfork();
        if (c == 0) _exit(5);
        reap("vfork child", c);
        return 0;
    }
    if (!strcmp(p, "show-args")) {
        for (int i = 0; i < argc; i++) printf("argv[%d] = %s\n", i, argv[i]);
        const char *e = getenv("PROCS_PID");
        if (e) printf("same pid after execve: %d\n", atoi(e) == getpid());
        const char *x = getenv("PROCS_X");
        printf("PROCS_X = %s\n", x ? x : "(unset)");
        printf("fd 5 open: %d, fd 6 open: %d\n", write(5, "", 0) == 0, write(6, "", 0) == 0);
        printf("SIGINT ignored: %d, SIGUSR1 default: %d\n",
               signal(SIGINT, SIG_DFL) == SIG_IGN, signal(SIGUSR1, SIG_DFL) == SIG_DFL);
        return 11;
    }
    if (!strcmp(p, "exec") && argc > 2) {
        /* argv[2]: a program to exec with the probe show-args. */
        signal(SIGINT, SIG_IGN);
        signal(SIGUSR1, on_sig);
        dup2(1, 5);
        dup2(1, 6);
        if (fcntl(6, F_SETFD, FD_CLOEXEC) != 0) return 9;
        pid_t c = fork();
        if (c == 0) {
            char pid[32];
            snprintf(pid, sizeof pid, "PROCS_PID=%d", getpid());
            char *env[] = {pid, "PROCS_X=from execve", NULL};
            char *args[] = {argv[2], "show-args", "two words", NULL};
            execve(argv[2], args, env);
            printf("execve failed: %s\n", strerror(errno));
            _exit(127);
        }
        reap("exec'd child", c);
        return 0;
    }
    if (!strcmp(p, "exec-errors") && argc > 4) {
        /* argv[2] not executable, argv[3] garbage with x bit, argv[4] a
         * directory, argv[5] (optional) one more. */
        const char *paths[] = {"/nonexistent/prog", argv[2], argv[3], argv[4], argc > 5 ? argv[5] : NULL};
        for (int i = 0; i < 5 && paths[i]; i++) {
            char *args[] = {(char *)paths[i], NULL};
            errno = 0;
            int r = execve(paths[i], args, environ);
            printf("execve #%d: %d %s\n", i, r, errname(errno));
        }
        errno = 0;
        int r = syscall(SYS_execve, (char *)8, NULL, NULL);
        printf("execve of a bad pointer: %d %s\n", r, errname(errno));
        char *bad[] = {"x", (char *)8, NULL};
        errno = 0;
        r = execve(argv[0], bad, environ);
        printf("execve with a bad argv string: %d %s\n", r, errname(errno));
        printf("still running\n");
        return 0;
    }
    if (!strcmp(p, "posix_spawn") && argc > 2) {
        pid_t c;
        char *args[] = {argv[2], "show-args", "spawned", NULL};
        char *env[] = {"PROCS_X=spawned", NULL};
        int r = posix_spawn(&c, argv[2], NULL, NULL, args, env);
        int st = 0;
        if (r == 0) waitpid(c, &st, 0);
        printf("posix_spawn: %d\n", r);
        if (r == 0) report("spawned", st);
        char *args2[] = {"/nonexistent", NULL};
        r = posix_spawn(&c, "/nonexistent", NULL, NULL, args2, env);
        st = 0;
        if (r == 0) waitpid(c, &st, 0);
        printf("posix_spawn of a missing program fails: %d\n",
               r == ENOENT || (r == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127));
        return 0;
    }
    if (!strcmp(p, "exec-self")) {
        /* /proc/self/exe names this program: execv of it runs it again,
         * and so does fexecve of a descriptor open on it. */
        pid_t c = fork();
        if (c == 0) {
            char *args[] = {"self", "show-args", "via /proc/self/exe", NULL};
            execv("/proc/self/exe", args);
            printf("execv /proc/self/exe: %s\n", errname(errno));
            _exit(127);
        }
        reap("exec'd /proc/self/exe", c);
        c = fork();
        if (c == 0) {
            int fd = open("/proc/self/exe", O_RDONLY);
            char *args[] = {"fd", "show-args", "via fexecve", NULL};
            fexecve(fd, args, environ);
            printf("fexecve: %s\n", errname(errno));
            _exit(127);
        }
        reap("fexecve'd", c);
        return 0;
    }
    if (!strcmp(p, "sleeper")) {
        /* Wait until stdin (a pipe) ends. */
        char b;
        while (read(0, &b, 1) > 0) {}
        return 0;
    }
    if (!strcmp(p, "proc-other")) {
        /* The guest /proc shows another guest process as the guest knows
         * it: its comm (the file it executed), command line and exe. */
        int fd[2];
        if (pipe(fd)) return 9;
        pid_t c = fork();
        if (c == 0) {
            dup2(fd[0], 0);
            close(fd[1]);
            execl("/proc/self/exe", "renamed", "sleeper", "an argument", (char *)0);
            _exit(127);
        }
        close(fd[0]);
        char path[64], buf[512];
        int ok = 0;
        for (int tries = 0; tries < 500 && !ok; tries++) {
            snprintf(path, sizeof path, "/proc/%d/cmdline", c);
            int f = open(path, O_RDONLY);
            ssize_t n = f >= 0 ? read(f, buf, sizeof buf) : -1;
            if (f >= 0) close(f);
            if (n == 28 && !memcmp(buf, "renamed\0sleeper\0an argument\0", 28)) ok = 1;
            else usleep(10000);
        }
        printf("cmdline: %d\n", ok);
        snprintf(path, sizeof path, "/proc/%d/comm", c);
        FILE *f = fopen(path, "r");
        if (f && fgets(buf, sizeof buf, f)) printf("comm is exe: %d\n", !strcmp(buf, "exe\n"));
        if (f) fclose(f);
        snprintf(path, sizeof path, "/proc/%d/stat", c);
        f = fopen(path, "r");
        int spid = 0, sppid = 0; char comm[64] = "", st = 0;
        if (f && fscanf(f, "%d (%63[^)]) %c %d", &spid, comm, &st, &sppid) == 4)
            printf("stat: pid %d comm %s ppid is us %d\n", spid == c, comm, sppid == getpid());
        if (f) fclose(f);
        char a[512] = "", b[512] = "";
        snprintf(path, sizeof path, "/proc/%d/exe", c);
        ssize_t na = readlink(path, a, sizeof a - 1), nb = readlink("/proc/self/exe", b, sizeof b - 1);
        printf("exe is ours: %d\n", na > 0 && na == nb && !memcmp(a, b, na));
        close(fd[1]);
        reap("sleeper", c);
        snprintf(path, sizeof path, "/proc/%d/cmdline", c);
        printf("gone after reaping: %d\n", access(path, F_OK) != 0 && errno == ENOENT);
        return 0;
    }
    if (!strcmp(p, "popen") && argc > 2) {
        FILE *f = popen(argv[2], "r");
        if (!f) { printf("popen: %s\n", errname(errno)); return 1; }
        char line[256];
        while (fgets(line, sizeof line, f)) printf("read: %s", line);
        report("pclose", pclose(f));
        f = popen("cat > /dev/null; exit 3", "w");
        fputs("to the child\n", f);
        report("pclose of a writer", pclose(f));
        return 0;
    }
    if (!strcmp(p, "system")) {
        int st = system(argc > 2 ? argv[2] : "true");
        report("system", st);
        return 0;
    }
    if (!strcmp(p, "forkbomb")) {
        int fd[2];
        if (pipe(fd)) return 9;
        int n = 0;
        for (;;) {
            if (n == 64) { printf("no limit after 64 forks\n"); break; }
            pid_t c = fork();
            if (c == 0) { char b; close(fd[1]); _exit(read(fd[0], &b, 1) == 0 ? 0 : 1); }
            if (c < 0) { printf("fork %d failed: %s\n", n + 1, errname(errno)); break; }
            n++;
        }
        close(fd[1]);
        int reaped = 0, st;
        while (wait(&st) > 0) reaped += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        printf("reaped %d of %d\n", reaped, n);
        pid_t c = fork();
        if (c == 0) _exit(0);
        printf("fork after reaping: %s\n", c > 0 ? "ok" : errname(errno));
        if (c > 0) waitpid(c, &st, 0);
        return 0;
    }
    if (!strcmp(p, "cap-churn")) {
        /* Children that never reach wait: killed ones under SIG_IGN
         * (nothing to reap), exited ones under SIG_IGN, and killed ones
         * reaped by waitpid. With a cap of 2 every fork must still work. */
        int ok = 0;
        signal(SIGCHLD, SIG_IGN);
        for (int i = 0; i < 10; i++) {
            pid_t c = fork();
            if (c == 0) { for (;;) pause(); }
            if (c < 0) { printf("ignored, killed: fork %d failed: %s\n", i + 1, errname(errno)); return 1; }
            kill(c, SIGKILL);
            while (kill(c, 0) == 0) usleep(1000);
            ok++;
        }
        for (int i = 0; i < 10; i++) {
            pid_t c = fork();
            if (c == 0) _exit(0);
            if (c < 0) { printf("ignored, exited: fork %d failed: %s\n", i + 1, errname(errno)); return 1; }
            while (kill(c, 0) == 0) usleep(1000);
            ok++;
        }
        signal(SIGCHLD, SIG_DFL);
        for (int i = 0; i < 10; i++) {
            pid_t c = fork();
            if (c == 0) { for (;;) pause(); }
            if (c < 0) { printf("reaped, killed: fork %d failed: %s\n", i + 1, errname(errno)); return 1; }
            kill(c, SIGKILL);
            int st;
            waitpid(c, &st, 0);
            ok++;
        }
        printf("%d forks under a cap of 2\n", ok);
        return 0;
    }
    fprintf(stderr, "usage: procs PROBE\n");
    return 2;
}
