/* Driver-API lifecycles with known outcomes:
 *   ctx    memory of a destroyed context and of a reset primary context is
 *          gone without frees; one survivor leaks (argv[2]: a snapshot
 *          between the two teardowns)
 *   vmm    cuMemCreate/cuMemMap/cuMemUnmap/cuMemRelease in the orders the
 *          driver allows; a released handle stays alive while mapped
 *   noctx  a second device, and a thread with no context at all */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cuda_check.h"
#include "mem_props.h"
#include "primary_ctx.h"

int gpuleak_snapshot(const char *path) __attribute__((weak));

#define NOINLINE __attribute__((noinline))
#define MiB (1024u * 1024u)

NOINLINE static void alloc_in_ctx(size_t bytes)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, bytes), "cuMemAlloc"); /* IN-CTX-SITE */
}

NOINLINE static void leak_survivor(void)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, 7000), "cuMemAlloc"); /* LEAK-SITE: leak_survivor */
}

static void ctx_lifecycle(const char *mid)
{
    CUdevice dev;
    CUcontext own;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuCtxCreate(&own, NULL, 0, dev), "cuCtxCreate");
    alloc_in_ctx(5000);                       /* gone with cuCtxDestroy */
    check(cuCtxDestroy(own), "cuCtxDestroy");
    if (mid && gpuleak_snapshot)
        gpuleak_snapshot(mid);                /* one teardown so far */
    use_primary(0);
    alloc_in_ctx(6000);                       /* gone with the reset */
    check(cuDevicePrimaryCtxReset(dev), "cuDevicePrimaryCtxReset");
    use_primary(0);
    leak_survivor();
}

static CUmemGenericAllocationHandle create(size_t bytes)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    CUmemGenericAllocationHandle h;
    check(cuMemCreate(&h, bytes, &prop, 0), "cuMemCreate");
    return h;
}

NOINLINE static CUmemGenericAllocationHandle leak_vmm(void) { return create(4 * MiB); }
NOINLINE static CUmemGenericAllocationHandle mapped_after_release(void) { return create(2 * MiB); }
NOINLINE static CUmemGenericAllocationHandle retained_leak(void) { return create(2 * MiB); }

static void vmm_lifecycle(void)
{
    use_primary(0);
    CUdeviceptr va;
    check(cuMemAddressReserve(&va, 16 * MiB, 0, 0, 0), "cuMemAddressReserve");

    /* D: created and mapped, never released: the leak. */
    CUmemGenericAllocationHandle d = leak_vmm();
    check(cuMemMap(va, 4 * MiB, 0, d, 0), "cuMemMap");

    /* A: create, map, unmap, release. */
    CUmemGenericAllocationHandle a = create(2 * MiB);
    check(cuMemMap(va + 4 * MiB, 2 * MiB, 0, a, 0), "cuMemMap");
    check(cuMemUnmap(va + 4 * MiB, 2 * MiB), "cuMemUnmap");
    check(cuMemRelease(a), "cuMemRelease");

    /* B: create, map, release -- still alive while mapped -- then unmap. */
    CUmemGenericAllocationHandle b = mapped_after_release();
    check(cuMemMap(va + 6 * MiB, 2 * MiB, 0, b, 0), "cuMemMap");
    check(cuMemRelease(b), "cuMemRelease");
    if (gpuleak_snapshot)
        gpuleak_snapshot("mid.snap");
    check(cuMemUnmap(va + 6 * MiB, 2 * MiB), "cuMemUnmap");

    /* C: create and release, never mapped. */
    check(cuMemRelease(create(2 * MiB)), "cuMemRelease");

    /* E: freed the way NCCL frees (ncclCuMemFree): a second reference is
     * taken from the address and released, then unmap and the last release. */
    CUmemGenericAllocationHandle e = create(2 * MiB), again;
    check(cuMemMap(va + 8 * MiB, 2 * MiB, 0, e, 0), "cuMemMap");
    check(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(va + 8 * MiB)), "cuMemRetainAllocationHandle");
    check(cuMemRelease(again), "cuMemRelease");
    check(cuMemUnmap(va + 8 * MiB, 2 * MiB), "cuMemUnmap");
    check(cuMemRelease(e), "cuMemRelease");

    /* F: a reference retained and never released keeps the memory after its
     * creator released and unmapped it: a leak. */
    CUmemGenericAllocationHandle f = retained_leak(), kept;
    check(cuMemMap(va + 10 * MiB, 2 * MiB, 0, f, 0), "cuMemMap");
    check(cuMemRetainAllocationHandle(&kept, (void *)(uintptr_t)(va + 10 * MiB)), "cuMemRetainAllocationHandle");
    check(cuMemRelease(f), "cuMemRelease");
    check(cuMemUnmap(va + 10 * MiB, 2 * MiB), "cuMemUnmap");
    /* The reservation itself outlives everything but is not memory. */

    /* A second reservation, nothing ever mapped in it: address space of no
     * device (the report's idle reservations). */
    CUdeviceptr idle;
    check(cuMemAddressReserve(&idle, 8 * MiB, 0, 0, 0), "cuMemAddressReserve");
}

/* More handles than gpuleak settles in one batch (64), each released while
 * mapped, all unmapped by one cuMemUnmap: every one is gone after it. */
enum { MANY_HANDLES = 150 };
NOINLINE static CUmemGenericAllocationHandle released_while_mapped(void) { return create(2 * MiB); }

static void vmm_many(void)
{
    use_primary(0);
    CUdeviceptr va;
    check(cuMemAddressReserve(&va, MANY_HANDLES * 2 * MiB, 0, 0, 0), "cuMemAddressReserve");
    for (size_t i = 0; i < MANY_HANDLES; i++) {
        CUmemGenericAllocationHandle h = released_while_mapped();
        check(cuMemMap(va + i * 2 * MiB, 2 * MiB, 0, h, 0), "cuMemMap");
        check(cuMemRelease(h), "cuMemRelease");
    }
    if (gpuleak_snapshot)
        gpuleak_snapshot("many-mapped.snap");
    check(cuMemUnmap(va, MANY_HANDLES * 2 * MiB), "cuMemUnmap");
    check(cuMemAddressFree(va, MANY_HANDLES * 2 * MiB), "cuMemAddressFree");
}

NOINLINE static void leak_on_device1(void)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, 3000), "cuMemAlloc");
}

static void *no_context_thread(void *arg)
{
    (void)arg;
    CUdeviceptr p = 5;
    printf("thread alloc %d\n", (int)cuMemAlloc(&p, 1000));
    printf("thread free %d\n", (int)cuMemFree((CUdeviceptr)0xdead000));
    return NULL;
}

static void noctx(void)
{
    use_primary(1);
    leak_on_device1();
    pthread_t t;
    pthread_create(&t, NULL, no_context_thread, NULL);
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    check(cuInit(0), "cuInit");
    if (!strcmp(what, "ctx"))
        ctx_lifecycle(argc > 2 ? argv[2] : NULL);
    else if (!strcmp(what, "vmm"))
        vmm_lifecycle();
    else if (!strcmp(what, "vmm-many"))
        vmm_many();
    else if (!strcmp(what, "noctx"))
        noctx();
    else {
        fprintf(stderr, "usage: driver_lifecycle ctx [MID.snap]|vmm|vmm-many|noctx\n");
        return 2;
    }
    return 0;
}
