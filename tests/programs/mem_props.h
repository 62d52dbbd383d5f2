/* The properties the test programs and fakecuda's self-tests
 * (tests/fakecuda/) ask CUDA for memory with: one place that fills each
 * structure, zeroed first so that fields a program does not name are 0, as
 * a driver expects of them.  Each program is one source (tests/rules.mk), so
 * these are static inline: a program that uses one is not warned about the
 * others. */
#ifndef MEM_PROPS_H
#define MEM_PROPS_H

#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

/* Physical memory for the VMM calls (cuMemCreate, the granularity): pinned,
 * at the location TYPE/ID (a device, or a host NUMA node), exportable as
 * HANDLE_TYPES (0: not exportable). */
static inline CUmemAllocationProp pinned_prop(CUmemLocationType type, int id, unsigned handle_types)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = type;
    p.location.id = id;
    p.requestedHandleTypes = (CUmemAllocationHandleType)handle_types;
    return p;
}

/* A memory pool of device 0 (cuMemPoolCreate) whose allocations are of
 * TYPE (pinned or managed). */
static inline CUmemPoolProps device0_pool_props(CUmemAllocationType type)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = type;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    return props;
}

/* The same through the runtime (cudaMemPoolCreate). */
static inline struct cudaMemPoolProps rt_device0_pool_props(enum cudaMemAllocationType type)
{
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = type;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    return props;
}

#endif
