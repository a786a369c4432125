/* Integer workload for benches/vs_qemu.rs: an LCG, an FNV-1a style hash over
 * 64-bit words, and a byte-array sieve, mixed into one checksum.
 * Deterministic; prints the checksum and exits 0. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define SIEVE_N 2000000

static unsigned char composite[SIEVE_N + 1];

static uint64_t lcg_hash(uint64_t rounds)
{
	uint64_t x = 12345, h = 1469598103934665603ULL;
	for (uint64_t i = 0; i < rounds; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		h ^= x >> 17;
		h *= 1099511628211ULL;
		h += (x >> 40) & 0xff;
	}
	return h;
}

static uint64_t sieve(void)
{
	uint64_t count = 0, sum = 0;
	memset(composite, 0, sizeof composite);
	for (uint64_t i = 2; i * i <= SIEVE_N; i++)
		if (!composite[i])
			for (uint64_t j = i * i; j <= SIEVE_N; j += i)
				composite[j] = 1;
	for (uint64_t i = 2; i <= SIEVE_N; i++)
		if (!composite[i]) {
			count++;
			sum += i;
		}
	return count * 1000003ULL ^ sum;
}

int main(void)
{
	uint64_t h = 0;
	for (int r = 0; r < 12; r++) {
		h = h * 31 + lcg_hash(4000000 + r);
		h = h * 31 + sieve();
	}
	printf("int_loops %016llx\n", (unsigned long long)h);
	return 0;
}
