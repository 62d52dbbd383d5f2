/* Allocation calls on both sides of a snapshot, for `gpuleak-report diff`
 * (tests/t_alloc_calls.sh): before.snap is requested after 100 pairs from
 * site_a; then 50 more pairs from site_a and 30 from site_b; the final
 * snapshot is written at exit.  Between the two: 50 calls at site_a, 30 at
 * site_b, all freed. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

int gpuleak_snapshot(const char *path) __attribute__((weak));

static void pairs(int n, size_t size)
{
    for (int i = 0; i < n; i++) {
        void *p;
        if (cudaMalloc(&p, size) != cudaSuccess || cudaFree(p) != cudaSuccess)
            exit(1);
    }
}

__attribute__((noinline)) static void site_a(int n) { pairs(n, 4096); }
__attribute__((noinline)) static void site_b(int n) { pairs(n, 1000); }

int main(void)
{
    for (int round = 0; round < 2; round++) {
        site_a(round == 0 ? 100 : 50); /* one line: the same stack both times */
        if (round == 0 && gpuleak_snapshot && gpuleak_snapshot("before.snap") != 0)
            return 1;
    }
    site_b(30);
    return 0;
}
