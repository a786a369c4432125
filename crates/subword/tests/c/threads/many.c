/* Many threads: create N (argv[1], default 5000) at once, each doing a
 * little arithmetic, then join them all and print how many ran and the sum
 * of what they returned. A pthread_create that fails is reported with its
 * error and the threads made so far are still joined. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long work(long seed)
{
    long x = seed;
    for (int i = 0; i < 200; i++)
        x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
}

static void *body(void *a)
{
    return (void *)(work((long)a) & 0xff);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5000;
    pthread_t *t = malloc(sizeof *t * n);
    long sum = 0;
    int made = 0;
    for (int i = 0; i < n; i++) {
        int e = pthread_create(&t[i], NULL, body, (void *)(long)i);
        if (e != 0) {
            printf("create %d: %s\n", i, strerror(e));
            break;
        }
        made++;
    }
    for (int i = 0; i < made; i++) {
        void *r;
        pthread_join(t[i], &r);
        sum += (long)r;
    }
    printf("%d threads, sum %ld\n", made, sum);
    return 0;
}
