/* The parameters of a graph's memory-allocation node, as the graph tests ask
 * for one: pinned device memory on device 0.  Shared by the test programs
 * and fakecuda's own graph test (static inline: each is one source). */
#ifndef GRAPH_ALLOC_H
#define GRAPH_ALLOC_H

#include <string.h>

#include <cuda_runtime_api.h>

static inline struct cudaMemAllocNodeParams graph_alloc_params(size_t bytes)
{
    struct cudaMemAllocNodeParams p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    p.bytesize = bytes;
    return p;
}

#endif
