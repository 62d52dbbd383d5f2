/* Every allocation through the program's own wrapper, buf(), as a rank's
 * application does (issue 35: every row read `buf (rankapp.c:4)`): weights
 * keeps 1 MiB, grads keeps 2 MiB, both made by buf.  With
 * `gpuleak-report --alloc-fn buf` the rows are named by weights and grads.
 * The lines marked are what tests/t_labels.sh expects. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static NOINLINE void *buf(size_t n)
{
    void *p = NULL;
    if (cudaMalloc(&p, n) != cudaSuccess) /* WRAPPER-LINE */
        exit(1);
    return p;
}

static NOINLINE void *weights(void)
{
    return buf(1 << 20); /* WEIGHTS-LINE */
}

static NOINLINE void *grads(void)
{
    return buf(2 << 20); /* GRADS-LINE */
}

int main(void)
{
    printf("%p %p\n", weights(), grads());
    return 0;
}
