/* --torch-snapshot: a pickle (protocol 4, written by hand: dicts, lists,
 * strings, ints of at most 8 bytes, bools, None, one tuple) in the layout of
 * torch.cuda.memory._snapshot():
 *
 *   {'segments': [{'device', 'address', 'total_size', 'allocated_size',
 *                  'active_size', 'requested_size', 'stream', 'segment_type',
 *                  'segment_pool_id', 'is_expandable', 'frames',
 *                  'blocks': [{'address', 'size', 'requested_size', 'state',
 *                              'frames'}]}],
 *    'device_traces': [[{'action', 'addr', 'size', 'stream', 'time_us',
 *                        'frames'}, ...] per device ordinal],
 *    'gpuleak': {...}}
 *
 * gpuleak sees cudaMalloc-level allocations, not a caching allocator's
 * blocks, so every allocation is its own segment holding one block
 * (docs/memory-viz.md).  memory_viz replays device_traces backwards from the
 * segments, so the two must agree: events are kept only when that replay
 * works (worked out here backwards from the live allocations, as the viewer
 * will), and the others are counted in gpuleak.dropped_events. */
#include "render/torch/torch_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "render/json/json.h"
#include "render/report.h"
#include "render/torch/alloc_conf.h"
#include "util/sort.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* ---- pickle opcodes (protocol 4; all also read by memory_viz's JS
 * unpickler) ---- */
#define P_PROTO 0x80
#define P_STOP '.'
#define P_NONE 'N'
#define P_TRUE 0x88
#define P_FALSE 0x89
#define P_BININT 'J'
#define P_BININT1 'K'
#define P_BININT2 'M'
#define P_LONG1 0x8a
#define P_BINFLOAT 'G'
#define P_SHORT_BINUNICODE 0x8c
#define P_BINUNICODE 'X'
#define P_EMPTY_DICT '}'
#define P_EMPTY_LIST ']'
#define P_MARK '('
#define P_SETITEMS 'u'
#define P_APPENDS 'e'
#define P_TUPLE2 0x86
#define P_MEMOIZE 0x94
#define P_BINGET 'h'
#define P_LONG_BINGET 'j'

#define BATCH 1000 /* items per APPENDS, as Python's pickler */

struct pk {
    FILE *f;
    uint32_t memo;      /* next memo index */
    uint32_t keys[32];  /* memo index + 1 of each key string */
    uint32_t *cs_memo;  /* memo index + 1 of each stack's frame list */
    const struct stackdb *db;
    size_t batch;       /* items in the open APPENDS batch */
};

static void p_byte(struct pk *p, int b) { fputc(b, p->f); }

static void p_le(struct pk *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        fputc((int)((v >> (8 * i)) & 0xff), p->f);
}

static void p_int(struct pk *p, int64_t v)
{
    if (v >= 0 && v < 256) {
        p_byte(p, P_BININT1);
        p_le(p, (uint64_t)v, 1);
    } else if (v >= 0 && v < 65536) {
        p_byte(p, P_BININT2);
        p_le(p, (uint64_t)v, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        p_byte(p, P_BININT);
        p_le(p, (uint64_t)(uint32_t)(int32_t)v, 4);
    } else {
        /* shortest two's complement, little-endian: at most 8 bytes */
        int n = 8;
        while (n > 1) {
            int64_t top = v >> (8 * (n - 1) - 1);
            if (top != 0 && top != -1)
                break;
            n--;
        }
        p_byte(p, P_LONG1);
        p_le(p, (uint64_t)n, 1);
        p_le(p, (uint64_t)v, n);
    }
}

/* a Python float: 8 bytes big-endian, as pickle.dump writes one */
static void p_float(struct pk *p, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    p_byte(p, P_BINFLOAT);
    for (int i = 7; i >= 0; i--)
        fputc((int)((bits >> (8 * i)) & 0xff), p->f);
}

static void p_bool(struct pk *p, bool b) { p_byte(p, b ? P_TRUE : P_FALSE); }

/* unsigned values beyond int64 are clamped (addresses and sizes never are) */
static void p_uint(struct pk *p, uint64_t v) { p_int(p, v > INT64_MAX ? INT64_MAX : (int64_t)v); }

/* A str; bytes that are not valid UTF-8 become U+FFFD (pickle needs UTF-8). */
static void p_str(struct pk *p, const char *s, size_t len)
{
    size_t out = 0;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = u[i] < 0x80 ? 1 : utf8_len(u + i, len - i);
        out += n ? n : 3;
        i += n ? n : 1;
    }
    if (out < 256) {
        p_byte(p, P_SHORT_BINUNICODE);
        p_le(p, out, 1);
    } else {
        p_byte(p, P_BINUNICODE);
        p_le(p, out, 4);
    }
    for (size_t i = 0; i < len;) {
        size_t n = u[i] < 0x80 ? 1 : utf8_len(u + i, len - i);
        if (n) {
            fwrite(u + i, 1, n, p->f);
            i += n;
        } else {
            fwrite("\xef\xbf\xbd", 1, 3, p->f);
            i++;
        }
    }
}

static void p_cstr(struct pk *p, const char *s) { p_str(p, s, strlen(s)); }

static void p_memoize(struct pk *p)
{
    p_byte(p, P_MEMOIZE);
    p->memo++;
}

static void p_get(struct pk *p, uint32_t idx)
{
    if (idx < 256) {
        p_byte(p, P_BINGET);
        p_le(p, idx, 1);
    } else {
        p_byte(p, P_LONG_BINGET);
        p_le(p, idx, 4);
    }
}

enum {
    K_SEGMENTS, K_DEVICE_TRACES, K_DEVICE, K_ADDRESS, K_TOTAL_SIZE, K_ALLOCATED_SIZE,
    K_ACTIVE_SIZE, K_REQUESTED_SIZE, K_STREAM, K_SEGMENT_TYPE, K_SEGMENT_POOL_ID,
    K_IS_EXPANDABLE, K_FRAMES, K_BLOCKS, K_SIZE, K_STATE, K_ACTION, K_ADDR, K_TIME_US,
    K_FILENAME, K_LINE, K_NAME, K_DEVICE_FREE, NKEYS
};
static const char *const key_names[NKEYS] = {
    "segments", "device_traces", "device", "address", "total_size", "allocated_size",
    "active_size", "requested_size", "stream", "segment_type", "segment_pool_id",
    "is_expandable", "frames", "blocks", "size", "state", "action", "addr", "time_us",
    "filename", "line", "name", "device_free",
};

/* A key (or other often repeated string): written once, then fetched. */
static void p_key(struct pk *p, int k)
{
    if (p->keys[k]) {
        p_get(p, p->keys[k] - 1);
        return;
    }
    p_cstr(p, key_names[k]);
    p->keys[k] = p->memo + 1;
    p_memoize(p);
}

/* Short strings repeated everywhere (actions, states): memoized by pointer. */
struct pstr {
    const char *s;
    uint32_t memo; /* + 1 */
};
static struct pstr words[] = {
    {"alloc", 0}, {"free_requested", 0}, {"free_completed", 0}, {"segment_alloc", 0},
    {"segment_free", 0}, {"oom", 0}, {"snapshot", 0}, {"active_allocated", 0},
    {"large", 0}, {"small", 0}, {"active_pending_free", 0}, {"inactive", 0},
};

static void p_word(struct pk *p, const char *w)
{
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcmp(words[i].s, w) == 0) {
            if (words[i].memo) {
                p_get(p, words[i].memo - 1);
            } else {
                p_cstr(p, w);
                words[i].memo = p->memo + 1;
                p_memoize(p);
            }
            return;
        }
    p_cstr(p, w);
}

/* list items go in batches: call p_item before each one */
static void p_list(struct pk *p)
{
    p_byte(p, P_EMPTY_LIST);
    p_byte(p, P_MARK);
    p->batch = 0;
}

static void p_item(struct pk *p)
{
    if (p->batch == BATCH) {
        p_byte(p, P_APPENDS);
        p_byte(p, P_MARK);
        p->batch = 0;
    }
    p->batch++;
}

static void p_end_list(struct pk *p) { p_byte(p, P_APPENDS); }

static void p_dict(struct pk *p)
{
    p_byte(p, P_EMPTY_DICT);
    p_byte(p, P_MARK);
}

static void p_end_dict(struct pk *p) { p_byte(p, P_SETITEMS); }

/* The frames of a canonical stack as [{filename, line, name}], innermost
 * first (as PyTorch records them); each stack's list is written once. */
static void p_frames(struct pk *p, uint32_t cs)
{
    if (cs >= p->db->ncs)
        cs = 0;
    if (p->cs_memo[cs]) {
        p_get(p, p->cs_memo[cs] - 1);
        return;
    }
    p_byte(p, P_EMPTY_LIST);
    p->cs_memo[cs] = p->memo + 1;
    p_memoize(p);
    const struct cstack *c = &p->db->cs[cs];
    if (!cs || c->n == 0)
        return;
    /* nested lists: a batch of its own (frames are at most 1024) */
    size_t outer = p->batch;
    p_byte(p, P_MARK);
    for (uint32_t i = 0; i < c->n; i++) {
        const struct sym_frame *fr = sdb_frame(p->db, c, i);
        char buf[96];
        const char *name = fr->function;
        if (!name) {
            if (fr->module)
                snprintf(buf, sizeof buf, "%s+0x%llx", fr->module, (unsigned long long)fr->offset);
            else
                snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fr->address);
            name = buf;
        }
        const char *file = fr->file ? fr->file : fr->module ? fr->module : "??";
        p_dict(p);
        p_key(p, K_FILENAME);
        p_cstr(p, file);
        p_key(p, K_LINE);
        p_int(p, fr->line);
        p_key(p, K_NAME);
        p_cstr(p, name);
        p_end_dict(p);
    }
    p_byte(p, P_APPENDS);
    p->batch = outer;
}

/* kinds with device addresses: device, pool, managed and graph memory */
static bool exported(uint16_t kind, int32_t device)
{
    return device >= 0 && device < 4096 &&
           (kind == GL_KIND_DEVICE || kind == GL_KIND_POOL || kind == GL_KIND_MANAGED ||
            kind == GL_KIND_GRAPH);
}

/* ---- the set of allocations live at a point of the backwards replay ---- */

/* keyed by (device, ptr): UVA makes pointers unique, but a snapshot need
 * not come from UVA */
struct pset {
    uint64_t *key; /* ptr + 1; 0 empty, UINT64_MAX deleted */
    uint64_t *size;
    int32_t *dev;
    size_t cap;
};

static size_t pset_find(const struct pset *s, int32_t dev, uint64_t ptr, bool *found)
{
    size_t h = (size_t)(((ptr >> 8) ^ ((uint64_t)(uint32_t)dev << 40)) * 0x9e3779b97f4a7c15ull) &
               (s->cap - 1), del = SIZE_MAX;
    for (;; h = (h + 1) & (s->cap - 1)) {
        if (s->key[h] == 0) {
            *found = false;
            return del != SIZE_MAX ? del : h;
        }
        if (s->key[h] == UINT64_MAX) {
            if (del == SIZE_MAX)
                del = h;
        } else if (s->key[h] == ptr + 1 && s->dev[h] == dev) {
            *found = true;
            return h;
        }
    }
}

struct seg {
    int32_t device;
    uint64_t ptr;
    size_t idx;
};

static int cmp_seg(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

/* PyTorch's blocks (TORCH_BLOCKS), by device, segment, then address */
static int cmp_block(const void *a, const void *b)
{
    const struct snap_torch_block *x = *(const struct snap_torch_block *const *)a;
    const struct snap_torch_block *y = *(const struct snap_torch_block *const *)b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->segment != y->segment)
        return x->segment < y->segment ? -1 : 1;
    return x->address < y->address ? -1 : x->address > y->address;
}

/* block b's segment is before (<0), at (0) or after (>0) allocation a */
static int block_vs_alloc(const struct snap_torch_block *b, const struct snap_alloc *a)
{
    if (b->device != a->device)
        return b->device < a->device ? -1 : 1;
    return b->segment < a->ptr ? -1 : b->segment > a->ptr;
}

static const char *block_state(uint16_t state)
{
    switch (state) {
    case GL_TORCH_BLOCK_ALLOCATED: return "active_allocated";
    case GL_TORCH_BLOCK_PENDING_FREE: return "active_pending_free";
    default: return "inactive";
    }
}

/* Segment a as PyTorch described it: its blocks blk[0..n) and their sums.
 * PyTorch's small pool's segments are 2 MiB (kSmallBuffer); its large
 * pool's blocks start above 1 MiB, so a large segment is bigger. */
static void p_torch_segment(struct pk *p, const struct report_ctx *r, const struct snap_alloc *a,
                            const struct snap_torch_block *const *blk, size_t n)
{
    uint64_t allocated = 0, active = 0, requested = 0;
    for (size_t i = 0; i < n; i++) {
        if (blk[i]->state == GL_TORCH_BLOCK_ALLOCATED)
            allocated += blk[i]->size;
        if (blk[i]->state == GL_TORCH_BLOCK_ALLOCATED || blk[i]->state == GL_TORCH_BLOCK_PENDING_FREE) {
            active += blk[i]->size;
            requested += blk[i]->requested_size;
        }
    }
    p_key(p, K_DEVICE); p_int(p, a->device);
    p_key(p, K_ADDRESS); p_uint(p, a->ptr);
    p_key(p, K_TOTAL_SIZE); p_uint(p, a->size);
    p_key(p, K_ALLOCATED_SIZE); p_uint(p, allocated);
    p_key(p, K_ACTIVE_SIZE); p_uint(p, active);
    p_key(p, K_REQUESTED_SIZE); p_uint(p, requested);
    p_key(p, K_STREAM); p_uint(p, a->stream);
    p_key(p, K_SEGMENT_TYPE); p_word(p, a->size <= (2u << 20) ? "small" : "large");
    p_key(p, K_SEGMENT_POOL_ID); p_int(p, 0); p_int(p, 0); p_byte(p, P_TUPLE2);
    p_key(p, K_IS_EXPANDABLE); p_byte(p, P_FALSE);
    p_key(p, K_FRAMES); p_frames(p, sview_cs(r->v, a->stack_id));
    p_key(p, K_BLOCKS);
    size_t outer = p->batch; /* the segments list's batch, around this one */
    p_list(p);
    for (size_t i = 0; i < n; i++) {
        p_item(p);
        p_dict(p);
        p_key(p, K_ADDRESS); p_uint(p, blk[i]->address);
        p_key(p, K_SIZE); p_uint(p, blk[i]->size);
        p_key(p, K_REQUESTED_SIZE); p_uint(p, blk[i]->requested_size);
        p_key(p, K_STATE); p_word(p, block_state(blk[i]->state));
        p_key(p, K_FRAMES); p_frames(p, blk[i]->stack_id ? sview_cs(r->v, blk[i]->stack_id) : 0);
        p_end_dict(p);
    }
    p_end_list(p);
    p->batch = outer;
}

/* What the pickle is computed from, besides the snapshot itself. */
struct viz {
    const struct snapshot *s;
    struct pset set;     /* the allocations live at each point, walking back */
    uint64_t *evsize;    /* per event: the size the viewer is told */
    uint8_t *keep;       /* per event: whether the viewer can replay it */
    struct seg *segs;    /* the live allocations, by device then address */
    size_t nseg;
    /* PyTorch answered at this snapshot: its segments show its blocks (the
     * tensors and cached pieces inside each cudaMalloc), and the trace
     * keeps gpuleak's segment events only, which those blocks do not
     * contradict. */
    bool by_blocks;
    const struct snap_torch_block **blk; /* sorted by device, then address */
    int32_t maxdev;
    uint64_t *live;      /* per device: the bytes live at this point of the trace */
    size_t dropped, kept, before;
};

static void viz_free(struct viz *v)
{
    free(v->blk);
    free(v->live);
    free(v->set.key);
    free(v->set.size);
    free(v->set.dev);
    free(v->evsize);
    free(v->keep);
    free(v->segs);
}

/* false: out of memory. */
static bool viz_alloc(const struct snapshot *s, struct viz *v)
{
    memset(v, 0, sizeof *v);
    v->s = s;
    size_t cap = 16;
    while (cap < 2 * (s->nallocs + s->nevents) + 16)
        cap *= 2;
    v->set = (struct pset){xcalloc(cap, sizeof *v->set.key), xcalloc(cap, sizeof *v->set.size),
                           xcalloc(cap, sizeof *v->set.dev), cap};
    v->evsize = xmalloc((s->nevents ? s->nevents : 1) * sizeof *v->evsize);
    v->keep = xcalloc(s->nevents ? s->nevents : 1, 1);
    v->segs = xmalloc((s->nallocs ? s->nallocs : 1) * sizeof *v->segs);
    v->by_blocks = s->torch.status == GL_TORCH_ANSWERED && s->ntorch_blocks > 0;
    v->blk = xmalloc((s->ntorch_blocks ? s->ntorch_blocks : 1) * sizeof *v->blk);
    return v->set.key && v->set.size && v->set.dev && v->evsize && v->keep && v->segs && v->blk;
}

static void sorted_blocks(struct viz *v)
{
    for (size_t i = 0; i < v->s->ntorch_blocks; i++)
        v->blk[i] = &v->s->torch_blocks[i];
    sort_array(v->blk, v->s->ntorch_blocks, sizeof *v->blk, cmp_block);
}

/* segments: the live allocations, by device then address; they fill the
 * set the events are walked back from */
static void live_segments(struct viz *v)
{
    const struct snapshot *s = v->s;
    for (size_t i = 0; i < s->ndevices; i++)
        if (s->devices[i].device > v->maxdev && s->devices[i].device < 4096)
            v->maxdev = s->devices[i].device;
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        if (!exported(a->kind, a->device))
            continue;
        v->segs[v->nseg++] = (struct seg){a->device, a->ptr, i};
        if (a->device > v->maxdev)
            v->maxdev = a->device;
        bool found;
        size_t h = pset_find(&v->set, a->device, a->ptr, &found);
        v->set.key[h] = a->ptr + 1;
        v->set.size[h] = a->size;
        v->set.dev[h] = a->device;
    }
    sort_array(v->segs, v->nseg, sizeof *v->segs, cmp_seg);
}

/* An allocation or free, walked back from the live set: kept when the
 * state after it agrees. */
static void replay_alloc_or_free(struct viz *v, size_t i)
{
    const struct snap_event *e = &v->s->events[i];
    if (e->device > v->maxdev)
        v->maxdev = e->device;
    bool found;
    size_t h = pset_find(&v->set, e->device, e->ptr, &found);
    if (e->type == GL_EV_FREE) {
        if (found) { /* freed again while live: its allocation is missing */
            v->dropped++;
            return;
        }
        v->set.key[h] = e->ptr + 1;
        v->set.size[h] = e->size;
        v->set.dev[h] = e->device;
        v->evsize[i] = e->size;
    } else {
        if (!found) { /* neither freed later nor live at the end */
            v->dropped++;
            return;
        }
        v->evsize[i] = v->set.size[h]; /* the size the later state knows */
        v->set.key[h] = UINT64_MAX;
    }
    v->keep[i] = 1;
    v->kept++;
}

/* backwards from the live set: which events the viewer can replay */
static void replayable_events(struct viz *v)
{
    for (size_t i = v->s->nevents; i-- > 0;) {
        const struct snap_event *e = &v->s->events[i];
        if (e->type == GL_EV_OOM || e->type == GL_EV_SNAPSHOT) {
            bool on_device = e->device >= 0 && e->device < 4096;
            v->keep[i] = on_device || e->type == GL_EV_SNAPSHOT;
            if (on_device && e->device > v->maxdev) /* a snapshot event's device may be anything */
                v->maxdev = e->device;
            continue;
        }
        if ((e->type == GL_EV_ALLOC || e->type == GL_EV_FREE) && exported(e->kind, e->device))
            replay_alloc_or_free(v, i);
    }
}

/* what is left in the set existed before the first event: the bytes
 * each device had then start the running total that a 'snapshot' entry
 * reports (PyTorch records its active bytes there).  false: out of memory. */
static bool live_before_history(struct viz *v)
{
    v->live = xcalloc((size_t)v->maxdev + 1, sizeof *v->live);
    if (!v->live)
        return false;
    for (size_t h = 0; h < v->set.cap; h++)
        if (v->set.key[h] != 0 && v->set.key[h] != UINT64_MAX) {
            v->before++;
            v->live[v->set.dev[h]] += v->set.size[h];
        }
    return true;
}

/* An allocation PyTorch said nothing about: one segment, one block. */
static void p_plain_segment(struct pk *p, const struct snap_alloc *a, uint32_t cs)
{
    p_key(p, K_DEVICE); p_int(p, a->device);
    p_key(p, K_ADDRESS); p_uint(p, a->ptr);
    p_key(p, K_TOTAL_SIZE); p_uint(p, a->size);
    p_key(p, K_ALLOCATED_SIZE); p_uint(p, a->size);
    p_key(p, K_ACTIVE_SIZE); p_uint(p, a->size);
    p_key(p, K_REQUESTED_SIZE); p_uint(p, a->size);
    p_key(p, K_STREAM); p_uint(p, a->stream);
    p_key(p, K_SEGMENT_TYPE); p_word(p, a->size > (1u << 20) ? "large" : "small");
    p_key(p, K_SEGMENT_POOL_ID); p_int(p, 0); p_int(p, 0); p_byte(p, P_TUPLE2);
    p_key(p, K_IS_EXPANDABLE); p_byte(p, P_FALSE);
    p_key(p, K_FRAMES); p_frames(p, cs);
    p_key(p, K_BLOCKS);
    p_byte(p, P_EMPTY_LIST);
    p_byte(p, P_MARK);
    p_dict(p);
    p_key(p, K_ADDRESS); p_uint(p, a->ptr);
    p_key(p, K_SIZE); p_uint(p, a->size);
    p_key(p, K_REQUESTED_SIZE); p_uint(p, a->size);
    p_key(p, K_STATE); p_word(p, "active_allocated");
    p_key(p, K_FRAMES); p_frames(p, cs);
    p_end_dict(p);
    p_byte(p, P_APPENDS);
}

/* "segments": each live allocation, with PyTorch's blocks inside it when
 * it gave them. */
static void p_segments(struct pk *p, const struct report_ctx *r, const struct viz *v)
{
    const struct snapshot *s = v->s;
    p_key(p, K_SEGMENTS);
    p_list(p);
    size_t bi = 0;
    for (size_t k = 0; k < v->nseg; k++) {
        const struct snap_alloc *a = &s->allocs[v->segs[k].idx];
        p_item(p);
        p_dict(p);
        while (v->by_blocks && bi < s->ntorch_blocks && block_vs_alloc(v->blk[bi], a) < 0)
            bi++;
        size_t bend = bi;
        while (v->by_blocks && bend < s->ntorch_blocks && block_vs_alloc(v->blk[bend], a) == 0)
            bend++;
        if (bend > bi) {
            p_torch_segment(p, r, a, v->blk + bi, bend - bi);
            bi = bend;
        } else {
            p_plain_segment(p, a, sview_cs(r->v, a->stack_id));
        }
        p_end_dict(p);
    }
    p_end_list(p);
}

/* The entries one kept event gives device d's trace: an allocation or a
 * free as PyTorch's allocator writes them (its blocks' own when by_blocks),
 * an OOM, or a snapshot with the bytes then live. */
static void p_trace_event(struct pk *p, const struct report_ctx *r, struct viz *v, int32_t d,
                          size_t i)
{
    const struct snap_event *e = &v->s->events[i];
    uint64_t t_us = (v->s->proc.start_unix_ns + e->time_ns) / 1000;
    /* a free's own stack when recorded, as PyTorch's free entries have */
    uint32_t cs = sview_cs(r->v, e->type == GL_EV_FREE && e->free_stack_id ? e->free_stack_id
                                                                          : e->stack_id);
    static const char *const alloc_seq[] = {"segment_alloc", "alloc"};
    static const char *const free_seq[] = {"free_requested", "free_completed", "segment_free"};
    const char *const *acts = NULL;
    size_t nacts = 1;
    if (e->type == GL_EV_ALLOC) {
        acts = alloc_seq;
        nacts = v->by_blocks ? 1 : 2;
    } else if (e->type == GL_EV_FREE) {
        acts = v->by_blocks ? free_seq + 2 : free_seq;
        nacts = v->by_blocks ? 1 : 3;
    }
    for (size_t k = 0; k < nacts; k++) {
        p_item(p);
        p_dict(p);
        p_key(p, K_ACTION);
        if (acts) {
            if (k == 0)
                v->live[d] += e->type == GL_EV_ALLOC ? v->evsize[i] : -v->evsize[i];
            p_word(p, acts[k]);
            p_key(p, K_ADDR); p_uint(p, e->ptr);
            p_key(p, K_SIZE); p_uint(p, v->evsize[i]);
        } else if (e->type == GL_EV_OOM) {
            p_word(p, "oom");
            p_key(p, K_DEVICE_FREE); p_uint(p, e->mem_free);
            p_key(p, K_SIZE); p_uint(p, e->size);
        } else {
            p_word(p, "snapshot");
            p_key(p, K_ADDR); p_int(p, 0);
            p_key(p, K_SIZE); p_uint(p, v->live[d]);
        }
        p_key(p, K_STREAM); p_uint(p, e->stream);
        p_key(p, K_TIME_US); p_uint(p, t_us);
        /* an OOM carries the failing call's stack, as PyTorch's do */
        p_key(p, K_FRAMES); p_frames(p, acts || e->type == GL_EV_OOM ? cs : 0);
        p_end_dict(p);
    }
}

/* "device_traces": per device, its kept events in order (a snapshot event
 * of no device goes to device 0). */
static void p_device_traces(struct pk *p, const struct report_ctx *r, struct viz *v)
{
    p_key(p, K_DEVICE_TRACES);
    p_byte(p, P_EMPTY_LIST);
    p_byte(p, P_MARK);
    for (int32_t d = 0; d <= v->maxdev; d++) {
        p_list(p);
        for (size_t i = 0; i < v->s->nevents; i++) {
            const struct snap_event *e = &v->s->events[i];
            if (v->keep[i] && (e->device == d || (e->type == GL_EV_SNAPSHOT && e->device < 0 && d == 0)))
                p_trace_event(p, r, v, d, i);
        }
        p_end_list(p);
        p->batch = 0;
    }
    p_byte(p, P_APPENDS);
}

/* PyTorch 2.14's "allocator_settings", in its order, from the
 * configuration the process had (alloc_conf.h); then, for the newest
 * memory_viz, which warns that events were lost when the ring overflowed,
 * trace_alloc_overflowed (with its size). */
static void p_allocator_settings(struct pk *p, const struct snapshot *s, bool wrapped)
{
    struct alloc_conf c;
    alloc_conf_of(s, &c);
    p_cstr(p, "allocator_settings");
    p_dict(p);
    p_cstr(p, "PYTORCH_CUDA_ALLOC_CONF"); p_cstr(p, c.conf);
    p_cstr(p, "max_split_size"); p_int(p, c.max_split_size);
    p_cstr(p, "garbage_collection_threshold"); p_float(p, c.gc_threshold);
    p_cstr(p, "expandable_segments"); p_bool(p, c.expandable_segments);
    p_cstr(p, "pinned_num_register_threads"); p_int(p, c.pinned_num_register_threads);
    p_cstr(p, "release_lock_on_cudamalloc"); p_bool(p, c.release_lock_on_cudamalloc);
    p_cstr(p, "pinned_use_cuda_host_register"); p_bool(p, c.pinned_use_cuda_host_register);
    p_cstr(p, "graph_capture_record_stream_reuse"); p_bool(p, c.graph_capture_record_stream_reuse);
    p_cstr(p, "max_round_threshold"); p_int(p, -1);
    p_cstr(p, "max_cached_size"); p_int(p, -1);
    p_cstr(p, "roundup_power2_divisions");
    p_dict(p);
    for (int i = 0; i < ALLOC_CONF_BUCKETS; i++) {
        char key[8];
        snprintf(key, sizeof key, "%d", 1 << i);
        p_cstr(p, key);
        p_int(p, c.roundup[i]);
    }
    p_end_dict(p);
    p_cstr(p, "trace_alloc_overflowed"); p_bool(p, wrapped);
    if (wrapped) {
        p_cstr(p, "trace_alloc_max_entries"); p_uint(p, s->nevents);
    }
    p_end_dict(p);
}

/* what this file is and how it was made (ignored by the viewers) */
static void p_gpuleak_info(struct pk *p, const struct report_ctx *r, const struct viz *v,
                           bool wrapped)
{
    p_cstr(p, "gpuleak");
    p_dict(p);
    p_cstr(p, "format_version"); p_int(p, 1);
    p_cstr(p, "source"); p_cstr(p, r->path ? r->path : "");
    p_cstr(p, "pid"); p_int(p, v->s->proc.pid);
    p_cstr(p, "model"); p_cstr(p, v->by_blocks ? "PyTorch's blocks in each allocation" : "one segment per allocation");
    p_cstr(p, "kinds"); p_cstr(p, "device,pool,managed,graph");
    p_cstr(p, "history_wrapped"); p_byte(p, wrapped ? P_TRUE : P_FALSE);
    p_cstr(p, "kept_events"); p_uint(p, v->kept);
    p_cstr(p, "dropped_events"); p_uint(p, v->dropped);
    p_cstr(p, "live_before_history"); p_uint(p, v->before);
    p_end_dict(p);
}

int output_torch_snapshot(struct report_ctx *r)
{
    const struct snapshot *s = r->s;
    struct pk p = {.f = r->out, .db = r->db};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        words[i].memo = 0;
    struct viz v;
    bool ok = viz_alloc(s, &v);
    p.cs_memo = xcalloc(r->db->ncs ? r->db->ncs : 1, sizeof *p.cs_memo);
    if (ok && p.cs_memo) {
        sorted_blocks(&v);
        live_segments(&v);
        replayable_events(&v);
        ok = live_before_history(&v);
    } else {
        ok = false;
    }
    if (ok) {
        p_byte(&p, P_PROTO);
        p_byte(&p, 4);
        p_dict(&p);
        p_segments(&p, r, &v);
        p_device_traces(&p, r, &v);
        bool wrapped = s->nevents && s->events[0].seq > 1;
        p_allocator_settings(&p, s, wrapped);
        p_gpuleak_info(&p, r, &v, wrapped);
        p_end_dict(&p);
        p_byte(&p, P_STOP);
    }
    viz_free(&v);
    free(p.cs_memo);
    return ok ? 0 : -1;
}
