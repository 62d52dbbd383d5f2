#include "model/user_frame.h"

#include <fnmatch.h>
#include <string.h>

#include "model/fold.h"

/* A Python frame of PyTorch's own package (site-packages/torch/..., or a
 * path relative to it). */
static bool in_torch_python(const struct sym_frame *f)
{
    return f->file != NULL && (strstr(f->file, "/torch/") != NULL || strncmp(f->file, "torch/", 6) == 0);
}

/* PyTorch's C++ namespaces: its caching allocator (c10::cuda), ATen's
 * factories (at::empty, at::native::empty_cuda) and its bindings. */
static bool in_torch_cxx(const char *fn)
{
    return strncmp(fn, "c10::", 5) == 0 || strncmp(fn, "at::", 4) == 0 || strncmp(fn, "torch::", 7) == 0;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* PyTorch's shared libraries, by basename: libtorch.so, libtorch_cpu.so,
 * libtorch_cuda.so, libtorch_python.so, libtorch_global_deps.so,
 * libc10.so, libc10_cuda.so, libcaffe2_nvrtc.so (not libtorchvision.so,
 * another project's).  They carry these names in
 * every build (the wheel's torch/lib/, conda, a source build's build/lib/),
 * where the directory does not say as much; and a stackdb's frames are
 * shared by snapshots of several machines (diff, merge), whose paths
 * differ. */
bool frame_in_torch_library(const struct sym_frame *f)
{
    if (f->python || f->module == NULL)
        return false;
    static const char *const prefixes[] = {"libtorch.", "libtorch_", "libc10.", "libc10_", "libcaffe2_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (starts_with(f->module, prefixes[i]))
            return true;
    return false;
}

/* The C and C++ runtimes: the thread start of std::thread
 * (libstdc++.so.6+0xd44a3 without symbols), unwinding, libc.  Never what a
 * user wrote. */
static bool in_system_runtime(const struct sym_frame *f)
{
    static const char *const runtimes[] = {"libstdc++.so", "libgcc_s.so", "libc.so", "libm.so",
                                           "libpthread.so", "libdl.so", "ld-linux", "libc.musl", "ld-musl"};
    if (f->python || f->module == NULL)
        return false;
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++)
        if (starts_with(f->module, runtimes[i]))
            return true;
    return false;
}

/* A C++ frame in PyTorch's view, as snapshots written before gpuleak kept
 * only its Python frames carry them (stacks="all"): file "??", empty or a
 * C/C++ source, or a demangled name with its parameters. */
static bool cxx_in_python_view(const struct sym_frame *f)
{
    static const char *const sources[] = {".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".S", ".s"};
    if (f->function != NULL && strchr(f->function, '(') != NULL)
        return true;
    if (f->file == NULL)
        return false;
    if (f->file[0] == '\0' || strcmp(f->file, "??") == 0)
        return true;
    size_t n = strlen(f->file);
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
        size_t k = strlen(sources[i]);
        if (n > k && strcmp(f->file + n - k, sources[i]) == 0)
            return true;
    }
    return false;
}

bool frame_is_alloc_wrapper(const struct sdb_opts *o, const struct sym_frame *f)
{
    if (fold_is_cuda_frame(f))
        return true;
    if (f->python)
        return in_torch_python(f) || cxx_in_python_view(f);
    if (frame_in_torch_library(f) || in_system_runtime(f))
        return true;
    if (f->function == NULL)
        return false;
    if (in_torch_cxx(f->function))
        return true;
    for (size_t i = 0; i < o->nalloc_fns; i++)
        if (fnmatch(o->alloc_fns[i], f->function, 0) == 0)
            return true;
    return false;
}

uint32_t sdb_user_frame_pos(const struct stackdb *db, uint32_t cs)
{
    if (cs == 0 || cs >= db->ncs)
        return 0;
    const struct cstack *c = &db->cs[cs];
    for (uint32_t i = 0; i < c->n; i++)
        if (!frame_is_alloc_wrapper(&db->o, sdb_frame(db, c, i)))
            return i;
    /* No user frame: PyTorch's outermost frame says which of its parts
     * allocated (autograd's engine thread, a DataLoader), where the
     * innermost is its allocator's and names nothing. */
    for (uint32_t i = c->n; i-- > 0;)
        if (frame_in_torch_library(sdb_frame(db, c, i)))
            return i;
    return 0;
}

uint32_t sdb_torch_run(const struct stackdb *db, const struct cstack *c, uint32_t i)
{
    uint32_t n = 0;
    while (i + n < c->n && frame_in_torch_library(sdb_frame(db, c, i + n)))
        n++;
    return n;
}

uint32_t sdb_user_frame(const struct stackdb *db, uint32_t cs)
{
    if (cs == 0 || cs >= db->ncs || db->cs[cs].n == 0)
        return 0;
    return db->seq[db->cs[cs].first + sdb_user_frame_pos(db, cs)];
}
