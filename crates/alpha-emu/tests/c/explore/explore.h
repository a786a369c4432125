/* Harness shared by the explorer's test programs: N threads created by
   main, released together by a start flag (so their loops overlap), joined,
   then main prints the final values. Each program's output may depend on the
   schedule (it shows what was lost); its exit status never does (always 0).
   A thread that stores a byte or word gets the address as its argument, so
   the compiler cannot know its alignment and emits the general pre-BWX
   sequence (LDQ_U/INSxx/MSKxx/STQ_U) rather than a longword LDL/STL merge.
   Shared data lives in 128-byte aligned objects so that only the bytes a
   program is about share a quadword or a lock range. */
#include <pthread.h>
#include <stdio.h>

#ifndef ITERS
#define ITERS 200
#endif

#define NOINLINE __attribute__((noinline, noclone))
#define ISOLATED __attribute__((aligned(128)))

static volatile int start_flag ISOLATED;

/* Spin until main has created every thread. */
static inline void wait_start(void)
{
    while (!start_flag)
        ;
}

typedef void *(*thread_fn)(void *);

/* Run the n thread functions concurrently (thread i gets args[i], or NULL
   when args is NULL) and wait for all of them. */
static void run_threads(int n, const thread_fn *fns, void *const *args)
{
    pthread_t t[8];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, fns[i], args ? args[i] : NULL);
    start_flag = 1;
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}
