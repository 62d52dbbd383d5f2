/* Snapshots taken while threads allocate (tests/t_snap_calls_race.sh):
 * three threads make cudaMalloc/cudaFree pairs from 40 call stacks in turn
 * (the recursion depth makes each stack its own), more stacks than a
 * thread's tally has slots, so tallies flush into the stacks' counters all
 * the time; the main thread asks for `snaps` snapshots (s1.snap, ...)
 * meanwhile.  Each snapshot's allocation calls must agree with its device
 * counters. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

int gpuleak_snapshot(const char *path) __attribute__((weak));

#define STACKS 40
#define THREADS 3

static atomic_bool stop;
static atomic_int failed;

__attribute__((noinline)) static void pair_at(int depth)
{
    if (depth > 0) {
        pair_at(depth - 1);
        __asm__ volatile("" ::: "memory"); /* not a tail call: one frame per level */
        return;
    }
    void *p;
    if (cudaMalloc(&p, 256) != cudaSuccess || cudaFree(p) != cudaSuccess)
        atomic_store(&failed, 1);
}

static void *churn(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load(&stop); i++)
        pair_at((int)(i % STACKS));
    return NULL;
}

int main(int argc, char **argv)
{
    int snaps = argc > 1 ? atoi(argv[1]) : 20;
    if (!gpuleak_snapshot) {
        fprintf(stderr, "not traced\n");
        return 2;
    }
    void *warm;
    if (cudaMalloc(&warm, 1) != cudaSuccess || cudaFree(warm) != cudaSuccess)
        return 1;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, churn, NULL);
    int bad = 0;
    for (int i = 1; i <= snaps; i++) {
        char path[32];
        snprintf(path, sizeof path, "s%d.snap", i);
        bad |= gpuleak_snapshot(path) != 0;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return bad || atomic_load(&failed) ? 1 : 0;
}
