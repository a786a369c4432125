/* status: 0 */
/* File I/O on temporary files: open/write/read/lseek/pread/fstat, stdio
   buffering, rename/unlink, directories. Expected: exit 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

int main(void)
{
    char dir[] = "/tmp/subword-fileio-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], path2[128];
    snprintf(path, sizeof path, "%s/a.txt", dir);
    snprintf(path2, sizeof path2, "%s/b.txt", dir);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0);
    char buf[4096];
    for (int i = 0; i < 4096; i++) buf[i] = (char)('a' + i % 26);
    CHECK(write(fd, buf, sizeof buf) == 4096);
    CHECK(write(fd, "END", 3) == 3);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    printf("size %ld regular %d mode %o\n", (long)st.st_size, S_ISREG(st.st_mode), st.st_mode & 0777);
    CHECK(lseek(fd, 100, SEEK_SET) == 100);
    char small[8] = { 0 };
    CHECK(read(fd, small, 5) == 5);
    printf("at 100: %s\n", small);
    CHECK(pread(fd, small, 3, 4096) == 3);
    printf("pread end: %.3s\n", small);
    CHECK(lseek(fd, 0, SEEK_END) == 4099);
    close(fd);
    FILE *f = fopen(path2, "w+");
    CHECK(f != NULL);
    for (int i = 0; i < 100; i++) fprintf(f, "line %d %x\n", i, i * i);
    rewind(f);
    int n, x, sum = 0, lines = 0;
    while (fscanf(f, "line %d %x\n", &n, &x) == 2) {
        sum += x;
        lines++;
    }
    printf("lines %d sum %d\n", lines, sum);
    fclose(f);
    CHECK(rename(path2, path) == 0);
    CHECK(stat(path, &st) == 0);
    printf("renamed size %ld\n", (long)st.st_size);
    CHECK(open(path2, O_RDONLY) == -1 && errno == ENOENT);
    int entries = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') entries++;
    if (d) closedir(d);
    printf("entries %d\n", entries);
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(write(p[1], "pipe!", 5) == 5);
    memset(small, 0, sizeof small);
    CHECK(read(p[0], small, 5) == 5);
    printf("pipe %s dup %d\n", small, dup2(p[0], 20));
    close(p[0]);
    close(p[1]);
    close(20);
    CHECK(unlink(path) == 0);
    CHECK(rmdir(dir) == 0);
    CHECK(access(dir, F_OK) == -1);
    fprintf(stderr, "fileio: stderr is not compared\n");
    printf("fileio: %d failures\n", failures);
    return failures;
}
