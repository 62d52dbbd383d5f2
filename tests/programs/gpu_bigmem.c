/* Device memory that costs no host memory (tests/t_fakecuda_bigmem.sh):
 * allocates GIB GiB in 1 GiB cudaMallocs, then copies a 64 MiB host buffer
 * over the first MIB MiB of the first one and memsets the first MIB MiB of
 * the second, printing this process's resident memory (VmRSS, KiB) after
 * each step:  start KIB / allocated KIB / copied KIB / memset KIB
 * Usage: gpu_bigmem GIB MIB (MIB a multiple of 64, at most 1024) */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long vmrss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/* The steps; 0, or 1 at the first failure (named on stderr). */
static int steps(char **dev, int gib, const char *host, size_t chunk, size_t bytes)
{
    const size_t G = (size_t)1 << 30;
    cudaFree(0);
    printf("start %ld\n", vmrss_kib());
    for (int i = 0; i < gib; i++)
        if (cudaMalloc((void **)&dev[i], G) != cudaSuccess) {
            fprintf(stderr, "gpu_bigmem: cudaMalloc %d failed\n", i);
            return 1;
        }
    printf("allocated %ld\n", vmrss_kib());
    for (size_t off = 0; off < bytes; off += chunk)
        if (cudaMemcpy(dev[0] + off, host, chunk, cudaMemcpyHostToDevice) != cudaSuccess) {
            fprintf(stderr, "gpu_bigmem: cudaMemcpy failed\n");
            return 1;
        }
    printf("copied %ld\n", vmrss_kib());
    if (cudaMemset(dev[1], 1, bytes) != cudaSuccess) {
        fprintf(stderr, "gpu_bigmem: cudaMemset failed\n");
        return 1;
    }
    printf("memset %ld\n", vmrss_kib());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int gib = atoi(argv[1]);
    size_t bytes = (size_t)atoi(argv[2]) << 20, chunk = (size_t)64 << 20;
    if (gib < 2 || bytes > ((size_t)1 << 30) || bytes % chunk)
        return 2;
    char **dev = calloc((size_t)gib, sizeof *dev);
    char *host = malloc(chunk);
    int rc = 2;
    if (dev && host) {
        memset(host, 0x5a, chunk);
        rc = steps(dev, gib, host, chunk, bytes);
        for (int i = 0; i < gib; i++)
            cudaFree(dev[i]);
    }
    free(dev);
    free(host);
    return rc;
}
