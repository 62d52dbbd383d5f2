/* A program that spends its time inside CUDA calls, for a snapshot request
 * followed by SIGTERM (tests/t_term_after_request.sh, issue 48 item 1).
 *
 * A 1 MiB allocation is kept (made in leak()), "ready" is printed, then the
 * main thread loops through cuMemAlloc, cuMemGetInfo and cuMemFree until
 * killed.  On fakecuda each of these holds the driver's one lock, as a real
 * driver holds its own; with FAKECUDA_FREE_DELAY_MS and
 * FAKECUDA_FREE_DELAY_LOCKED the free holds it most of the time, so a
 * SIGTERM usually lands while the main thread holds a lock that the writer
 * thread's driver queries (the signal snapshot's view of the device) also
 * need. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

static void *leak(size_t n)
{
    void *p = NULL;
    if (cudaMalloc(&p, n) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(2);
    }
    return p;
}

int main(void)
{
    leak(1 << 20); /* the runtime makes the primary context current */
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        CUdeviceptr p = 0;
        size_t free_bytes, total_bytes;
        if (cuMemAlloc(&p, 4096) != CUDA_SUCCESS || cuMemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS ||
            cuMemFree(p) != CUDA_SUCCESS)
            exit(3);
    }
}
