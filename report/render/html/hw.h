/* What the parts of the HTML page's data share (html.c writes the page,
 * timeline.c, flames.c, tables.c, addrmap.c and growth.c one member each):
 * the size bounds (html.c's header comment), the writer state, and the
 * page's own tables of stacks and frames (hw.c). */
#ifndef GPULEAK_RENDER_HTML_HW_H
#define GPULEAK_RENDER_HTML_HW_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/snap_read.h"
#include "model/stackdb.h"
#include "render/json/json.h"

struct report_ctx;

#define HT_POINTS 2000
#define HF_DIV 3000
#define HF_NODES 30000
#define HM_CELLS 4096
#define HM_SMALL_GAP 8 /* empty runs up to this many cells are drawn cell by cell */
#define HT_ROWS 1000
#define HT_MARKS 5000
#define HG_COLS 32 /* snapshot columns of the growth tables */

struct hw {
    struct json j; /* the page's data, compact and script-safe */
    struct report_ctx *r;
    const struct stackdb *db;
    int32_t *cs_local;   /* db cstack -> local stack index, -1 */
    uint32_t *cs_list;   /* local stack index -> db cstack */
    size_t ncs, capcs;
    int32_t *fr_local;   /* db frame id -> local frame index, -1 */
    int64_t *fr_list;    /* local frame -> db frame id, or -(pseudo index + 1) */
    size_t nfr, capfr;
    char **pseudo;       /* names that are not frames (roots of the flame graphs) */
    size_t npseudo;
    bool oom;
};

/* Output helpers: the one JSON writer (render/json/json.c), compact and
 * script-safe, as the page's data sits inside a <script> element. */

static inline void kv_u(struct hw *w, const char *k, uint64_t v) { json_key(&w->j, k); json_u64(&w->j, v); }
static inline void kv_i(struct hw *w, const char *k, int64_t v) { json_key(&w->j, k); json_i64(&w->j, v); }
static inline void kv_s(struct hw *w, const char *k, const char *s) { json_key(&w->j, k); json_str(&w->j, s); }
static inline void kv_sn(struct hw *w, const char *k, const struct snap_str *s)
{
    json_key(&w->j, k);
    json_strn(&w->j, s->s, s->len);
}

static inline void kv_b(struct hw *w, const char *k, bool v) { json_key(&w->j, k); json_bool(&w->j, v); }
static inline void kv_d(struct hw *w, const char *k, double v) { json_key(&w->j, k); json_double(&w->j, v); }
/* "0x..." (addresses as strings: JavaScript numbers stop at 2^53) */
static inline void put_hex(struct hw *w, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    json_str(&w->j, buf);
}

/* Index in the page's frame table of db frame fid, added on first use. */
int32_t hw_frame(struct hw *w, uint32_t fid);
/* The same for a name that is not a frame (a flame graph's root). */
int32_t hw_pseudo(struct hw *w, const char *name);
/* Local index of a canonical stack (0 = none captured is a stack too). */
int32_t hw_stack(struct hw *w, uint32_t cs);
/* The "frames" and "stacks" members: the tables the indexes point into. */
void hw_put_frames(struct hw *w);
/* Doubles *cap until need fits: 0, or -1 when out of memory. */
int hw_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
