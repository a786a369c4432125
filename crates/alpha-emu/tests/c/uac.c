/* status: 0 */
/* Unaligned LDQ/LDL/LDWU/STQ/STL/STW and LDT/STT/LDS/STS through pointers
   the compiler believes aligned: the CPU traps and the Linux kernel fixes
   each access up (do_entUnaUser; its report goes to the kernel log or, in
   subword, to stderr, which is not compared). Then the process asks for
   SIGBUS instead with osf_setsysinfo(SSI_NVPAIRS, SSIN_UACPROC, UAC_SIGBUS).
   The output depends on the model: without BWX (ev4) GCC loads and stores
   a short it believes aligned with LDQ_U/EXTWL (INSWL/MSKWL/STQ_U), which
   never trap, so at offset 7 the short that crosses a quadword silently
   loses its high byte: the sub-word hazard itself. Expected: exit 0. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

static sigjmp_buf env;
static volatile int got_sig, got_code;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    siglongjmp(env, 1);
}

int main(void)
{
    static unsigned char buf[96] __attribute__((aligned(16)));
    unsigned char *base = OPAQUE(&buf[0]);
    for (int i = 0; i < 96; i++) buf[i] = (unsigned char)(i * 13 + 1);
    unsigned long h = 0;
    for (int off = 1; off < 8; off++) {
        unsigned char *p = OPAQUE(base + off);
        unsigned long q = *(volatile unsigned long *)p;
        unsigned int l = *(volatile unsigned int *)(p + 8);
        unsigned short w = *(volatile unsigned short *)(p + 16);
        unsigned long ref;
        memcpy(&ref, p, 8);
        CHECK(q == ref);
        printf("off %d q %016lx l %08x w %04x\n", off, q, l, w);
        *(volatile unsigned long *)(p + 24) = q ^ 0xffff0000ffff0000UL;
        *(volatile unsigned int *)(p + 40) = l + 1;
        *(volatile unsigned short *)(p + 50) = (unsigned short)(w * 3);
        *(volatile double *)(p + 56) = 1.0 / (off + 1);
        *(volatile float *)(p + 68) = -2.0f * off;
        double d = *(volatile double *)(p + 56);
        float f = *(volatile float *)(p + 68);
        CHECK(d == 1.0 / (off + 1) && f == -2.0f * off);
        h ^= fnv(buf, sizeof buf) + (unsigned long)off;
    }
    printf("hash %016lx\n", h);
    unsigned int nv[2] = { 6 /* SSIN_UACPROC */, 4 /* UAC_SIGBUS */ };
    long r = syscall(__NR_osf_setsysinfo, 1 /* SSI_NVPAIRS */, nv, 1, 0, 0);
    printf("UAC_SIGBUS accepted %d\n", r == 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, NULL);
    if (sigsetjmp(env, 1) == 0) {
        volatile unsigned long v = *(volatile unsigned long *)OPAQUE(base + 3);
        printf("no SIGBUS, loaded %016lx\n", v);
    } else {
        printf("SIGBUS %d BUS_ADRALN %d\n", got_sig == SIGBUS, got_code == BUS_ADRALN);
    }
    printf("uac: %d failures\n", failures);
    return failures;
}
