/* status: 0 */
/* The smallest glibc program. Its relaxed static build (linked without
   -Wl,--no-relax) is the __ctype_init crash case: see the differential test.
   Expected: exit 0. */
#include <stdio.h>

int main(void)
{
    printf("hello from alpha\n");
    return 0;
}
