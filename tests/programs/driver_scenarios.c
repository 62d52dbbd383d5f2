/* Driver-API scenarios for a program that links libcuda directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cuda_check.h"
#include "primary_ctx.h"

__attribute__((noinline)) static CUdeviceptr leak_driver(size_t bytes)
{
    CUdeviceptr p = 0;
    check(cuMemAlloc(&p, bytes), "cuMemAlloc"); /* LEAK-SITE: leak_driver */
    return p;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    check(cuInit(0), "cuInit");
    use_primary(0);
    if (!strcmp(what, "leak")) {
        for (int i = 0; i < 3; i++)
            leak_driver(256 * 1024);
        CUdeviceptr q;
        check(cuMemAlloc(&q, 1000), "cuMemAlloc");
        check(cuMemFree(q), "cuMemFree");
    } else if (!strcmp(what, "errors")) {
        CUdeviceptr p = 7;
        printf("oom %d\n", (int)cuMemAlloc(&p, (size_t)1 << 50));
        printf("oom-ptr-untouched %d\n", p == 7);
        printf("bogus-free %d\n", (int)cuMemFree((CUdeviceptr)0xdeadbeef000));
        check(cuMemAlloc(&p, 4096), "cuMemAlloc");
        printf("free %d\n", (int)cuMemFree(p));
        printf("double-free %d\n", (int)cuMemFree(p));
    } else {
        fprintf(stderr, "usage: %s leak|errors\n", argv[0]);
        return 2;
    }
    return 0;
}
