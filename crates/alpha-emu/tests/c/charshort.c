/* status: 0 */
/* char and short arithmetic: sign and zero extension, wrap-around, byte
   and word stores next to each other (the sub-word stores subword is about).
   Expected: every check holds, exit 0. */
#include <string.h>
#include "check.h"

struct bytes { unsigned char a; signed char b; unsigned short c; short d; char e[3]; };

int main(void)
{
    volatile signed char sc[16];
    volatile unsigned char uc[16];
    volatile short ss[16];
    volatile unsigned short us[16];
    for (int i = 0; i < 16; i++) {
        sc[i] = (signed char)(i * 37 - 100);
        uc[i] = (unsigned char)(i * 37 + 200);
        ss[i] = (short)(i * 9001 - 30000);
        us[i] = (unsigned short)(i * 9001 + 40000);
    }
    long s = 0;
    for (int i = 0; i < 16; i++) s = s * 31 + sc[i] + uc[i] + ss[i] + us[i];
    printf("sum %ld\n", s);
    signed char x = OPAQUE((signed char)127);
    x++;
    CHECK(x == -128);
    unsigned char y = OPAQUE((unsigned char)255);
    y += 2;
    CHECK(y == 1);
    short z = OPAQUE((short)-32768);
    z--;
    CHECK(z == 32767);
    CHECK((int)OPAQUE((signed char)-1) == -1);
    CHECK((unsigned)OPAQUE((unsigned char)0xff) == 255u);
    CHECK(OPAQUE((short)-2) / 2 == -1);
    CHECK((unsigned short)OPAQUE(-1) == 65535);
    /* neighbouring byte/short stores must not disturb each other */
    unsigned char arr[17];
    memset(arr, 0xee, sizeof arr);
    for (int i = 0; i < 16; i++) arr[i] = (unsigned char)i;
    CHECK(arr[16] == 0xee);
    for (int i = 0; i < 16; i++) CHECK(arr[i] == i);
    unsigned short w[9];
    for (int i = 0; i < 9; i++) w[i] = 0xbeef;
    for (int i = 0; i < 8; i++) w[i] = (unsigned short)(i * 0x1111);
    CHECK(w[8] == 0xbeef && w[7] == 0x7777);
    struct bytes b = { 0 };
    b.a = 250; b.b = -5; b.c = 65000; b.d = -1234; b.e[1] = 'x';
    printf("struct %u %d %u %d %c size %zu\n", b.a, b.b, b.c, b.d, b.e[1], sizeof b);
    CHECK(b.a + b.b == 245);
    /* byte swapping and rotation */
    unsigned int v = OPAQUE(0x12345678u);
    printf("bswap %08x %04x\n", __builtin_bswap32(v), __builtin_bswap16((unsigned short)v));
    char str[] = "Hello, Alpha!";
    for (char *p = str; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p -= 32;
    printf("upper %s\n", str);
    printf("charshort: %d failures\n", failures);
    return failures;
}
