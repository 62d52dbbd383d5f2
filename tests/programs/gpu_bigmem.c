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

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int gib = atoi(argv[1]);
    size_t bytes = (size_t)atoi(argv[2]) << 20;
    const size_t G = (size_t)1 << 30, chunk = (size_t)64 << 20;
    char **dev = calloc((size_t)gib, sizeof *dev);
    char *host = malloc(chunk);
    if (!dev || !host || gib < 2 || bytes > G || bytes % chunk)
        return 2;
    memset(host, 0x5a, chunk);
    cudaFree(0);
    printf("start %ld\n", vmrss_kib());
    for (int i = 0; i < gib; i++)
        if (cudaMalloc((void **)&dev[i], G) != cudaSuccess) {
            fprintf(stderr, "gpu_bigmem: cudaMalloc %d failed\n", i);
            return 1;
        }
    printf("allocated %ld\n", vmrss_kib());
    for (size_t off = 0; off < bytes; off += chunk)
        if (cudaMemcpy(dev[0] + off, host, chunk, cudaMemcpyHostToDevice) != cudaSuccess)
            return 1;
    printf("copied %ld\n", vmrss_kib());
    if (cudaMemset(dev[1], 1, bytes) != cudaSuccess)
        return 1;
    printf("memset %ld\n", vmrss_kib());
    for (int i = 0; i < gib; i++)
        cudaFree(dev[i]);
    return 0;
}
