/* A floating-point instruction between LDQ_L and STQ_C: breaks the rule
   that the sequence contains no subsetted or possibly trapping
   instruction. */
#include "llsc.h"

NOINLINE long inc_fp_inside(void)
{
    long t;
    __asm__ __volatile__(
        "ldq_l %0,%1\n\t"
        "addt $f10,$f10,$f10\n\t"
        "addq %0,1,%0\n\t"
        "stq_c %0,%1\n\t"
        : "=&r"(t), "+m"(counter)
        :
        : "$f10");
    return t;
}

static long attempt(void)
{
    return inc_fp_inside();
}
