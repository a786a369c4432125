/* A thread checks a pointer, then uses it; another thread clears it in
   between in some schedules: SIGSEGV in those, a clean exit in the rest. */
#include <pthread.h>
#include <stdio.h>

static int target;
static int *volatile ptr = &target;

__attribute__((noinline)) void *use_ptr(void *arg)
{
    for (int i = 0; i < 50; i++) {
        int *p = ptr;
        if (p) {
            p = ptr; /* read again: the window */
            *p += 1;
        }
    }
    return arg;
}

__attribute__((noinline)) void *clear_ptr(void *arg)
{
    ptr = NULL;
    return arg;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, use_ptr, NULL);
    pthread_create(&b, NULL, clear_ptr, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d\n", target);
    return 0;
}
