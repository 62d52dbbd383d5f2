/* Threads allocating and freeing without pause, attached to and detached
 * from while they run (tests/t_attach_threads.sh).
 *   attach_threads THREADS
 * Prints "ready", then runs until a line arrives on stdin (or it closes),
 * stops the threads, and prints how many CUDA calls did not return
 * cudaSuccess and whether every thread made progress; exits with 3. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

static atomic_bool stop;
static atomic_long failures;

static void *worker(void *arg)
{
    long *done = arg;
    while (!atomic_load(&stop)) {
        void *p = NULL;
        if (cudaMalloc(&p, 4096) != cudaSuccess)
            atomic_fetch_add(&failures, 1);
        else if (cudaFree(p) != cudaSuccess)
            atomic_fetch_add(&failures, 1);
        (*done)++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n < 1 || n > 64)
        return 1;
    pthread_t t[64];
    long done[64] = {0};
    void *warm;
    if (cudaMalloc(&warm, 1) != cudaSuccess) /* the context, before the threads */
        return 1;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, &done[i]);
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (fgets(line, sizeof line, stdin) == NULL)
        line[0] = '\0';
    atomic_store(&stop, true);
    int idle = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        idle += done[i] == 0;
    }
    printf("failures %ld\nidle threads %d\n", atomic_load(&failures), idle);
    return 3;
}
