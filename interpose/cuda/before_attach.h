/* Memory made before `gpuleak attach` (docs/attach.md): it has no record and
 * no stack, so its free is counted here, never as a bad free, and the
 * ledger gets a row for it: the driver's used memory on each device at the
 * attach, less what is seen freed since. */
#ifndef GL_CUDA_BEFORE_ATTACH_H
#define GL_CUDA_BEFORE_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At the attach: every device whose primary context is alive is measured
 * (cuMemGetInfo in it, through the real functions) and its context learned;
 * frees of unknown memory are counted here from now on.  A device without
 * a live primary context has nothing of this process on it. */
void gl_before_attach_measure(void);

/* Frees of unknown memory are memory made before the attach (an attach is
 * on, or was). */
bool gl_before_attach_counting(void);

/* A free (or unmap) of unknown device memory at `addr`, of `size` bytes
 * (0: not known), accepted by CUDA, on `device`.  Counted as PyTorch's too
 * when it lies in one of PyTorch's segments made before the attach. */
void gl_before_attach_freed(int32_t device, uint64_t addr, uint64_t size);

/* ---- PyTorch's part (control/torch_view.c asks PyTorch at the attach) ---- */

/* One segment of PyTorch's caching allocator, as its _snapshot() listed it. */
struct gl_pre_segment {
    uint64_t address, size;
    int32_t device;
};

/* The attach asked PyTorch and has no answer yet (status "no answer" on
 * every measured device until gl_before_attach_torch_listed). */
void gl_before_attach_torch_asked(void);

/* PyTorch answered the attach's question: its segments then.  Those
 * gpuleak has a live record for (made during an earlier attach) are not
 * made before this one; the rest are kept, and their bytes counted, per
 * device.  Once per attach: a second answer changes nothing. */
void gl_before_attach_torch_listed(const struct gl_pre_segment *segs, size_t n);

/* Whether `segment` is one of PyTorch's segments made before the attach,
 * not wholly freed since.  Any thread, no lock. */
bool gl_before_attach_torch_segment(uint64_t segment);

struct gl_before_attach {
    uint64_t used_at_attach; /* total - free at the attach; 0: not measured */
    uint64_t freed_bytes, frees;
    /* Of them, PyTorch's segments (made before the attach, as PyTorch said). */
    uint64_t torch_bytes, torch_freed;
    uint32_t torch_segments, torch_frees, torch_status; /* enum gl_before_attach_torch */
};

/* The figures of `device` (zeros when never measured). */
struct gl_before_attach gl_before_attach_of(int32_t device);

#endif
