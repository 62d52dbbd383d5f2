/* NVTX ranges as phases (tests/t_nvtx_phases.sh): a program that knows
 * nothing of gpuleak, only NVTX (header-only v3).  "load" keeps 8 MiB;
 * "train" holds "forward" (4 MiB, freed) and "backward" (a range pushed with
 * nvtxRangePushEx, 2 MiB kept), then 1 MiB freed after it. */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>

#define MiB (1024 * 1024)

static void *alloc(size_t size)
{
    void *p;
    if (cudaMalloc(&p, size) != cudaSuccess)
        exit(1);
    return p;
}

int main(void)
{
    nvtxRangePushA("load");
    (void)alloc(8 * MiB);
    void *spare = alloc(1 * MiB);
    nvtxRangePop();
    nvtxRangePushA("train");
    nvtxRangePushA("forward");
    cudaFree(alloc(4 * MiB));
    nvtxRangePop();
    nvtxEventAttributes_t attr = {0};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "backward";
    nvtxRangePushEx(&attr);
    (void)alloc(2 * MiB);
    nvtxRangePop();
    cudaFree(spare);
    nvtxRangePop();
    return 0;
}
