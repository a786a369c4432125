/* status: 0 */
/* cflags: -mieee -lm */
/* IEEE special values with -mieee (instructions carry /SU, the kernel
   completes infinities, NaNs and denormals), exception flags, and a trap
   enabled with feenableexcept delivered as SIGFPE. Expected: exit 0. */
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <setjmp.h>
#include <string.h>
#include "check.h"

static sigjmp_buf env;
static volatile int got_signal, got_code;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_signal = sig;
    got_code = si->si_code;
    siglongjmp(env, 1);
}

int main(void)
{
    double zero = OPAQUE(0.0), one = OPAQUE(1.0);
    double inf = one / zero, ninf = -one / zero, nan_ = zero / zero;
    printf("inf %f %g ninf %f isinf %d isnan %d signbit(nan) %d\n", inf, inf, ninf, isinf(inf), isnan(nan_),
           signbit(nan_) != 0);
    printf("inf-inf isnan %d inf*0 isnan %d sqrt(-1) isnan %d\n", isnan(inf - inf), isnan(inf * zero),
           isnan(sqrt(OPAQUE(-1.0))));
    double tiny = OPAQUE(DBL_MIN);
    double den = tiny / 3.0;
    printf("denormal %a %.17g fpclassify-sub %d\n", den, den, fpclassify(den) == FP_SUBNORMAL);
    printf("den*2 %a den/2^20 %a min-sub %a\n", den * 2, den / 0x1p20, DBL_TRUE_MIN * OPAQUE(1.0));
    float ftiny = OPAQUE(FLT_MIN);
    printf("float denormal %a %a\n", (double)(ftiny / 3.0f), (double)(ftiny * OPAQUE(0x1p-10f)));
    printf("cmp nan==nan %d nan<1 %d inf>1e308 %d\n", nan_ == nan_, nan_ < one, inf > 1e308);
    printf("fmax %g copysign %g nextafter %a\n", fmax(nan_, one), copysign(one, -zero), nextafter(0.0, one));
    printf("1/-0 %f 0/0 prints %f\n", one / -zero, nan_);
    feclearexcept(FE_ALL_EXCEPT);
    volatile double r = OPAQUE(1.0) / OPAQUE(3.0);
    int ex = fetestexcept(FE_ALL_EXCEPT);
    printf("after 1/3: inexact %d divbyzero %d\n", !!(ex & FE_INEXACT), !!(ex & FE_DIVBYZERO));
    feclearexcept(FE_ALL_EXCEPT);
    r = OPAQUE(1.0) / OPAQUE(0.0);
    ex = fetestexcept(FE_ALL_EXCEPT);
    printf("after 1/0: divbyzero %d invalid %d\n", !!(ex & FE_DIVBYZERO), !!(ex & FE_INVALID));
    feclearexcept(FE_ALL_EXCEPT);
    r = OPAQUE(1e308) * OPAQUE(10.0);
    ex = fetestexcept(FE_ALL_EXCEPT);
    printf("after overflow: overflow %d r %g\n", !!(ex & FE_OVERFLOW), r);
    (void)r;
    /* Enable the division-by-zero trap: SIGFPE. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fpe;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGFPE, &sa, NULL);
    if (sigsetjmp(env, 1) == 0) {
        feenableexcept(FE_DIVBYZERO);
        r = OPAQUE(1.0) / OPAQUE(0.0);
        printf("no trap r=%g\n", r);
    }
    fedisableexcept(FE_ALL_EXCEPT);
    printf("SIGFPE %d si_code %d (FPE_FLTDIV is %d)\n", got_signal == SIGFPE, got_code, FPE_FLTDIV);
    CHECK(isinf(inf) && isnan(nan_) && den > 0 && den < DBL_MIN);
    printf("fpieee: %d failures\n", failures);
    return failures;
}
