/* A program on a symbol-less libc10_cuda.so (fake_c10_cuda.cc): "native"
 * keeps one 2 MiB segment of the caching allocator alive at exit, "async"
 * one 3 MiB allocation of the cudaMallocAsync backend. */
#include <stddef.h>
#include <string.h>

void *fake_c10_alloc(size_t bytes, int async);

int main(int argc, char **argv)
{
    int async = argc > 1 && strcmp(argv[1], "async") == 0;
    fake_c10_alloc(async ? 3u << 20 : 2u << 20, async);
    return 0;
}
