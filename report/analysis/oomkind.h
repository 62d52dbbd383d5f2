/* Out of memory, classified (issue 45, item 7): which of four things made
 * an allocation fail, with the numbers that say so.  The rules, in the
 * order they are tried (docs/reporter.md, "Out of memory, classified"):
 *
 *   fragmentation  PyTorch's view at that moment is known, and its reserved
 *                  minus allocated bytes on the device are at least the
 *                  request, but no free block of its cache is as large;
 *   setting        an allocator setting refused what the device had: PyTorch
 *                  may use less than the device's total (the per-process
 *                  memory fraction) and the driver had the request free;
 *   elsewhere      the driver's used memory minus this process's own is at
 *                  least what was missing (request - free) and at least what
 *                  this process holds: other processes or contexts held it;
 *   exceeded       otherwise, when the request was more than was free: this
 *                  process's own memory and the request do not fit;
 *   unknown        the driver's view is not known, or it had the request
 *                  free (not in one piece, or a pool's own limit).
 *
 * oom_classify is pure: facts in, verdict out. */
#ifndef GPULEAK_OOMKIND_H
#define GPULEAK_OOMKIND_H

#include <stdbool.h>
#include <stdint.h>

struct snapshot;
struct hist_mark;

enum oom_kind {
    OOM_KIND_UNKNOWN = 0,
    OOM_KIND_EXCEEDED,
    OOM_KIND_FRAGMENTATION,
    OOM_KIND_ELSEWHERE,
    OOM_KIND_SETTING,
};

struct oom_facts {
    uint64_t request;     /* bytes asked of CUDA */
    uint64_t free, total; /* the driver's view then; total 0: not known */
    uint64_t own;         /* this process's live device memory on the device then (gpuleak's) */
    /* PyTorch's view at that moment, on that device (torch false: not known) */
    bool torch;
    uint64_t reserved, allocated, largest_free;
    uint64_t allowed; /* what PyTorch may use on the device; 0: not known */
};

struct oom_verdict {
    enum oom_kind kind;
    uint64_t used;      /* total - free */
    uint64_t elsewhere; /* used - own */
    uint64_t missing;   /* request - free */
    uint64_t cached;    /* PyTorch's reserved - allocated */
};

struct oom_verdict oom_classify(const struct oom_facts *f);

/* The kind's name in JSON: "unknown", "exceeded", "fragmentation",
 * "elsewhere", "setting". */
const char *oom_kind_name(enum oom_kind k);

/* PyTorch's out-of-memory snapshot (a TORCH_OOM record): its facts, from
 * that record, the snapshot's fresh TORCH view on that device and the
 * device's counters.  False when the snapshot has no TORCH_OOM. */
bool oom_torch_facts(const struct snapshot *s, struct oom_facts *f);

/* A CUDA-level out-of-memory mark of the history: its request, the
 * driver's view and this process's live bytes then (no PyTorch view: it
 * is taken before PyTorch frees its cache and tries again). */
void oom_mark_facts(const struct hist_mark *m, struct oom_facts *f);

#endif
