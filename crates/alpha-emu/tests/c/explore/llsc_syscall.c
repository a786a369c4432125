/* A system call (CALLSYS getxpid) between LDQ_L and STQ_C: breaks the
   rule that no exception or trap occurs inside the sequence (the PALcode
   return clears the lock flag on real hardware). */
#include "llsc.h"

NOINLINE long inc_syscall_inside(void)
{
    long t;
    __asm__ __volatile__(
        "ldq_l %0,%1\n\t"
        "lda $0,20($31)\n\t"
        "callsys\n\t"
        "addq %0,1,%0\n\t"
        "stq_c %0,%1\n\t"
        : "=&r"(t), "+m"(counter)
        :
        : "$0", "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$16", "$17",
          "$18", "$19", "$20", "$21", "$22", "$23", "$24", "$25", "$27", "$28",
          "memory");
    return t;
}

static long attempt(void)
{
    return inc_syscall_inside();
}
