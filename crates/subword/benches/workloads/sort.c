/* Sorting workload for benches/vs_qemu.rs: a large array of generated 32-bit
 * keys sorted by glibc's qsort and by a hand-written bottom-up merge sort,
 * then an array of small records (a byte tag, a 16-bit count, a 64-bit
 * weight) sorted by merge sort on two keys. Both results are checked against
 * each other and for order. Deterministic; prints checksums and exits 0
 * (1 when the sorts disagree). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 19)
#define NREC (1u << 16)

struct rec {
	uint8_t tag;
	uint16_t count;
	uint64_t weight;
};

static uint32_t keys_q[N], keys_m[N], tmp[N];
static struct rec recs[NREC], rtmp[NREC];

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void merge_sort_u32(uint32_t *a, uint32_t *t, uint32_t n)
{
	/* insertion-sort runs of 16, then merge pairs of runs bottom up */
	for (uint32_t lo = 0; lo < n; lo += 16) {
		uint32_t hi = lo + 16 < n ? lo + 16 : n;
		for (uint32_t i = lo + 1; i < hi; i++) {
			uint32_t v = a[i], j = i;
			while (j > lo && a[j - 1] > v) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = v;
		}
	}
	uint32_t *src = a, *dst = t;
	for (uint32_t width = 16; width < n; width *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * width) {
			uint32_t mid = lo + width < n ? lo + width : n;
			uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			uint32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = src[j] < src[i] ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		uint32_t *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

/* Records order by tag, then by descending weight; stable, so equal keys
 * keep their generation order (their count field shows it). */
static int rec_before(const struct rec *x, const struct rec *y)
{
	if (x->tag != y->tag)
		return x->tag < y->tag;
	return x->weight > y->weight;
}

static void merge_sort_rec(struct rec *a, struct rec *t, uint32_t n)
{
	struct rec *src = a, *dst = t;
	for (uint32_t width = 1; width < n; width *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * width) {
			uint32_t mid = lo + width < n ? lo + width : n;
			uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			uint32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = rec_before(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct rec *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

int main(void)
{
	uint64_t sum = 0;
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < N; i++) {
			uint64_t r = next_rand();
			/* a third of the keys come from a small range: many duplicates */
			keys_q[i] = keys_m[i] = r % 3 == 0 ? (uint32_t)(r >> 40) % 1000 : (uint32_t)(r >> 16);
		}
		qsort(keys_q, N, sizeof keys_q[0], cmp_u32);
		merge_sort_u32(keys_m, tmp, N);
		if (memcmp(keys_q, keys_m, sizeof keys_q) != 0) {
			printf("sort: qsort and merge sort disagree in round %d\n", round);
			return 1;
		}
		for (uint32_t i = 0; i < N; i += 97)
			sum = sum * 1000003ULL + keys_q[i];
	}
	for (uint32_t i = 0; i < NREC; i++) {
		uint64_t r = next_rand();
		recs[i].tag = (uint8_t)(r % 61);
		recs[i].count = (uint16_t)i;
		recs[i].weight = (r >> 8) % 5000;
	}
	merge_sort_rec(recs, rtmp, NREC);
	for (uint32_t i = 1; i < NREC; i++)
		if (rec_before(&recs[i], &recs[i - 1]) ||
		    (!rec_before(&recs[i - 1], &recs[i]) && recs[i].count < recs[i - 1].count)) {
			printf("sort: records out of order at %u\n", i);
			return 1;
		}
	for (uint32_t i = 0; i < NREC; i += 31)
		sum = sum * 31 + recs[i].tag * 65536ULL + recs[i].count + recs[i].weight;
	printf("sort %u keys x3, %u records: %016llx\n", N, NREC, (unsigned long long)sum);
	return 0;
}
