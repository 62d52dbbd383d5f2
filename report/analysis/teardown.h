/* Allocations the program never freed that a context teardown released
 * (the snapshot's TEARDOWN record): leaks until cudaDeviceReset,
 * cuDevicePrimaryCtxReset or cuCtxDestroy -- what compute-sanitizer's leak
 * check reports.  Grouped like leaks, by shown stack, kind, API, device and
 * the teardown call; a rule (allocator cache, --suppressions) applies as to
 * live memory. */
#ifndef GPULEAK_TEARDOWN_H
#define GPULEAK_TEARDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct torn_group {
    uint32_t cs, stack_id; /* canonical stack; the lowest snapshot stack id */
    int32_t device, rule;  /* rule: -1 for none */
    uint16_t kind, api, teardown;
    uint64_t bytes, count, time_ns; /* time: the earliest teardown */
};

struct torn_groups {
    struct torn_group *g; /* most bytes first */
    size_t n;
    uint64_t bytes, count;             /* all groups (saturating) */
    uint64_t leaked_bytes, leaked_count; /* groups no rule matched */
};

struct snapview;
/* 0, or -1 when out of memory.  Empty when the snapshot has none. */
int torn_build(const struct snapview *v, struct torn_groups *out);
void torn_free(struct torn_groups *t);

#endif
