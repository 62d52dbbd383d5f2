/* Frees that free nothing gpuleak knows of, each from its own function:
 *   - double_free: cudaMalloc, cudaFree, cudaFree again -- twice, from one
 *     call site,
 *   - interior_free: cudaFree of a pointer 16 bytes into an allocation
 *     (then the allocation itself, properly),
 *   - bogus_driver_free: cuMemFree_v2 of an address never allocated,
 *   - host_double_free: cudaMallocHost, cudaFreeHost twice,
 *   - array_double_free: cudaMallocArray, cudaFreeArray twice.
 * CUDA refuses every one of the bad frees.  BAD_FREE_NO_ARRAY=1 leaves out
 * the array (a real driver's array handle is a pointer to memory it freed,
 * so destroying it twice is not safe to try on hardware).  Prints the double free's and
 * the interior pointer's addresses ("double 0x...", "interior 0x..."), so
 * the test can match the report's.  With an argument, asks for a snapshot
 * to that path after the first double free (for `gpuleak-report diff`).  The lines marked
 * BAD-FREE are what the tests expect the reporter to name. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

int gpuleak_snapshot(const char *path) __attribute__((weak));

static void must(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s\n", what);
        exit(1);
    }
}

static NOINLINE void double_free(void)
{
    void *p;
    must(cudaMalloc(&p, 1000) == cudaSuccess, "cudaMalloc"); /* ALLOC-SITE: double_free */
    must(cudaFree(p) == cudaSuccess, "cudaFree"); /* FIRST-FREE: double_free */
    cudaError_t rc = cudaFree(p); /* BAD-FREE: double_free */
    must(rc != cudaSuccess, "the second cudaFree succeeded");
    static int once;
    if (!once++)
        printf("double %p\n", p);
}

static NOINLINE void interior_free(void)
{
    char *p;
    must(cudaMalloc((void **)&p, 4096) == cudaSuccess, "cudaMalloc"); /* ALLOC-SITE: interior_free */
    must(cudaFree(p + 16) != cudaSuccess, "cudaFree of an interior pointer succeeded"); /* BAD-FREE: interior_free */
    must(cudaFree(p) == cudaSuccess, "cudaFree");
    printf("interior %p\n", (void *)(p + 16));
}

static NOINLINE void bogus_driver_free(void)
{
    must(cuMemFree_v2((CUdeviceptr)0x1234) != CUDA_SUCCESS, "cuMemFree of a bogus address succeeded"); /* BAD-FREE: bogus_driver_free */
}

static NOINLINE void host_double_free(void)
{
    void *p;
    must(cudaMallocHost(&p, 5000) == cudaSuccess, "cudaMallocHost");
    must(cudaFreeHost(p) == cudaSuccess, "cudaFreeHost");
    must(cudaFreeHost(p) != cudaSuccess, "the second cudaFreeHost succeeded"); /* BAD-FREE: host_double_free */
}

static NOINLINE void array_double_free(void)
{
    cudaArray_t a;
    struct cudaChannelFormatDesc d = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    must(cudaMallocArray(&a, &d, 64, 64, 0) == cudaSuccess, "cudaMallocArray");
    must(cudaFreeArray(a) == cudaSuccess, "cudaFreeArray");
    must(cudaFreeArray(a) != cudaSuccess, "the second cudaFreeArray succeeded"); /* BAD-FREE: array_double_free */
}

int main(int argc, char **argv)
{
    must(cudaSetDevice(0) == cudaSuccess, "cudaSetDevice");
    must(cudaFree(NULL) == cudaSuccess, "cudaFree(NULL)"); /* frees nothing: not a bad free */
    for (int i = 0; i < 2; i++) {
        double_free();
        if (i == 0 && argc > 1 && gpuleak_snapshot)
            must(gpuleak_snapshot(argv[1]) == 0, "gpuleak_snapshot");
    }
    interior_free();
    bogus_driver_free();
    host_double_free();
    if (!getenv("BAD_FREE_NO_ARRAY"))
        array_double_free();
    return 0;
}
