/* Faults in hot loops: each loop runs a few thousand times over good
   memory (so subword compiles it) and then walks into an unmapped page, a
   read-only page, a PROT_NONE page or an address beyond the user address
   space. The SIGSEGV handler prints the signal, si_code, the fault address
   (relative to the mapping) and the pc (relative to the loop's function),
   and with the argument `regs` every integer register but the stack and
   global pointers; then it skips the faulting instruction (sc_pc += 4), so
   the loop goes on with the registers the handler saw and its results
   show whether they were right. Unaligned quadword loads in a hot loop are
   fixed up by the kernel (no signal). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define PAGE 8192
#define GOOD 2048 /* quadwords in the two good pages */

static char *area;          /* [good good][read-only][PROT_NONE][unmapped] */
static unsigned long fn_at; /* the function the fault is expected in */
static int show_regs, faults;

static void handler(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    struct sigcontext *sc = (struct sigcontext *)&uc->uc_mcontext;
    long addr = (long)si->si_addr;
    long rel = (addr >= (long)area && addr < (long)area + 5 * PAGE) ? addr - (long)area : addr;
    printf("  sig %d code %d addr %s0x%lx pc +0x%lx\n", sig, si->si_code,
           rel == addr ? "" : "area+", rel, sc->sc_pc - fn_at);
    if (show_regs) {
        for (int r = 0; r < 32; r++) {
            if (r == 29 || r == 30) continue;
            printf("%s$%d=%lx", r % 8 ? " " : "    ", r, sc->sc_regs[r]);
            if (r % 8 == 7) printf("\n");
        }
    }
    faults++;
    sc->sc_pc += 4;
}

/* Sum a walk of n quadwords from p, stride 1, mixing registers. */
static long __attribute__((noinline)) read_walk(const volatile long *p, long n)
{
    long a = 1, b = 2, c = 3, d = 4;
    for (long i = 0; i < n; i++) {
        a = a * 3 + i;
        b ^= a >> 7;
        c += p[i] ^ b;
        d = d * 5 + (c >> 3);
    }
    return a ^ b ^ c ^ d;
}

/* Store a walk of n quadwords from p. */
static long __attribute__((noinline)) write_walk(volatile long *p, long n)
{
    long a = 7, b = 11;
    for (long i = 0; i < n; i++) {
        a = a * 5 + i;
        b += a >> 5;
        p[i] = a ^ b;
    }
    return a + b;
}

/* Bytes, so the walk crosses into the bad page one byte at a time. */
static long __attribute__((noinline)) byte_walk(volatile unsigned char *p, long n)
{
    long s = 0, t = 1;
    for (long i = 0; i < n; i++) {
        t = t * 33 + i;
        p[i] = (unsigned char)t;
        s += p[i];
    }
    return s ^ t;
}

/* Loads from `far` (beyond the user address space) every 1000th pass. */
static long __attribute__((noinline)) far_walk(const volatile long *p, const volatile long *far, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        s = s * 7 + p[i % GOOD];
        if (i % 1000 == 999) s += *far;
    }
    return s;
}

/* Quadword loads at an odd address: the kernel fixes them up. */
static long __attribute__((noinline)) unaligned_walk(const char *p, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        long v;
        memcpy(&v, p + 1 + (i % 64) * 8, 8); /* ldq_u pairs */
        s += v + *(const volatile long *)(p + 1 + (i % 64) * 8);
    }
    return s;
}

int main(int argc, char **argv)
{
    show_regs = argc > 1 && strcmp(argv[1], "regs") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);

    area = mmap(NULL, 5 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) return 2;
    mprotect(area + 2 * PAGE, PAGE, PROT_READ);
    mprotect(area + 3 * PAGE, PAGE, PROT_NONE);
    munmap(area + 4 * PAGE, PAGE);
    long *q = (long *)area;
    for (long i = 0; i < GOOD; i++) q[i] = i * 2654435761L;

    /* Warm each loop up over good memory, then walk past the end. */
    fn_at = (unsigned long)read_walk;
    long r = 0;
    for (int k = 0; k < 40; k++) r += read_walk(q, GOOD);
    printf("read, good: %lx\n", r);
    printf("read into read-only (no fault), then PROT_NONE:\n");
    r = read_walk(q + GOOD, PAGE / 8 + 3);
    printf("  result %lx faults %d\n", r, faults);

    fn_at = (unsigned long)write_walk;
    long w = 0;
    for (int k = 0; k < 40; k++) w += write_walk(q, GOOD);
    printf("write, good: %lx\n", w);
    printf("write into read-only:\n");
    w = write_walk(q + GOOD - 2, 5);
    printf("  result %lx faults %d\n", w, faults);

    fn_at = (unsigned long)byte_walk;
    long b = 0;
    for (int k = 0; k < 10; k++) b += byte_walk((unsigned char *)area, 2 * PAGE);
    printf("bytes, good: %lx\n", b);
    printf("bytes into read-only:\n");
    b = byte_walk((unsigned char *)area + 2 * PAGE - 3, 6);
    printf("  result %lx faults %d\n", b, faults);

    fn_at = (unsigned long)read_walk;
    printf("read into unmapped:\n");
    r = read_walk((long *)(area + 4 * PAGE) - 2, 4);
    printf("  result %lx faults %d\n", r, faults);

    fn_at = (unsigned long)far_walk;
    printf("loads beyond the user address space:\n");
    r = far_walk(q, (const long *)0x0000080000000000UL, 3000);
    printf("  result %lx faults %d\n", r, faults);

    long u = unaligned_walk(area, 20000);
    printf("unaligned: %lx faults %d\n", u, faults);
    return 0;
}
