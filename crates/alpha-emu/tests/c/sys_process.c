/* status: 0 */
/* System calls of the process and its memory, each checked by its effect
   (a missing call answers ENOSYS and changes the output): resource limits
   (setrlimit/getrlimit/prlimit, Alpha's RLIM_INFINITY), CPU affinity and
   scheduling parameters, nice values, set_robust_list, the set*id family
   to the caller's own ids, gethostname, mlock/munlock, msync, mincore,
   memfd_create, close_range. Expected: exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

#define ERR(x) ((x) == 0 ? "0" : strerror(errno))

int main(void)
{
    /* resource limits */
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    struct rlimit lower = {100, rl.rlim_max};
    CHECK(setrlimit(RLIMIT_NOFILE, &lower) == 0);
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    printf("setrlimit NOFILE: soft %lu\n", (unsigned long)rl.rlim_cur);
    struct rlimit as = {RLIM_INFINITY, RLIM_INFINITY}, got;
    CHECK(prlimit(0, RLIMIT_AS, NULL, &got) == 0);
    printf("RLIMIT_AS unlimited: %d %d\n", got.rlim_cur == RLIM_INFINITY, got.rlim_max == RLIM_INFINITY);
    CHECK(prlimit(0, RLIMIT_AS, &as, NULL) == 0);
    struct rlimit bad = {10, 5};
    errno = 0;
    printf("setrlimit soft > hard: %s\n", ERR(setrlimit(RLIMIT_CORE, &bad)));
    long raw[2];
    CHECK(syscall(SYS_getrlimit, RLIMIT_AS, raw) == 0);
    printf("getrlimit syscall infinity: %lx\n", (unsigned long)raw[0]);

    /* affinity and scheduling */
    cpu_set_t set;
    CPU_ZERO(&set);
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    printf("sched_getaffinity: cpu0 %d count>=1 %d\n", CPU_ISSET(0, &set), CPU_COUNT(&set) >= 1);
    errno = 0;
    printf("raw sched_getaffinity len 4: %s\n", ERR(syscall(SYS_sched_getaffinity, 0, 4, &set)));
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
    printf("sched_getscheduler: %d\n", sched_getscheduler(0));
    struct sched_param sp = {.sched_priority = 7};
    CHECK(sched_getparam(0, &sp) == 0);
    printf("sched_getparam: %d\n", sp.sched_priority);
    printf("priority max/min FIFO %d %d OTHER %d\n", sched_get_priority_max(SCHED_FIFO),
           sched_get_priority_min(SCHED_FIFO), sched_get_priority_max(SCHED_OTHER));
    sp.sched_priority = 0;
    printf("sched_setscheduler OTHER: %d\n", sched_setscheduler(0, SCHED_OTHER, &sp));
    struct timespec q;
    printf("sched_rr_get_interval: %d\n", sched_rr_get_interval(0, &q));
    errno = 0;
    int pr = getpriority(PRIO_PROCESS, 0);
    printf("getpriority: errno %d\n", errno); /* the value is the caller's nice */
    CHECK(setpriority(PRIO_PROCESS, 0, pr + 2) == 0);
    printf("setpriority +2: now %d more\n", getpriority(PRIO_PROCESS, 0) - pr);
    errno = 0;
    printf("getpriority bad which: %s\n", ERR(getpriority(7, 0)));

    /* robust futex list: glibc registers one at start */
    long head[3] = {0, 0, 0};
    head[0] = (long)head;
    printf("set_robust_list: %ld\n", syscall(SYS_set_robust_list, head, 24));
    errno = 0;
    printf("set_robust_list bad len: %s\n", ERR(syscall(SYS_set_robust_list, head, 7)));

    /* ids */
    uid_t r, e, s;
    printf("setuid self: %d setgid self: %d\n", setuid(getuid()), setgid(getgid()));
    printf("setreuid/setregid keep: %d %d\n", setreuid(-1, -1), setregid(-1, -1));
    printf("setresuid/setresgid keep: %d %d\n", setresuid(-1, -1, -1), setresgid(-1, -1, -1));
    CHECK(getresuid(&r, &e, &s) == 0);
    printf("getresuid consistent: %d\n", r == getuid() && e == geteuid());

    char host[256];
    printf("gethostname: %d nonempty %d\n", gethostname(host, sizeof host), host[0] != 0);

    /* memory */
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    memset(m, 1, 3 * pg);
    printf("mlock: %d munlock: %d\n", mlock(m, pg), munlock(m, pg));
    printf("msync: %d\n", msync(m, pg, MS_SYNC));
    errno = 0;
    printf("msync unaligned: %s\n", ERR(msync(m + 1, pg, MS_SYNC)));
    unsigned char vec[3] = {9, 9, 9};
    CHECK(mincore(m, 3 * pg, vec) == 0);
    printf("mincore: %d %d %d\n", vec[0] & 1, vec[1] & 1, vec[2] & 1);
    CHECK(munmap(m + pg, pg) == 0);
    errno = 0;
    printf("mincore over a hole: %s\n", ERR(mincore(m, 3 * pg, vec)));

    int mfd = memfd_create("probe", MFD_CLOEXEC);
    CHECK(mfd >= 0);
    CHECK(write(mfd, "memfd!", 6) == 6);
    struct stat st;
    CHECK(fstat(mfd, &st) == 0);
    char b[8] = {0};
    CHECK(pread(mfd, b, 6, 0) == 6);
    printf("memfd_create: size %ld \"%s\" cloexec %d\n", (long)st.st_size, b,
           fcntl(mfd, F_GETFD) & FD_CLOEXEC);

    int a = dup(1), c = dup(1);
    printf("close_range cloexec: %ld\n", syscall(SYS_close_range, a, c, 4));
    printf("flags %d %d\n", fcntl(a, F_GETFD), fcntl(c, F_GETFD));
    printf("close_range: %ld\n", syscall(SYS_close_range, a, c, 0));
    errno = 0;
    printf("closed: %d %s\n", fcntl(a, F_GETFD), strerror(errno));
    return failures;
}
