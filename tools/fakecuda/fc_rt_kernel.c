/* Runtime: kernels.  A program (or a library such as libtorch_cuda.so)
 * built with nvcc registers its fat binaries and kernels from static
 * constructors (__cudaRegisterFatBinary, __cudaRegisterFunction, ...) and
 * launches through __cudaPushCallConfiguration / __cudaPopCallConfiguration
 * then __cudaGetKernel + __cudaLaunchKernel (CUDA 13) or cudaLaunchKernel.
 * fakecuda runs no device code: it keeps a table of every registered kernel
 * (host stub -> device name, for reports that name kernels), checks a
 * launch's kernel, configuration and stream, and returns success.  As in
 * NVIDIA's runtime, registration does not load the driver. */
#include "fc_rt.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fc_kernel {
    const void *host_fun;      /* the host stub the program launches by */
    const char *name;          /* the device function's (mangled) name */
    void **module;             /* the __cudaRegisterFatBinary handle */
    unsigned long long launches;
    struct fc_kernel *next;    /* hash chain */
};

#define FC_KBUCKETS 65536 /* libtorch_cuda.so registers tens of thousands */
static struct fc_kernel *kbuckets[FC_KBUCKETS];
static pthread_mutex_t kmu = PTHREAD_MUTEX_INITIALIZER;

static size_t kbucket(const void *host_fun)
{
    uintptr_t h = (uintptr_t)host_fun;
    return (size_t)((h >> 4) ^ (h >> 20)) & (FC_KBUCKETS - 1);
}

static struct fc_kernel *kfind_locked(const void *host_fun)
{
    for (struct fc_kernel *k = kbuckets[kbucket(host_fun)]; k; k = k->next)
        if (k->host_fun == host_fun)
            return k;
    return NULL;
}

/* A cudaKernel_t handed out is the entry itself; entries are freed only
 * with their fat binary, when nothing may launch them any more. */
static struct fc_kernel *kfind(const void *host_fun)
{
    pthread_mutex_lock(&kmu);
    struct fc_kernel *k = kfind_locked(host_fun);
    pthread_mutex_unlock(&kmu);
    return k;
}

/* The handle is a cell holding the fat binary's address, as the real one
 * is a pointer to the runtime's record of it. */
void **__cudaRegisterFatBinary(void *fatCubin)
{
    void **handle = malloc(sizeof *handle);
    if (handle)
        *handle = fatCubin;
    return handle;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) { (void)fatCubinHandle; }

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    if (!fatCubinHandle)
        return;
    pthread_mutex_lock(&kmu);
    for (size_t b = 0; b < FC_KBUCKETS; b++) {
        struct fc_kernel **pp = &kbuckets[b];
        while (*pp) {
            struct fc_kernel *k = *pp;
            if (k->module == fatCubinHandle) {
                *pp = k->next;
                free(k);
            } else {
                pp = &k->next;
            }
        }
    }
    pthread_mutex_unlock(&kmu);
    free(fatCubinHandle);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    if (!hostFun)
        return;
    pthread_mutex_lock(&kmu);
    struct fc_kernel *k = kfind_locked(hostFun);
    if (!k && (k = calloc(1, sizeof *k))) {
        k->host_fun = hostFun;
        size_t b = kbucket(hostFun);
        k->next = kbuckets[b];
        kbuckets[b] = k;
    }
    if (k) {
        k->name = deviceName; /* lives in the registering library's data */
        k->module = fatCubinHandle;
    }
    pthread_mutex_unlock(&kmu);
}

/* Device variables are not modelled (cudaGetSymbolAddress & co are stubs). */
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global)
{
    (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)deviceName;
    (void)ext, (void)size, (void)constant, (void)global;
}

/* Managed variables need no module initialisation here. */
char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return 1;
}

/* ---- launch configuration (<<<grid, block, shmem, stream>>>) ---------- */

struct fc_call_config {
    dim3 grid, block;
    size_t shmem;
    struct CUstream_st *stream;
};
#define FC_CONFIG_DEPTH 16 /* a launch inside a kernel argument's evaluation nests */
static __thread struct fc_call_config configs[FC_CONFIG_DEPTH];
static __thread int nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream)
{
    if (nconfigs >= FC_CONFIG_DEPTH)
        return 1;
    configs[nconfigs++] = (struct fc_call_config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    if (nconfigs <= 0)
        return fc_rt_set(cudaErrorMissingConfiguration);
    struct fc_call_config c = configs[--nconfigs];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shmem;
    *(struct CUstream_st **)stream = c.stream;
    return cudaSuccess;
}

/* ---- launches ----------------------------------------------------------- */

/* The device's limits, as cudaGetDeviceProperties reports them. */
static int config_ok(dim3 grid, dim3 block, size_t shmem)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (!grid.x || !grid.y || !grid.z || !threads || threads > 1024)
        return 0;
    if (block.x > 1024 || block.y > 1024 || block.z > 64)
        return 0;
    if (grid.y > 65535 || grid.z > 65535)
        return 0;
    return shmem <= 232448;
}

/* Checks a launch of k and counts it; the kernel itself does nothing. */
static cudaError_t launch(struct fc_kernel *k, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, int per_thread)
{
    ENTER();
    if (!k)
        return fc_rt_set(cudaErrorInvalidDeviceFunction);
    if (!config_ok(grid, block, shmem))
        return fc_rt_set(cudaErrorInvalidConfiguration);
    CUresult r = per_thread ? fc_drv.cuStreamQuery_ptsz((CUstream)stream) : fc_drv.cuStreamQuery((CUstream)stream);
    if (r != CUDA_SUCCESS)
        return fc_rt_cu(r);
    __atomic_add_fetch(&k->launches, 1, __ATOMIC_RELAXED);
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    if (!kernel)
        return fc_rt_set(cudaErrorInvalidValue);
    struct fc_kernel *k = kfind(hostFun);
    if (!k)
        return fc_rt_set(cudaErrorInvalidDeviceFunction);
    *kernel = (cudaKernel_t)k;
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    (void)args;
    return launch((struct fc_kernel *)kernel, gridDim, blockDim, sharedMem, stream, 0);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    (void)args;
    return launch((struct fc_kernel *)kernel, gridDim, blockDim, sharedMem, stream, 1);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    (void)args;
    return launch(kfind(func), gridDim, blockDim, sharedMem, stream, 0);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                  cudaStream_t stream)
{
    (void)args;
    return launch(kfind(func), gridDim, blockDim, sharedMem, stream, 1);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream)
{
    return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                             size_t sharedMem, cudaStream_t stream)
{
    return cudaLaunchKernel_ptsz(func, gridDim, blockDim, args, sharedMem, stream);
}

/* Launch attributes (clusters, priorities, ...) are accepted unread. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    (void)args;
    if (!config)
        return fc_rt_set(cudaErrorInvalidValue);
    return launch(kfind(func), config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream, 0);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    (void)args;
    if (!config)
        return fc_rt_set(cudaErrorInvalidValue);
    return launch(kfind(func), config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream, 1);
}

/* ---- what a kernel is ---------------------------------------------------- */

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    if (!name)
        return fc_rt_set(cudaErrorInvalidValue);
    struct fc_kernel *k = kfind(func);
    if (!k)
        return fc_rt_set(cudaErrorInvalidDeviceFunction);
    *name = k->name;
    return cudaSuccess;
}

/* Plausible numbers for an sm_90 kernel: no static shared memory, 32
 * registers, the whole block size. */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr)
        return fc_rt_set(cudaErrorInvalidValue);
    if (!kfind(func))
        return fc_rt_set(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = 49152;
    attr->preferredShmemCarveout = -1;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    (void)attr, (void)value;
    return kfind(func) ? cudaSuccess : fc_rt_set(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr, int value, int device)
{
    (void)attr, (void)value, (void)device;
    return kernel ? cudaSuccess : fc_rt_set(cudaErrorInvalidDeviceFunction);
}

/* An H100 SM: 2048 threads, 32 blocks, 228 KiB of shared memory (1 KiB of
 * it reserved per block); 32 registers a thread never limit. */
static cudaError_t occupancy(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize)
{
    if (!numBlocks || blockSize <= 0)
        return fc_rt_set(cudaErrorInvalidValue);
    if (!kfind(func))
        return fc_rt_set(cudaErrorInvalidDeviceFunction);
    if (blockSize > 1024) {
        *numBlocks = 0;
        return cudaSuccess;
    }
    int warps = (blockSize + 31) / 32;
    int blocks = 64 / warps;
    if (blocks > 32)
        blocks = 32;
    size_t by_smem = 233472 / (dynamicSMemSize + 1024);
    if ((size_t)blocks > by_smem)
        blocks = (int)by_smem;
    *numBlocks = blocks;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize)
{
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                   int blockSize, size_t dynamicSMemSize,
                                                                   unsigned int flags)
{
    (void)flags;
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize);
}
