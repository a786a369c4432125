/* Grow the break by 1 MiB at a time up to 4 GiB; with the argument
   `touch`, write one byte in each new MiB. Untouched memory must cost the
   host nothing (and touched memory one page per MiB). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int touch = argc > 1 && strcmp(argv[1], "touch") == 0;
    long n = 0;
    for (; n < 4096; n++) {
        char *p = sbrk(1 << 20);
        if (p == (void *)-1) break;
        if (touch) p[4096] = 1;
    }
    printf("grew %ld MiB\n", n);
    return 0;
}
