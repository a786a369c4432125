/* status: 0 */
/* String and memory functions at every source/destination alignment and
   length: exercises glibc's Alpha assembly (ldq_u/extql/mskql/stq_u) paths.
   Expected: every check holds, exit 0. */
#include <string.h>
#include <stdlib.h>
#include "check.h"

static char src[256], dst[256], ref[256];

static void ref_copy(char *d, const char *s, size_t n) { while (n--) *d++ = *s++; }

int main(void)
{
    unsigned long h = 0;
    for (int i = 0; i < 256; i++) src[i] = (char)(i * 7 + 3);
    for (int so = 0; so < 8; so++)
        for (int d0 = 0; d0 < 8; d0++)
            for (int n = 0; n < 40; n += 3) {
                memset(dst, 0x5a, sizeof dst);
                memset(ref, 0x5a, sizeof ref);
                memcpy(dst + d0, src + so, OPAQUE((size_t)n));
                ref_copy(ref + d0, src + so, n);
                CHECK(memcmp(dst, ref, sizeof dst) == 0);
                h ^= fnv(dst, 64) + n;
            }
    /* memmove overlapping both ways */
    for (int off = 0; off < 8; off++) {
        char a[64];
        for (int i = 0; i < 64; i++) a[i] = (char)i;
        memmove(a + off + 1, a + off, 30);
        CHECK(a[off + 1] == off && a[off + 30] == off + 29);
        memmove(a + off, a + off + 3, 20);
        h ^= fnv(a, 64);
    }
    /* strlen, strchr, strrchr, strcmp at odd alignments */
    for (int al = 0; al < 8; al++) {
        char buf[80];
        memset(buf, 0, sizeof buf);
        for (int len = 0; len < 30; len++) {
            memset(buf, 0, sizeof buf);
            memset(buf + al, 'a' + len % 26, len);
            CHECK(strlen(buf + al) == (size_t)len);
            if (len) {
                buf[al + len / 2] = 'Z';
                CHECK(strchr(buf + al, 'Z') == buf + al + len / 2);
                CHECK(strrchr(buf + al, 'Z') == buf + al + len / 2);
            }
        }
        CHECK(strcmp("alphabet" + al % 3, "alphabet" + al % 3) == 0);
    }
    CHECK(strcmp("abc", "abd") < 0);
    CHECK(strncmp("abcdef", "abcxyz", 3) == 0);
    CHECK(memcmp("\x80", "\x7f", 1) > 0); /* bytes compare unsigned */
    char *d = strdup("subword alpha");
    CHECK(strcmp(d, "subword alpha") == 0);
    printf("strdup %s len %zu\n", d, strlen(d));
    free(d);
    char out[64];
    snprintf(out, sizeof out, "%d|%5s|%-4x|%08.3f|%c", -42, "ab", 255, 3.14159, 'q');
    printf("snprintf [%s]\n", out);
    CHECK(strcmp(out, "-42|   ab|ff  |0003.142|q") == 0);
    char tok[] = "one,two,,three";
    int ntok = 0;
    for (char *t = strtok(tok, ","); t; t = strtok(NULL, ",")) printf("tok %d %s\n", ntok++, t);
    CHECK(ntok == 3);
    printf("strtol %ld %lu\n", strtol("-0x7fff", NULL, 16), strtoul("18446744073709551615", NULL, 10));
    printf("hash %016lx\n", h);
    printf("strings: %d failures\n", failures);
    return failures;
}
