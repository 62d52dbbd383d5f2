/* CUDA graph memory nodes with known outcomes (tests/t_graph_memory.sh).
 * Built three ways: shared runtime, static runtime, and with the
 * per-thread default stream (-DCUDA_API_PER_THREAD_DEFAULT_STREAM, where the
 * capture runs on stream 0, the per-thread default stream).  Lines marked
 * LEAK-SITE / PEAK-SITE are what the tests expect the reporter to point at.
 *
 *   graph 1 (explicit nodes): kept 1 MiB, scratch 256 KiB freed by a free
 *     node of the same graph, leaked 640 KiB, generic (cudaGraphAddNode)
 *     384 KiB; launched once; kept freed with cudaFree; a relaunch fails
 *     (its allocations are still live) and must record nothing
 *   graph 2 (stream capture, AutoFreeOnLaunch): 512 KiB freed in the
 *     capture, then 2 MiB; launched 3 times (each relaunch frees the 2 MiB
 *     first: before the 512 KiB come, not when the 2 MiB are reallocated)
 *   graph 3 (capture): frees graph 2's 2 MiB (a free node in another graph)
 *   graph 2 again, then its 2 MiB freed with cudaFreeAsync
 *   graph 4 (capture) never instantiated, graph 5 (explicit) instantiated and
 *     never launched: both allocate nothing
 * Leaks at exit: 640 KiB (leaked) and 384 KiB (generic).  Peak of device 0:
 * 640 + 384 KiB + 2 MiB, during graph 2's first launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "graph_alloc.h"

#define KiB 1024u
#define MiB (1024u * 1024u)

__attribute__((noinline)) static void *graph_kept(cudaGraph_t g, cudaGraphNode_t *n)
{
    struct cudaMemAllocNodeParams p = graph_alloc_params(1 * MiB);
    rt_check(cudaGraphAddMemAllocNode(n, g, NULL, 0, &p), "cudaGraphAddMemAllocNode"); /* PEAK-SITE: graph_kept */
    return p.dptr;
}

__attribute__((noinline)) static void graph_scratch(cudaGraph_t g, cudaGraphNode_t *n)
{
    struct cudaMemAllocNodeParams p = graph_alloc_params(256 * KiB);
    cudaGraphNode_t a;
    rt_check(cudaGraphAddMemAllocNode(&a, g, n, 1, &p), "cudaGraphAddMemAllocNode"); /* PEAK-SITE: graph_scratch */
    rt_check(cudaGraphAddMemFreeNode(n, g, &a, 1, p.dptr), "cudaGraphAddMemFreeNode");
}

__attribute__((noinline)) static void *graph_leak(cudaGraph_t g, cudaGraphNode_t *n)
{
    struct cudaMemAllocNodeParams p = graph_alloc_params(640 * KiB);
    cudaGraphNode_t dep = *n;
    rt_check(cudaGraphAddMemAllocNode(n, g, &dep, 1, &p), "cudaGraphAddMemAllocNode"); /* LEAK-SITE: graph_leak */
    return p.dptr;
}

/* The generic node API (CUDA 12.2+; edge data in cudaGraphAddNode from 13.0,
 * in cudaGraphAddNode_v2 before). */
#if CUDART_VERSION >= 13000
#define ADD_NODE(n, g, dep, np) cudaGraphAddNode(n, g, dep, NULL, 1, np)
#else
#define ADD_NODE(n, g, dep, np) cudaGraphAddNode(n, g, dep, 1, np)
#endif
__attribute__((noinline)) static void *generic_leak(cudaGraph_t g, cudaGraphNode_t *n)
{
    struct cudaGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = cudaGraphNodeTypeMemAlloc;
    np.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    np.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    np.alloc.bytesize = 384 * KiB;
    cudaGraphNode_t dep = *n;
    rt_check(ADD_NODE(n, g, &dep, &np), "cudaGraphAddNode"); /* LEAK-SITE: generic_leak */
    return np.alloc.dptr;
}

__attribute__((noinline)) static void *capture_alloc(cudaStream_t s)
{
    void *p = NULL;
    rt_check(cudaMallocAsync(&p, 2 * MiB, s), "cudaMallocAsync"); /* PEAK-SITE: capture_alloc */
    return p;
}

__attribute__((noinline)) static void capture_scratch(cudaStream_t s)
{
    void *p = NULL;
    rt_check(cudaMallocAsync(&p, 512 * KiB, s), "cudaMallocAsync"); /* PEAK-SITE: capture_scratch */
    rt_check(cudaFreeAsync(p, s), "cudaFreeAsync");
}

__attribute__((noinline)) static void *never_launched(cudaStream_t s)
{
    void *p = NULL;
    rt_check(cudaMallocAsync(&p, 5 * MiB, s), "cudaMallocAsync"); /* captured, never launched */
    return p;
}

int main(void)
{
    cudaStream_t s;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    s = 0; /* the per-thread default stream, which can be captured */
#else
    rt_check(cudaStreamCreate(&s), "cudaStreamCreate");
#endif
    /* graph 1: explicit nodes */
    cudaGraph_t g1;
    cudaGraphNode_t n;
    rt_check(cudaGraphCreate(&g1, 0), "cudaGraphCreate");
    void *kept = graph_kept(g1, &n);
    graph_scratch(g1, &n);
    graph_leak(g1, &n);
    generic_leak(g1, &n);
    cudaGraphExec_t x1;
    rt_check(cudaGraphInstantiate(&x1, g1, 0), "cudaGraphInstantiate");
    rt_check(cudaGraphLaunch(x1, s), "cudaGraphLaunch");
    rt_check(cudaFree(kept), "cudaFree");
    if (cudaGraphLaunch(x1, s) != cudaErrorInvalidValue) { /* leaked and generic still live */
        fprintf(stderr, "relaunch with unfreed allocations did not fail\n");
        return 1;
    }
    (void)cudaGetLastError();

    /* graph 2: stream capture, auto-free on relaunch */
    cudaGraph_t g2, g3, g4;
    rt_check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    capture_scratch(s);
    void *c1 = capture_alloc(s);
    rt_check(cudaStreamEndCapture(s, &g2), "cudaStreamEndCapture");
    cudaGraphExec_t x2, x3, x5;
    rt_check(cudaGraphInstantiateWithFlags(&x2, g2, cudaGraphInstantiateFlagAutoFreeOnLaunch), "instantiate");
    for (int i = 0; i < 3; i++)
        rt_check(cudaGraphLaunch(x2, s), "cudaGraphLaunch");

    /* graph 3 frees graph 2's allocation */
    rt_check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    rt_check(cudaFreeAsync(c1, s), "cudaFreeAsync");
    rt_check(cudaStreamEndCapture(s, &g3), "cudaStreamEndCapture");
    rt_check(cudaGraphInstantiate(&x3, g3, 0), "cudaGraphInstantiate");
    rt_check(cudaGraphLaunch(x3, s), "cudaGraphLaunch");
    rt_check(cudaGraphLaunch(x2, s), "cudaGraphLaunch");
    rt_check(cudaFreeAsync(c1, s), "cudaFreeAsync");

    /* graph 4: captured, never launched; graph 5: instantiated, never launched */
    rt_check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    never_launched(s);
    rt_check(cudaStreamEndCapture(s, &g4), "cudaStreamEndCapture");
    cudaGraph_t g5;
    cudaGraphNode_t n5;
    struct cudaMemAllocNodeParams p5 = graph_alloc_params(7 * MiB);
    rt_check(cudaGraphCreate(&g5, 0), "cudaGraphCreate");
    rt_check(cudaGraphAddMemAllocNode(&n5, g5, NULL, 0, &p5), "cudaGraphAddMemAllocNode");
    rt_check(cudaGraphInstantiate(&x5, g5, 0), "cudaGraphInstantiate");

    rt_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    rt_check(cudaGraphExecDestroy(x1), "cudaGraphExecDestroy");
    rt_check(cudaGraphExecDestroy(x2), "cudaGraphExecDestroy");
    rt_check(cudaGraphExecDestroy(x3), "cudaGraphExecDestroy");
    rt_check(cudaGraphExecDestroy(x5), "cudaGraphExecDestroy");
    cudaGraph_t all[] = {g1, g2, g3, g4, g5};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rt_check(cudaGraphDestroy(all[i]), "cudaGraphDestroy");
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
    rt_check(cudaStreamDestroy(s), "cudaStreamDestroy");
#endif
    return 0;
}
