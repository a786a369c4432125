/* A load between LDQ_L and STQ_C (of another variable): breaks the rule
   that no other memory access may occur inside the sequence. */
#include "llsc.h"

NOINLINE long inc_load_inside(void)
{
    long t;
    long junk;
    __asm__ __volatile__(
        "ldq_l %0,%1\n\t"
        "ldq %2,%3\n\t"
        "addq %0,%2,%0\n\t"
        "addq %0,1,%0\n\t"
        "stq_c %0,%1\n\t"
        : "=&r"(t), "+m"(counter), "=&r"(junk)
        : "m"(other));
    return t;
}

static long attempt(void)
{
    return inc_load_inside();
}
