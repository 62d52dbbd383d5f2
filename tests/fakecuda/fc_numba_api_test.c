/* fakecuda self-test of what numba's driver binding needs beyond memory
 * (fc_driver_device.c, fc_driver_event.c) and the unified-addressing rules
 * it relies on: frees with no context current, device access to pinned
 * host memory.  Usage: fc_numba_api_test SCENARIO. */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "fc_check.h"

static CUcontext setup(void)
{
    CUcontext c;
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
    EQ(cuCtxPushCurrent(c), CUDA_SUCCESS);
    return c;
}

static void device(void)
{
    CUuuid u0, u1;
    EQ(cuDeviceGetUuid(&u0, 0), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext c0 = setup(), c1;
    EQ(cuDeviceGetUuid(&u0, 0), CUDA_SUCCESS);
    EQ(cuDeviceGetUuid(&u1, 1), CUDA_SUCCESS);
    CHECK(memcmp(u0.bytes, u1.bytes, sizeof u0.bytes) != 0);
    EQ(cuDeviceGetUuid(&u1, 0), CUDA_SUCCESS);
    CHECK(memcmp(u0.bytes, u1.bytes, sizeof u0.bytes) == 0);
    EQ(cuDeviceGetUuid(&u0, 99), CUDA_ERROR_INVALID_DEVICE);
    EQ(cuDeviceGetUuid(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    int major, minor;
    /* deprecated, but what numba 0.56 asks */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EQ(cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
    EQ(major, 9);
    EQ(minor, 0);
    EQ(cuDeviceComputeCapability(&major, &minor, 99), CUDA_ERROR_INVALID_DEVICE);
#pragma GCC diagnostic pop
    /* peer access: once, not to itself, undone once */
    EQ(cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    EQ(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_INVALID_DEVICE);
    EQ(cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
    EQ(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
    EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    EQ(cuCtxDisablePeerAccess(c1), CUDA_SUCCESS);
    EQ(cuCtxEnablePeerAccess((CUcontext)&u0, 0), CUDA_ERROR_INVALID_CONTEXT);
}

static int calls;
static void CUDA_CB on_done(CUstream s, CUresult st, void *data)
{
    (void)s;
    EQ(st, CUDA_SUCCESS);
    EQ((intptr_t)data, 42);
    calls++;
}

static void events(void)
{
    setup();
    CUevent a, b, notime;
    CUstream s;
    float ms = -1;
    EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
    EQ(cuEventCreate(&a, 0), CUDA_SUCCESS);
    EQ(cuEventCreate(&b, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
    EQ(cuEventCreate(&notime, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    EQ(cuEventCreate(&notime, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE); /* needs DISABLE_TIMING */
    EQ(cuEventCreate(&notime, 0x100), CUDA_ERROR_INVALID_VALUE);
    EQ(cuEventQuery(a), CUDA_SUCCESS);                    /* never recorded: complete */
    EQ(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE); /* never recorded */
    EQ(cuEventRecord(a, s), CUDA_SUCCESS);
    EQ(cuEventRecord(b, NULL), CUDA_SUCCESS);
    EQ(cuEventSynchronize(b), CUDA_SUCCESS);
    EQ(cuEventElapsedTime(&ms, a, b), CUDA_SUCCESS);
    CHECK(ms >= 0 && ms < 10000);
    EQ(cuEventRecord(notime, s), CUDA_SUCCESS);
    EQ(cuEventElapsedTime(&ms, a, notime), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuStreamWaitEvent(s, a, 0), CUDA_SUCCESS);
    EQ(cuStreamWaitEvent(s, a, 0x10), CUDA_ERROR_INVALID_VALUE);
    EQ(cuStreamAddCallback(s, on_done, (void *)(intptr_t)42, 0), CUDA_SUCCESS);
    EQ(calls, 1); /* all work is done at the call, the callback too */
    EQ(cuStreamAddCallback(s, on_done, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    EQ(cuEventDestroy(a), CUDA_SUCCESS);
    EQ(cuEventDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuEventQuery(a), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuEventRecord(a, s), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuStreamWaitEvent(s, a, 0), CUDA_ERROR_INVALID_HANDLE);
    /* an event of device 1 recorded on device 0's stream */
    CUcontext c1;
    CUevent other;
    EQ(cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    EQ(cuCtxPushCurrent(c1), CUDA_SUCCESS);
    EQ(cuEventCreate(&other, 0), CUDA_SUCCESS);
    EQ(cuCtxPopCurrent(&c1), CUDA_SUCCESS);
    EQ(cuEventRecord(other, s), CUDA_ERROR_INVALID_CONTEXT);
}

static void unified(void)
{
    CUcontext c = setup(), popped;
    CUdeviceptr d;
    void *h;
    EQ(cuMemAlloc(&d, 1000), CUDA_SUCCESS);
    EQ(cuMemHostAlloc(&h, 5000, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    /* pinned memory: its device pointer is its address, and device
     * memsets, copies and address ranges reach it, within its bounds */
    CUdeviceptr hd, base;
    size_t size;
    EQ(cuMemHostGetDevicePointer(&hd, h, 0), CUDA_SUCCESS);
    EQ(hd, (uintptr_t)h);
    EQ(cuMemsetD8(hd + 10, 7, 100), CUDA_SUCCESS);
    EQ(((unsigned char *)h)[109], 7);
    EQ(((unsigned char *)h)[110], 0);
    EQ(cuMemsetD8(hd, 7, 5001), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemcpyDtoD(d, hd + 10, 100), CUDA_SUCCESS);
    EQ(cuMemGetAddressRange(&base, &size, hd + 123), CUDA_SUCCESS);
    EQ(base, hd);
    EQ(size, 5000);
    /* frees with no context current: the address says the context */
    EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
    EQ(popped, c);
    EQ(cuMemFree(d), CUDA_SUCCESS);
    EQ(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFreeHost(h), CUDA_SUCCESS);
    static char buf[4096];
    EQ(cuCtxPushCurrent(c), CUDA_SUCCESS);
    EQ(cuMemHostRegister(buf, sizeof buf, 0), CUDA_SUCCESS);
    EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
    EQ(cuMemHostUnregister(buf), CUDA_SUCCESS);
    /* allocating still needs one */
    EQ(cuMemAlloc(&d, 10), CUDA_ERROR_INVALID_CONTEXT);
    /* a destroyed current context is still refused */
    CUcontext mine;
    EQ(cuCtxCreate(&mine, NULL, 0, 0), CUDA_SUCCESS);
    EQ(cuMemAlloc(&d, 10), CUDA_SUCCESS);
    EQ(cuCtxDestroy(mine), CUDA_SUCCESS);
    EQ(cuCtxPushCurrent(c), CUDA_SUCCESS);
    CUdeviceptr d2;
    EQ(cuMemAlloc(&d2, 10), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(mine), CUDA_ERROR_INVALID_CONTEXT);
}

int main(int argc, char **argv)
{
    static const struct fc_scenario tests[] = {
        {"device", device}, {"events", events}, {"unified", unified},
    };
    return FC_RUN_SCENARIO(argc, argv, tests);
}
