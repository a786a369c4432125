/* A lost store inside the C library: one thread sets byte `a` of a struct
   with memmove (glibc's Alpha memmove moves a lone byte by an
   LDQ_U/INSBL/MSKBL/STQ_U merge), the other stores the adjacent byte `b`
   itself. Built for ev4, either merge can write the other's byte back
   stale, so one side of each finding lies in libc (a dynamic build names
   it `memmove+0x…` in libc.so.6.1). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ITERS 100

static volatile int start_flag __attribute__((aligned(128)));
static struct {
    unsigned char a;
    volatile unsigned char b;
} s __attribute__((aligned(128)));

/* The length is read at run time, so GCC cannot inline the memmove. */
static volatile size_t one = 1;
static const unsigned char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};

__attribute__((noinline)) void *fill_a(void *arg)
{
    while (!start_flag)
        ;
    for (int i = 1; i <= ITERS; i++)
        memmove(arg, &src[i & 7], one);
    return NULL;
}

__attribute__((noinline)) void *store_b(void *arg)
{
    volatile unsigned char *p = arg;
    while (!start_flag)
        ;
    for (int i = 1; i <= ITERS; i++)
        *p = (unsigned char)(i + 1);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    pthread_create(&t[0], NULL, fill_a, (void *)&s.a);
    pthread_create(&t[1], NULL, store_b, (void *)&s.b);
    start_flag = 1;
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("a=%d b=%d\n", s.a, s.b);
    return 0;
}
