/* status: 0 */
/* cflags: -mieee -lm */
/* The Linux IEEE control word (arch/alpha/kernel/osf_sys.c): fenv.h's
   feraiseexcept (osf_setsysinfo SSI_IEEE_RAISE_EXCEPTION), fetestexcept
   and fegetenv (GSI_IEEE_FP_CONTROL), feclearexcept and fesetenv
   (SSI_IEEE_FP_CONTROL) keep the status bits the kernel keeps in
   ieee_state and mirror them in the FPCR; exceptions raised by arithmetic
   join them; a raised exception whose trap is enabled sends SIGFPE with
   the kernel's si_code. Expected: exit 0. */
#define _GNU_SOURCE
#include <fenv.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

static unsigned long swcr(void)
{
    unsigned long w = 0;
    syscall(SYS_osf_getsysinfo, 45 /* GSI_IEEE_FP_CONTROL */, &w, 8, 0, 0);
    return w;
}

static unsigned long fpcr_status(void)
{
    double f;
    unsigned long v;
    __asm__ volatile("mf_fpcr %0" : "=f"(f));
    memcpy(&v, &f, 8);
    return (v >> 52) & 0x3f;
}

static sigjmp_buf env;
static volatile int code;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    code = si->si_code;
    siglongjmp(env, 1);
}

int main(void)
{
    printf("initial %#x swcr %#lx\n", fetestexcept(FE_ALL_EXCEPT), swcr());
    CHECK(feraiseexcept(FE_OVERFLOW | FE_INVALID) == 0);
    printf("raised %#x swcr %#lx fpcr %#lx\n", fetestexcept(FE_ALL_EXCEPT), swcr(),
           fpcr_status());
    CHECK(fetestexcept(FE_OVERFLOW) == FE_OVERFLOW);
    feclearexcept(FE_OVERFLOW);
    printf("cleared %#x fpcr %#lx\n", fetestexcept(FE_ALL_EXCEPT), fpcr_status());
    fenv_t saved;
    CHECK(fegetenv(&saved) == 0);
    feclearexcept(FE_ALL_EXCEPT);
    printf("none %#x\n", fetestexcept(FE_ALL_EXCEPT));
    CHECK(fesetenv(&saved) == 0);
    printf("restored %#x\n", fetestexcept(FE_ALL_EXCEPT));

    /* Arithmetic adds its own flags to the word. */
    volatile double zero = 0, one = 1;
    volatile double r = one / zero;
    (void)r;
    printf("arith %#x\n", fetestexcept(FE_ALL_EXCEPT));

    /* fesetround and FE_DFL_ENV. */
    CHECK(fesetround(FE_UPWARD) == 0);
    printf("round %#x\n", fegetround());
    CHECK(fesetenv(FE_DFL_ENV) == 0);
    printf("default %#x round %#x fpcr %#lx\n", fetestexcept(FE_ALL_EXCEPT), fegetround(),
           fpcr_status());

    /* Raising an exception whose trap is enabled: SIGFPE, the kernel's
       si_code for it. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fpe;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGFPE, &sa, 0);
    feenableexcept(FE_DIVBYZERO);
    printf("enabled %#x\n", fegetexcept());
    if (!sigsetjmp(env, 1)) {
        feraiseexcept(FE_DIVBYZERO);
        printf("no signal\n");
    }
    printf("sigfpe code %d\n", code);
    CHECK(code == FPE_FLTDIV);
    fedisableexcept(FE_ALL_EXCEPT);
    feclearexcept(FE_ALL_EXCEPT);
    /* A raised exception whose trap is disabled sends nothing. */
    code = 0;
    feraiseexcept(FE_INEXACT);
    CHECK(code == 0);
    printf("inexact %#x\n", fetestexcept(FE_ALL_EXCEPT));
    return failures;
}
