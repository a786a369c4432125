/* status: 0 */
/* GCC's __builtin_alpha_* byte-manipulation builtins against portable C,
   plus AMASK and IMPLVER (which depend on -cpu: the expected output is per
   model). Expected: exit 0. */
#include "check.h"

static unsigned long byte_of(unsigned long x, int i) { return (x >> (8 * i)) & 0xff; }

int main(void)
{
    unsigned long a = OPAQUE(0x0123456789abcdefUL);
    unsigned long b = OPAQUE(0x00ff10ee20dd30ccUL);
    for (int i = 0; i < 8; i++) {
        unsigned long ofs = OPAQUE((unsigned long)i);
        CHECK(__builtin_alpha_extbl(a, ofs) == byte_of(a, i));
        CHECK(__builtin_alpha_insbl(a, ofs) == (a & 0xff) << (8 * i));
        CHECK(__builtin_alpha_mskbl(a, ofs) == (a & ~(0xffUL << (8 * i))));
        printf("i %d extwl %04lx extwh %016lx extql %016lx extqh %016lx inswl %016lx mskwh %016lx\n", i,
               __builtin_alpha_extwl(a, ofs), __builtin_alpha_extwh(a, ofs), __builtin_alpha_extql(a, ofs),
               __builtin_alpha_extqh(a, ofs), __builtin_alpha_inswl(a, ofs), __builtin_alpha_mskwh(a, ofs));
    }
    for (unsigned long m = 0; m < 256; m += 37) {
        unsigned long z = __builtin_alpha_zap(a, OPAQUE(m));
        unsigned long zn = __builtin_alpha_zapnot(a, OPAQUE(m));
        CHECK((z | zn) == a && (z & zn) == 0);
    }
    unsigned long ge = __builtin_alpha_cmpbge(a, b);
    unsigned long want = 0;
    for (int i = 0; i < 8; i++) want |= (unsigned long)(byte_of(a, i) >= byte_of(b, i)) << i;
    CHECK(ge == want);
    printf("cmpbge %02lx zero-bytes %02lx\n", ge, __builtin_alpha_cmpbge(0, OPAQUE(0x1200340056007800UL)));
    CHECK(__builtin_alpha_umulh(a, b) == (unsigned long)(((unsigned __int128)a * b) >> 64));
    printf("umulh %016lx\n", __builtin_alpha_umulh(a, b));
    printf("popcount %d clz %d ctz %d\n", __builtin_popcountl(a), __builtin_clzl(b), __builtin_ctzl(b));
    /* amask returns its operand with the bits of present extensions cleared. */
    unsigned long am = __builtin_alpha_amask(OPAQUE(0xffffUL));
    printf("amask %04lx implver %ld\n", (~am) & 0xffff, __builtin_alpha_implver());
    printf("builtins: %d failures\n", failures);
    return failures;
}
