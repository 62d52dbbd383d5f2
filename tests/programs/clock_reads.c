/* clock_reads N [settle]: counts the clock reads (clock_gettime) gpuleak
 * makes on this thread for N cudaMalloc+cudaFree pairs, after a warm-up of
 * 2,000, and prints "pairs=N reads=R".  tests/t_clock_reads.sh: an event's
 * time is its stamp's tick (interpose/state/events.h), so a pair reads the
 * clock twice, once an event, plus what is rare (a merge, a probe for
 * Python).  That is the kernel's clock until gpuleak's own is fitted to it
 * (interpose/base/clock.h), and then none.  With "settle", the count waits
 * for a pair that reads the kernel's clock no more: up to 200 tries 10 ms
 * apart, their number printed as "settled=K" (0: it never did).
 *
 * This executable defines clock_gettime and exports it (-rdynamic), so the
 * preloaded library's calls bind to it; libc's own calls do not.  Only this
 * thread counts, so the writer thread's ticks are not in the figure. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Pairs 10 ms apart until one reads no clock; the tries it took, or 0. */
static int settle(void)
{
    for (int i = 1; i <= 200; i++) {
        reads = 0;
        counting = 1;
        pairs(1);
        counting = 0;
        if (reads == 0)
            return i;
        usleep(10000);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "settle") != 0)) {
        fprintf(stderr, "usage: clock_reads N [settle]\n");
        return 2;
    }
    long n = atol(argv[1]);
    pairs(2000);
    if (argc == 3)
        printf("settled=%d ", settle());
    reads = 0;
    counting = 1;
    pairs(n);
    counting = 0;
    printf("pairs=%ld reads=%ld\n", n, reads);
    return 0;
}
