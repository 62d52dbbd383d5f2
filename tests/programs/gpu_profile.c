/* What a card profile (fakecuda-run --gpu NAME) answers, through the
 * runtime, the driver and NVML, one line each, for tests/t_fakecuda_gpu.sh:
 *   runtime NAME|MAJOR.MINOR|SMS|L2|TOTAL|MEMINFO_TOTAL|MEMINFO_USED
 *   driver NAME|MAJOR.MINOR|SMS|L2|TOTAL
 *   nvml NAME
 * MEMINFO_USED is what cudaMemGetInfo counts as used once the primary
 * context exists: the context's own memory. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

static int runtime_line(void)
{
    struct cudaDeviceProp p;
    size_t free_b, total_b;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 1;
    printf("runtime %s|%d.%d|%d|%d|%zu|%zu|%zu\n", p.name, p.major, p.minor, p.multiProcessorCount,
           p.l2CacheSize, p.totalGlobalMem, total_b, total_b - free_b);
    return 0;
}

static int driver_line(void)
{
    char name[256];
    int major, minor, sms, l2;
    size_t total;
    if (cuDeviceGetName(name, sizeof name, 0) || cuDeviceTotalMem(&total, 0) ||
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) ||
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0) ||
        cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0) ||
        cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0))
        return 1;
    printf("driver %s|%d.%d|%d|%d|%zu\n", name, major, minor, sms, l2, total);
    return 0;
}

/* As PyTorch reaches NVML: dlopen, the device by PCI bus id. */
static int nvml_line(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 1;
    int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
    int (*by_bus)(const char *, void **) = (int (*)(const char *, void **))dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
    int (*get_name)(void *, char *, unsigned) = (int (*)(void *, char *, unsigned))dlsym(h, "nvmlDeviceGetName");
    void *dev;
    char name[96];
    if (!init || !by_bus || !get_name || init() || by_bus("00000000:01:00.0", &dev) || get_name(dev, name, sizeof name))
        return 1;
    printf("nvml %s\n", name);
    return 0;
}

int main(void)
{
    if (runtime_line() || driver_line() || nvml_line()) {
        fprintf(stderr, "gpu_profile: a query failed\n");
        return 1;
    }
    return 0;
}
