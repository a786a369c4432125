/* A taken branch between LDQ_L and STQ_C (BR over one instruction): breaks
   the rule that the sequence contains no taken branch. */
#include "llsc.h"

NOINLINE long inc_branch_inside(void)
{
    long t;
    __asm__ __volatile__(
        "ldq_l %0,%1\n\t"
        "br $31,1f\n\t"
        "addq %0,2,%0\n"
        "1:\taddq %0,1,%0\n\t"
        "stq_c %0,%1\n\t"
        : "=&r"(t), "+m"(counter));
    return t;
}

static long attempt(void)
{
    return inc_branch_inside();
}
