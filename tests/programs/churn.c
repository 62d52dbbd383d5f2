/* Threads allocating and freeing concurrently, for the long-job tests.
 *   churn THREADS ITERATIONS [HOLD_MS]
 * Each thread t (0-based) does ITERATIONS cudaMalloc/cudaFree pairs, then
 * leaks exactly t+1 allocations of 1000 bytes from leak_in_thread().  With
 * HOLD_MS the process then waits that long before exiting (so a test can
 * signal it), after printing "ready" on stdout. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

static long iterations;

__attribute__((noinline)) static void leak_in_thread(void)
{
    void *p;
    if (cudaMalloc(&p, 1000) != cudaSuccess) /* LEAK-SITE: leak_in_thread */
        abort();
}

static void *worker(void *arg)
{
    long t = (long)arg;
    for (long i = 0; i < iterations; i++) {
        void *p;
        if (cudaMalloc(&p, 4096 + (size_t)t) != cudaSuccess)
            abort();
        if (cudaFree(p) != cudaSuccess)
            abort();
    }
    for (long i = 0; i <= t; i++)
        leak_in_thread();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: churn THREADS ITERATIONS [HOLD_MS]\n");
        return 2;
    }
    long threads = atol(argv[1]);
    iterations = atol(argv[2]);
    long hold_ms = argc > 3 ? atol(argv[3]) : 0;
    if (threads < 1 || threads > 256)
        return 2;
    pthread_t tids[256];
    for (long t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, worker, (void *)t);
    for (long t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    if (hold_ms > 0) {
        printf("ready\n");
        fflush(stdout);
        struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return 0;
}
