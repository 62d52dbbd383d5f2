#define _GNU_SOURCE /* Dl_info, dladdr */
/* Another interposer, preloaded next to libgpuleak: it wraps cudaMalloc
 * (which gpuleak hooks too) and cudaMemGetInfo (which it does not), finding
 * the next definition with dlsym(RTLD_NEXT, ...) the way interposers do, and
 * reports on stderr which library that lookup returned. */
#include <dlfcn.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

static void *next(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    Dl_info info;
    if (fn != NULL && dladdr(fn, &info) != 0)
        fprintf(stderr, "other: next %s is in %s\n", name, info.dli_fname);
    else
        fprintf(stderr, "other: next %s not found\n", name);
    return fn;
}

cudaError_t cudaMalloc(void **p, size_t size)
{
    static cudaError_t (*real)(void **, size_t);
    if (real == NULL)
        real = (cudaError_t(*)(void **, size_t))next("cudaMalloc");
    return real(p, size);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    static cudaError_t (*real)(size_t *, size_t *);
    if (real == NULL)
        real = (cudaError_t(*)(size_t *, size_t *))next("cudaMemGetInfo");
    return real(free_bytes, total);
}
