/* status: 0 */
/* System calls of file-system metadata and file contents, each checked by
   its effect (so a missing call, ENOSYS, or a mistranslated structure
   changes the output): truncate/ftruncate, chmod/fchmod/fchmodat,
   chown/fchown/lchown/fchownat to the caller's own ids, utimensat/utimes/
   futimens, link/linkat/symlink/symlinkat/readlinkat, mknod of a FIFO,
   rename to a name that is not UTF-8 (the bytes as given), renameat2
   RENAME_NOREPLACE, statfs/fstatfs, statx, fallocate, posix_fadvise,
   pwrite/pread, preadv/pwritev, sendfile, copy_file_range, the old
   getdents, fcntl record locks (Alpha's l_type values, a lock held by
   another process seen through F_GETLK), flock, sysinfo.
   Expected: exit 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static char dir[] = "/tmp/subword-fsmeta-XXXXXX";

static const char *at(const char *name)
{
    static char buf[4][256];
    static int k;
    char *b = buf[k++ & 3];
    snprintf(b, 256, "%s/%s", dir, name);
    return b;
}

static long size_of(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);

    /* truncate / ftruncate */
    int fd = open(at("f"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, "hello world", 11) == 11);
    CHECK(ftruncate(fd, 5) == 0);
    printf("ftruncate: size %ld\n", size_of(at("f")));
    CHECK(truncate(at("f"), 9000) == 0);
    printf("truncate: size %ld\n", size_of(at("f")));
    char b[64] = {0};
    CHECK(pread(fd, b, 8, 0) == 8);
    printf("after truncate: \"%.5s\" then %d %d %d\n", b, b[5], b[6], b[7]);
    int ro = open(at("f"), O_RDONLY);
    errno = 0;
    printf("ftruncate read-only: %d errno %s\n", ftruncate(ro, 1), strerror(errno));
    close(ro);

    /* pwrite / pread / pwritev / preadv */
    CHECK(pwrite(fd, "ABCDEFGH", 8, 100) == 8);
    CHECK(pread(fd, b, 4, 102) == 4);
    printf("pwrite/pread: %.4s offset %ld\n", b, (long)lseek(fd, 0, SEEK_CUR));
    struct iovec v[2] = {{"xy", 2}, {"zw", 2}};
    CHECK(pwritev(fd, v, 2, 200) == 4);
    char r1[3] = {0}, r2[3] = {0};
    struct iovec w[2] = {{r1, 2}, {r2, 2}};
    CHECK(preadv(fd, w, 2, 200) == 4);
    printf("pwritev/preadv: %s %s\n", r1, r2);

    /* chmod family */
    CHECK(chmod(at("f"), 0600) == 0);
    struct stat st;
    CHECK(stat(at("f"), &st) == 0);
    printf("chmod: %o\n", st.st_mode & 07777);
    CHECK(fchmod(fd, 0640) == 0);
    CHECK(fstat(fd, &st) == 0);
    printf("fchmod: %o\n", st.st_mode & 07777);
    CHECK(fchmodat(dfd, "f", 0604, 0) == 0);
    CHECK(stat(at("f"), &st) == 0);
    printf("fchmodat: %o\n", st.st_mode & 07777);

    /* chown family, to our own ids (allowed without privilege) */
    printf("chown: %d fchown: %d lchown: %d fchownat: %d\n",
           chown(at("f"), getuid(), getgid()), fchown(fd, -1, getgid()),
           lchown(at("f"), getuid(), -1), fchownat(dfd, "f", getuid(), getgid(), 0));

    /* times */
    struct timespec ts[2] = {{1000000000, 123456789}, {1200000000, 987654321}};
    CHECK(utimensat(dfd, "f", ts, 0) == 0);
    CHECK(stat(at("f"), &st) == 0);
    printf("utimensat: atime %ld.%09ld mtime %ld.%09ld\n", (long)st.st_atim.tv_sec,
           st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    struct timeval tv[2] = {{300000000, 5}, {400000000, 7}};
    CHECK(utimes(at("f"), tv) == 0);
    CHECK(stat(at("f"), &st) == 0);
    printf("utimes: atime %ld.%09ld mtime %ld.%09ld\n", (long)st.st_atim.tv_sec,
           st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    struct timespec om[2] = {{0, UTIME_OMIT}, {500000000, 0}};
    CHECK(futimens(fd, om) == 0);
    CHECK(fstat(fd, &st) == 0);
    printf("futimens: atime %ld mtime %ld\n", (long)st.st_atim.tv_sec, (long)st.st_mtim.tv_sec);

    /* links */
    CHECK(link(at("f"), at("hard")) == 0);
    CHECK(stat(at("f"), &st) == 0);
    printf("link: nlink %ld\n", (long)st.st_nlink);
    CHECK(linkat(dfd, "f", dfd, "hard2", 0) == 0);
    CHECK(stat(at("f"), &st) == 0);
    printf("linkat: nlink %ld\n", (long)st.st_nlink);
    CHECK(symlink("f", at("sym")) == 0);
    CHECK(symlinkat("no/such\xc3(z", dfd, "dangling") == 0);
    char t[64] = {0};
    ssize_t n = readlinkat(dfd, "dangling", t, sizeof t);
    printf("symlinkat/readlinkat: %zd bytes:", n);
    for (ssize_t i = 0; i < n; i++) printf(" %02x", (unsigned char)t[i]);
    printf("\n");
    CHECK(lstat(at("sym"), &st) == 0);
    printf("symlink: is link %d size %ld\n", S_ISLNK(st.st_mode), (long)st.st_size);

    /* mknod / mknodat of a FIFO */
    CHECK(mknod(at("fifo"), S_IFIFO | 0600, 0) == 0);
    CHECK(mknodat(dfd, "fifo2", S_IFIFO | 0644, 0) == 0);
    CHECK(stat(at("fifo2"), &st) == 0);
    printf("mknod: fifo %d mode %o\n", S_ISFIFO(st.st_mode), st.st_mode & 0777);

    /* file names are bytes */
    CHECK(rename(at("hard2"), at("\xc3(z")) == 0);
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (memcmp(e->d_name, "\xc3(z", 4) == 0) found = 1;
    closedir(d);
    printf("rename to \\xc3(z: found %d\n", found);
    errno = 0;
    printf("renameat2 NOREPLACE: %d %s\n",
           renameat2(dfd, "hard", dfd, "f", RENAME_NOREPLACE), strerror(errno));
    CHECK(renameat2(dfd, "hard", dfd, "hard3", RENAME_NOREPLACE) == 0);

    /* statfs / statx */
    struct statfs sf, sf2;
    CHECK(statfs(dir, &sf) == 0);
    CHECK(fstatfs(fd, &sf2) == 0);
    printf("statfs: same fs %d bsize>0 %d namelen %ld\n", sf.f_type == sf2.f_type,
           sf.f_bsize > 0, (long)sf.f_namelen);
    struct statx sx;
    CHECK(statx(dfd, "f", 0, STATX_BASIC_STATS, &sx) == 0);
    printf("statx: size %llu mode %o nlink %u mtime %lld\n", (unsigned long long)sx.stx_size,
           sx.stx_mode & 07777, sx.stx_nlink, (long long)sx.stx_mtime.tv_sec);

    /* fallocate, fadvise */
    int g = open(at("g"), O_CREAT | O_RDWR, 0644);
    CHECK(fallocate(g, 0, 0, 65536) == 0);
    printf("fallocate: size %ld\n", size_of(at("g")));
    printf("posix_fadvise: %d\n", posix_fadvise(g, 0, 0, POSIX_FADV_SEQUENTIAL));
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    printf("posix_fadvise on a pipe: %s\n", strerror(posix_fadvise(pfd[0], 0, 0, 0)));

    /* sendfile, copy_file_range */
    CHECK(pwrite(g, "0123456789", 10, 0) == 10);
    int h = open(at("h"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    off_t off = 2;
    printf("sendfile: %zd offset %ld\n", sendfile(h, g, &off, 5), (long)off);
    CHECK(sendfile(pfd[1], g, NULL, 3) == 3);
    char pb[4] = {0};
    CHECK(read(pfd[0], pb, 3) == 3);
    printf("sendfile to a pipe: %s position %ld\n", pb, (long)lseek(g, 0, SEEK_CUR));
    loff_t oi = 6, oo = 5;
    printf("copy_file_range: %zd\n", copy_file_range(g, &oi, h, &oo, 4, 0));
    memset(b, 0, sizeof b);
    CHECK(pread(h, b, 20, 0) == 9);
    printf("copied: %s offsets %ld %ld\n", b, (long)oi, (long)oo);

    /* the old getdents: d_type in the record's last byte */
    int cnt = 0, fifo = 0;
    char dbuf[4096];
    int df = open(dir, O_RDONLY | O_DIRECTORY);
    long got = syscall(SYS_getdents, df, dbuf, sizeof dbuf);
    for (long pos = 0; pos < got;) {
        unsigned short reclen = *(unsigned short *)(dbuf + pos + 16);
        const char *name = dbuf + pos + 18;
        if (strcmp(name, "fifo") == 0) fifo = dbuf[pos + reclen - 1] == DT_FIFO;
        cnt++;
        pos += reclen;
    }
    printf("getdents: %d entries, fifo typed %d\n", cnt, fifo);

    /* record locks */
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
    CHECK(fcntl(fd, F_GETLK, &fl) == 0);
    printf("F_GETLK unlocked: l_type %d (F_UNLCK %d)\n", fl.l_type, F_UNLCK);
    fl.l_type = F_WRLCK;
    CHECK(fcntl(fd, F_SETLK, &fl) == 0);
    pid_t parent = getpid();
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        int cfd = open(at("f"), O_RDWR);
        struct flock q = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 1};
        int r = fcntl(cfd, F_GETLK, &q);
        printf("child F_GETLK: %d l_type %d (F_WRLCK %d) start %ld len %ld pid is parent %d\n", r,
               q.l_type, F_WRLCK, (long)q.l_start, (long)q.l_len, q.l_pid == parent);
        q.l_type = F_RDLCK;
        errno = 0;
        int s = fcntl(cfd, F_SETLK, &q);
        printf("child F_SETLK: %d %s\n", s, s ? strerror(errno) : "");
        errno = 0;
        s = flock(cfd, LOCK_EX | LOCK_NB);
        printf("child flock: %d\n", s);
        fflush(stdout);
        _exit(0);
    }
    int status;
    CHECK(waitpid(c, &status, 0) == c && status == 0);
    fl.l_type = F_UNLCK;
    CHECK(fcntl(fd, F_SETLK, &fl) == 0);
    struct flock ofd = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    printf("F_OFD_SETLK: %d\n", fcntl(fd, F_OFD_SETLK, &ofd));
    ofd.l_type = F_WRLCK;
    int other = open(at("f"), O_RDWR);
    CHECK(fcntl(other, F_OFD_GETLK, &ofd) == 0);
    printf("F_OFD_GETLK: l_type %d (F_RDLCK %d)\n", ofd.l_type, F_RDLCK);

    /* sysinfo */
    struct sysinfo si;
    CHECK(sysinfo(&si) == 0);
    printf("sysinfo: mem_unit %u totalram>0 %d procs>0 %d\n", si.mem_unit, si.totalram > 0,
           si.procs > 0);

    /* clean up */
    const char *names[] = {"f", "hard3", "\xc3(z", "sym", "dangling", "fifo", "fifo2", "g", "h"};
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) CHECK(unlink(at(names[i])) == 0);
    CHECK(rmdir(dir) == 0);
    return failures;
}
