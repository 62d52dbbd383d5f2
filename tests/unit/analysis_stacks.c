/* Unit test of the stack rules a reader meets first (issue 45, item 5;
 * report/model/user_frame.c): which frame labels a stack, and which runs
 * of frames the text, diff and HTML show as one "PyTorch internals, N
 * frames" line.  The stacks are the ones real PyTorch gives, written out
 * frame by frame (function, file, module) in a stackdb built in memory, so
 * that each expected position follows from the frames by hand.  Links only
 * report/model and report/util objects. */
#include <stdio.h>
#include <string.h>

#include "model/stackdb.h"
#include "model/user_frame.h"
#include "snapbuild.h"

#define MAX 16

static struct sym_frame frames[64];
static uint32_t seq[256];
static struct cstack cs[MAX];
static struct stackdb db = {.frames = frames, .seq = seq, .cs = cs, .nframes = 1, .ncs = 1};

/* A native frame: function (NULL: no symbol) in module (a basename). */
static struct sym_frame native(const char *function, const char *module)
{
    return (struct sym_frame){.function = function, .module = module, .address = 0x1000, .offset = 0x10};
}

/* A Python frame, as gpuleak's own walk or PyTorch's view gives it. */
static struct sym_frame python(const char *function, const char *file, unsigned line)
{
    return (struct sym_frame){.function = function, .file = file, .line = line, .module = "python", .python = true};
}

/* Interns n frames (innermost first) as one stack: its id. */
static uint32_t stack(size_t n, const struct sym_frame *f)
{
    uint32_t id = (uint32_t)db.ncs++;
    cs[id] = (struct cstack){.first = (uint32_t)db.nseq, .n = (uint32_t)n};
    for (size_t i = 0; i < n; i++) {
        frames[db.nframes] = f[i];
        seq[db.nseq++] = (uint32_t)db.nframes++;
    }
    return id;
}

#define STACK(...) stack(sizeof((struct sym_frame[]){__VA_ARGS__}) / sizeof(struct sym_frame), \
                         (struct sym_frame[]){__VA_ARGS__})

int main(void)
{
    /* autograd's engine thread (a backward's cuBLAS workspace): PyTorch's
     * frames above std::thread's start, no user frame.  One run of 4; the
     * label is PyTorch's outermost frame, never libstdc++'s. */
    uint32_t engine = STACK(native("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block()",
                                   "libc10_cuda.so"),
                            native("void at::cuda::blas::gemm_internal_cublas<float, float>()", "libtorch_cuda.so"),
                            native("torch::autograd::Engine::thread_main()", "libtorch_cpu.so"),
                            native("torch::autograd::python::PythonEngine::thread_init()", "libtorch_python.so"),
                            native(NULL, "libstdc++.so.6"));
    CHECK_EQ(sdb_torch_run(&db, &cs[engine], 0), 4);
    CHECK_EQ(sdb_torch_run(&db, &cs[engine], 3), 1);
    CHECK_EQ(sdb_torch_run(&db, &cs[engine], 4), 0);
    CHECK_EQ(sdb_user_frame_pos(&db, engine), 3);

    /* A user extension under PyTorch's dispatcher: the CUDA runtime's
     * frame, two of PyTorch's (a run of 2 from 1), then the extension,
     * which labels it (a "void ..." template of PyTorch's does not). */
    uint32_t ext = STACK(native("cudaMalloc", "libcudart.so.13"),
                         native("c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::malloc()",
                                "libc10_cuda.so.2"),
                         native("void at::native::launch<float>()", "libtorch_cuda.so"),
                         native("myext::forward(at::Tensor const&)", "libmyext.so"),
                         native("main", "train"));
    CHECK_EQ(sdb_torch_run(&db, &cs[ext], 0), 0);
    CHECK_EQ(sdb_torch_run(&db, &cs[ext], 1), 2);
    CHECK_EQ(sdb_user_frame_pos(&db, ext), 3);

    /* C++ runtime frames are never a label: operator new in libstdc++,
     * then the program's own function. */
    uint32_t rt = STACK(native("operator new(unsigned long)", "libstdc++.so.6"), native("grow", "train"));
    CHECK_EQ(sdb_user_frame_pos(&db, rt), 1);
    CHECK_EQ(sdb_torch_run(&db, &cs[rt], 0), 0);

    /* PyTorch's view from a snapshot written before gpuleak kept only the
     * Python frames (stacks="all"): C++ frames as "Python" frames, with a
     * "??" or C source file; the user's line labels it, not
     * torch::unwind::unwind() (??), nor torch's own linear.py. */
    uint32_t view = STACK(python("torch::unwind::unwind()", "??", 0),
                          python("cfunction_call", "/build/Python-3.11.7/Objects/methodobject.c", 542),
                          python("clone3", "../sysdeps/unix/sysv/linux/x86_64/clone3.S", 81),
                          python("__init__", "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", 109),
                          python("<module>", "/work/train.py", 7));
    CHECK_EQ(sdb_user_frame_pos(&db, view), 4);
    CHECK_EQ(sdb_torch_run(&db, &cs[view], 0), 0); /* Python frames: never folded */

    /* All wrappers, none of PyTorch's: the innermost frame, as before. */
    uint32_t cuda = STACK(native("cudaMalloc", "libcudart.so.13"), native(NULL, "libc.so.6"));
    CHECK_EQ(sdb_user_frame_pos(&db, cuda), 0);

    /* What counts as PyTorch's libraries: by basename. */
    struct sym_frame f = native("x", "libtorch_global_deps.so");
    CHECK(frame_in_torch_library(&f), "libtorch_global_deps.so");
    f = native("x", "libcaffe2_nvrtc.so");
    CHECK(frame_in_torch_library(&f), "libcaffe2_nvrtc.so");
    f = native("x", "libtorch.so");
    CHECK(frame_in_torch_library(&f), "libtorch.so");
    f = native("x", "libc10.so");
    CHECK(frame_in_torch_library(&f), "libc10.so");
    f = native("x", "libtorchvision.so"); /* another project's */
    CHECK(!frame_in_torch_library(&f), "libtorchvision.so");
    f = native("x", "libcudnn.so.9");
    CHECK(!frame_in_torch_library(&f), "libcudnn.so.9");
    f = python("forward", "/venv/site-packages/torch/nn/modules/linear.py", 134);
    CHECK(!frame_in_torch_library(&f), "torch's Python files are not folded");
    return sb_done("analysis_stacks");
}
