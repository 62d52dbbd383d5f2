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

bool frame_is_alloc_wrapper(const struct sdb_opts *o, const struct sym_frame *f)
{
    if (fold_is_cuda_frame(f))
        return true;
    if (f->python)
        return in_torch_python(f);
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
    return 0;
}

uint32_t sdb_user_frame(const struct stackdb *db, uint32_t cs)
{
    if (cs == 0 || cs >= db->ncs || db->cs[cs].n == 0)
        return 0;
    return db->seq[db->cs[cs].first + sdb_user_frame_pos(db, cs)];
}
