/* The fold table: frames at the innermost end of a stack that are hidden by
 * default (--all-frames shows them).  The interposer records the caller of
 * the intercepted API as pc[0], so with the shared CUDA libraries nothing
 * needs folding; these rules matter when a library calls the API on the
 * user's behalf (cuBLAS, cuDNN) and with the static runtime, whose code is
 * linked into the program itself and can only be recognised by name.
 *
 * Keep this table and the one in docs/reporter.md in step. */
#include "model/fold.h"

#include <string.h>

/* module basename prefixes: the object is a CUDA library or gpuleak */
static const char *const fold_modules[] = {
    "libcuda.", "libcudart", "libcublas", "libcudnn", "libnvrtc",
    "libcupti", "libgpuleak",
};

/* function name prefixes of the static runtime and of fakecuda, the test
 * stand-in for it ("cuda"/"cu" must be followed by an upper-case letter:
 * cudaMalloc, cuMemAlloc_v2, but not cuda_helper or cube) */
static const char *const fold_plain_prefixes[] = {"fc_", "__cudart", "cudart::"};
static const char *const fold_api_prefixes[] = {"cuda", "cu"};

#define N(a) (sizeof(a) / sizeof *(a))

bool fold_is_cuda_library(const struct sym_frame *f)
{
    if (f->module)
        for (size_t i = 0; i < N(fold_modules); i++)
            if (strncmp(f->module, fold_modules[i], strlen(fold_modules[i])) == 0)
                return true;
    return false;
}

bool fold_is_cuda_frame(const struct sym_frame *f)
{
    return fold_is_cuda_library(f) || fold_is_cuda_api_frame(f);
}

bool fold_is_cuda_api_frame(const struct sym_frame *f)
{
    const char *fn = f->function;
    if (!fn)
        return false;
    for (size_t i = 0; i < N(fold_plain_prefixes); i++)
        if (strncmp(fn, fold_plain_prefixes[i], strlen(fold_plain_prefixes[i])) == 0)
            return true;
    for (size_t i = 0; i < N(fold_api_prefixes); i++) {
        size_t n = strlen(fold_api_prefixes[i]);
        if (strncmp(fn, fold_api_prefixes[i], n) == 0 && fn[n] >= 'A' && fn[n] <= 'Z')
            return true;
    }
    return false;
}

/* The frames a process or thread starts in, below main or the thread's
 * start function: glibc's and musl's entry and thread-start code.  They are
 * the same in every stack and say nothing about the program. */
static const char *const start_functions[] = {
    "_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
    "libc_start_main_stage2", "start_thread", "clone", "clone3", "__clone", "__clone3",
    "__clone_internal", "thread_start",
};
/* objects those frames live in, for a C library without symbols, whose
 * start code then has no name */
static const char *const start_modules[] = {"libc.so", "libc.musl", "ld-linux", "ld-musl",
                                            "libpthread.so"};

bool fold_is_start_frame(const struct sym_frame *f)
{
    if (f->python)
        return false;
    if (f->function) {
        for (size_t i = 0; i < N(start_functions); i++)
            if (strcmp(f->function, start_functions[i]) == 0)
                return true;
        return strncmp(f->function, "__libc_start_main@", 18) == 0;
    }
    if (f->module)
        for (size_t i = 0; i < N(start_modules); i++)
            if (strncmp(f->module, start_modules[i], strlen(start_modules[i])) == 0)
                return true;
    return false;
}
