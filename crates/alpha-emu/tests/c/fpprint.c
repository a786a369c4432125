/* status: 0 */
/* cflags: -lm */
/* Floating-point printing and conversions without -mieee (no infinities,
   NaNs or denormals are produced: the default Alpha code traps on them).
   Expected: exit 0. */
#include <math.h>
#include <stdlib.h>
#include "check.h"

int main(void)
{
    double vals[] = { 0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 2.0 / 3.0, 123456789.125, -2.5e-300, 6.02214076e23,
                      1.7976931348623157e308, 2.2250738585072014e-308, 4503599627370497.5, -0.5 };
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        double v = OPAQUE(vals[i]);
        printf("%-2u %.17g | %a | %.6e | %.3f | %g\n", i, v, v, v, fabs(v) < 1e20 ? v : 0.0, v);
    }
    float fv[] = { 0.1f, 1.0f / 3.0f, 16777217.0f, -3.4028235e38f, 1.17549435e-38f };
    for (unsigned i = 0; i < sizeof fv / sizeof fv[0]; i++) {
        float f = OPAQUE(fv[i]);
        printf("f%u %.9g %a %.17g\n", i, f, f, (double)f);
    }
    /* Conversions: double->long truncates (cvttq/c), long->double rounds. */
    double dd[] = { 2.5, -2.5, 3.99999, -3.99999, 9.2e18, -9.2e18, 0.5, 1e-10 };
    for (unsigned i = 0; i < sizeof dd / sizeof dd[0]; i++) {
        double v = OPAQUE(dd[i]);
        printf("cvt %g -> %ld %d lround %ld rint %.1f floor %.1f ceil %.1f\n", v, (long)v, (int)v, lround(v), rint(v),
               floor(v), ceil(v));
    }
    long L = OPAQUE(9007199254740993L);
    printf("l2d %.1f l2f %.1f u2d %.1f\n", (double)L, (double)(float)L, (double)OPAQUE(18446744073709551615UL));
    printf("d2u %lu\n", (unsigned long)OPAQUE(1.5e19));
    /* Arithmetic in both precisions. */
    double acc = 0;
    for (int i = 1; i <= 1000; i++) acc += 1.0 / ((double)i * i);
    float facc = 0;
    for (int i = 1; i <= 1000; i++) facc += 1.0f / ((float)i * i);
    printf("basel %.17g %.9g sqrt2 %.17g sqrtf %.9g\n", acc, facc, sqrt(OPAQUE(2.0)), sqrtf(OPAQUE(2.0f)));
    printf("libm exp %.17g log %.17g sin %.17g pow %.17g atan2 %.17g fmod %.17g\n", exp(1.0 + OPAQUE(0.0)),
           log(OPAQUE(10.0)), sin(OPAQUE(1.0)), pow(OPAQUE(2.0), 0.5), atan2(OPAQUE(1.0), -1.0), fmod(OPAQUE(10.5), 3.0));
    printf("strtod %.17g %.17g atof %.17g\n", strtod("0.1", NULL), strtod("1e-300", NULL), atof("-12.75e3"));
    CHECK(OPAQUE(0.1) + OPAQUE(0.2) != 0.3);
    CHECK(OPAQUE(1.0) / 3.0 * 3.0 == 1.0);
    CHECK((float)OPAQUE(0.1) != 0.1);
    CHECK(OPAQUE(-0.0) == 0.0);
    printf("fpprint: %d failures\n", failures);
    return failures;
}
