/* The seed's wrong byte atomic: an LDL_L/STL_C loop on the containing
   longword with quadword-relative EXTBL/INSBL/MSKBL offsets (the low three
   address bits). For a byte whose address has bit 2 set (b[5]) the extract
   reads the longword's sign extension and the insert lands in bits 32..63,
   which STL_C drops: every increment of b[5] "succeeds" and changes
   nothing (the program prints b5=0). For b[1] (bit 2 clear) it works.
   The two locked longwords are different halves of one quadword, inside
   the 32-byte lock range: each thread's STL_C fails when the other stores
   between its LDL_L and STL_C (lock-range contention), and no store is
   lost. */
#include "explore.h"

static struct {
    volatile unsigned char b[8];
} s ISOLATED;

/* Atomically add 1 to *p (wrong for bit-2-set addresses, as above). */
NOINLINE void byte_inc_ldl(volatile unsigned char *p)
{
    unsigned long t, v, base = (unsigned long)p & ~3UL;
    __asm__ __volatile__(
        "1:\tldl_l %0,0(%2)\n\t"
        "extbl %0,%3,%1\n\t"
        "addl %1,1,%1\n\t"
        "insbl %1,%3,%1\n\t"
        "mskbl %0,%3,%0\n\t"
        "bis %0,%1,%0\n\t"
        "stl_c %0,0(%2)\n\t"
        "beq %0,1b\n\t"
        : "=&r"(t), "=&r"(v)
        : "r"(base), "r"(p)
        : "memory");
}

NOINLINE void *inc_low(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        byte_inc_ldl(&s.b[1]);
    return arg;
}

NOINLINE void *inc_high(void *arg)
{
    wait_start();
    for (int i = 0; i < ITERS; i++)
        byte_inc_ldl(&s.b[5]);
    return arg;
}

int main(void)
{
    const thread_fn fns[] = {inc_low, inc_high};
    run_threads(2, fns, NULL);
    printf("b1=%d b5=%d\n", s.b[1], s.b[5]);
    return 0;
}
