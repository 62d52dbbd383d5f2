/* fakecuda self-test of memory shared between processes: IPC handles and
 * memory-pool pointer export/import, driver and runtime API.  The parent
 * imports, a forked child exports; they talk over a socketpair.
 * Usage: fc_ipc_test driver|runtime; exits 0 when every check holds. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../programs/ipc_channel.h"
#include "fc_check.h"
#include "fc_driver.h"

/* What the exporter sends: two IPC handles and a pool pointer (the pool's
 * descriptor travels with this message). */
struct exported {
    CUipcMemHandle a, b;
    CUmemPoolPtrExportData p;
};

static void step(int sock, char want)
{
    char c = 0;
    chan_recv(sock, &c, 1);
    EQ(c, want);
}

/* Child: allocates, exports, frees B and the pool block when told, exits
 * when told. */
static void exporter(int sock)
{
    use_primary_context();
    CUdeviceptr a, b, p, m;
    EQ(cuMemAlloc(&a, 1000), CUDA_SUCCESS);
    EQ(cuMemAlloc(&b, 3 * MiB), CUDA_SUCCESS);
    CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                            .handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                            .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    CUmemoryPool pool, dflt;
    EQ(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    EQ(cuMemAllocFromPoolAsync(&p, 5000, pool, NULL), CUDA_SUCCESS);
    struct exported x;
    EQ(cuIpcGetMemHandle(&x.a, a), CUDA_SUCCESS);
    EQ(cuIpcGetMemHandle(&x.b, b), CUDA_SUCCESS);
    EQ(cuMemPoolExportPointer(&x.p, p), CUDA_SUCCESS);
    int fd = -1;
    EQ(cuMemPoolExportToShareableHandle(&fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
    CHECK(fd >= 0);
    /* What cannot be exported: managed memory, a pool pointer as an IPC
     * handle, a non-exportable pool and its blocks, an interior pointer. */
    CUipcMemHandle h;
    CUmemPoolPtrExportData e;
    EQ(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    EQ(cuIpcGetMemHandle(&h, m), CUDA_ERROR_INVALID_VALUE);
    EQ(cuIpcGetMemHandle(&h, p), CUDA_ERROR_INVALID_VALUE);
    EQ(cuIpcGetMemHandle(&h, a + 512), CUDA_ERROR_INVALID_VALUE);
    EQ(cuDeviceGetDefaultMemPool(&dflt, 0), CUDA_SUCCESS);
    EQ(cuMemPoolExportToShareableHandle(&fd, dflt, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
       CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr q;
    EQ(cuMemAllocAsync(&q, 100, NULL), CUDA_SUCCESS);
    EQ(cuMemPoolExportPointer(&e, q), CUDA_ERROR_INVALID_VALUE);
    /* A process cannot open its own handle. */
    CUdeviceptr own;
    EQ(cuIpcOpenMemHandle(&own, x.a, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_CONTEXT);
    chan_send(sock, &x, sizeof x, fd);
    close(fd);
    step(sock, 'f');
    EQ(cuMemFree(b), CUDA_SUCCESS);
    EQ(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
    chan_send(sock, "F", 1, -1);
    step(sock, 'x');
    _exit(0);
}

static void driver_importer(int sock, pid_t child)
{
    use_primary_context();
    size_t f0 = free_mem();
    struct exported x;
    int fd = chan_recv(sock, &x, sizeof x);
    CHECK(fd >= 0);
    CUdeviceptr a, a2, b, p, base;
    size_t size;
    EQ(cuIpcOpenMemHandle(&a, x.a, 2), CUDA_ERROR_INVALID_VALUE); /* unknown flag */
    EQ(cuIpcOpenMemHandle(&a, x.a, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
    EQ(cuIpcOpenMemHandle(&b, x.b, 0), CUDA_SUCCESS);
    EQ(free_mem(), f0); /* the exporter's memory: nothing charged here */
    EQ(cuMemGetAddressRange(&base, &size, a + 10), CUDA_SUCCESS);
    EQ(base, a);
    EQ(size, 1000);
    EQ(cuMemGetAddressRange(&base, &size, b), CUDA_SUCCESS);
    EQ(size, 3 * MiB);
    int ord = -1;
    EQ(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, b), CUDA_SUCCESS);
    EQ(ord, 0);
    EQ(cuMemsetD8(a, 7, 1000), CUDA_SUCCESS); /* usable, within its size */
    EQ(cuMemsetD8(a, 7, 1025), CUDA_ERROR_INVALID_VALUE); /* past its 1024-byte block */
    /* the same handle again: same address, one more reference */
    EQ(cuIpcOpenMemHandle(&a2, x.a, 0), CUDA_SUCCESS);
    EQ(a2, a);
    EQ(cuMemFree(b), CUDA_ERROR_INVALID_VALUE); /* closed, not freed */
    EQ(cuIpcCloseMemHandle(a), CUDA_SUCCESS);
    EQ(cuMemGetAddressRange(&base, &size, a), CUDA_SUCCESS); /* still open once */
    EQ(cuIpcCloseMemHandle(a), CUDA_SUCCESS);
    EQ(cuMemGetAddressRange(&base, &size, a), CUDA_ERROR_NOT_FOUND);
    EQ(cuIpcCloseMemHandle(a), CUDA_ERROR_INVALID_VALUE);

    /* the pool and its pointer */
    CUmemoryPool pool;
    EQ(cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_NONE, 0),
       CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
       CUDA_SUCCESS);
    close(fd);
    CUdeviceptr n;
    EQ(cuMemAllocFromPoolAsync(&n, 100, pool, NULL), CUDA_ERROR_INVALID_VALUE); /* imported: maps only */
    EQ(cuDeviceSetMemPool(0, pool), CUDA_ERROR_INVALID_VALUE);
    CUmemoryPool dflt;
    EQ(cuDeviceGetDefaultMemPool(&dflt, 0), CUDA_SUCCESS);
    EQ(cuMemPoolImportPointer(&p, dflt, &x.p), CUDA_ERROR_INVALID_VALUE); /* not the exporter's pool */
    EQ(cuMemPoolImportPointer(&p, pool, &x.p), CUDA_SUCCESS);
    EQ(cuMemGetAddressRange(&base, &size, p), CUDA_SUCCESS);
    EQ(size, 5000);
    EQ(free_mem(), f0);
    EQ(cuIpcCloseMemHandle(p), CUDA_ERROR_INVALID_VALUE); /* freed, not closed */
    EQ(cuMemFree(p), CUDA_SUCCESS);
    EQ(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemPoolImportPointer(&p, pool, &x.p), CUDA_SUCCESS); /* again, then cuMemFreeAsync */
    EQ(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);

    /* the exporter frees B and the pool block: neither opens any more */
    chan_send(sock, "f", 1, -1);
    step(sock, 'F');
    EQ(cuIpcCloseMemHandle(b), CUDA_SUCCESS); /* the mapping outlives the free */
    EQ(cuIpcOpenMemHandle(&b, x.b, 0), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemPoolImportPointer(&p, pool, &x.p), CUDA_ERROR_INVALID_VALUE);
    EQ(cuIpcOpenMemHandle(&a, x.a, 0), CUDA_SUCCESS); /* A is still allocated */
    EQ(cuIpcCloseMemHandle(a), CUDA_SUCCESS);

    /* the exporter is gone: its handles are dead */
    chan_send(sock, "x", 1, -1);
    int st;
    EQ(waitpid(child, &st, 0), child);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    EQ(cuIpcOpenMemHandle(&a, x.a, 0), CUDA_ERROR_INVALID_VALUE);
    EQ(free_mem(), f0);
    EQ(cuMemPoolDestroy(pool), CUDA_SUCCESS);

    /* the ABIs cuGetProcAddress hands out */
    void *fn;
    EQ(cuGetProcAddress("cuIpcOpenMemHandle", &fn, 13000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuIpcOpenMemHandle);                       /* cuda.h: the _v2 */
    CHECK(fn == dlsym(RTLD_DEFAULT, "cuIpcOpenMemHandle_v2"));
    EQ(cuGetProcAddress("cuIpcOpenMemHandle", &fn, 4010, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == dlsym(RTLD_DEFAULT, "cuIpcOpenMemHandle"));        /* the legacy one */
    EQ(cuGetProcAddress("cuMemPoolImportPointer", &fn, 13000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemPoolImportPointer);
}

/* The runtime calls, importing from the same exporter. */
static void runtime_importer(int sock, pid_t child)
{
    size_t f0, t;
    EQ(cudaMemGetInfo(&f0, &t), cudaSuccess);
    struct exported x;
    int fd = chan_recv(sock, &x, sizeof x);
    cudaIpcMemHandle_t ha;
    memcpy(&ha, &x.a, sizeof ha);
    void *a, *p;
    EQ(cudaIpcOpenMemHandle(&a, ha, cudaIpcMemLazyEnablePeerAccess), cudaSuccess);
    EQ(cudaMemset(a, 1, 1000), cudaSuccess);
    cudaMemPool_t pool;
    EQ(cudaMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0),
       cudaSuccess);
    close(fd);
    struct cudaMemPoolPtrExportData pe;
    memcpy(&pe, &x.p, sizeof pe);
    EQ(cudaMemPoolImportPointer(&p, pool, &pe), cudaSuccess);
    size_t f;
    EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
    EQ(f, f0);
    EQ(cudaFreeAsync(p, NULL), cudaSuccess);
    EQ(cudaIpcCloseMemHandle(a), cudaSuccess);
    EQ(cudaIpcCloseMemHandle(a), cudaErrorInvalidValue);
    chan_send(sock, "f", 1, -1);
    step(sock, 'F');
    memcpy(&ha, &x.b, sizeof ha);
    EQ(cudaIpcOpenMemHandle(&a, ha, 0), cudaErrorInvalidValue); /* freed */
    chan_send(sock, "x", 1, -1);
    EQ(waitpid(child, NULL, 0), child);
    memcpy(&ha, &x.a, sizeof ha);
    EQ(cudaIpcOpenMemHandle(&a, ha, 0), cudaErrorInvalidValue); /* exporter gone */
    /* exported by this process: "invalid device context" */
    void *mine;
    EQ(cudaMalloc(&mine, 2048), cudaSuccess);
    EQ(cudaIpcGetMemHandle(&ha, mine), cudaSuccess);
    EQ(cudaIpcOpenMemHandle(&a, ha, 0), cudaErrorDeviceUninitialized);
    EQ(cudaFree(mine), cudaSuccess);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "driver") && strcmp(argv[1], "runtime"))) {
        fprintf(stderr, "usage: %s driver|runtime\n", argv[0]);
        return 2;
    }
    int sock;
    pid_t child = chan_fork(&sock);
    if (child == 0)
        exporter(sock);
    if (strcmp(argv[1], "driver") == 0)
        driver_importer(sock, child);
    else
        runtime_importer(sock, child);
    printf("ok %s\n", argv[1]);
    return 0;
}
