/* status: 0 */
/* Floating point end to end without libc: every IEEE operate with its
   qualifiers as hand-written instructions, rounding through FPCR dynamic
   mode, S-format loads and stores, and software completion (/S) of
   infinities, NaNs and denormals. Prints register images in hex. */
#include "bare.h"

#define OP2(name, insn, a, b)                                                       \
    do {                                                                            \
        double _r;                                                                  \
        __asm__ volatile(insn " %1,%2,%0" : "=&f"(_r) : "f"(dbl(a)), "f"(dbl(b))); \
        hex(name, bits(_r));                                                        \
    } while (0)
#define OP1(name, insn, b)                                                   \
    do {                                                                     \
        double _r;                                                           \
        __asm__ volatile(insn " %1,%0" : "=&f"(_r) : "f"(dbl(b)));          \
        hex(name, bits(_r));                                                 \
    } while (0)

/* Only the dynamic rounding field is changed: the trap-disable bits the
   kernel set up stay (as glibc's fesetround does). */
static void set_fpcr_raw(u64 v)
{
    __asm__ volatile("excb\n\tmt_fpcr %0\n\texcb" : : "f"(dbl(v)));
}
static u64 get_fpcr(void)
{
    double d;
    __asm__ volatile("excb\n\tmf_fpcr %0" : "=f"(d));
    return bits(d);
}

static void set_round(u64 mode)
{
    set_fpcr_raw((get_fpcr() & ~(3UL << 58)) | mode << 58);
}

#define ONE 0x3ff0000000000000UL
#define TWO 0x4000000000000000UL
#define THREE 0x4008000000000000UL
#define MONE 0xbff0000000000000UL
#define ZERO 0UL
#define HALFULP 0x3ca0000000000000UL /* 2^-53 */
#define BIG 0x7fe1ccf385ebc8a0UL    /* 1e308 */
#define TEN 0x4024000000000000UL
#define TINY 0x0000000000000003UL    /* denormal */
#define SMALL 0x0170000000000001UL   /* (1+2^-52) * 2^-1000 */
#define TWOM60 0x3c30000000000000UL  /* 2^-60 */
#define E19 0x43e158e460913d00UL     /* 1e19 */
#define M25 0xc004000000000000UL     /* -2.5 */
#define P25 0x4004000000000000UL     /* 2.5 */
#define S_ONE 0x3ff0000000000000UL   /* 1.0f in register form */
#define S_THREE 0x4008000000000000UL

u64 bare_main(void)
{
    set_round(2); /* dynamic = normal */
    OP2("divt", "divt", ONE, THREE);
    OP2("divt/c", "divt/c", ONE, THREE);
    OP2("divt/m", "divt/m", MONE, THREE);
    OP2("divt/d-normal", "divt/d", MONE, THREE);
    OP2("addt-tie", "addt", ONE, HALFULP);
    OP2("mult", "mult", THREE, THREE);
    OP2("subt", "subt", ONE, THREE);
    OP2("divs", "divs", S_ONE, S_THREE);
    OP2("divs/c", "divs/c", S_ONE, S_THREE);
    OP2("adds", "adds", S_ONE, S_THREE);
    OP2("muls/m", "muls/m", MONE, S_THREE);
    OP2("cmpteq-t", "cmpteq", ONE, ONE);
    OP2("cmpteq-f", "cmpteq", ONE, TWO);
    OP2("cmptlt", "cmptlt", MONE, ONE);
    OP2("cmptle", "cmptle", TWO, ONE);
    OP2("cmptun", "cmptun", ONE, TWO);
    OP1("cvttq/c-2.5", "cvttq/c", P25);
    OP1("cvttq-2.5", "cvttq", P25);
    OP1("cvttq-m2.5", "cvttq", M25);
    OP1("cvttq/svc-1e19", "cvttq/svc", E19);
    OP1("cvtqt", "cvtqt", 0x0020000000000001UL);
    OP1("cvtqs", "cvtqs", 0x0000000001000001UL);
    OP1("cvtqs/c", "cvtqs/c", 0x0000000001000003UL);
    OP1("cvtts", "cvtts", 0x3fd5555555555555UL);
    OP1("cvtts/c", "cvtts/c", 0x3fd5555555555555UL);
    OP1("cvtst", "cvtst", S_THREE);
    OP2("cpys", "cpys", MONE, THREE);
    OP2("cpysn", "cpysn", MONE, THREE);
    OP2("cpyse", "cpyse", MONE, 0x400abcdef0123456UL);
    OP1("cvtql", "cvtql", 0xffffffff80000001UL);
    OP1("cvtlq", "cvtlq", 0x8000000020000000UL);
    {
        double r = dbl(0x1111);
        __asm__ volatile("fcmovlt %1,%2,%0" : "+f"(r) : "f"(dbl(MONE)), "f"(dbl(TWO)));
        hex("fcmovlt-taken", bits(r));
        __asm__ volatile("fcmoveq %1,%2,%0" : "+f"(r) : "f"(dbl(MONE)), "f"(dbl(THREE)));
        hex("fcmoveq-not", bits(r));
        __asm__ volatile("fcmoveq %1,%2,%0" : "+f"(r) : "f"(dbl(0x8000000000000000UL)), "f"(dbl(ONE)));
        hex("fcmoveq-minus0", bits(r));
    }
    /* S loads and stores: a denormal, a NaN and -0. */
    {
        static u32 smem[4] = { 0x00000001u, 0x7fc00001u, 0x80000000u, 0x3eaaaaabu };
        for (int i = 0; i < 4; i++) {
            double f;
            u32 back;
            __asm__ volatile("lds %0,%1" : "=f"(f) : "m"(smem[i]));
            hex("lds", bits(f));
            __asm__ volatile("sts %1,%0" : "=m"(back) : "f"(f));
            hex("sts", back);
        }
    }
    /* Dynamic rounding modes from the FPCR. */
    for (u64 m = 0; m < 4; m++) {
        set_round(m);
        OP2("divt/d", "divt/d", MONE, THREE);
        OP2("divt/d+", "divt/d", ONE, THREE);
        OP1("cvttq/d", "cvttq/d", M25);
        OP1("cvtqt/d", "cvtqt/d", 0x0020000000000001UL);
    }
    set_round(2);
    /* Software completion of what the hardware traps on. */
    OP2("divt/su-1/0", "divt/su", ONE, ZERO);
    OP2("mult/su-ovf", "mult/su", BIG, TEN);
    OP2("mult/su-unf", "mult/su", SMALL, TWOM60);
    OP2("mult-unf-no-u", "mult", SMALL, TWOM60);
    OP2("addt/su-denorm", "addt/su", TINY, TINY);
    OP2("addt/su-inf", "addt/su", 0x7ff0000000000000UL, ONE);
    OP2("cmptlt/su-inf", "cmptlt/su", ONE, 0x7ff0000000000000UL);
    OP2("adds/su-sdenorm", "adds/su", 0x0000000020000000UL /* S 2^-149 */, 0x0000000020000000UL);
    /* Inexact is detected with /I; read back the FPCR status field only
       (qemu does not maintain FPCR<63> SUM on reads). */
    set_fpcr_raw(get_fpcr() & ~(0x3fUL << 52) & ~(1UL << 63));
    OP2("divt/sui", "divt/sui", ONE, THREE);
    hex("fpcr-status-after-sui", (get_fpcr() >> 52) & 0x3f);
#ifdef __alpha_fix__
    OP1("sqrtt", "sqrtt", TWO);
    OP1("sqrtt/c", "sqrtt/c", TWO);
    OP1("sqrts", "sqrts", S_THREE);
    {
        u64 i;
        double f;
        __asm__ volatile("ftoit %1,%0" : "=r"(i) : "f"(dbl(M25)));
        hex("ftoit", i);
        __asm__ volatile("itoft %1,%0" : "=f"(f) : "r"(0x4010000000000000UL));
        hex("itoft", bits(f));
        __asm__ volatile("ftois %1,%0" : "=r"(i) : "f"(dbl(MONE)));
        hex("ftois", i);
        __asm__ volatile("itofs %1,%0" : "=f"(f) : "r"(0xc0400000UL));
        hex("itofs", bits(f));
    }
#endif
    put("fpbare done\n");
    return 0;
}
