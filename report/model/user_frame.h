/* The frame a user cares about: the one a stack is labelled by wherever one
 * line stands for a whole stack (the HTML page's rows and growth chart, the
 * text's one-line "allocated at", PyTorch's tensor lines).  It is the
 * innermost frame outside known allocator wrappers, so that every row
 * behind a wrapper does not read `malloc (_allocator.py:106)` or
 * `buf (rankapp.c:4)`:
 *   - CUDA-library and gpuleak frames (model/fold.h; --all-frames keeps
 *     them in the stack, never in the label),
 *   - PyTorch's own code: Python frames in a `torch/` package
 *     (torch/nn/modules/..., torch/cuda/...) and C++ functions named
 *     `c10::...`, `at::...` or `torch::...`,
 *   - the functions named by --alloc-fn (fnmatch globs on the demangled
 *     name, as massif's option of the same name: the program's own
 *     allocation wrappers).
 *   - frames in PyTorch's shared libraries (frame_in_torch_library) and in
 *     the C and C++ runtimes (libstdc++, libgcc_s, libc, the loader), so
 *     that autograd's C++ frames, or std::thread's start, never name a
 *     stack.
 * A stack that is all wrappers is labelled by its outermost frame in
 * PyTorch's libraries when it has one (the part of PyTorch that allocated:
 * autograd's engine thread), else by its innermost frame. */
#ifndef GPULEAK_USER_FRAME_H
#define GPULEAK_USER_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "model/stackdb.h"

/* Whether f is a known allocator wrapper (above); o's alloc_fns may be empty. */
bool frame_is_alloc_wrapper(const struct sdb_opts *o, const struct sym_frame *f);

/* Whether f is a native frame of PyTorch's own shared libraries (libtorch.*,
 * libtorch_*, libc10.*, libc10_*, libcaffe2_*, by basename). */
bool frame_in_torch_library(const struct sym_frame *f);

/* How many consecutive frames of c, from position i on, are in PyTorch's
 * libraries: what the text, diff and HTML stacks show as one line,
 * "PyTorch internals, N frames", unless --full-stacks. */
uint32_t sdb_torch_run(const struct stackdb *db, const struct cstack *c, uint32_t i);

/* The position in cstack cs of its label frame (0 for an empty stack or
 * cs 0). */
uint32_t sdb_user_frame_pos(const struct stackdb *db, uint32_t cs);

/* The label frame of cs as a frame id (0: none, an empty stack). */
uint32_t sdb_user_frame(const struct stackdb *db, uint32_t cs);

#endif
