/* status: 0 */
/* The guest's own /proc: /proc/self/maps parsed by the program (its code,
   data, heap, stack and a fresh mmap are where the program sees them, with
   the right permissions; file pages with their path, offset, device and
   inode), /proc/self/exe, /proc/self/auxv (AT_PAGESZ and
   AT_ENTRY as getauxval reports them), /proc/self/status, /proc/self/fd/N,
   /proc/<pid>/ for the guest's own pid, /proc/cpuinfo naming an Alpha.
   qemu-alpha 7.2 departs from Linux (expected/procself.linux.out): its
   maps has no [heap], its status and cpuinfo are the host's, and it lets
   /proc/self/maps be opened for writing; those lines are printed, not
   checked. Expected: exit 0. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "check.h"

static int data_var = 42;

/* The offset, device and inode of the last line find_map matched. */
static unsigned long map_off, map_inode;
static char map_dev[16];

/* Find the maps line covering `addr`; copy its permissions and name. */
static int find_map(const void *addr, char perms[5], char *name, size_t nlen)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    char line[512];
    int found = 0;
    unsigned long a = (unsigned long)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi, off, inode;
        char p[5], dev[16];
        int n = 0;
        if (sscanf(line, "%lx-%lx %4s %lx %15s %lu %n", &lo, &hi, p, &off, dev, &inode, &n) < 6)
            continue;
        if (a >= lo && a < hi) {
            memcpy(perms, p, 5);
            map_off = off;
            map_inode = inode;
            memcpy(map_dev, dev, sizeof map_dev);
            char *s = line + n;
            s[strcspn(s, "\n")] = 0;
            snprintf(name, nlen, "%s", s);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    (void)argc;
    char perms[5], name[256];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0);
    exe[n > 0 ? n : 0] = 0;
    char *real = realpath(argv[0], 0);
    CHECK(real && strcmp(real, exe) == 0);
    printf("exe: %s\n", real && strcmp(real, exe) == 0 ? "argv[0]" : exe);

    CHECK(find_map((void *)main, perms, name, sizeof name));
    CHECK(perms[0] == 'r' && perms[2] == 'x' && perms[1] == '-');
    CHECK(strcmp(name, exe) == 0);
    printf("code: %.4s %s\n", perms, strcmp(name, exe) == 0 ? "exe" : name);

    CHECK(find_map(&data_var, perms, name, sizeof name));
    CHECK(perms[0] == 'r' && perms[1] == 'w');
    printf("data: %.2s\n", perms);

    int local;
    CHECK(find_map(&local, perms, name, sizeof name));
    CHECK(strcmp(name, "[stack]") == 0 && perms[1] == 'w');
    printf("stack: %.2s %s\n", perms, name);

    void *heap = sbrk(0);
    CHECK(sbrk(65536) != (void *)-1);
    CHECK(find_map(heap, perms, name, sizeof name));
    printf("heap: %.2s %s\n", perms, name);

    char *m = mmap(0, 3 * 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK(find_map(m + 8192, perms, name, sizeof name));
    CHECK(strcmp(perms, "r--p") == 0 && name[0] == 0);
    printf("mmap: %s anonymous\n", perms);
    munmap(m, 3 * 8192);
    CHECK(!find_map(m + 8192, perms, name, sizeof name));

    /* A file's pages name the file, with their offset, its device and
       inode (printf: libc's code, or the program's when static). */
    struct stat fst;
    CHECK(find_map((void *)printf, perms, name, sizeof name));
    int named = name[0] == '/' && stat(name, &fst) == 0;
    char devs[16] = "";
    if (named)
        snprintf(devs, sizeof devs, "%02x:%02x", major(fst.st_dev), minor(fst.st_dev));
    CHECK(named && fst.st_ino == map_inode && strcmp(devs, map_dev) == 0);
    printf("printf: %.4s file %d inode %d dev %d\n", perms, named, named && fst.st_ino == map_inode,
           strcmp(devs, map_dev) == 0);

    /* A file mmap from offset 8192, its middle page unmapped: two runs of
       the same file at offsets 0x2000 and 0x6000. */
    int pf = open(argv[0], O_RDONLY);
    CHECK(fstat(pf, &fst) == 0 && fst.st_size > 5 * 8192);
    char *fm = mmap(0, 3 * 8192, PROT_READ, MAP_PRIVATE, pf, 8192);
    close(pf);
    CHECK(fm != MAP_FAILED);
    CHECK(munmap(fm + 8192, 8192) == 0);
    CHECK(find_map(fm, perms, name, sizeof name));
    unsigned long off0 = map_off, ino0 = map_inode;
    CHECK(find_map(fm + 2 * 8192, perms, name, sizeof name));
    CHECK(off0 == 0x2000 && map_off == 0x6000 && ino0 == fst.st_ino && map_inode == fst.st_ino);
    printf("file mmap: %.4s offsets %lx %lx inode %d exe %d\n", perms, off0, map_off,
           ino0 == fst.st_ino && map_inode == fst.st_ino, strcmp(name, exe) == 0);
    CHECK(!find_map(fm + 8192, perms, name, sizeof name));
    /* A fixed anonymous mapping over it forgets the file. */
    CHECK(mmap(fm + 2 * 8192, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == fm + 2 * 8192);
    CHECK(find_map(fm + 2 * 8192, perms, name, sizeof name) && name[0] == 0 && map_inode == 0);
    printf("fixed anonymous over it: named %d inode %lu\n", name[0] != 0, map_inode);
    munmap(fm, 3 * 8192);

    /* auxv: the (type, value) pairs getauxval reads. */
    int fd = open("/proc/self/auxv", O_RDONLY);
    CHECK(fd >= 0);
    Elf64_auxv_t av[64];
    ssize_t got = read(fd, av, sizeof av);
    close(fd);
    int pagesz = 0, entry = 0, ends = 0;
    for (int i = 0; i < got / (ssize_t)sizeof av[0]; i++) {
        if (av[i].a_type == AT_PAGESZ && av[i].a_un.a_val == getauxval(AT_PAGESZ)) pagesz = 1;
        if (av[i].a_type == AT_ENTRY && av[i].a_un.a_val == getauxval(AT_ENTRY)) entry = 1;
        if (av[i].a_type == AT_NULL) ends = 1;
    }
    CHECK(pagesz && entry && ends);
    printf("auxv: pagesz %d entry %d null %d\n", pagesz, entry, ends);

    /* status: Pid matches getpid; Name is the program. */
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != 0);
    char line[256];
    int pid_ok = 0, name_ok = 0;
    while (f && fgets(line, sizeof line, f)) {
        long v;
        if (sscanf(line, "Pid: %ld", &v) == 1 && v == getpid()) pid_ok = 1;
        if (strncmp(line, "Name:\tprocself", 14) == 0) name_ok = 1;
    }
    if (f) fclose(f);
    CHECK(pid_ok);
    printf("status: pid %d name %d\n", pid_ok, name_ok);

    /* /proc/<pid>/maps is the same file. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", getpid());
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(access("/proc/self/status", R_OK) == 0);
    int w = open("/proc/self/maps", O_WRONLY);
    printf("maps open for writing: %s\n", w < 0 ? "refused" : "allowed");

    /* fd/N names the open file. */
    int t = open(argv[0], O_RDONLY);
    snprintf(path, sizeof path, "/proc/self/fd/%d", t);
    n = readlink(path, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    CHECK(n > 0 && strstr(exe, "procself") != 0);
    printf("fd: names the file %d\n", n > 0 && strstr(exe, "procself") != 0);
    close(t);

    f = fopen("/proc/cpuinfo", "r");
    CHECK(f != 0);
    int alpha = 0;
    while (f && fgets(line, sizeof line, f))
        if (strcmp(line, "cpu\t\t\t: Alpha\n") == 0) alpha = 1;
    if (f) fclose(f);
    printf("cpuinfo: Alpha %d\n", alpha);
    return failures;
}
