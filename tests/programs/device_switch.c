/* Threads that change their current device through each API family, each
 * allocation's device asserted by tests/t_device_switch.sh (gpuleak keeps the
 * runtime's current device per thread instead of asking cudaGetDevice on
 * every event: cuda/where.h).  Every allocation is a cudaMalloc that leaks,
 * its size naming it (KiB); the device expected is in the comment.
 *   device_switch threads     main, then three threads at once:
 *       runtime   cudaSetDevice
 *       driver    primary contexts retained, cuCtxSetCurrent,
 *                 cuCtxPushCurrent/cuCtxPopCurrent, cuCtxCreate
 *       procaddr  the same through cuGetProcAddress, cudaSetDevice through
 *                 dlsym, cuCtxSetCurrent through cudaGetDriverEntryPoint
 *     and main again (its device is its own, not the threads').
 *   device_switch driver      driver allocations (cuMemAlloc_v2, leaked,
 *     KiB naming them; gpuleak keeps the driver's current context per
 *     thread too): after cuCtxSetCurrent, cuCtxPushCurrent/PopCurrent, a
 *     created context destroyed while current, cudaSetDevice, and on a
 *     thread started later (its context set through the driver, and one
 *     bound lazily by a runtime call).
 *   device_switch attach LIBGPULEAK CONFIG  device 1 set before an
 *     in-process attach, device 0 while attached, device 1 while detached,
 *     then a second attach (docs/attach.md); a runtime and a driver
 *     allocation after each, and a thread started after the second attach. */
#define __CUDA_API_VERSION_INTERNAL
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"

#define KiB 1024u

static void *need(void *p, const char *what)
{
    if (p == NULL) {
        fprintf(stderr, "%s: not found\n", what);
        exit(1);
    }
    return p;
}

static void leak(unsigned kib)
{
    void *p;
    rt_check(cudaMalloc(&p, kib * KiB), "cudaMalloc");
}

static void dleak(unsigned kib)
{
    CUdeviceptr p;
    check(cuMemAlloc_v2(&p, kib * KiB), "cuMemAlloc");
}

static CUcontext primary(int dev)
{
    CUcontext c;
    check(cuDevicePrimaryCtxRetain(&c, dev), "cuDevicePrimaryCtxRetain");
    return c;
}

static void *runtime_family(void *arg)
{
    (void)arg;
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    leak(11); /* device 1 */
    rt_check(cudaSetDevice(0), "cudaSetDevice");
    leak(12); /* device 0 */
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    leak(13); /* device 1 */
    return NULL;
}

static void *driver_family(void *arg)
{
    (void)arg;
    CUcontext c0 = primary(0), c1 = primary(1), own, popped;
    check(cuCtxSetCurrent(c1), "cuCtxSetCurrent");
    leak(21); /* device 1 */
    check(cuCtxPushCurrent_v2(c0), "cuCtxPushCurrent");
    leak(22); /* device 0 */
    check(cuCtxPopCurrent_v2(&popped), "cuCtxPopCurrent");
    leak(23); /* device 1 */
    check(cuCtxCreate_v2(&own, 0, 0), "cuCtxCreate"); /* pushed current */
    leak(24); /* device 0 */
    check(cuCtxPopCurrent_v2(&popped), "cuCtxPopCurrent");
    leak(25); /* device 1 (the created context is kept: its memory goes with it) */
    return NULL;
}

typedef CUresult (*procaddr_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static void *query(const char *name)
{
    procaddr_fn get = (procaddr_fn)need(dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2"), "cuGetProcAddress_v2");
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    check(get(name, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status), name);
    return need(fn, name);
}

static void *procaddr_family(void *arg)
{
    (void)arg;
    cudaError_t (*set_device)(int) = (cudaError_t(*)(int))need(dlsym(RTLD_DEFAULT, "cudaSetDevice"), "cudaSetDevice");
    CUresult (*set)(CUcontext) = (CUresult(*)(CUcontext))query("cuCtxSetCurrent");
    CUresult (*push)(CUcontext) = (CUresult(*)(CUcontext))query("cuCtxPushCurrent");
    CUresult (*pop)(CUcontext *) = (CUresult(*)(CUcontext *))query("cuCtxPopCurrent");
    void *entry = NULL;
    enum cudaDriverEntryPointQueryResult status;
    rt_check(cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &entry, 12000, cudaEnableDefault, &status),
       "cudaGetDriverEntryPointByVersion");
    CUresult (*set_by_entry)(CUcontext) = (CUresult(*)(CUcontext))need(entry, "cuCtxSetCurrent entry point");
    CUcontext c0 = primary(0), c1 = primary(1), popped;
    rt_check(set_device(1), "cudaSetDevice (dlsym)");
    leak(31); /* device 1 */
    check(set(c0), "cuCtxSetCurrent (cuGetProcAddress)");
    leak(32); /* device 0 */
    check(push(c1), "cuCtxPushCurrent (cuGetProcAddress)");
    leak(33); /* device 1 */
    check(pop(&popped), "cuCtxPopCurrent (cuGetProcAddress)");
    leak(34); /* device 0 */
    check(set_by_entry(c1), "cuCtxSetCurrent (entry point)");
    leak(35); /* device 1 */
    return NULL;
}

static void *later_driver_thread(void *arg)
{
    (void)arg;
    CUcontext c0 = primary(0), c1 = primary(1), popped;
    check(cuCtxSetCurrent(c1), "cuCtxSetCurrent");
    dleak(61); /* device 1 */
    check(cuCtxPushCurrent_v2(c0), "cuCtxPushCurrent");
    dleak(62); /* device 0 */
    check(cuCtxPopCurrent_v2(&popped), "cuCtxPopCurrent");
    dleak(63); /* device 1 */
    return NULL;
}

static void *later_runtime_thread(void *arg)
{
    (void)arg;
    rt_check(cudaFree(NULL), "cudaFree"); /* binds device 0's primary context */
    dleak(64);                      /* device 0 */
    return NULL;
}

static int run_thread(void *(*fn)(void *))
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, NULL) != 0)
        return 1;
    return pthread_join(t, NULL);
}

static int driver(void)
{
    check(cuInit(0), "cuInit");
    CUcontext c0 = primary(0), c1 = primary(1), own, popped;
    check(cuCtxSetCurrent(c1), "cuCtxSetCurrent");
    dleak(51); /* device 1 */
    check(cuCtxSetCurrent(c0), "cuCtxSetCurrent");
    dleak(52); /* device 0 */
    check(cuCtxPushCurrent_v2(c1), "cuCtxPushCurrent");
    dleak(53); /* device 1 */
    check(cuCtxPopCurrent_v2(&popped), "cuCtxPopCurrent");
    dleak(54); /* device 0 */
    check(cuCtxCreate_v2(&own, 0, 1), "cuCtxCreate"); /* device 1, pushed */
    CUdeviceptr p;
    check(cuMemAlloc_v2(&p, 55 * KiB), "cuMemAlloc"); /* device 1 */
    check(cuMemFree_v2(p), "cuMemFree");
    check(cuCtxDestroy_v2(own), "cuCtxDestroy"); /* popped: device 0's again */
    dleak(56);                                /* device 0 */
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    dleak(57); /* device 1 */
    if (run_thread(later_driver_thread) || run_thread(later_runtime_thread))
        return 1;
    dleak(58); /* device 1: main's own */
    return 0;
}

static void *after_attach_thread(void *arg)
{
    (void)arg;
    check(cuCtxSetCurrent(primary(0)), "cuCtxSetCurrent");
    dleak(47); /* device 0 */
    return NULL;
}

static int threads(void)
{
    leak(1); /* device 0 */
    void *(*family[])(void *) = {runtime_family, driver_family, procaddr_family};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        if (pthread_create(&t[i], NULL, family[i], NULL) != 0)
            return 1;
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    leak(2); /* device 0 */
    return 0;
}

static int attach(const char *lib, const char *config)
{
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    void *h = need(dlopen(lib, RTLD_NOW), lib);
    int (*begin)(const char *) = (int (*)(const char *))need(dlsym(h, "gpuleak_attach_begin"), "begin");
    int (*end)(void) = (int (*)(void))need(dlsym(h, "gpuleak_attach_end"), "end");
    const char *(*last)(void) = (const char *(*)(void))need(dlsym(h, "gpuleak_attach_last_snapshot"), "last");
    printf("begin %d\n", begin(config));
    leak(41);  /* device 1: set before the attach */
    dleak(44); /* device 1 */
    rt_check(cudaSetDevice(0), "cudaSetDevice");
    leak(42);  /* device 0 */
    dleak(45); /* device 0 */
    printf("end %d\n", end());
    printf("snapshot %s\n", last());
    rt_check(cudaSetDevice(1), "cudaSetDevice"); /* not seen: detached */
    printf("begin %d\n", begin(config));
    leak(43);  /* device 1: set while detached */
    dleak(46); /* device 1 */
    if (run_thread(after_attach_thread))
        return 1;
    printf("end %d\n", end());
    printf("snapshot %s\n", last());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && argv[1][0] == 't')
        return threads();
    if (argc == 2 && argv[1][0] == 'd')
        return driver();
    if (argc == 4 && argv[1][0] == 'a')
        return attach(argv[2], argv[3]);
    fprintf(stderr, "usage: device_switch threads | driver | attach LIBGPULEAK CONFIG\n");
    return 2;
}
