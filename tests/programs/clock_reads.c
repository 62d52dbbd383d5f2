/* clock_reads N: counts the clock reads (clock_gettime) gpuleak makes on
 * this thread for N cudaMalloc+cudaFree pairs, after a warm-up of 2,000, and
 * prints "pairs=N reads=R".  tests/t_clock_reads.sh: an event's time is its
 * stamp's tick (interpose/state/events.h), so a pair reads the clock twice,
 * once an event, plus what is rare (a merge, a probe for Python).
 *
 * This executable defines clock_gettime and exports it (-rdynamic), so the
 * preloaded library's calls bind to it; libc's own calls do not.  Only this
 * thread counts, so the writer thread's ticks are not in the figure. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

static __thread long reads;
static __thread int counting;

int clock_gettime(clockid_t clock, struct timespec *ts)
{
    if (counting)
        reads++;
    return (int)syscall(SYS_clock_gettime, clock, ts);
}

static void pairs(long n)
{
    for (long i = 0; i < n; i++) {
        void *p = NULL;
        if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess) {
            fprintf(stderr, "clock_reads: cudaMalloc/cudaFree failed\n");
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: clock_reads N\n");
        return 2;
    }
    long n = atol(argv[1]);
    pairs(2000);
    counting = 1;
    pairs(n);
    counting = 0;
    printf("pairs=%ld reads=%ld\n", n, reads);
    return 0;
}
