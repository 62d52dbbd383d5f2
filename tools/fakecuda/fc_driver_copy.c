/* Copies and memsets.  Device memory is host memory here, so they are plain
 * memmove/memset -- after a bounds check, so a bad pointer gets
 * CUDA_ERROR_INVALID_VALUE instead of corrupting the fake or faulting on an
 * unmapped VMM page.  Async variants complete before returning. */
#include "fc_internal.h"

#include <string.h>

int fc_access_ok(uintptr_t p, size_t n, int *is_device)
{
    uintptr_t rs, ms;
    size_t rz, mz;
    int dev, rw;
    uintptr_t hs;
    size_t hz;
    struct fc_ctx *hc;
    int hr;
    *is_device = 0;
    if (n && p + n < p)
        return 0;
    fc_lock();
    int ok = 1;
    if (fc_heap_in_range(p)) {
        struct fc_seg *s = fc_heap_find(p, 0, NULL);
        *is_device = 1;
        ok = s && s->kind != FC_K_ARRAY && !(s->kind == FC_K_GRAPH && !s->graph_live) &&
             p + n <= s->start + s->size;
    } else if (fc_vmm_lookup(p, &rs, &rz, &ms, &mz, &dev, &rw)) {
        *is_device = 1;
        ok = fc_vmm_range_ok(p, n);
    } else if (fc_host_lookup(p, &hs, &hz, &hc, &hr)) {
        /* Pinned or registered host memory: with unified addressing its
         * device pointer is its host address (cuMemHostGetDevicePointer),
         * so device copies and memsets reach it, within its bounds. */
        *is_device = 1;
        ok = p + n <= hs + hz;
    }
    fc_unlock();
    return ok;
}

enum { ANY, DEV, HOST };

/* FAKECUDA_DROP_COPIES=1: a write into device memory (the device ranges
 * and VMM mappings, not pinned host memory) is checked and then dropped,
 * so a model built on the device costs no host memory: its pages are never
 * touched, and MAP_NORESERVE leaves them unbacked.  Reads then see zeros. */
static int drop_write(uintptr_t dst)
{
    if (!fc_drop_copies)
        return 0;
    uintptr_t rs, ms;
    size_t rz, mz;
    int dev, rw;
    fc_lock();
    int device = fc_heap_in_range(dst) || fc_vmm_lookup(dst, &rs, &rz, &ms, &mz, &dev, &rw);
    fc_unlock();
    return device;
}

static CUresult copy(uintptr_t dst, int dkind, uintptr_t src, int skind, size_t n, CUstream st)
{
    int dev, dd, sd;
    CUresult r = fc_stream_dev(st, &dev);
    if (r)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!dst || !src || !fc_access_ok(dst, n, &dd) || !fc_access_ok(src, n, &sd) ||
        (dkind == DEV && !dd) || (skind == DEV && !sd))
        return CUDA_ERROR_INVALID_VALUE;
    if (!drop_write(dst))
        memmove((void *)dst, (const void *)src, n);
    return CUDA_SUCCESS;
}

static CUresult set(uintptr_t dst, const void *val, size_t esize, size_t n, CUstream st)
{
    int dev, dd;
    CUresult r = fc_stream_dev(st, &dev);
    if (r)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (n > SIZE_MAX / esize || !dst || (dst % esize) || !fc_access_ok(dst, n * esize, &dd) || !dd)
        return CUDA_ERROR_INVALID_VALUE;
    if (drop_write(dst))
        return CUDA_SUCCESS;
    if (esize == 1) {
        memset((void *)dst, *(const unsigned char *)val, n);
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy((char *)dst + i * esize, val, esize);
    }
    return CUDA_SUCCESS;
}

#define U(x) ((uintptr_t)(x))

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy(U(dst), ANY, U(src), ANY, n, NULL); }
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy(U(dst), ANY, U(src), ANY, n, NULL); }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return copy(U(dst), ANY, U(src), ANY, n, s); }
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return copy(U(dst), ANY, U(src), ANY, n, s); }

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { return copy(U(d), DEV, U(h), ANY, n, NULL); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *h, size_t n) { return copy(U(d), DEV, U(h), ANY, n, NULL); }
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { return copy(U(h), ANY, U(d), DEV, n, NULL); }
CUresult cuMemcpyDtoH_v2_ptds(void *h, CUdeviceptr d, size_t n) { return copy(U(h), ANY, U(d), DEV, n, NULL); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr a, CUdeviceptr b, size_t n) { return copy(U(a), DEV, U(b), DEV, n, NULL); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr a, CUdeviceptr b, size_t n) { return copy(U(a), DEV, U(b), DEV, n, NULL); }

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s) { return copy(U(d), DEV, U(h), ANY, n, s); }
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *h, size_t n, CUstream s) { return copy(U(d), DEV, U(h), ANY, n, s); }
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s) { return copy(U(h), ANY, U(d), DEV, n, s); }
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *h, CUdeviceptr d, size_t n, CUstream s) { return copy(U(h), ANY, U(d), DEV, n, s); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr a, CUdeviceptr b, size_t n, CUstream s) { return copy(U(a), DEV, U(b), DEV, n, s); }
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr a, CUdeviceptr b, size_t n, CUstream s) { return copy(U(a), DEV, U(b), DEV, n, s); }

CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return set(U(d), &v, 1, n, NULL); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) { return set(U(d), &v, 1, n, NULL); }
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return set(U(d), &v, 2, n, NULL); }
CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) { return set(U(d), &v, 2, n, NULL); }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) { return set(U(d), &v, 4, n, NULL); }
CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) { return set(U(d), &v, 4, n, NULL); }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return set(U(d), &v, 1, n, s); }
CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return set(U(d), &v, 1, n, s); }
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return set(U(d), &v, 2, n, s); }
CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return set(U(d), &v, 2, n, s); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { return set(U(d), &v, 4, n, s); }
CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { return set(U(d), &v, 4, n, s); }

/* Stream memory operations (PyTorch's expandable segments fetch
 * cuStreamWriteValue32 and assert that they got it): the write happens at
 * the call, like every other stream operation here.  Flags other than
 * CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER are refused, as documented. */
static CUresult write_value32(CUstream s, CUdeviceptr addr, cuuint32_t value, unsigned flags)
{
    if (flags & ~(unsigned)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER)
        return CUDA_ERROR_INVALID_VALUE;
    if (addr % 4)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned v = value;
    return set(U(addr), &v, 4, 1, s);
}

CUresult cuStreamWriteValue32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned f) { return write_value32(s, a, v, f); }
CUresult cuStreamWriteValue32_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned f) { return write_value32(s, a, v, f); }
CUresult cuStreamWriteValue32_v2(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned f) { return write_value32(s, a, v, f); }
CUresult cuStreamWriteValue32_v2_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned f) { return write_value32(s, a, v, f); }
