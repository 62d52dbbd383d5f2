/* Runtime bootstrap: load the driver, resolve its entry points, and manage
 * the per-thread device / primary-context binding and the last error. */
#include "fc_rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#define FC_MAX_DEV 16

struct fc_rt_driver fc_drv;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static cudaError_t init_err = cudaErrorInitializationError;

static pthread_mutex_t prim_mu = PTHREAD_MUTEX_INITIALIZER;
static CUcontext prim[FC_MAX_DEV]; /* primary context handles, once retained */
static int retained[FC_MAX_DEV];   /* does the runtime hold a reference now? */

static __thread int tls_dev;
static __thread cudaError_t tls_last;

/* NVIDIA's 13.0 runtime's requests, in order (generated from
 * real_runtime_requests.txt by module.mk). */
struct fc_req {
    int fetched; /* asked through the cuGetProcAddress it fetched, not the dlsym'd one */
    const char *name;
    int version;
    cuuint64_t flags;
};
static const struct fc_req reqs[] = {
#define FC_REQ(fetched, name, version, flags) {fetched, name, version, flags},
#include "fc_rt_requests.h"
#undef FC_REQ
};
#define FC_NREQ (sizeof reqs / sizeof reqs[0])

static void *answer_of(void *const *answers, const char *name, int version, int per_thread)
{
    cuuint64_t flags = per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
    for (size_t i = 0; i < FC_NREQ; i++)
        if (reqs[i].version == version && reqs[i].flags == flags && !strcmp(reqs[i].name, name))
            return answers[i];
    return NULL;
}

/* Loads the driver the way NVIDIA's runtime does: dlopen without
 * RTLD_GLOBAL (the driver's symbols stay out of the global scope), one dlsym,
 * then every request the real runtime makes, through the dlsym'd
 * cuGetProcAddress_v2 until it has fetched cuGetProcAddress@12000 and
 * through that pointer after.  symbolStatus is NULL, as there; a request
 * the driver does not answer is not an error (the real runtime asks for
 * many functions a program may never use), a function this runtime needs
 * and did not get is. */
static void load(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        init_err = cudaErrorInsufficientDriver;
        return;
    }
    fc_drv.cuGetProcAddress_v2 = (__typeof__(fc_drv.cuGetProcAddress_v2))dlsym(h, "cuGetProcAddress_v2");
    if (!fc_drv.cuGetProcAddress_v2) {
        init_err = cudaErrorInsufficientDriver;
        return;
    }
    static void *answers[FC_NREQ];
    __typeof__(fc_drv.cuGetProcAddress_v2) fetched = NULL;
    for (size_t i = 0; i < FC_NREQ; i++) {
        __typeof__(fetched) gpa = reqs[i].fetched ? fetched : fc_drv.cuGetProcAddress_v2;
        if (!gpa || gpa(reqs[i].name, &answers[i], reqs[i].version, reqs[i].flags, NULL) != CUDA_SUCCESS)
            answers[i] = NULL;
        if (!strcmp(reqs[i].name, "cuGetProcAddress") && reqs[i].version >= 12000 && answers[i])
            fetched = (__typeof__(fetched))answers[i];
    }
#define FC_TAKE(f, name, version, pt)                                    \
    if (!(fc_drv.f = (__typeof__(fc_drv.f))answer_of(answers, name, version, pt))) { \
        init_err = cudaErrorInsufficientDriver;                          \
        return;                                                          \
    }
    FC_RT_DRIVER_FUNCS(FC_TAKE)
#undef FC_TAKE
    CUresult r = fc_drv.cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE)
        init_err = cudaErrorNoDevice;
    else if (r != CUDA_SUCCESS)
        init_err = cudaErrorInitializationError;
    else
        init_err = cudaSuccess;
}

cudaError_t fc_rt_init(void)
{
    pthread_once(&once, load);
    return init_err;
}

cudaError_t fc_rt_set(cudaError_t e)
{
    if (e != cudaSuccess)
        tls_last = e;
    return e;
}

/* Driver and runtime codes share their numbers for everything fakecuda
 * returns (CUDA_ERROR_OUT_OF_MEMORY == cudaErrorMemoryAllocation == 2, ...). */
cudaError_t fc_rt_cu(CUresult r)
{
    return fc_rt_set((cudaError_t)r);
}

static cudaError_t retain(int dev, CUcontext *out)
{
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&prim_mu);
    if (!retained[dev]) {
        CUresult r = fc_drv.cuDevicePrimaryCtxRetain(&prim[dev], dev);
        if (r == CUDA_SUCCESS)
            retained[dev] = 1;
        else
            e = r == CUDA_ERROR_INVALID_DEVICE ? cudaErrorInvalidDevice : (cudaError_t)r;
    }
    if (out)
        *out = prim[dev];
    pthread_mutex_unlock(&prim_mu);
    return e;
}

/* The runtime is initialized and dev is one of its devices: cudaSuccess,
 * else the error to set. */
static cudaError_t usable_device(int dev)
{
    cudaError_t e = fc_rt_init();
    if (e)
        return e;
    int n = 0;
    fc_drv.cuDeviceGetCount(&n);
    if (dev < 0 || dev >= n || dev >= FC_MAX_DEV)
        return cudaErrorInvalidDevice;
    return cudaSuccess;
}

cudaError_t fc_rt_primary(int dev, CUcontext *out)
{
    cudaError_t e = usable_device(dev);
    if (e)
        return fc_rt_set(e);
    return fc_rt_set(retain(dev, out));
}

/* The runtime works in whatever context is current (driver interop); with
 * none, it binds this thread to its device's primary context.  A primary
 * context the runtime dropped (cudaDeviceReset) is retained again first. */
cudaError_t fc_rt_ctx(void)
{
    cudaError_t e = fc_rt_init();
    if (e)
        return fc_rt_set(e);
    CUcontext cur = NULL;
    fc_drv.cuCtxGetCurrent(&cur);
    if (cur) {
        for (int d = 0; d < FC_MAX_DEV; d++) {
            pthread_mutex_lock(&prim_mu);
            int mine = prim[d] == cur;
            pthread_mutex_unlock(&prim_mu);
            if (mine)
                return fc_rt_set(retain(d, NULL));
        }
        return cudaSuccess;
    }
    CUcontext c;
    if ((e = retain(tls_dev, &c)))
        return fc_rt_set(e);
    return fc_rt_cu(fc_drv.cuCtxSetCurrent(c));
}

int fc_rt_device(void)
{
    CUcontext cur = NULL;
    CUdevice d;
    if (fc_rt_init() == cudaSuccess && fc_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur &&
        fc_drv.cuCtxGetDevice(&d) == CUDA_SUCCESS)
        return d;
    return tls_dev;
}

cudaError_t fc_rt_set_device(int dev)
{
    cudaError_t e = usable_device(dev);
    if (e)
        return fc_rt_set(e);
    CUcontext c;
    if ((e = retain(dev, &c)))
        return fc_rt_set(e);
    tls_dev = dev;
    return fc_rt_cu(fc_drv.cuCtxSetCurrent(c));
}

/* Whether a context of the program's own (not a primary one) is current.
 * Asking for the primary handle is free of side effects only while the
 * primary context is active (the release then does not destroy it); an
 * inactive primary context cannot be the live current one. */
static int own_context_current(void)
{
    CUcontext cur = NULL, prim_ctx = NULL;
    CUdevice dev;
    unsigned flags;
    int active = 0;
    if (fc_drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur == NULL || fc_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        return 0;
    if (fc_drv.cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS || !active)
        return 1;
    if (fc_drv.cuDevicePrimaryCtxRetain(&prim_ctx, dev) != CUDA_SUCCESS)
        return 0;
    fc_drv.cuDevicePrimaryCtxRelease(dev);
    return prim_ctx != cur;
}

/* cuDevicePrimaryCtxReset frees everything the primary context owns; the
 * runtime then holds no reference until the device is used again.  With a
 * context of the program's own current, only the runtime's state for it
 * would go (CUDA documents it so): this runtime keeps none, so nothing. */
cudaError_t fc_rt_reset_device(int dev)
{
    ENTER_INIT();
    if (dev < 0 || dev >= FC_MAX_DEV)
        return fc_rt_set(cudaErrorInvalidDevice);
    if (own_context_current())
        return cudaSuccess;
    pthread_mutex_lock(&prim_mu);
    CUresult r = fc_drv.cuDevicePrimaryCtxReset(dev);
    if (r == CUDA_SUCCESS)
        retained[dev] = 0;
    pthread_mutex_unlock(&prim_mu);
    return fc_rt_cu(r);
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tls_last;
    tls_last = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return tls_last; }
