/* Multicast objects with known outcomes, on two devices:
 *   - a normal cycle: a 4 MiB object for a team of both devices, device 0's
 *     memory bound from its cuMemCreate handle (cuMulticastBindMem), device
 *     1's from a mapped address (cuMulticastBindAddr), the object itself
 *     mapped, unbound, released while mapped (so alive until the unmap:
 *     the snapshot argv[1] is taken then), unmapped; all memory freed
 *   - a 6 MiB object for device 0 alone, never released: the leak
 *   - with argv[1] "probe", what the driver refuses (binds before the team
 *     is complete, a device added twice, an unbind that is not a bind's, a
 *     released object): printed as "REFUSED what rc", so runs with and
 *     without gpuleak can be compared.  Only for fakecuda: a real driver
 *     blocks such a bind until the team is complete, and cuda.h leaves an
 *     unbind that is not a bind's undefined ("plain" skips them).
 * argv[2], if given: the mid-run snapshot.  Exits 3 ("SKIP ...") where two
 * devices with multicast support are not there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cuda_check.h"
#include "mem_props.h"
#include "primary_ctx.h"

int gpuleak_snapshot(const char *path) __attribute__((weak));

#define NOINLINE __attribute__((noinline))
#define MiB ((size_t)1024 * 1024)

static int probe;

#define REFUSED(call, what)                                    \
    do {                                                       \
        if (probe)                                             \
            printf("REFUSED %s %d\n", what, (int)(call));      \
    } while (0)

static CUmemGenericAllocationHandle memory_on(int dev, size_t bytes)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, dev, 0);
    CUmemGenericAllocationHandle h;
    check(cuMemCreate(&h, bytes, &prop, 0), "cuMemCreate");
    return h;
}

static CUmulticastObjectProp team_of(unsigned ndev, size_t bytes)
{
    CUmulticastObjectProp prop;
    memset(&prop, 0, sizeof prop);
    prop.numDevices = ndev;
    prop.size = bytes;
    return prop;
}

static void map_rw(CUdeviceptr va, size_t bytes, CUmemGenericAllocationHandle h, int dev)
{
    check(cuMemMap(va, bytes, 0, h, 0), "cuMemMap");
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = dev;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(cuMemSetAccess(va, bytes, &access, 1), "cuMemSetAccess");
}

NOINLINE static CUmemGenericAllocationHandle normal_cycle_object(void)
{
    CUmulticastObjectProp prop = team_of(2, 4 * MiB);
    CUmemGenericAllocationHandle mc;
    check(cuMulticastCreate(&mc, &prop), "cuMulticastCreate"); /* NORMAL-SITE */
    return mc;
}

static void normal_cycle(const char *mid)
{
    CUmemGenericAllocationHandle mc = normal_cycle_object();
    CUmemGenericAllocationHandle mem0 = memory_on(0, 4 * MiB), mem1 = memory_on(1, 4 * MiB);
    REFUSED(cuMulticastBindMem(mc, 0, mem0, 0, 4 * MiB, 0), "bind-before-team");
    check(cuMulticastAddDevice(mc, 0), "cuMulticastAddDevice");
    REFUSED(cuMulticastAddDevice(mc, 0), "add-twice");
    check(cuMulticastAddDevice(mc, 1), "cuMulticastAddDevice");

    CUdeviceptr va;
    check(cuMemAddressReserve(&va, 8 * MiB, 0, 0, 0), "cuMemAddressReserve");
    map_rw(va, 4 * MiB, mem1, 1);
    check(cuMulticastBindMem(mc, 0, mem0, 0, 4 * MiB, 0), "cuMulticastBindMem");
    check(cuMulticastBindAddr(mc, 0, va, 4 * MiB, 0), "cuMulticastBindAddr");
    map_rw(va + 4 * MiB, 4 * MiB, mc, 0);

    REFUSED(cuMulticastUnbind(mc, 0, 0, 2 * MiB), "unbind-not-a-bind");
    check(cuMulticastUnbind(mc, 0, 0, 4 * MiB), "cuMulticastUnbind");
    check(cuMulticastUnbind(mc, 1, 0, 4 * MiB), "cuMulticastUnbind");
    check(cuMemRelease(mc), "cuMemRelease"); /* mapped: alive until the unmap */
    REFUSED(cuMulticastAddDevice(mc, 1), "released-object");
    if (mid && gpuleak_snapshot)
        gpuleak_snapshot(mid);
    check(cuMemUnmap(va + 4 * MiB, 4 * MiB), "cuMemUnmap");

    check(cuMemUnmap(va, 4 * MiB), "cuMemUnmap");
    check(cuMemRelease(mem1), "cuMemRelease");
    check(cuMemRelease(mem0), "cuMemRelease");
    check(cuMemAddressFree(va, 8 * MiB), "cuMemAddressFree");
}

NOINLINE static void leak_multicast(void)
{
    CUmulticastObjectProp prop = team_of(1, 6 * MiB);
    CUmemGenericAllocationHandle mc;
    check(cuMulticastCreate(&mc, &prop), "cuMulticastCreate"); /* LEAK-SITE */
    check(cuMulticastAddDevice(mc, 0), "cuMulticastAddDevice");
}

static int supported(int ordinal)
{
    CUdevice dev;
    int yes = 0;
    return cuDeviceGet(&dev, ordinal) == CUDA_SUCCESS &&
           cuDeviceGetAttribute(&yes, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev) == CUDA_SUCCESS && yes;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "probe") && strcmp(argv[1], "plain"))) {
        fprintf(stderr, "usage: multicast probe|plain [MID.snap]\n");
        return 2;
    }
    probe = !strcmp(argv[1], "probe");
    check(cuInit(0), "cuInit");
    if (!supported(0) || !supported(1)) {
        printf("SKIP two devices with multicast support needed\n");
        return 3;
    }
    use_primary(0);
    size_t gran = 0;
    CUmulticastObjectProp prop = team_of(2, 4 * MiB);
    check(cuMulticastGetGranularity(&gran, &prop, CU_MULTICAST_GRANULARITY_MINIMUM), "granularity");
    if (gran == 0 || (2 * MiB) % gran) {
        printf("SKIP multicast granularity %zu does not divide 2 MiB\n", gran);
        return 3;
    }
    printf("GRANULARITY %zu\n", gran);
    normal_cycle(argc > 2 ? argv[2] : NULL);
    leak_multicast();
    return 0;
}
