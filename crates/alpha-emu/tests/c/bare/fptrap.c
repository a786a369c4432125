/* status: 136 */
/* Without /S an IEEE division by zero traps: the process has no handler,
   so it dies of SIGFPE (128 + 8) after printing one line. */
#include "bare.h"

u64 bare_main(void)
{
    put("dividing by zero\n");
    double r;
    __asm__ volatile("divt %1,%2,%0\n\ttrapb" : "=f"(r) : "f"(dbl(0x3ff0000000000000UL)), "f"(dbl(0)));
    hex("not reached", bits(r));
    return 0;
}
