/* A producer shares device memory with a consumer process, the way
 * torch.multiprocessing shares CUDA tensors: the parent (exporter) allocates
 * three buffers and a block of an exportable pool, sends their IPC handles,
 * the pool's descriptor and the block's export data over a socketpair; the
 * forked child (importer) maps all four, closes or frees all but one, and
 * exits with that one still open -- a leak of the exporter's memory that
 * neither process's allocator sees.  Under gpuleak the importer also asks
 * for a snapshot, mapped.snap, while all four are mapped.
 *
 * Usage: ipc_share runtime|driver|driver-reset  (how the importer maps and
 * releases; the exporter always uses the runtime; driver-reset: see
 * cu_importer).  Prints "exporter PID" and
 * "importer PID".  The line marked LEAK-SITE is what the tests expect the
 * reporter to name. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc_channel.h"
#include "cuda_check.h"

#define NOINLINE __attribute__((noinline))

/* gpuleak's public API, when preloaded: a snapshot with all four mapped. */
int gpuleak_snapshot(const char *path) __attribute__((weak));
static void snapshot_mapped(void)
{
    if (gpuleak_snapshot)
        gpuleak_snapshot("mapped.snap");
}

enum { A_BYTES = 1000000, B_BYTES = 2000000, C_BYTES = 3000000, P_BYTES = 500000, OWN_BYTES = 4000000 };

struct shared {
    cudaIpcMemHandle_t a, b, c;
    struct cudaMemPoolPtrExportData p;
};

/* ---- exporter (parent) -------------------------------------------------- */

static void exporter(int sock, pid_t importer)
{
    void *a, *b, *c, *p;
    rt_check(cudaMalloc(&a, A_BYTES), "cudaMalloc");
    rt_check(cudaMalloc(&b, B_BYTES), "cudaMalloc");
    rt_check(cudaMalloc(&c, C_BYTES), "cudaMalloc");
    struct cudaMemPoolProps props = {.allocType = cudaMemAllocationTypePinned,
                                     .handleTypes = cudaMemHandleTypePosixFileDescriptor,
                                     .location = {cudaMemLocationTypeDevice, 0}};
    cudaMemPool_t pool;
    rt_check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    rt_check(cudaMallocFromPoolAsync(&p, P_BYTES, pool, NULL), "cudaMallocFromPoolAsync");
    struct shared s;
    rt_check(cudaIpcGetMemHandle(&s.a, a), "cudaIpcGetMemHandle");
    rt_check(cudaIpcGetMemHandle(&s.b, b), "cudaIpcGetMemHandle");
    rt_check(cudaIpcGetMemHandle(&s.c, c), "cudaIpcGetMemHandle");
    rt_check(cudaMemPoolExportPointer(&s.p, p), "cudaMemPoolExportPointer");
    int fd;
    rt_check(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0),
       "cudaMemPoolExportToShareableHandle");
    chan_send(sock, &s, sizeof s, fd);
    close(fd);
    /* The memory must outlive the importer's use of it. */
    int st;
    if (waitpid(importer, &st, 0) != importer || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "importer failed\n");
        exit(1);
    }
    rt_check(cudaFree(a), "cudaFree");
    rt_check(cudaFree(b), "cudaFree");
    rt_check(cudaFree(c), "cudaFree");
    rt_check(cudaFreeAsync(p, NULL), "cudaFreeAsync");
    rt_check(cudaMemPoolDestroy(pool), "cudaMemPoolDestroy");
}

/* ---- importer, runtime API ------------------------------------------------ */

static NOINLINE void *rt_open(cudaIpcMemHandle_t h)
{
    void *d;
    rt_check(cudaIpcOpenMemHandle(&d, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    return d;
}

static NOINLINE void *rt_leak_mapping(cudaIpcMemHandle_t h)
{
    void *d;
    rt_check(cudaIpcOpenMemHandle(&d, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle"); /* LEAK-SITE: rt_leak_mapping */
    return d;
}

static NOINLINE void *rt_import(cudaMemPool_t pool, struct cudaMemPoolPtrExportData *e)
{
    void *d;
    rt_check(cudaMemPoolImportPointer(&d, pool, e), "cudaMemPoolImportPointer");
    return d;
}

/* Own memory, allocated while all four mappings are open: the device's peak
 * must be exactly this. */
static NOINLINE void rt_own(void)
{
    void *d;
    rt_check(cudaMalloc(&d, OWN_BYTES), "cudaMalloc");
    rt_check(cudaFree(d), "cudaFree");
}

static void rt_importer(struct shared *s, int fd)
{
    void *a = rt_open(s->a);
    void *a2 = rt_open(s->a); /* the same handle again: same mapping, one more reference */
    void *b = rt_open(s->b);
    rt_leak_mapping(s->c);
    cudaMemPool_t pool;
    rt_check(cudaMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0),
       "cudaMemPoolImportFromShareableHandle");
    void *p = rt_import(pool, &s->p);
    rt_check(cudaMemset(p, 0, P_BYTES), "cudaMemset");
    snapshot_mapped();
    rt_own();
    if (a2 != a) {
        fprintf(stderr, "reopen gave another address\n");
        exit(1);
    }
    rt_check(cudaIpcCloseMemHandle(a), "cudaIpcCloseMemHandle");
    rt_check(cudaIpcCloseMemHandle(a2), "cudaIpcCloseMemHandle");
    rt_check(cudaIpcCloseMemHandle(b), "cudaIpcCloseMemHandle");
    rt_check(cudaFreeAsync(p, NULL), "cudaFreeAsync");
    rt_check(cudaMemPoolDestroy(pool), "cudaMemPoolDestroy");
}

/* ---- importer, driver API --------------------------------------------------- */

static CUipcMemHandle cu_handle(cudaIpcMemHandle_t h)
{
    CUipcMemHandle c;
    memcpy(&c, &h, sizeof c);
    return c;
}

static NOINLINE CUdeviceptr cu_open(cudaIpcMemHandle_t h)
{
    CUdeviceptr d;
    check(cuIpcOpenMemHandle(&d, cu_handle(h), CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
    return d;
}

static NOINLINE CUdeviceptr cu_leak_mapping(cudaIpcMemHandle_t h)
{
    CUdeviceptr d;
    check(cuIpcOpenMemHandle(&d, cu_handle(h), CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle"); /* LEAK-SITE: cu_leak_mapping */
    return d;
}

static NOINLINE CUdeviceptr cu_import(CUmemoryPool pool, struct cudaMemPoolPtrExportData *e)
{
    CUdeviceptr d;
    check(cuMemPoolImportPointer(&d, pool, (CUmemPoolPtrExportData *)e), "cuMemPoolImportPointer");
    return d;
}

static NOINLINE void cu_own(void)
{
    CUdeviceptr d;
    check(cuMemAlloc(&d, OWN_BYTES), "cuMemAlloc");
    check(cuMemFree(d), "cuMemFree");
}

/* driver-reset: the importer resets its primary context before freeing the
 * pool pointer.  The pointer belongs to the exporter's pool, not to the
 * context (pools are not context-bound): the free after the reset succeeds.
 * The IPC mapping left open is gone with the context. */
static int reset_first;

static void cu_importer(struct shared *s, int fd)
{
    CUcontext ctx;
    check(cuInit(0), "cuInit");
    check(cuDevicePrimaryCtxRetain(&ctx, 0), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUdeviceptr a = cu_open(s->a);
    CUdeviceptr a2 = cu_open(s->a);
    CUdeviceptr b = cu_open(s->b);
    cu_leak_mapping(s->c);
    CUmemoryPool pool;
    check(cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemPoolImportFromShareableHandle");
    CUdeviceptr p = cu_import(pool, &s->p);
    snapshot_mapped();
    cu_own();
    if (a2 != a) {
        fprintf(stderr, "reopen gave another address\n");
        exit(1);
    }
    check(cuIpcCloseMemHandle(a), "cuIpcCloseMemHandle");
    check(cuIpcCloseMemHandle(a2), "cuIpcCloseMemHandle");
    check(cuIpcCloseMemHandle(b), "cuIpcCloseMemHandle");
    if (reset_first) {
        check(cuDevicePrimaryCtxReset(0), "cuDevicePrimaryCtxReset");
        check(cuDevicePrimaryCtxRetain(&ctx, 0), "cuDevicePrimaryCtxRetain");
        check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    }
    check(cuMemFree(p), "cuMemFree");
    check(cuMemPoolDestroy(pool), "cuMemPoolDestroy");
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "runtime") != 0 && strcmp(argv[1], "driver") != 0 &&
                      strcmp(argv[1], "driver-reset") != 0)) {
        fprintf(stderr, "usage: %s runtime|driver|driver-reset\n", argv[0]);
        return 2;
    }
    reset_first = strcmp(argv[1], "driver-reset") == 0;
    int sock;
    pid_t child = chan_fork(&sock);
    if (child == 0) {
        printf("importer %d\n", (int)getpid());
        fflush(stdout);
        struct shared s;
        int fd = chan_recv(sock, &s, sizeof s);
        if (fd < 0) {
            fprintf(stderr, "no pool descriptor\n");
            return 1;
        }
        if (strcmp(argv[1], "runtime") == 0)
            rt_importer(&s, fd);
        else
            cu_importer(&s, fd);
        close(fd);
        return 0;
    }
    printf("exporter %d\n", (int)getpid());
    fflush(stdout);
    exporter(sock, child);
    return 0;
}
