/* String-heavy workload for benches/vs_qemu.rs: memcpy, strlen, strcmp,
 * memchr and hand-written byte loops over buffers at varied alignments
 * (the sub-word accesses Alpha without BWX has to synthesise).
 * Deterministic; prints a checksum and exits 0. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define BUF 4096

static char src[BUF + 16], dst[BUF + 16], other[BUF + 16];

static void fill(char *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (char)('a' + (seed >> 16) % 26);
	}
	p[n] = 0;
}

static uint64_t byte_loop(const char *p, size_t n)
{
	uint64_t h = 0;
	for (size_t i = 0; i < n; i++)
		h = h * 131 + (unsigned char)p[i];
	return h;
}

int main(void)
{
	uint64_t sum = 0;
	for (int round = 0; round < 7000; round++) {
		size_t soff = round % 8, doff = (round / 8) % 8;
		size_t len = 1000 + (size_t)(round * 37) % (BUF - 1100);
		fill(src + soff, len, (uint32_t)round);
		memcpy(dst + doff, src + soff, len + 1);
		sum += strlen(dst + doff);
		memcpy(other + 3, dst + doff, len + 1);
		other[3 + len / 2] ^= 1;
		int c = strcmp(dst + doff, other + 3);
		sum = sum * 3 + (uint64_t)(c < 0 ? 1 : c > 0 ? 2 : 0);
		sum ^= (uint64_t)strcmp(src + soff, dst + doff) == 0;
		const char *q = memchr(dst + doff, 'q', len);
		sum += q ? (uint64_t)(q - (dst + doff)) : 7;
		sum += byte_loop(other + 3, len);
		for (size_t i = 0; i < len; i++)
			dst[doff + i] = (char)(dst[doff + i] ^ other[3 + i]);
		sum += byte_loop(dst + doff, len);
	}
	printf("strings %016llx\n", (unsigned long long)sum);
	return 0;
}
