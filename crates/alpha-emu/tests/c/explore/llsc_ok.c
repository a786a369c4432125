/* LDQ_L/STQ_C kept to the Handbook's forward-progress rules: nothing
   but register operates between them, no taken branch, under 40
   instructions; the retry branch follows the STQ_C. Nothing to report. */
#include "llsc.h"

NOINLINE long inc_ok(void)
{
    long t;
    __asm__ __volatile__(
        "ldq_l %0,%1\n\t"
        "addq %0,1,%0\n\t"
        "stq_c %0,%1\n\t"
        : "=&r"(t), "+m"(counter));
    return t;
}

static long attempt(void)
{
    return inc_ok();
}
