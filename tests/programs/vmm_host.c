/* cuMemCreate on host locations (CUDA 12.2+), with known outcomes:
 *   - 2 MiB at CU_MEM_LOCATION_TYPE_HOST, mapped and never released: a leak
 *   - 4 MiB at CU_MEM_LOCATION_TYPE_HOST_NUMA node 0, never released: a leak
 *   - 2 MiB at HOST created, mapped, unmapped, released: freed
 *   - 2 MiB on device 0 created and released: freed, device 0's
 *   - with argv[1] "probe", what cuda.h says the driver refuses
 *     (HOST_NUMA_CURRENT; a HOST allocation asking for a shareable handle),
 *     printed as "REFUSED what rc" ("plain": not asked).
 * Exits 3 ("SKIP ...") where the driver does not support host locations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cuda_check.h"
#include "mem_props.h"
#include "primary_ctx.h"

#define NOINLINE __attribute__((noinline))
#define MiB ((size_t)1024 * 1024)

/* Maps h over a fresh reservation, readable and writable from device 0. */
static CUdeviceptr map_rw(CUmemGenericAllocationHandle h, size_t bytes)
{
    CUdeviceptr va;
    check(cuMemAddressReserve(&va, bytes, 0, 0, 0), "cuMemAddressReserve");
    check(cuMemMap(va, bytes, 0, h, 0), "cuMemMap");
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 0;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(cuMemSetAccess(va, bytes, &access, 1), "cuMemSetAccess");
    return va;
}

NOINLINE static void leak_host(void)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_HOST, 0, 0);
    CUmemGenericAllocationHandle h;
    check(cuMemCreate(&h, 2 * MiB, &prop, 0), "cuMemCreate"); /* HOST-SITE */
    map_rw(h, 2 * MiB);
}

NOINLINE static void leak_numa(void)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, 0);
    CUmemGenericAllocationHandle h;
    check(cuMemCreate(&h, 4 * MiB, &prop, 0), "cuMemCreate"); /* NUMA-SITE */
}

NOINLINE static void freed_host(void)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_HOST, 0, 0);
    CUmemGenericAllocationHandle h;
    check(cuMemCreate(&h, 2 * MiB, &prop, 0), "cuMemCreate");
    CUdeviceptr va = map_rw(h, 2 * MiB);
    check(cuMemUnmap(va, 2 * MiB), "cuMemUnmap");
    check(cuMemRelease(h), "cuMemRelease");
    check(cuMemAddressFree(va, 2 * MiB), "cuMemAddressFree");
}

NOINLINE static void freed_device(void)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    CUmemGenericAllocationHandle h;
    check(cuMemCreate(&h, 2 * MiB, &prop, 0), "cuMemCreate");
    check(cuMemRelease(h), "cuMemRelease");
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "probe") && strcmp(argv[1], "plain"))) {
        fprintf(stderr, "usage: vmm_host probe|plain\n");
        return 2;
    }
    check(cuInit(0), "cuInit");
    use_primary(0);
    size_t gran = 0;
    CUmemAllocationProp host = pinned_prop(CU_MEM_LOCATION_TYPE_HOST, 0, 0);
    if (cuMemGetAllocationGranularity(&gran, &host, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS ||
        gran == 0 || (2 * MiB) % gran) {
        printf("SKIP no host-located cuMemCreate with a granularity dividing 2 MiB\n");
        return 3;
    }
    if (!strcmp(argv[1], "probe")) {
        CUmemGenericAllocationHandle h;
        CUmemAllocationProp cur = pinned_prop(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0, 0);
        printf("REFUSED numa-current %d\n", (int)cuMemCreate(&h, 2 * MiB, &cur, 0));
        CUmemAllocationProp shared = pinned_prop(CU_MEM_LOCATION_TYPE_HOST, 0, 0);
        shared.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        printf("REFUSED host-shareable %d\n", (int)cuMemCreate(&h, 2 * MiB, &shared, 0));
    }
    leak_host();
    leak_numa();
    freed_host();
    freed_device();
    return 0;
}
