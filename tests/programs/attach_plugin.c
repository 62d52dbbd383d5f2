/* A library loaded after an attach (tests/t_attach_inproc.sh): its
 * cudaMalloc import is bound to the runtime by the loader, and gets the
 * hook from the attach's next tick. */
#include <cuda_runtime_api.h>

int attach_plugin_leak(size_t n);
int attach_plugin_leak(size_t n)
{
    void *p = NULL;
    return (int)cudaMalloc(&p, n); /* LEAK-LINE: plugin */
}
