/* tests/t_stack_cache.sh: one allocation site reached many times from one
 * stack (the stack cache must answer), then the same site with the same
 * stack pointer but another saved return address (a function pointer
 * swapped), and at other depths (recursion).  Each path leaks one
 * allocation of its own size, so the report shows which stack each got. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void alloc_here(size_t leak_bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, leak_bytes ? leak_bytes : 4096) != cudaSuccess) { /* STACK-CACHE-SITE */
        fprintf(stderr, "cudaMalloc failed\n");
        exit(1);
    }
    if (leak_bytes == 0)
        cudaFree(p);
}

/* Same frame size, same code: only the return address into them differs. */
__attribute__((noinline)) static void via_a(size_t b) { alloc_here(b); } /* VIA-A */
__attribute__((noinline)) static void via_b(size_t b) { alloc_here(b); } /* VIA-B */

static void (*volatile via)(size_t) = via_a;

__attribute__((noinline)) static void descend(int d, size_t b)
{
    if (d > 0)
        descend(d - 1, b); /* DESCEND-RECURSE */
    else
        via(b); /* DESCEND-CALL */
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    for (int i = 0; i < n; i++)
        descend(2, 0);          /* the hot loop: one stack */
    descend(2, 1000);           /* via_a, depth 2 */
    via = via_b;
    for (int i = 0; i < n; i++)
        descend(2, 0);          /* same sp, other return address */
    descend(2, 2000);           /* via_b, depth 2 */
    descend(5, 3000);           /* via_b, depth 5 */
    via = via_a;
    descend(2, 4000);           /* via_a again, depth 2 */
    descend(0, 5000);           /* via_a, depth 0 */
    return 0;
}
