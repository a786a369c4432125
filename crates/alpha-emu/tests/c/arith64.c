/* status: 0 */
/* 64-bit arithmetic: multiplication (mulq/umulh), division and remainder
   (Alpha has no divide instruction: libgcc's __divq/__remq and friends),
   shifts, overflow wrap. Expected: exit 0. */
#include <stdint.h>
#include <limits.h>
#include "check.h"

int main(void)
{
    int64_t s = OPAQUE((int64_t)-9000000000000000007LL);
    uint64_t u = OPAQUE((uint64_t)18000000000000000011ULL);
    int64_t ds[] = { 1, -1, 2, -3, 7, 1000000007, -4294967296LL, INT64_MAX, INT64_MIN };
    unsigned long h = 0;
    for (unsigned i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        int64_t d = OPAQUE(ds[i]);
        if (!(s == INT64_MIN && d == -1)) {
            int64_t q = s / d, r = s % d;
            CHECK(q * d + r == s);
            CHECK(r == 0 || (r < 0) == (s < 0));
            h = h * 1000003 ^ (uint64_t)q ^ ((uint64_t)r << 1);
        }
        uint64_t ud = (uint64_t)d;
        uint64_t uq = u / ud, ur = u % ud;
        CHECK(uq * ud + ur == u && ur < ud);
        h = h * 1000003 ^ uq ^ (ur << 2);
        int32_t s32 = (int32_t)s, d32 = (int32_t)d;
        if (d32 != 0 && !(s32 == INT32_MIN && d32 == -1))
            h ^= (uint64_t)(uint32_t)(s32 / d32) << 7 ^ (uint32_t)(s32 % d32);
    }
    printf("div hash %016lx\n", h);
    CHECK(INT64_MIN / OPAQUE(1L) == INT64_MIN);
    CHECK(OPAQUE(7UL) / 2 == 3 && OPAQUE(-7L) / 2 == -3 && OPAQUE(-7L) % 2 == -1);
    uint64_t x = OPAQUE(0xfedcba9876543210ULL);
    printf("mul %016lx umulh %016lx\n", x * 0x1234567ULL, (uint64_t)(((unsigned __int128)x * x) >> 64));
    printf("shifts %016lx %016lx %016lx\n", x << OPAQUE(13), x >> OPAQUE(13), (uint64_t)((int64_t)x >> OPAQUE(13)));
    CHECK((uint64_t)(INT64_MAX + (uint64_t)1) == 0x8000000000000000ULL);
    uint64_t lcg = 1;
    for (int i = 0; i < 1000; i++) lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    printf("lcg %016lx\n", lcg);
    unsigned __int128 big = (unsigned __int128)x * lcg;
    printf("u128 %016lx%016lx div %016lx\n", (uint64_t)(big >> 64), (uint64_t)big, (uint64_t)(big / 1000000007u));
    int32_t w = OPAQUE(INT32_MAX);
    w = (int32_t)((uint32_t)w + 1u);
    CHECK(w == INT32_MIN);
    printf("arith64: %d failures\n", failures);
    return failures;
}
