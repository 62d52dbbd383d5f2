/* The live file libgpuleak rewrites once a second (interpose/control/watch.c;
 * format in docs/live.md), read with a bound on everything: the file is the
 * user's own, but a reader must not crash on a truncated or damaged one. */
#ifndef GPULEAK_LIVE_READ_H
#define GPULEAK_LIVE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"

#define MAX_FILE (16u << 20)
#define MAX_DEVICES 66
#define MAX_SITES 4096
#define MAX_STACKS 4096
#define MAX_DEPTH 256
#define MAX_MODULES 4096
#define MAX_OOMS 64
#define MAX_PYFRAMES (1u << 17)
#define GROWTH_WINDOW 10 /* samples (seconds) the growth rate is taken over */

struct live_dev {
    int device;
    uint64_t live, count, peak, peak_ns, allocs, frees, failed;
};
struct live_site {
    uint32_t stack;
    int device;
    uint64_t bytes, count;
};
struct live_oom {
    uint64_t at_ns, size;
    int device;
    uint32_t stack;
};
struct live_stack {
    uint32_t id, depth;
    uint64_t pcs[MAX_DEPTH]; /* a Python frame as in snapshots: GL_PYFRAME_TAG | id */
};
struct live {
    int pid;
    uint64_t time_ns, uptime_ns, oom_total, left_out;
    struct live_dev devs[MAX_DEVICES];
    size_t ndevs;
    struct live_site *sites;
    size_t nsites;
    struct live_oom ooms[MAX_OOMS];
    size_t nooms;
    struct live_stack *stacks;
    size_t nstacks;
    struct snap_module *mods;
    size_t nmods;
    struct snap_pyframe *pyframes; /* version 2; sorted by id after a successful parse */
    size_t npyframes;
    /* "sampling R ID" (GPULEAK_MODE=light): stacks sampled by bytes, one per
     * R on average; ID the stack of the allocations not sampled.  0: none */
    uint64_t sample_bytes;
    uint32_t unsampled_stack;
};

/* The file at path, NUL-terminated, at most MAX_FILE bytes; NULL with *why
 * (and errno) set on failure. */
char *live_slurp(const char *path, size_t *len, const char **why);

/* Parses text (modified in place; len bytes, NUL-terminated) into *l:
 * versions 1 and 2 (docs/live.md); version 1's tagged Python-frame ids,
 * which no line explains, are dropped from its stacks.
 * false with *why -- static, or written into whybuf -- on anything
 * malformed; *l must be freed with live_free either way. */
bool live_parse(char *text, size_t len, struct live *l, char *whybuf, size_t whysize, const char **why);
void live_free(struct live *l);

#endif
