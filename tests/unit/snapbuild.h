/* Snapshots built in memory for the reporter's unit tests (tests/unit/
 * analysis_*.c): entries are given field by field, encoded with the format's
 * own codec (snapshot_codec.h) through the test writer (tests/report/
 * snapwrite.c), read back by the reporter's reader (snap_parse) and mapped
 * into a stackdb, as gpuleak-report does with a file.  Stacks are Python
 * frames (a tagged pc and a PYFRAME record): their function, file and line
 * come from the snapshot itself, so an analysis's frames are exact without
 * any binary or debug information on disk. */
#ifndef GPULEAK_SNAPBUILD_H
#define GPULEAK_SNAPBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/multi.h"
#include "snapwrite.h"
#include "fail_check.h"

#define SB_MAX 64 /* frames, stacks, labels of one snapshot */

/* The array records, in the order they are written; TORCH_BLOCKS after
 * the TORCH record (sb.torch), only when its status is answered. */
enum sb_array {
    SB_ALLOCS, SB_DEVICES, SB_PEAK, SB_EVENTS, SB_POOLS, SB_VMM, SB_TEARDOWN, SB_TORCH_BLOCKS, SB_CALLS, SB_NARRAYS
};

struct sb_entries {
    struct sw w; /* the entries, encoded back to back (no header) */
    uint32_t n;
};

struct sb {
    struct gl_wire_process proc;
    const char *host;
    struct {
        uint32_t line;
        const char *file, *function;
    } frame[SB_MAX];
    uint32_t nframes;
    struct {
        uint32_t depth;
        uint64_t pc[8];
    } stack[SB_MAX];
    uint32_t nstacks;
    const char *label[SB_MAX];
    uint32_t nlabels;
    struct gl_wire_torch torch; /* PyTorch's view; status 0: no TORCH record (its
                                   blocks count is set from the entries) */
    struct sb_entries arr[SB_NARRAYS];
};

void sb_init(struct sb *b);
/* A Python frame: its tagged pc. */
uint64_t sb_frame(struct sb *b, const char *file, unsigned line, const char *function);
/* A stack of depth frames (pcs, innermost first): its id (from 1). */
uint32_t sb_stack(struct sb *b, unsigned depth, const uint64_t *pcs);
/* A stack of one frame: its id. */
uint32_t sb_site(struct sb *b, const char *file, unsigned line, const char *function);
/* A LABEL (annotation text): its id, what an ANNOTATION event's ptr holds. */
uint32_t sb_label(struct sb *b, const char *text);
void sb_entry(struct sb *b, enum sb_array a, const void *enc, size_t len);

/* One array entry, its fields by name, the others 0:
 * SB_ADD(&b, ALLOCS, allocs, .ptr = 0x1000, .size = 256, .stack_id = s1). */
#define SB_ADD(b, ARR, part, ...)                                              \
    do {                                                                       \
        uint8_t e_[sizeof(struct gl_wire_##part##_layout)];                    \
        gl_wire_##part##_encode(e_, &(const struct gl_wire_##part){__VA_ARGS__}); \
        sb_entry((b), SB_##ARR, e_, sizeof e_);                                \
    } while (0)

/* Writes the snapshot, reads it with snap_parse and maps its stacks into db
 * with the rules sup (NULL: none; no file opened), into m as gpuleak-report's
 * report_attach does.  Exits with one line if the reader rejects it.  b's
 * entries are freed. */
void sb_load(struct sb *b, struct stackdb *db, const struct suppressions *sup, struct msnap *m);
void sb_unload(struct msnap *m);

/* A built snapshot loaded as gpuleak-report would load it: the rules,
 * user_rules's (the suppression file format; NULL: none) then the built-in
 * ones (a parse error is a failure), a stackdb, and the snapshot read with
 * them (sb_load).  sb_close frees all three. */
struct sb_env {
    struct suppressions sup;
    struct stackdb *db;
    struct msnap m;
};
void sb_open(struct sb *b, const char *user_rules, struct sb_env *e);
void sb_close(struct sb_env *e);

/* The shown frames of canonical stack cs as "function file:line" joined
 * by " < " (innermost first), in a static buffer. */
const char *sb_cs_text(const struct stackdb *db, uint32_t cs);

/* ---- checks ----------------------------------------------------------- */

extern int sb_failures;

#define CHECK(cond, ...) CHECK_COUNT(sb_failures, cond, __VA_ARGS__)

/* Unsigned values equal, both printed when not. */
#define CHECK_EQ(got, want)                                                    \
    CHECK((uint64_t)(got) == (uint64_t)(want), "%s = %llu, want %s = %llu", #got, \
          (unsigned long long)(got), #want, (unsigned long long)(want))
#define CHECK_STR(got, want)                                                   \
    CHECK(strcmp((got), (want)) == 0, "%s = \"%s\", want \"%s\"", #got, (got), (want))

/* The test's last line: "ok: NAME" and 0, or the failure count and 1. */
int sb_done(const char *name);

#endif
