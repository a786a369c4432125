/* More than 40 instructions between LDQ_L and STQ_C (44 no-ops): breaks
   the rule that the sequence is at most 40 instructions. */
#include "llsc.h"

NOINLINE long inc_too_long(void)
{
    long t;
    __asm__ __volatile__(
        "ldq_l %0,%1\n\t"
        ".rept 44\n\tbis $31,$31,$31\n\t.endr\n\t"
        "addq %0,1,%0\n\t"
        "stq_c %0,%1\n\t"
        : "=&r"(t), "+m"(counter));
    return t;
}

static long attempt(void)
{
    return inc_too_long();
}
