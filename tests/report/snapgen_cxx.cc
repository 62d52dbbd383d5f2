// C++ frames for the demangling test: the reporter must show
// ns::Trainer::step(int) for the return address recorded in it.
#include "snapgen.h"

namespace ns {
struct Trainer {
    struct stk *s_;
    __attribute__((noinline)) void step(int n);
};

void Trainer::step(int n)
{
    STK_ENTER(s_);
    if (n > 0)
        STK_CALL(s_, "ns::Trainer::step(int)", fake_cuda_api(s_));
}
} // namespace ns

extern "C" __attribute__((noinline)) void cxx_train(struct stk *s)
{
    STK_ENTER(s);
    ns::Trainer t;
    t.s_ = s;
    STK_CALL(s, "cxx_train", t.step(3));
}

// Stands for PyTorch's caching allocator: the default suppression rule
// "pytorch-caching-allocator" must match this demangled name.
namespace c10 { namespace cuda { namespace CUDACachingAllocator { namespace Native {
struct DeviceCachingAllocator {
    struct stk *s_;
    __attribute__((noinline)) void malloc(int device);
};

void DeviceCachingAllocator::malloc(int device)
{
    STK_ENTER(s_);
    if (device >= 0)
        STK_CALL(s_, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int)", fake_cuda_api(s_));
}
}}}} // namespace c10::cuda::CUDACachingAllocator::Native

extern "C" __attribute__((noinline)) void torch_step(struct stk *s)
{
    STK_ENTER(s);
    c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator a;
    a.s_ = s;
    STK_CALL(s, "torch_step", a.malloc(0));
}
