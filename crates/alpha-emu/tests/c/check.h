/* Shared by the differential corpus: each program prints what it computed
   and counts failed self-checks; the exit status says how many failed
   (0 = all checks held), unless a program documents another status. */
#include <stdio.h>

static int failures;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
        }                                                                   \
    } while (0)

/* A value the optimiser cannot see through. */
#define OPAQUE(x) ({ __typeof__(x) _v = (x); __asm__ volatile("" : "+r"(_v)); _v; })

static unsigned long fnv(const void *p, unsigned long n)
{
    const unsigned char *b = p;
    unsigned long h = 1469598103934665603UL;
    while (n--) {
        h ^= *b++;
        h *= 1099511628211UL;
    }
    return h;
}
