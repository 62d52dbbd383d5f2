/* Threads allocating and freeing without pause, attached to and detached
 * from while they run (tests/t_attach_threads.sh).
 *   attach_threads THREADS
 * Prints "ready", then reads commands on stdin:
 *   progress  waits until every thread has made at least one more
 *             cudaMalloc/cudaFree pair since the last "progress" (30 s at
 *             most) and prints "ok progress", or "stalled N" for the N
 *             threads that made none;
 *   quit (or end of input)  stops the threads and prints how many CUDA
 *             calls did not return cudaSuccess, how many threads never made
 *             progress, and whether the driver's used memory is what it was
 *             before the threads started (every cudaFree reached it: none
 *             was lost on the way); exits with 3. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#define MAX_THREADS 64
#define PROGRESS_WAIT_MS 30000

static atomic_bool stop;
static atomic_long failures;
static atomic_long done[MAX_THREADS]; /* pairs made, per thread */

static void *worker(void *arg)
{
    atomic_long *pairs = arg;
    while (!atomic_load(&stop)) {
        void *p = NULL;
        if (cudaMalloc(&p, 4096) != cudaSuccess)
            atomic_fetch_add(&failures, 1);
        else if (cudaFree(p) != cudaSuccess)
            atomic_fetch_add(&failures, 1);
        atomic_fetch_add(pairs, 1);
    }
    return NULL;
}

/* The number of threads that made no pair since seen[]; seen[] updated. */
static int stalled(int n, long *seen)
{
    struct timespec ms = {0, 1000 * 1000};
    int waiting = n;
    for (int i = 0; i < PROGRESS_WAIT_MS && waiting > 0; i++) {
        waiting = 0;
        for (int t = 0; t < n; t++)
            waiting += atomic_load(&done[t]) == seen[t];
        if (waiting > 0)
            nanosleep(&ms, NULL);
    }
    for (int t = 0; t < n; t++)
        seen[t] = atomic_load(&done[t]);
    return waiting;
}

static size_t used_bytes(void)
{
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
        return 0;
    return total - free_bytes;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n < 1 || n > MAX_THREADS)
        return 1;
    pthread_t t[MAX_THREADS];
    long seen[MAX_THREADS] = {0};
    void *warm;
    if (cudaMalloc(&warm, 1) != cudaSuccess) /* the context, before the threads */
        return 1;
    size_t used_before = used_bytes();
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, &done[i]);
    printf("ready\n");
    fflush(stdout);
    char line[32];
    while (fgets(line, sizeof line, stdin) != NULL && strcmp(line, "quit\n") != 0) {
        if (strcmp(line, "progress\n") != 0)
            continue;
        int s = stalled(n, seen);
        if (s > 0)
            printf("stalled %d\n", s);
        else
            printf("ok progress\n");
        fflush(stdout);
    }
    atomic_store(&stop, true);
    int idle = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        idle += atomic_load(&done[i]) == 0;
    }
    size_t used_after = used_bytes();
    printf("failures %ld\nidle threads %d\n", atomic_load(&failures), idle);
    if (used_after == used_before)
        printf("driver memory as before\n");
    else
        printf("driver memory %zu bytes in use, %zu before\n", used_after, used_before);
    return 3;
}
