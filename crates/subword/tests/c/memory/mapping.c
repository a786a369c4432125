/* Mappings Linux refuses with ENOMEM: a fixed address beyond the user
   address space, and more anonymous memory than the host could ever
   provide; then a large mapping the guest only touches sparsely. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static void try(const char *what, void *addr, unsigned long len, int flags)
{
    void *p = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    printf("%s: %s\n", what, p == MAP_FAILED ? strerror(errno) : "mapped");
    if (p != MAP_FAILED) munmap(p, len);
}

int main(void)
{
    try("fixed beyond TASK_SIZE", (void *)0x80000000000UL, 8192, MAP_FIXED);
    try("fixed across TASK_SIZE", (void *)(0x40000000000UL - 8192), 16384, MAP_FIXED);
    try("1 PiB anonymous", NULL, 1UL << 50, 0);
    char *p = mmap(NULL, 1UL << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    long s = 0;
    for (unsigned long off = 0; off < (1UL << 30); off += 1UL << 24) {
        p[off] = (char)(off >> 24);
        s += p[off];
    }
    printf("1 GiB touched every 16 MiB: %ld\n", s);
    return 0;
}
