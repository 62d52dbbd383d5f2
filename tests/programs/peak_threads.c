/* A new peak set while other threads have allocations accounted only in
 * their own lanes (interpose/state/account.h): the peak and its composition must
 * still be exact.
 *   peak_threads THREADS ROUNDS
 * 1. main: 64 MiB allocated and freed (warm_peak), so that there is headroom
 *    below the peak for the threads' lanes to be given credit;
 * 2. each thread t (0-based): ROUNDS cudaMalloc/cudaFree pairs of 4 KiB,
 *    then t+1 blocks of 1 MiB kept (hold_in_thread), all below the peak;
 * 3. with every thread holding its blocks, main allocates 64 MiB more
 *    (push_peak): the peak is exactly 64 MiB + THREADS*(THREADS+1)/2 MiB;
 * 4. odd threads free their blocks, even threads exit with theirs (leaks);
 *    main frees push_peak's block.  A second pass (all threads gone) frees
 *    nothing and makes sure nothing is lost when lanes retire. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define MIB (1024 * 1024)
#define MAX_THREADS 64

static long rounds;
static pthread_barrier_t held, pushed;

#define MUST(call)                                                              \
    do {                                                                        \
        if ((call) != cudaSuccess)                                              \
            abort();                                                            \
    } while (0)

__attribute__((noinline)) static void *warm_peak(void)
{
    void *p;
    MUST(cudaMalloc(&p, 64 * MIB)); /* PEAK-SITE: warm_peak */
    return p;
}

__attribute__((noinline)) static void *push_peak(void)
{
    void *p;
    MUST(cudaMalloc(&p, 64 * MIB)); /* PEAK-SITE: push_peak */
    return p;
}

__attribute__((noinline)) static void *hold_in_thread(void)
{
    void *p;
    MUST(cudaMalloc(&p, MIB)); /* PEAK-SITE: hold_in_thread */
    return p;
}

__attribute__((noinline)) static void churn_pairs(void)
{
    for (long i = 0; i < rounds; i++) {
        void *p;
        MUST(cudaMalloc(&p, 4096)); /* PEAK-SITE: churn_pairs */
        MUST(cudaFree(p));
    }
}

static void *worker(void *arg)
{
    long t = (long)arg;
    void *blocks[MAX_THREADS];
    churn_pairs();
    for (long i = 0; i <= t; i++)
        blocks[i] = hold_in_thread();
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&pushed);
    if (t % 2 == 1)
        for (long i = 0; i <= t; i++)
            MUST(cudaFree(blocks[i]));
    return NULL;
}

int main(int argc, char **argv)
{
    long threads = argc > 2 ? atol(argv[1]) : 0;
    rounds = argc > 2 ? atol(argv[2]) : 0;
    if (threads < 1 || threads > MAX_THREADS || rounds < 0) {
        fprintf(stderr, "usage: peak_threads THREADS(1-%d) ROUNDS\n", MAX_THREADS);
        return 2;
    }
    MUST(cudaFree(warm_peak()));
    pthread_barrier_init(&held, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&pushed, NULL, (unsigned)threads + 1);
    pthread_t tids[MAX_THREADS];
    for (long t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, worker, (void *)t);
    pthread_barrier_wait(&held);
    void *big = push_peak();
    pthread_barrier_wait(&pushed);
    for (long t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    MUST(cudaFree(big));
    return 0;
}
