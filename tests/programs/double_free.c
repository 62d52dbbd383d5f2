/* A double free of an address that lies inside an earlier, larger block
 * (first fit reuses the range): cudaMalloc 8 KiB and free it; cudaMalloc
 * 512 bytes (the old block's start) and 1,000 bytes (512 bytes into the old
 * block); free the 1,000 bytes twice.  The second free is a double free,
 * not "not the start of an allocation" (issue 35).  Prints "double 0x...".
 * The lines marked are what tests/t_double_free.sh expects the reporter to
 * name. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static void must(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s\n", what);
        exit(1);
    }
}

static NOINLINE void release(void *p)
{
    must(cudaFree(p) == cudaSuccess, "cudaFree"); /* FIRST-FREE: release */
}

static NOINLINE void release_again(void *p)
{
    must(cudaFree(p) != cudaSuccess, "the second cudaFree succeeded"); /* BAD-FREE: release_again */
}

int main(void)
{
    void *big, *head, *p;
    must(cudaMalloc(&big, 8192) == cudaSuccess, "cudaMalloc 8192");
    must(cudaFree(big) == cudaSuccess, "cudaFree 8192");
    must(cudaMalloc(&head, 512) == cudaSuccess, "cudaMalloc 512");
    must(cudaMalloc(&p, 1000) == cudaSuccess, "cudaMalloc 1000"); /* ALLOC-SITE: p */
    must((char *)p > (char *)big && (char *)p < (char *)big + 8192, "first fit did not reuse the 8 KiB range");
    release(p);
    release_again(p);
    must(cudaFree(head) == cudaSuccess, "cudaFree 512");
    printf("double %p\n", p);
    return 0;
}
