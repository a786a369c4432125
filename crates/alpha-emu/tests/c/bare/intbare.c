/* status: 0 */
/* Integer and byte-manipulation instructions end to end without libc:
   every EXT/INS/MSK at every byte offset, ZAP/ZAPNOT/CMPBGE, shifts,
   multiplies (UMULH), scaled adds, compares, CIX counts, MVI (where the
   model has it), byte and word stores at every offset (STB/STW with BWX,
   LDQ_U/INSxL/MSKxL/STQ_U without), LDx_L/STx_C atomics on sub-quadword
   objects, AMASK and IMPLVER. (Division lives in glibc on Alpha: see
   arith64.c.) Prints hashes and values. */
#include "bare.h"

static u64 mix(u64 h, u64 v)
{
    h ^= v;
    h *= 0x100000001b3UL;
    return h ^ (h >> 29);
}

#define OPQ(x) ({ __typeof__((x) + 0) _v = (x); __asm__ volatile("" : "+r"(_v)); _v; })

static const u64 vals[] = { 0x0123456789abcdefUL, 0xfedcba9876543210UL, 0x8000000000000001UL, 0x00ff00ff00ff00ffUL,
                            0x7fffffffffffffffUL, 0, 0xffffffffffffffffUL, 0x0000000180000000UL };
#define NV (sizeof vals / sizeof vals[0])

#define BYTEOP(name, builtin)                                                 \
    do {                                                                      \
        u64 h = 0;                                                            \
        for (unsigned i = 0; i < NV; i++)                                     \
            for (u64 o = 0; o < 8; o++) h = mix(h, builtin(OPQ(vals[i]), OPQ(o * 9 + i))); \
        hex(name, h);                                                         \
    } while (0)

struct sub { unsigned char b[3]; unsigned short h; unsigned int w; u64 q; };

u64 bare_main(void)
{
    BYTEOP("extbl", __builtin_alpha_extbl);
    BYTEOP("extwl", __builtin_alpha_extwl);
    BYTEOP("extll", __builtin_alpha_extll);
    BYTEOP("extql", __builtin_alpha_extql);
    BYTEOP("extwh", __builtin_alpha_extwh);
    BYTEOP("extlh", __builtin_alpha_extlh);
    BYTEOP("extqh", __builtin_alpha_extqh);
    BYTEOP("insbl", __builtin_alpha_insbl);
    BYTEOP("inswl", __builtin_alpha_inswl);
    BYTEOP("insll", __builtin_alpha_insll);
    BYTEOP("insql", __builtin_alpha_insql);
    BYTEOP("inswh", __builtin_alpha_inswh);
    BYTEOP("inslh", __builtin_alpha_inslh);
    BYTEOP("insqh", __builtin_alpha_insqh);
    BYTEOP("mskbl", __builtin_alpha_mskbl);
    BYTEOP("mskwl", __builtin_alpha_mskwl);
    BYTEOP("mskll", __builtin_alpha_mskll);
    BYTEOP("mskql", __builtin_alpha_mskql);
    BYTEOP("mskwh", __builtin_alpha_mskwh);
    BYTEOP("msklh", __builtin_alpha_msklh);
    BYTEOP("mskqh", __builtin_alpha_mskqh);
    BYTEOP("zap", __builtin_alpha_zap);
    BYTEOP("zapnot", __builtin_alpha_zapnot);
    {
        u64 h = 0, hm = 0, hs = 0;
        for (unsigned i = 0; i < NV; i++)
            for (unsigned j = 0; j < NV; j++) {
                u64 a = OPQ(vals[i]), b = OPQ(vals[j]);
                h = mix(h, __builtin_alpha_cmpbge(a, b));
                hm = mix(hm, __builtin_alpha_umulh(a, b));
                hm = mix(hm, a * b);
                hm = mix(hm, (u64)(long)(int)((unsigned)a * (unsigned)b));
                hs = mix(hs, (a << 2) + b);
                hs = mix(hs, (u64)(long)(int)((unsigned)(a << 3) - (unsigned)b));
                hs = mix(hs, (a < b) | (((long)a <= (long)b) << 1) | ((a == b) << 2));
            }
        hex("cmpbge", h);
        hex("mul", hm);
        hex("arith", hs);
    }
    {
        u64 h = 0;
        for (unsigned i = 0; i < NV; i++)
            for (u64 s = 0; s < 64; s += 3) {
                u64 sh = OPQ(s);
                h = mix(h, vals[i] << sh);
                h = mix(h, vals[i] >> sh);
                h = mix(h, (u64)((long)vals[i] >> sh));
            }
        hex("shifts", h);
    }
    {
        u64 h = 0;
        for (unsigned i = 0; i < NV; i++) {
            u64 v = OPQ(vals[i]);
            h = mix(h, (u64)__builtin_popcountl(v));
            if (v) h = mix(h, (u64)__builtin_clzl(v)), h = mix(h, (u64)__builtin_ctzl(v));
            h = mix(h, (u64)(long)(signed char)v);
            h = mix(h, (u64)(long)(short)v);
        }
        hex("counts-sext", h);
    }
#ifdef __alpha_max__
    {
        u64 h = 0;
        for (unsigned i = 0; i < NV; i++)
            for (unsigned j = 0; j < NV; j++) {
                u64 a = OPQ(vals[i]), b = OPQ(vals[j]);
                h = mix(h, __builtin_alpha_minub8(a, b));
                h = mix(h, __builtin_alpha_minsb8(a, b));
                h = mix(h, __builtin_alpha_minuw4(a, b));
                h = mix(h, __builtin_alpha_minsw4(a, b));
                h = mix(h, __builtin_alpha_maxub8(a, b));
                h = mix(h, __builtin_alpha_maxsb8(a, b));
                h = mix(h, __builtin_alpha_maxuw4(a, b));
                h = mix(h, __builtin_alpha_maxsw4(a, b));
                h = mix(h, __builtin_alpha_perr(a, b));
            }
        for (unsigned i = 0; i < NV; i++) {
            u64 a = OPQ(vals[i]);
            h = mix(h, __builtin_alpha_pklb(a));
            h = mix(h, __builtin_alpha_pkwb(a));
            h = mix(h, __builtin_alpha_unpkbl(a));
            h = mix(h, __builtin_alpha_unpkbw(a));
        }
        hex("mvi", h);
    }
#endif
    {
        /* Byte and word stores at every offset next to each other. */
        static u64 mem[4];
        unsigned char *b = OPQ((unsigned char *)mem);
        for (int i = 0; i < 32; i++) b[i] = (unsigned char)(i * 7 + 1);
        unsigned short *w = OPQ((unsigned short *)mem);
        for (int i = 1; i < 16; i += 3) w[i] = (unsigned short)(0xa000 + i);
        u64 h = 0;
        for (int i = 0; i < 4; i++) h = mix(h, mem[i]);
        hex("stores", h);
        hex("mem0", mem[0]);
    }
    {
        static struct sub s = { { 1, 2, 3 }, 1000, 100000, 10 };
        for (int i = 0; i < 100; i++) {
            __atomic_fetch_add(&s.b[1], 3, __ATOMIC_SEQ_CST);
            __atomic_fetch_xor(&s.h, (unsigned short)i, __ATOMIC_SEQ_CST);
            __atomic_fetch_sub(&s.w, (unsigned)i, __ATOMIC_SEQ_CST);
            __atomic_fetch_or(&s.q, (u64)1 << (i % 64), __ATOMIC_SEQ_CST);
        }
        unsigned char exp = 2 + 300 % 256;
        int ok = __atomic_compare_exchange_n(&s.b[1], &exp, 0x55, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        hex("atomic-bytes", (u64)s.b[0] | (u64)s.b[1] << 8 | (u64)s.b[2] << 16 | (u64)s.h << 24 | (u64)ok << 40);
        hex("atomic-w", s.w);
        hex("atomic-q", s.q);
    }
    hex("amask", ~__builtin_alpha_amask(OPQ(0xffffUL)) & 0xffff);
    hex("implver", (u64)__builtin_alpha_implver());
    put("intbare done\n");
    return 0;
}
