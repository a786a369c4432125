/* Floating-point workload for benches/vs_qemu.rs: repeated dense matrix
 * multiply in double, with a normalisation step so values stay finite.
 * Deterministic; prints the checksum (as rounded integers) and exits 0. */
#include <stdio.h>

#define N 64

static double a[N][N], b[N][N], c[N][N];

int main(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = (double)((i * 7 + j * 3) % 17) / 17.0;
			b[i][j] = (double)((i * 5 + j * 11) % 13) / 13.0 - 0.5;
		}
	double trace_sum = 0.0;
	for (int rep = 0; rep < 32; rep++) {
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				double s = 0.0;
				for (int k = 0; k < N; k++)
					s += a[i][k] * b[k][j];
				c[i][j] = s;
			}
		double norm = 0.0;
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++)
				norm += c[i][j] * c[i][j];
		norm = norm > 0.0 ? 1.0 / (1.0 + norm / (N * N)) : 1.0;
		for (int i = 0; i < N; i++) {
			trace_sum += c[i][i];
			for (int j = 0; j < N; j++)
				a[i][j] = c[i][j] * norm + 0.001 * (double)((i + j + rep) % 5);
		}
	}
	printf("fp_kernel %lld\n", (long long)(trace_sum * 1e6));
	return 0;
}
