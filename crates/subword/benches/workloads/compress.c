/* Compression workload for benches/vs_qemu.rs: an LZ77 codec (hash-chain
 * match finder, 64 KiB window) followed by an order-0 Huffman coder over its
 * token bytes, compressing and decompressing a generated 1 MiB corpus of
 * word-like text with noise. Every round trip is checked byte for byte.
 * Deterministic; prints sizes and checksums and exits 0 (1 on a mismatch). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS (1u << 20)
#define WINDOW (1u << 16)
#define HASH_BITS 15
#define MAX_CHAIN 24
#define MIN_MATCH 4
#define MAX_MATCH 258
#define ROUNDS 4

static uint8_t corpus[CORPUS];
static uint8_t tokens[CORPUS + CORPUS / 8 + 16];
static uint8_t packed[CORPUS + CORPUS / 4 + 1024];
static uint8_t untok[CORPUS + CORPUS / 8 + 16];
static uint8_t restored[CORPUS];
static int32_t head[1 << HASH_BITS];
static int32_t prev[WINDOW];

static uint32_t rng = 2463534242u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static const char *const words[] = {
	"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
	"alpha", "byte", "store", "quadword", "lock", "range", "tile",
	"stride", "element", "nibble", "memory", "access", "load", "word",
	"emulator", "instruction", "compiled", "interpreter", "sequence",
};

static void make_corpus(void)
{
	uint32_t n = 0, nwords = sizeof words / sizeof words[0];
	while (n < CORPUS) {
		uint32_t r = next_rand();
		if (r % 23 == 0) {
			/* a burst of incompressible bytes */
			for (uint32_t k = 0; k < 1 + r % 13 && n < CORPUS; k++)
				corpus[n++] = (uint8_t)next_rand();
			continue;
		}
		const char *w = words[(r >> 8) % nwords];
		while (*w && n < CORPUS)
			corpus[n++] = (uint8_t)*w++;
		if (n < CORPUS)
			corpus[n++] = (r >> 20) % 11 == 0 ? '\n' : ' ';
	}
}

static uint32_t hash4(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;
	return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Tokens: a flag byte announces 8 items (bit set = match); a literal is one
 * byte, a match is length-MIN_MATCH (one byte) and distance-1 (two bytes,
 * little-endian). Returns the token byte count. */
static uint32_t lz_compress(const uint8_t *in, uint32_t n, uint8_t *out)
{
	uint32_t o = 0, i = 0, flag_pos = 0, items = 8;
	for (uint32_t k = 0; k < (1u << HASH_BITS); k++)
		head[k] = -1;
	while (i < n) {
		if (items == 8) {
			flag_pos = o++;
			out[flag_pos] = 0;
			items = 0;
		}
		uint32_t best_len = 0, best_dist = 0;
		if (i + MIN_MATCH <= n) {
			uint32_t h = hash4(in + i);
			int32_t cand = head[h];
			uint32_t limit = n - i < MAX_MATCH ? n - i : MAX_MATCH;
			for (int chain = 0; cand >= 0 && chain < MAX_CHAIN; chain++) {
				uint32_t dist = i - (uint32_t)cand;
				if (dist > WINDOW)
					break;
				const uint8_t *a = in + cand, *b = in + i;
				uint32_t len = 0;
				while (len < limit && a[len] == b[len])
					len++;
				if (len > best_len) {
					best_len = len;
					best_dist = dist;
					if (len == limit)
						break;
				}
				cand = prev[cand % WINDOW];
			}
		}
		uint32_t step = best_len >= MIN_MATCH ? best_len : 1;
		if (best_len >= MIN_MATCH) {
			out[flag_pos] |= (uint8_t)(1u << items);
			out[o++] = (uint8_t)(best_len - MIN_MATCH);
			out[o++] = (uint8_t)(best_dist - 1);
			out[o++] = (uint8_t)((best_dist - 1) >> 8);
		} else {
			out[o++] = in[i];
		}
		items++;
		for (uint32_t k = 0; k < step; k++, i++)
			if (i + MIN_MATCH <= n) {
				uint32_t h = hash4(in + i);
				prev[i % WINDOW] = head[h];
				head[h] = (int32_t)i;
			}
	}
	return o;
}

static uint32_t lz_decompress(const uint8_t *in, uint32_t n, uint8_t *out)
{
	uint32_t i = 0, o = 0;
	while (i < n) {
		uint8_t flags = in[i++];
		for (int item = 0; item < 8 && i < n; item++) {
			if (flags & (1u << item)) {
				uint32_t len = (uint32_t)in[i] + MIN_MATCH;
				uint32_t dist = ((uint32_t)in[i + 1] | (uint32_t)in[i + 2] << 8) + 1;
				i += 3;
				for (uint32_t k = 0; k < len; k++, o++)
					out[o] = out[o - dist];
			} else {
				out[o++] = in[i++];
			}
		}
	}
	return o;
}

/* Huffman tree: leaves 0..255, inner nodes 256..510. */
static int32_t kids[511][2];
static uint32_t code_bits[256];
static uint8_t code_len[256];

static int build_tree(const uint32_t *freq)
{
	uint64_t weight[511];
	int alive[511], nalive = 0, next = 256;
	for (int s = 0; s < 256; s++)
		if (freq[s]) {
			weight[s] = freq[s];
			alive[nalive++] = s;
		}
	if (nalive == 1) { /* a lone symbol still needs a one-bit code */
		weight[next] = weight[alive[0]];
		kids[next][0] = kids[next][1] = alive[0];
		return next;
	}
	while (nalive > 1) {
		int lo[2];
		for (int pick = 0; pick < 2; pick++) {
			int best = 0;
			for (int k = 1; k < nalive; k++)
				if (weight[alive[k]] < weight[alive[best]] ||
				    (weight[alive[k]] == weight[alive[best]] && alive[k] < alive[best]))
					best = k;
			lo[pick] = alive[best];
			alive[best] = alive[--nalive];
		}
		kids[next][0] = lo[0];
		kids[next][1] = lo[1];
		weight[next] = weight[lo[0]] + weight[lo[1]];
		alive[nalive++] = next++;
	}
	return alive[0];
}

static void assign_codes(int node, uint32_t bits, uint8_t len)
{
	if (node < 256) {
		code_bits[node] = bits;
		code_len[node] = len;
		return;
	}
	assign_codes(kids[node][0], bits, len + 1);
	if (kids[node][1] != kids[node][0])
		assign_codes(kids[node][1], bits | 1u << len, len + 1);
}

static uint32_t huff_encode(const uint8_t *in, uint32_t n, uint8_t *out)
{
	uint64_t acc = 0;
	uint32_t nbits = 0, o = 0;
	for (uint32_t i = 0; i < n; i++) {
		acc |= (uint64_t)code_bits[in[i]] << nbits;
		nbits += code_len[in[i]];
		while (nbits >= 8) {
			out[o++] = (uint8_t)acc;
			acc >>= 8;
			nbits -= 8;
		}
	}
	if (nbits)
		out[o++] = (uint8_t)acc;
	return o;
}

static void huff_decode(const uint8_t *in, uint32_t nsyms, int root, uint8_t *out)
{
	uint32_t bit = 0;
	for (uint32_t s = 0; s < nsyms; s++) {
		int node = root;
		while (node >= 256) {
			int b = (in[bit >> 3] >> (bit & 7)) & 1;
			node = kids[node][b];
			bit++;
		}
		out[s] = (uint8_t)node;
	}
}

static uint64_t fnv(const uint8_t *p, uint32_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

int main(void)
{
	make_corpus();
	uint64_t sum = fnv(corpus, CORPUS);
	uint32_t ntok = 0, npacked = 0;
	for (int round = 0; round < ROUNDS; round++) {
		/* vary the corpus a little each round so no work is repeated */
		corpus[(uint32_t)round * 7919u % CORPUS] ^= (uint8_t)(round + 1);
		ntok = lz_compress(corpus, CORPUS, tokens);
		uint32_t freq[256] = {0};
		for (uint32_t i = 0; i < ntok; i++)
			freq[tokens[i]]++;
		int root = build_tree(freq);
		assign_codes(root, 0, 0);
		npacked = huff_encode(tokens, ntok, packed);
		huff_decode(packed, ntok, root, untok);
		if (memcmp(untok, tokens, ntok) != 0) {
			printf("compress: Huffman round trip differs in round %d\n", round);
			return 1;
		}
		uint32_t nout = lz_decompress(untok, ntok, restored);
		if (nout != CORPUS || memcmp(restored, corpus, CORPUS) != 0) {
			printf("compress: LZ77 round trip differs in round %d\n", round);
			return 1;
		}
		sum = sum * 31 + fnv(packed, npacked);
	}
	printf("compress %u -> %u tokens -> %u bytes, %016llx\n", CORPUS, ntok, npacked,
	       (unsigned long long)sum);
	return 0;
}
