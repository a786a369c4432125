/* status: 0 */
/* cflags: -mfp-rounding-mode=d -lm */
/* Rounding modes: with -mfp-rounding-mode=d, GCC emits the /D (dynamic)
   qualifier, so fesetround's FPCR<59:58> governs every operation.
   Expected: exit 0. */
#include <fenv.h>
#include <math.h>
#include "check.h"

static const int modes[] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };
static const char *names[] = { "nearest", "zero", "down", "up" };

int main(void)
{
    double third_up = 0, third_down = 0;
    for (int m = 0; m < 4; m++) {
        CHECK(fesetround(modes[m]) == 0);
        CHECK(fegetround() == modes[m]);
        double a = OPAQUE(1.0) / OPAQUE(3.0);
        double b = OPAQUE(-1.0) / OPAQUE(3.0);
        float c = OPAQUE(2.0f) / OPAQUE(3.0f);
        double s = sqrt(OPAQUE(2.0));
        double sum = OPAQUE(1.0) + OPAQUE(0x1p-53 * 3);
        long r = lrint(OPAQUE(2.5)), r2 = lrint(OPAQUE(-2.5));
        double ri = rint(OPAQUE(-3.5)), ni = nearbyint(OPAQUE(3.5));
        printf("%-7s 1/3 %a -1/3 %a 2/3f %a sqrt2 %a 1+3ulp/2 %a lrint %ld %ld rint %.1f %.1f l2d %a\n", names[m],
               a, b, (double)c, s, sum, r, r2, ri, ni, (double)OPAQUE(9007199254740993L));
        if (modes[m] == FE_UPWARD) third_up = a;
        if (modes[m] == FE_DOWNWARD) third_down = a;
    }
    fesetround(FE_TONEAREST);
    CHECK(third_up > third_down);
    printf("fpround: %d failures\n", failures);
    return failures;
}
