/* A second thread allocates 64 MiB and touches every page of it: under
   `alpha explore --max-memory 40M` the allocation fails and the thread
   aborts (a crash finding); without the cap nothing is found. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *grab(void *arg) {
    (void)arg;
    char *p = malloc(64 << 20);
    if (!p)
        abort();
    memset(p, 1, 64 << 20);
    return p;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, grab, 0);
    pthread_join(t, &r);
    return ((char *)r)[4096] == 1 ? 0 : 3;
}
