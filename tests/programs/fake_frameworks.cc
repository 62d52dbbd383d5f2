// Stand-ins for the caching allocators of other frameworks, with their real
// names, each keeping one device allocation alive at exit the way its arena
// or pool does: TensorFlow's and XLA's (JAX) BFC allocator
// (tensorflow::BFCAllocator, later tsl::BFCAllocator), ONNX Runtime's BFC
// arena, RMM's pool resource, NCCL's communicator setup linked in
// (ncclCommInitRank*).  A plain function leaks 5 MiB: a real leak.
// Argument DIR: also loads DIR/cupy/cuda/memory.*.so,
// DIR/cupy/cuda/pinned_memory.*.so, DIR/libcublasLt.so.12 and
// DIR/libnccl.so.2 (fake_module.c), each of which allocates once.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#define NOINLINE __attribute__((noinline))

static void *device(size_t bytes)
{
    void *p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        std::abort();
    return p;
}

namespace tsl {
struct BFCAllocator {
    NOINLINE void *Extend(size_t bytes) { return device(bytes); }
};
} // namespace tsl

namespace tensorflow {
struct BFCAllocator {
    NOINLINE void *Extend(size_t bytes) { return device(bytes); }
};
} // namespace tensorflow

namespace onnxruntime {
struct BFCArena {
    NOINLINE void *Extend(size_t bytes) { return device(bytes); }
};
} // namespace onnxruntime

namespace rmm { namespace mr {
struct cuda_memory_resource {};
template <typename Upstream> struct pool_memory_resource {
    NOINLINE void *do_allocate(size_t bytes) { return device(bytes); }
};
}} // namespace rmm::mr

// NCCL linked statically: its communicator buffers, allocated under init.
NOINLINE void *ncclCommInitRankConfig(size_t bytes)
{
    return device(bytes);
}

NOINLINE static void *user_leak(size_t bytes)
{
    return device(bytes); // LEAK-SITE: user_leak
}

static void call_module(const std::string &path, const char *fn, size_t bytes)
{
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, fn) : nullptr;
    if (!sym) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), dlerror());
        std::exit(1);
    }
    void *(*f)(size_t);
    static_assert(sizeof f == sizeof sym, "function pointers are data pointers here");
    __builtin_memcpy(&f, &sym, sizeof f);
    if (!f(bytes))
        std::abort();
}

int main(int argc, char **argv)
{
    tsl::BFCAllocator().Extend(1 << 20);
    tensorflow::BFCAllocator().Extend(2 << 20);
    onnxruntime::BFCArena().Extend(3 << 20);
    rmm::mr::pool_memory_resource<rmm::mr::cuda_memory_resource>().do_allocate(4 << 20);
    user_leak(5 << 20);
    ncclCommInitRankConfig(10 << 20);
    if (argc > 1) {
        std::string dir = argv[1];
        call_module(dir + "/cupy/cuda/memory.cpython-311-x86_64-linux-gnu.so", "fake_module_alloc", 6 << 20);
        call_module(dir + "/cupy/cuda/pinned_memory.cpython-311-x86_64-linux-gnu.so", "fake_module_alloc_host",
                    7 << 20);
        call_module(dir + "/libcublasLt.so.12", "fake_module_alloc", 8 << 20);
        call_module(dir + "/libnccl.so.2", "fake_module_alloc", 9 << 20);
    }
    return 0;
}
