/* A producer shares VMM physical memory with a consumer process, the way
 * NCCL's cuMem buffers and PyTorch's expandable segments are shared: the
 * parent (exporter) creates an exportable handle, writes into it, exports it
 * as a file descriptor and sends it over a socketpair (SCM_RIGHTS); the
 * forked child (importer) imports it, maps it at addresses it reserved, and
 *   - leaks one mapping on purpose (leak_imported_mapping, never unmapped),
 *   - maps and unmaps another properly,
 *   - maps it ten more times next to one mapping of its own handle and
 *     unmaps all eleven with one cuMemUnmap,
 *   - allocates and frees memory of its own while the mappings are live,
 *   - imports the descriptor twice more: releases one handle unmapped, and
 *     the other mapped, then unmaps it,
 *   - imports it once more and never releases that handle
 *     (leak_imported_handle): a reference that keeps the exporter's memory
 *     alive with no mapping at all,
 *   - releases the first imported handle (the leaked mapping keeps it alive).
 * Under FAKECUDA_IMPORT_REUSE=1 every import returns the first handle again
 * (a driver may): then that handle is the one left with a reference.
 * Under gpuleak the importer asks for a snapshot, mapped.snap, while the
 * leaked mapping and the ten are live.  The exporter reads back what the
 * importer wrote: one physical allocation.
 *
 * Usage: vmm_import direct|dlsym|procaddr -- how the importer reaches
 * cuMemImportFromShareableHandle, cuMemMap and cuMemUnmap (linked, dlsym on
 * libcuda.so.1, cuGetProcAddress).  Prints "exporter PID" and
 * "importer PID".  The lines marked LEAK-SITE are what the tests expect the
 * reporter to name. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc_channel.h"
#include "cuda_check.h"
#include "mem_props.h"

#define NOINLINE __attribute__((noinline))
#define G ((size_t)2 << 20) /* fakecuda's granularity; asked for below */

enum { SHARED = 4, MANY = 10, OWN_BYTES = 3000000 };

static const char FROM_EXPORTER[] = "the exporter's bytes";
static const char FROM_IMPORTER[] = "the importer's bytes";

/* gpuleak's public API, when preloaded. */
int gpuleak_snapshot(const char *path) __attribute__((weak));

static void setup(void)
{
    CUcontext ctx;
    check(cuInit(0), "cuInit");
    check(cuDevicePrimaryCtxRetain(&ctx, 0), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

static void access_rw(CUdeviceptr va, size_t size)
{
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    check(cuMemSetAccess(va, size, &rw, 1), "cuMemSetAccess");
}

/* ---- exporter (parent) -------------------------------------------------- */

static void exporter(int sock, pid_t importer)
{
    setup();
    CUmemAllocationProp p = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    check(cuMemCreate(&h, SHARED * G, &p, 0), "cuMemCreate");
    check(cuMemAddressReserve(&va, SHARED * G, 0, 0, 0), "cuMemAddressReserve");
    check(cuMemMap(va, SHARED * G, 0, h, 0), "cuMemMap");
    access_rw(va, SHARED * G);
    check(cuMemcpyHtoD(va, FROM_EXPORTER, sizeof FROM_EXPORTER), "cuMemcpyHtoD");
    int fd;
    check(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
          "cuMemExportToShareableHandle");
    size_t size = SHARED * G; /* the import carries no size: the program sends it */
    chan_send(sock, &size, sizeof size, fd);
    close(fd);
    int st;
    if (waitpid(importer, &st, 0) != importer || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "importer failed\n");
        exit(1);
    }
    char got[sizeof FROM_IMPORTER];
    check(cuMemcpyDtoH(got, va + G, sizeof got), "cuMemcpyDtoH");
    if (memcmp(got, FROM_IMPORTER, sizeof got) != 0) {
        fprintf(stderr, "the importer's write is not in the exporter's memory\n");
        exit(1);
    }
    check(cuMemUnmap(va, SHARED * G), "cuMemUnmap");
    check(cuMemRelease(h), "cuMemRelease");
    check(cuMemAddressFree(va, SHARED * G), "cuMemAddressFree");
}

/* ---- importer (child) ---------------------------------------------------- */

struct driver {
    CUresult (*import)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
};

static void get_driver(struct driver *d, const char *how)
{
    if (strcmp(how, "direct") == 0) {
        d->import = cuMemImportFromShareableHandle;
        d->map = cuMemMap;
        d->unmap = cuMemUnmap;
        return;
    }
    void *fn[3];
    const char *names[3] = {"cuMemImportFromShareableHandle", "cuMemMap", "cuMemUnmap"};
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    for (int i = 0; i < 3; i++) {
        CUdriverProcAddressQueryResult q;
        if (strcmp(how, "dlsym") == 0)
            fn[i] = lib ? dlsym(lib, names[i]) : NULL;
        else if (cuGetProcAddress(names[i], &fn[i], 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS)
            fn[i] = NULL;
        if (fn[i] == NULL) {
            fprintf(stderr, "no %s through %s\n", names[i], how);
            exit(1);
        }
    }
    memcpy(&d->import, &fn[0], sizeof fn[0]);
    memcpy(&d->map, &fn[1], sizeof fn[1]);
    memcpy(&d->unmap, &fn[2], sizeof fn[2]);
}

static NOINLINE void leak_imported_mapping(const struct driver *d, CUdeviceptr va, CUmemGenericAllocationHandle h)
{
    check(d->map(va, 2 * G, 0, h, 0), "cuMemMap"); /* LEAK-SITE: leak_imported_mapping */
    access_rw(va, 2 * G);
}

static NOINLINE void map_and_unmap_properly(const struct driver *d, CUdeviceptr va, CUmemGenericAllocationHandle h)
{
    check(d->map(va, G, G, h, 0), "cuMemMap");
    access_rw(va, G);
    check(cuMemcpyHtoD(va, FROM_IMPORTER, sizeof FROM_IMPORTER), "cuMemcpyHtoD");
    check(d->unmap(va, G), "cuMemUnmap");
}

static NOINLINE void map_many(const struct driver *d, CUdeviceptr va, CUmemGenericAllocationHandle h)
{
    for (size_t i = 0; i < MANY; i++)
        check(d->map(va + i * G, G, (i % SHARED) * G, h, 0), "cuMemMap");
}

/* Own memory while the mappings are live: the device's peak must be exactly
 * this. */
static NOINLINE void own_memory(void)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, OWN_BYTES), "cuMemAlloc");
    check(cuMemFree(p), "cuMemFree");
}

/* Imported handles that end without a mapping of theirs left: neither
 * release is a free of this process's memory. */
static NOINLINE void import_again(const struct driver *d, int fd, CUdeviceptr va)
{
    CUmemGenericAllocationHandle once, mapped;
    check(d->import(&once, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          "cuMemImportFromShareableHandle");
    check(cuMemRelease(once), "cuMemRelease");
    check(d->import(&mapped, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          "cuMemImportFromShareableHandle");
    check(d->map(va, G, 0, mapped, 0), "cuMemMap");
    check(cuMemRelease(mapped), "cuMemRelease");
    check(d->unmap(va, G), "cuMemUnmap");
}

static NOINLINE void leak_imported_handle(const struct driver *d, int fd)
{
    CUmemGenericAllocationHandle forgotten;
    void *os = (void *)(intptr_t)fd;
    CUresult rc = d->import(&forgotten, os, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR); /* LEAK-SITE: leak_imported_handle */
    check(rc, "cuMemImportFromShareableHandle");
}

static void importer(int sock, const char *how)
{
    size_t size;
    int fd = chan_recv(sock, &size, sizeof size);
    if (fd < 0) {
        fprintf(stderr, "no descriptor\n");
        exit(1);
    }
    setup();
    struct driver d;
    get_driver(&d, how);
    CUmemGenericAllocationHandle h, own;
    check(d.import(&h, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), /* IMPORT-SITE: first */
          "cuMemImportFromShareableHandle");
    /* What a real importer does to learn how to map it. */
    CUmemAllocationProp p;
    size_t gran;
    check(cuMemGetAllocationPropertiesFromHandle(&p, h), "cuMemGetAllocationPropertiesFromHandle");
    check(cuMemGetAllocationGranularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
    if (gran != G || size != SHARED * G) {
        fprintf(stderr, "unexpected granularity %zu or size %zu\n", gran, size);
        exit(1);
    }
    CUdeviceptr va;
    check(cuMemAddressReserve(&va, 32 * G, 0, 0, 0), "cuMemAddressReserve");
    leak_imported_mapping(&d, va, h);
    char got[sizeof FROM_EXPORTER];
    check(cuMemcpyDtoH(got, va, sizeof got), "cuMemcpyDtoH");
    if (memcmp(got, FROM_EXPORTER, sizeof got) != 0) {
        fprintf(stderr, "the exporter's bytes are not mapped here\n");
        exit(1);
    }
    map_and_unmap_properly(&d, va + 2 * G, h);
    map_many(&d, va + 4 * G, h);
    own_memory();
    CUmemAllocationProp mine = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    check(cuMemCreate(&own, G, &mine, 0), "cuMemCreate");
    check(d.map(va + (4 + MANY) * G, G, 0, own, 0), "cuMemMap");
    if (gpuleak_snapshot)
        gpuleak_snapshot("mapped.snap");
    /* One unmap for the ten imported mappings and the own one. */
    check(d.unmap(va + 4 * G, (MANY + 1) * G), "cuMemUnmap");
    check(cuMemRelease(own), "cuMemRelease");
    import_again(&d, fd, va + 16 * G);
    leak_imported_handle(&d, fd);
    close(fd);
    /* Released while the leaked mapping still holds it. */
    check(cuMemRelease(h), "cuMemRelease");
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "direct") && strcmp(argv[1], "dlsym") && strcmp(argv[1], "procaddr"))) {
        fprintf(stderr, "usage: %s direct|dlsym|procaddr\n", argv[0]);
        return 2;
    }
    int sock;
    pid_t child = chan_fork(&sock);
    if (child == 0) {
        printf("importer %d\n", (int)getpid());
        fflush(stdout);
        importer(sock, argv[1]);
        return 0;
    }
    printf("exporter %d\n", (int)getpid());
    fflush(stdout);
    exporter(sock, child);
    return 0;
}
