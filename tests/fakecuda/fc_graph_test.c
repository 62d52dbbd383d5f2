/* fakecuda self-test of graph memory nodes and stream capture, through the
 * runtime and the driver (no interposer).  Usage: fc_graph_test SCENARIO;
 * exits 0 when every check holds. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "fc_check.h"
#include "../programs/graph_alloc.h"

/* The per-thread-default-stream entry points (nvcc --default-stream
 * per-thread calls these). */
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);

static size_t free_mem(void)
{
    size_t f, t;
    EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
    return f;
}

static uint64_t gattr(enum cudaGraphMemAttributeType a)
{
    uint64_t v = 0;
    EQ(cudaDeviceGetGraphMemAttribute(0, a, &v), cudaSuccess);
    return v;
}

/* used current, used high, reserved current, reserved high */
#define GRAPH_MEM(u, uh, r, rh)                                  \
    do {                                                         \
        EQ(gattr(cudaGraphMemAttrUsedMemCurrent), u);            \
        EQ(gattr(cudaGraphMemAttrUsedMemHigh), uh);              \
        EQ(gattr(cudaGraphMemAttrReservedMemCurrent), r);        \
        EQ(gattr(cudaGraphMemAttrReservedMemHigh), rh);          \
    } while (0)

static void reset_highs(void)
{
    uint64_t zero = 0;
    EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero), cudaSuccess);
    EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero), cudaSuccess);
}

/* Nodes, parameters, launch, in-graph and out-of-graph frees, the pool. */
static void explicit_nodes(void)
{
    size_t f0 = free_mem();
    cudaGraph_t g;
    cudaGraphNode_t a, b, fb;
    EQ(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaMemAllocNodeParams pa = graph_alloc_params(3 * MiB), pb = graph_alloc_params(1000);
    EQ(cudaGraphAddMemAllocNode(&a, g, NULL, 0, &pa), cudaSuccess);
    CHECK(pa.dptr != NULL);
    EQ(free_mem(), f0); /* an address only */
    EQ(cudaMemset(pa.dptr, 0, 16), cudaErrorInvalidValue);
    EQ(cudaGraphAddMemAllocNode(&b, g, &a, 1, &pb), cudaSuccess);
    EQ(cudaGraphAddMemFreeNode(&fb, g, &b, 1, pb.dptr), cudaSuccess);
    cudaGraphNode_t dup;
    EQ(cudaGraphAddMemFreeNode(&dup, g, &fb, 1, pb.dptr), cudaErrorInvalidValue); /* twice */
    EQ(cudaGraphAddMemFreeNode(&dup, g, NULL, 0, (char *)pb.dptr + 512), cudaErrorInvalidValue);
    EQ(cudaGraphAddMemFreeNode(&dup, g, &a, 1, &f0), cudaErrorInvalidValue); /* not a graph address */
    cudaGraphNode_t deps2[2] = {a, a};
    EQ(cudaGraphAddMemFreeNode(&dup, g, deps2, 2, pa.dptr), cudaErrorInvalidValue); /* duplicate deps */
    struct cudaMemAllocNodeParams bad = graph_alloc_params(64);
    bad.poolProps.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    EQ(cudaGraphAddMemAllocNode(&dup, g, NULL, 0, &bad), cudaErrorInvalidValue); /* no IPC */
    cudaGraphNode_t nodes[4];
    size_t n = 0;
    EQ(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    EQ(n, 3);
    n = 4;
    EQ(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
    EQ(n, 3);
    CHECK(nodes[0] == a && nodes[1] == b && nodes[2] == fb && nodes[3] == NULL);
    enum cudaGraphNodeType t;
    EQ(cudaGraphNodeGetType(a, &t), cudaSuccess);
    EQ(t, cudaGraphNodeTypeMemAlloc);
    EQ(cudaGraphNodeGetType(fb, &t), cudaSuccess);
    EQ(t, cudaGraphNodeTypeMemFree);
    struct cudaMemAllocNodeParams got;
    EQ(cudaGraphMemAllocNodeGetParams(b, &got), cudaSuccess);
    CHECK(got.dptr == pb.dptr && got.bytesize == 1000 && got.poolProps.location.id == 0);
    EQ(cudaGraphMemAllocNodeGetParams(fb, &got), cudaErrorInvalidValue);
    void *fp = NULL;
    EQ(cudaGraphMemFreeNodeGetParams(fb, &fp), cudaSuccess);
    CHECK(fp == pb.dptr);

    cudaGraphExec_t x, x2;
    EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    EQ(cudaGraphInstantiate(&x2, g, 0), cudaErrorInvalidValue); /* one at a time */
    EQ(cudaGraphLaunch(x, 0), cudaSuccess);
    /* a live; b came and went inside the launch, so the pool reserved both */
    EQ(f0 - free_mem(), 4 * MiB + 1024);
    GRAPH_MEM(4 * MiB, 4 * MiB + 1024, 4 * MiB + 1024, 4 * MiB + 1024);
    EQ(cudaMemset(pa.dptr, 0, 3 * MiB), cudaSuccess);
    struct cudaPointerAttributes pattr;
    EQ(cudaPointerGetAttributes(&pattr, pa.dptr), cudaSuccess);
    EQ(pattr.type, cudaMemoryTypeDevice);
    EQ(cudaGraphLaunch(x, 0), cudaErrorInvalidValue); /* a is still allocated */
    EQ(cudaGetLastError(), cudaErrorInvalidValue);
    EQ(cudaFree(pa.dptr), cudaSuccess);
    EQ(gattr(cudaGraphMemAttrUsedMemCurrent), 0);
    EQ(f0 - free_mem(), 4 * MiB + 1024); /* kept by the pool */
    EQ(cudaGraphLaunch(x, 0), cudaSuccess);
    EQ(cudaFreeAsync(pa.dptr, 0), cudaSuccess);
    EQ(cudaFree(pa.dptr), cudaErrorInvalidValue); /* twice */
    EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
    EQ(free_mem(), f0);
    GRAPH_MEM(0, 4 * MiB + 1024, 0, 4 * MiB + 1024);
    reset_highs();
    GRAPH_MEM(0, 0, 0, 0);
    EQ(cudaGraphExecDestroy(x), cudaSuccess);
    EQ(cudaGraphExecDestroy(x), cudaErrorInvalidValue);
    EQ(cudaGraphInstantiate(&x2, g, 0), cudaSuccess); /* the first one is gone */
    EQ(cudaGraphExecDestroy(x2), cudaSuccess);
    EQ(cudaGraphDestroy(g), cudaSuccess);
    EQ(cudaGraphNodeGetType(a, &t), cudaErrorInvalidValue);
    EQ(free_mem(), f0);
}

/* AutoFreeOnLaunch, and allocations outliving their graph. */
static void autofree(void)
{
    size_t f0 = free_mem();
    cudaGraph_t g;
    cudaGraphNode_t a;
    EQ(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaMemAllocNodeParams pa = graph_alloc_params(MiB);
    EQ(cudaGraphAddMemAllocNode(&a, g, NULL, 0, &pa), cudaSuccess);
    cudaGraphExec_t x;
    EQ(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                                cudaGraphInstantiateFlagDeviceLaunch),
       cudaErrorInvalidValue);
    EQ(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
    for (int i = 0; i < 3; i++)
        EQ(cudaGraphLaunch(x, 0), cudaSuccess);
    GRAPH_MEM(MiB, MiB, MiB, MiB);
    /* graph and executable graph go; the allocation stays until freed */
    EQ(cudaGraphExecDestroy(x), cudaSuccess);
    EQ(cudaGraphDestroy(g), cudaSuccess);
    EQ(cudaMemset(pa.dptr, 1, MiB), cudaSuccess);
    EQ(cudaFree(pa.dptr), cudaSuccess);
    EQ(cudaFree(pa.dptr), cudaErrorInvalidValue);
    EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
    EQ(free_mem(), f0);
    reset_highs();
}

/* Stream capture: cudaMallocAsync/cudaFreeAsync become nodes; a graph can
 * free another graph's allocation; the per-thread default stream. */
static void capture(void)
{
    size_t f0 = free_mem();
    cudaStream_t s;
    EQ(cudaStreamCreate(&s), cudaSuccess);
    enum cudaStreamCaptureStatus st;
    EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    EQ(st, cudaStreamCaptureStatusNone);
    EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    EQ(st, cudaStreamCaptureStatusActive);
    void *a, *b;
    EQ(cudaMallocAsync(&a, 2 * MiB, s), cudaSuccess);
    EQ(cudaMallocAsync(&b, 512, s), cudaSuccess);
    EQ(cudaFreeAsync(b, s), cudaSuccess);
    EQ(free_mem(), f0); /* nothing allocated */
    cudaMemPool_t dp;
    uint64_t used = 1;
    EQ(cudaDeviceGetDefaultMemPool(&dp, 0), cudaSuccess);
    EQ(cudaMemPoolGetAttribute(dp, cudaMemPoolAttrReservedMemCurrent, &used), cudaSuccess);
    EQ(used, 0);
    cudaGraph_t g, g2;
    EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    EQ(cudaStreamEndCapture(s, &g2), cudaErrorIllegalState);
    EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    EQ(st, cudaStreamCaptureStatusNone);
    size_t n = 0;
    EQ(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    EQ(n, 3);
    cudaGraphExec_t x, x2;
    EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    EQ(cudaGraphLaunch(x, s), cudaSuccess);
    EQ(f0 - free_mem(), 2 * MiB + 512);
    GRAPH_MEM(2 * MiB, 2 * MiB + 512, 2 * MiB + 512, 2 * MiB + 512);
    /* a second graph frees the first one's allocation */
    EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    EQ(cudaFreeAsync(a, s), cudaSuccess);
    EQ(cudaStreamEndCapture(s, &g2), cudaSuccess);
    EQ(cudaGraphInstantiate(&x2, g2, 0), cudaSuccess);
    EQ(cudaGraphLaunch(x2, s), cudaSuccess);
    EQ(gattr(cudaGraphMemAttrUsedMemCurrent), 0);
    EQ(cudaGraphLaunch(x2, s), cudaErrorInvalidValue); /* nothing live to free */
    EQ(cudaGraphLaunch(x, s), cudaSuccess);
    EQ(cudaGraphLaunch(x2, s), cudaSuccess);
    EQ(gattr(cudaGraphMemAttrUsedMemCurrent), 0);
    /* the legacy stream cannot be captured; the per-thread one can */
    EQ(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    EQ(cudaStreamBeginCapture_ptsz(0, cudaStreamCaptureModeRelaxed), cudaSuccess);
    EQ(cudaStreamIsCapturing_ptsz(0, &st), cudaSuccess);
    EQ(st, cudaStreamCaptureStatusActive);
    EQ(cudaStreamIsCapturing(0, &st), cudaSuccess);
    EQ(st, cudaStreamCaptureStatusNone);
    EQ(cudaStreamIsCapturing(cudaStreamPerThread, &st), cudaSuccess);
    EQ(st, cudaStreamCaptureStatusActive);
    void *c;
    EQ(cudaMallocAsync_ptsz(&c, 4096, 0), cudaSuccess);
    cudaGraph_t g3;
    EQ(cudaStreamEndCapture_ptsz(0, &g3), cudaSuccess);
    cudaGraphExec_t x3;
    EQ(cudaGraphInstantiate(&x3, g3, 0), cudaSuccess);
    EQ(cudaGraphLaunch_ptsz(x3, 0), cudaSuccess);
    EQ(gattr(cudaGraphMemAttrUsedMemCurrent), 4096);
    EQ(cudaFree(c), cudaSuccess);
    /* captured and never launched: nothing to free, the address goes */
    EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    void *d;
    EQ(cudaMallocAsync(&d, MiB, s), cudaSuccess);
    cudaGraph_t g4;
    EQ(cudaStreamEndCapture(s, &g4), cudaSuccess);
    EQ(cudaGraphDestroy(g4), cudaSuccess);
    EQ(cudaFree(d), cudaErrorInvalidValue);
    EQ(cudaGraphExecDestroy(x), cudaSuccess);
    EQ(cudaGraphExecDestroy(x2), cudaSuccess);
    EQ(cudaGraphExecDestroy(x3), cudaSuccess);
    EQ(cudaGraphDestroy(g), cudaSuccess);
    EQ(cudaGraphDestroy(g2), cudaSuccess);
    EQ(cudaGraphDestroy(g3), cudaSuccess);
    EQ(cudaStreamDestroy(s), cudaSuccess);
    EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
    EQ(free_mem(), f0);
    reset_highs();
}

/* The generic node API (runtime, and both driver ABIs), instantiation with
 * parameters, and the driver's versioned lookups. */
static void generic(void)
{
    size_t f0 = free_mem();
    cudaGraph_t g;
    EQ(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = cudaGraphNodeTypeMemAlloc;
    np.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    np.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    np.alloc.bytesize = 5000;
    cudaGraphNode_t a, f;
    EQ(cudaGraphAddNode(&a, g, NULL, NULL, 0, &np), cudaSuccess);
    CHECK(np.alloc.dptr != NULL);
    CUgraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    cp.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    cp.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    cp.alloc.bytesize = 7000;
    CUgraphNode b, fbn;
    EQ(cuGraphAddNode((CUgraphNode *)&b, (CUgraph)g, NULL, NULL, 0, &cp), CUDA_SUCCESS); /* _v2 */
    CUdeviceptr bptr = cp.alloc.dptr;
    CHECK(bptr != 0);
    void *v1 = NULL;
    CUdriverProcAddressQueryResult qs;
    EQ(cuGetProcAddress("cuGraphAddNode", &v1, 12020, 0, &qs), CUDA_SUCCESS);
    CUresult (*add_v1)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, CUgraphNodeParams *) =
        (CUresult(*)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, CUgraphNodeParams *))v1;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    cp.free.dptr = bptr;
    EQ(add_v1(&fbn, (CUgraph)g, &b, 1, &cp), CUDA_SUCCESS);
    np.type = cudaGraphNodeTypeKernel;
    EQ(cudaGraphAddNode(&f, g, NULL, NULL, 0, &np), cudaErrorNotSupported);
    void *inst = NULL;
    EQ(cuGetProcAddress("cuGraphInstantiate", &inst, 12000, 0, &qs), CUDA_SUCCESS);
    CHECK(inst != NULL);
    /* the pre-12.0 five-argument ABIs: the pre-11.0 one, then _v2 */
    typedef CUresult (*inst5_fn)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t);
    void *i10 = NULL, *i11 = NULL, *none = NULL;
    EQ(cuGetProcAddress("cuGraphInstantiate", &i10, 10000, 0, &qs), CUDA_SUCCESS);
    EQ(cuGetProcAddress("cuGraphInstantiate", &i11, 11990, 0, &qs), CUDA_SUCCESS);
    CHECK(i10 != NULL && i11 != NULL && i10 != i11 && i10 != inst && i11 != inst);
    EQ(cuGetProcAddress("cuGraphInstantiate", &none, 9990, 0, &qs), CUDA_ERROR_NOT_FOUND);
    EQ(qs, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    cudaGraph_t empty;
    CUgraphExec ex;
    CUgraphNode bad = (CUgraphNode)&qs;
    char log[8] = "";
    EQ(cudaGraphCreate(&empty, 0), cudaSuccess);
    EQ(((inst5_fn)i11)(&ex, (CUgraph)empty, &bad, log, sizeof log), CUDA_SUCCESS);
    CHECK(bad == (CUgraphNode)&qs && log[0] == '\0'); /* untouched on success */
    EQ(cuGraphExecDestroy(ex), CUDA_SUCCESS);
    EQ(((inst5_fn)i10)(&ex, NULL, &bad, log, sizeof log), CUDA_ERROR_INVALID_VALUE);
    CHECK(bad == NULL && strcmp(log, "invalid") == 0); /* the description, truncated */
    EQ(cudaGraphDestroy(empty), cudaSuccess);
    cudaGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = cudaGraphInstantiateFlagAutoFreeOnLaunch;
    cudaGraphExec_t x;
    EQ(cudaGraphInstantiateWithParams(&x, g, &ip), cudaSuccess);
    EQ(ip.result_out, cudaGraphInstantiateSuccess);
    EQ(cuGraphLaunch((CUgraphExec)x, NULL), CUDA_SUCCESS);
    EQ(cuGraphLaunch((CUgraphExec)x, NULL), CUDA_SUCCESS); /* auto-free */
    EQ(gattr(cudaGraphMemAttrUsedMemCurrent), 5120);
    EQ(gattr(cudaGraphMemAttrReservedMemCurrent), 5120 + 7168);
    EQ(cuMemFreeAsync((CUdeviceptr)(uintptr_t)np.alloc.dptr, NULL), CUDA_SUCCESS);
    EQ(cuMemFree(bptr), CUDA_ERROR_INVALID_VALUE); /* freed in its graph */
    EQ(cudaGraphExecDestroy(x), cudaSuccess);
    EQ(cudaGraphDestroy(g), cudaSuccess);
    EQ(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    reset_highs();
}

/* Run with FAKECUDA_MEM_BYTES=67108864: a launch the pool cannot grow for
 * fails with out-of-memory and changes nothing. */
static void oom(void)
{
    size_t f0 = free_mem();
    cudaGraph_t g1, g2;
    cudaGraphNode_t a1, a2;
    struct cudaMemAllocNodeParams p1 = graph_alloc_params(40 * MiB), p2 = graph_alloc_params(40 * MiB);
    EQ(cudaGraphCreate(&g1, 0), cudaSuccess);
    EQ(cudaGraphCreate(&g2, 0), cudaSuccess);
    EQ(cudaGraphAddMemAllocNode(&a1, g1, NULL, 0, &p1), cudaSuccess);
    EQ(cudaGraphAddMemAllocNode(&a2, g2, NULL, 0, &p2), cudaSuccess); /* addresses are not memory */
    cudaGraphExec_t x1, x2;
    EQ(cudaGraphInstantiate(&x1, g1, 0), cudaSuccess);
    EQ(cudaGraphInstantiate(&x2, g2, 0), cudaSuccess);
    EQ(cudaGraphLaunch(x1, 0), cudaSuccess);
    EQ(cudaGraphLaunch(x2, 0), cudaErrorMemoryAllocation);
    EQ(f0 - free_mem(), 40 * MiB);
    EQ(cudaMemset(p2.dptr, 0, 1), cudaErrorInvalidValue);
    EQ(cudaFree(p1.dptr), cudaSuccess);
    EQ(cudaGraphLaunch(x2, 0), cudaSuccess); /* the pool's memory is reused */
    EQ(f0 - free_mem(), 40 * MiB);
    EQ(cudaFree(p2.dptr), cudaSuccess);
    EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
    EQ(free_mem(), f0);
}

/* cudaDeviceReset (primary context reset) ends live graph allocations and
 * gives the pool's memory back; the nodes keep their addresses. */
static void reset(void)
{
    size_t f0 = free_mem();
    cudaGraph_t g;
    cudaGraphNode_t a;
    struct cudaMemAllocNodeParams pa = graph_alloc_params(2 * MiB);
    EQ(cudaGraphCreate(&g, 0), cudaSuccess);
    EQ(cudaGraphAddMemAllocNode(&a, g, NULL, 0, &pa), cudaSuccess);
    cudaGraphExec_t x;
    EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    EQ(cudaGraphLaunch(x, 0), cudaSuccess);
    EQ(f0 - free_mem(), 2 * MiB);
    EQ(cudaDeviceReset(), cudaSuccess);
    EQ(free_mem(), f0);
    EQ(cudaFree(pa.dptr), cudaErrorInvalidValue);
    EQ(cudaGraphExecDestroy(x), cudaSuccess);
    EQ(cudaGraphDestroy(g), cudaSuccess);
    EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
    EQ(free_mem(), f0);
}

int main(int argc, char **argv)
{
    static const struct fc_scenario tests[] = {
        {"explicit", explicit_nodes}, {"autofree", autofree}, {"capture", capture},
        {"generic", generic}, {"oom", oom}, {"reset", reset},
    };
    return FC_RUN_SCENARIO(argc, argv, tests);
}
