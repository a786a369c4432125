/* Dynamic glibc hello world, timed for start-up cost by benches/vs_qemu.rs. */
#include <stdio.h>

int main(void)
{
	puts("hello, world");
	return 0;
}
