/* status: 0 */
/* Packed structures with fields at odd offsets: GCC compiles these to
   ldq_u/extxl/insxl/mskxl sequences (never an unaligned ldq), so they must
   work without the kernel's unaligned fix-up. Expected: exit 0. */
#include <string.h>
#include "check.h"

struct __attribute__((packed)) rec {
    char tag;
    unsigned long q;
    unsigned int l;
    unsigned short w;
    double d;
    float f;
};

struct __attribute__((packed)) twisted { char c[3]; long v; };

int main(void)
{
    struct rec arr[5];
    memset(arr, 0, sizeof arr);
    printf("sizeof rec %zu twisted %zu\n", sizeof(struct rec), sizeof(struct twisted));
    for (int i = 0; i < 5; i++) {
        arr[i].tag = (char)('A' + i);
        arr[i].q = 0x0123456789abcdefUL * (unsigned long)(i + 1);
        arr[i].l = 0xdeadbeefu ^ (unsigned)i;
        arr[i].w = (unsigned short)(0xcafe + i);
        arr[i].d = 1.5 * i;
        arr[i].f = -0.25f * i;
    }
    unsigned long h = fnv(arr, sizeof arr);
    for (int i = 0; i < 5; i++) {
        CHECK(arr[i].tag == 'A' + i);
        CHECK(arr[i].q == 0x0123456789abcdefUL * (unsigned long)(i + 1));
        CHECK(arr[i].l == (0xdeadbeefu ^ (unsigned)i));
        CHECK(arr[i].w == 0xcafe + i);
        CHECK(arr[i].d == 1.5 * i);
        CHECK(arr[i].f == -0.25f * i);
    }
    printf("hash %016lx\n", h);
    /* Unaligned access through memcpy at every offset. */
    unsigned char buf[32];
    for (int i = 0; i < 32; i++) buf[i] = (unsigned char)(i * 11);
    for (int off = 0; off < 8; off++) {
        unsigned long q; unsigned int l; unsigned short w;
        memcpy(&q, buf + off, 8);
        memcpy(&l, buf + off + 1, 4);
        memcpy(&w, buf + off + 3, 2);
        printf("off %d q %016lx l %08x w %04x\n", off, q, l, w);
        q = ~q;
        memcpy(buf + off + 8, &q, 8);
    }
    struct twisted t[3];
    for (int i = 0; i < 3; i++) t[i].v = -1000000007L * (i + 1);
    long sum = 0;
    for (int i = 0; i < 3; i++) sum += t[i].v;
    CHECK(sum == -6000000042L);
    printf("hash2 %016lx\n", fnv(buf, sizeof buf));
    printf("unaligned: %d failures\n", failures);
    return failures;
}
