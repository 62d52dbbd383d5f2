/* See stackdb.h.  Two open-addressing tables: one interns frames by what
 * they show, one interns frame-id sequences.  Work is linear in the number
 * of stack frames; symbolization is cached per pc by the symbolizer. */
#include "model/stackdb.h"

#include "util/hash.h"
#include "util/slots.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fold.h"

static uint64_t hstr(uint64_t h, const char *s)
{
    if (!s)
        return hash_mix64(h ^ 0x9e3779b97f4a7c15ULL);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return hash_mix64(h + 1);
}

/* What identifies a frame: its name and place, or where it is when it has
 * no name.  The offset is part of the key whenever the line is unknown, so
 * distinct call sites in one function without line info stay apart. */
static bool named(const struct sym_frame *f) { return f->function != NULL; }

static uint64_t frame_hash(const struct sym_frame *f)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = hstr(h, f->function);
    h = hstr(h, f->file);
    h = hstr(h, f->module);
    h = hash_mix64(h ^ ((uint64_t)f->line << 1 | f->inlined));
    if (!named(f) || !f->line)
        h = hash_mix64(h ^ (f->module ? f->offset : f->address));
    return h;
}

static bool streq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool frame_eq(const struct sym_frame *a, const struct sym_frame *b)
{
    if (a->line != b->line || a->inlined != b->inlined || !streq(a->function, b->function) ||
        !streq(a->file, b->file) || !streq(a->module, b->module))
        return false;
    if (!named(a) || !a->line)
        return a->module ? a->offset == b->offset : a->address == b->address;
    return true;
}

struct stackdb *sdb_new(const struct sdb_opts *o)
{
    struct stackdb *db = xcalloc(1, sizeof *db);
    db->o = *o;
    db->nfslots = 1024;
    db->fslots = xcalloc(db->nfslots, sizeof *db->fslots);
    db->ncslots = 1024;
    db->cslots = xcalloc(db->ncslots, sizeof *db->cslots);
    db->cap_cs = 64;
    db->cs = xcalloc(db->cap_cs, sizeof *db->cs);
    db->cs_hash = xcalloc(db->cap_cs, sizeof *db->cs_hash);
    db->ncs = 1; /* cs 0: no stack captured */
    /* frame 0: no frame (all zero, never interned), as callers take a
     * frame id 0 to mean (PyTorch's lines: a block without a stack); a
     * snapshot whose first stack is a view's had its first line taken for
     * none. */
    db->cap_frames = 256;
    db->frames = xcalloc(db->cap_frames, sizeof *db->frames);
    db->nframes = 1;
    return db;
}

void sdb_free(struct stackdb *db)
{
    if (!db)
        return;
    free(db->frames);
    free(db->fslots);
    free(db->seq);
    free(db->cs);
    free(db->cs_hash);
    free(db->cslots);
    free(db);
}

/* fslots hold frame ids + 1 */
static uint64_t frame_slot_hash(const void *ctx, uint32_t entry)
{
    return frame_hash(&((const struct stackdb *)ctx)->frames[entry - 1]);
}

static uint32_t intern_frame(struct stackdb *db, const struct sym_frame *f)
{
    if ((db->nframes + 1) * 2 > db->nfslots)
        slots_grow(&db->fslots, &db->nfslots, frame_slot_hash, db);
    size_t h = frame_hash(f) & (db->nfslots - 1);
    while (db->fslots[h]) {
        uint32_t id = db->fslots[h] - 1;
        if (frame_eq(&db->frames[id], f))
            return id;
        h = (h + 1) & (db->nfslots - 1);
    }
    if (db->nframes == db->cap_frames)
        db->frames = xgrow(db->frames, &db->cap_frames, 256, sizeof *db->frames);
    db->frames[db->nframes] = *f;
    db->fslots[h] = (uint32_t)(++db->nframes);
    return (uint32_t)(db->nframes - 1);
}

static uint64_t seq_hash(const uint32_t *ids, size_t n, uint8_t cut, bool empty)
{
    uint64_t h = hash_mix64(n * 31 + cut * 7 + empty);
    for (size_t i = 0; i < n; i++)
        h = hash_mix64(h ^ ids[i]);
    return h;
}

static bool cs_eq(const struct stackdb *db, const struct cstack *c, const uint32_t *ids,
                  size_t n, uint8_t cut, bool empty)
{
    /* n == 0 (GPULEAK_DEPTH=0, or a stack of only folded frames): the
     * pointers may be NULL, which memcmp must not be given even for 0 bytes */
    return c->n == n && c->cut == cut && c->empty == empty &&
           (n == 0 || memcmp(db->seq + c->first, ids, n * sizeof *ids) == 0);
}

/* cslots hold cs ids, whose hashes are kept */
static uint64_t cs_slot_hash(const void *ctx, uint32_t entry)
{
    return ((const struct stackdb *)ctx)->cs_hash[entry];
}

static uint32_t intern_cs(struct stackdb *db, const uint32_t *ids, size_t n,
                          uint8_t cut, bool empty, uint32_t folded, uint32_t start)
{
    if ((db->ncs + 1) * 2 > db->ncslots)
        slots_grow(&db->cslots, &db->ncslots, cs_slot_hash, db);
    uint64_t hv = seq_hash(ids, n, cut, empty);
    size_t h = hv & (db->ncslots - 1);
    while (db->cslots[h]) {
        uint32_t id = db->cslots[h]; /* cs ids start at 1 in the table */
        if (db->cs_hash[id] == hv && cs_eq(db, &db->cs[id], ids, n, cut, empty))
            return id;
        h = (h + 1) & (db->ncslots - 1);
    }
    if (db->ncs == db->cap_cs) {
        db->cap_cs *= 2;
        db->cs = xrealloc(db->cs, db->cap_cs * sizeof *db->cs);
        db->cs_hash = xrealloc(db->cs_hash, db->cap_cs * sizeof *db->cs_hash);
    }
    if (db->nseq + n > db->cap_seq) {
        while (db->nseq + n > db->cap_seq)
            db->cap_seq = db->cap_seq ? 2 * db->cap_seq : 1024;
        db->seq = xrealloc(db->seq, db->cap_seq * sizeof *db->seq);
    }
    uint32_t id = (uint32_t)db->ncs++;
    db->cs[id] = (struct cstack){.first = (uint32_t)db->nseq, .n = (uint32_t)n,
                                 .folded = folded, .start = start, .cut = cut,
                                 .empty = empty};
    db->cs_hash[id] = hv;
    if (n) /* an empty stack: db->seq may still be NULL */
        memcpy(db->seq + db->nseq, ids, n * sizeof *ids);
    db->nseq += n;
    db->cslots[h] = id;
    return id;
}

/* How many frames at the innermost end belong to CUDA, at most all but one.
 * Frames of the shared CUDA libraries fold by module.  The static runtime is
 * linked into the program, so its frames are recognised by the API entry
 * point (cudaMalloc...) and its helpers in between by being in the same
 * module: everything up to the outermost API frame among the first few folds
 * when all frames before it are CUDA's or in that API frame's module.  The
 * outermost such API frame, if it is not in a CUDA library, is what the
 * program called: *via_static. */
#define FOLD_WINDOW 32
static size_t fold_count(const struct sym_frame **fr, size_t n, const char **via_static)
{
    size_t skip = 0;
    while (skip + 1 < n && fold_is_cuda_frame(fr[skip]))
        skip++;
    for (size_t j = skip; j + 1 < n && j < FOLD_WINDOW; j++) {
        if (!fold_is_cuda_api_frame(fr[j]))
            continue;
        bool same = true;
        for (size_t k = skip; k < j && same; k++)
            same = fold_is_cuda_frame(fr[k]) ||
                   (fr[k]->module_index >= 0 && fr[k]->module_index == fr[j]->module_index);
        if (same)
            skip = j + 1;
    }
    for (size_t k = 0; k < skip; k++)
        if (fold_is_cuda_api_frame(fr[k]) && !fold_is_cuda_library(fr[k]) && fr[k]->module_index >= 0)
            *via_static = fr[k]->function;
    return skip;
}

/* How many frames at the outermost end are the C library's process or
 * thread start code (fold_is_start_frame), so that a stack ends at main or
 * at the thread's start function: those frames are the same in every stack
 * and were a fifth of a small report.  Only a stack that ends in them is
 * trimmed, never one cut at the depth limit (its outer end is unknown), and
 * never below `inner` + 1 frames. */
static size_t start_count(const struct sym_frame **fr, size_t n, size_t inner)
{
    size_t k = 0;
    while (n - k > inner + 1 && fold_is_start_frame(fr[n - 1 - k]))
        k++;
    return k;
}

static const char *module_path(const struct snapshot *s, size_t i)
{
    const char *p = s->modules[i].path.s;
    if ((!p || !*p) && s->proc.exe.s)
        return s->proc.exe.s;
    return p ? p : "";
}

/* The full frames of stack st, innermost first, into *fr (grown to *cap).
 * Returns their number. */
static size_t stack_frames(struct symbolizer *sy, const struct snapshot *s,
                           const struct snap_stack *st, const struct sym_frame ***fr, size_t *cap)
{
    const uint64_t *pcs = snap_stack_pcs(s, st);
    size_t n = 0, k;
    /* resolve first: sym_pc may move its frame array while resolving */
    for (uint32_t j = 0; j < st->depth; j++)
        n += (sym_pc(sy, pcs[j], &k), k);
    if (n > *cap) {
        *cap = n * 2;
        *fr = xrealloc(*fr, *cap * sizeof **fr);
    }
    n = 0;
    for (uint32_t j = 0; j < st->depth; j++) {
        const struct sym_frame *f = sym_pc(sy, pcs[j], &k);
        for (size_t m = 0; m < k; m++)
            (*fr)[n++] = &f[m];
    }
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* PyTorch's own list of its segments: every allocation at one of those
 * addresses is its cache, even where no rule matches its stack (a build
 * without symbols, an allocation seen only by its Python frames); not when
 * the view does not add up (torch_check.h). */
static void torch_segments(struct snapview *v, const struct supp_env *env)
{
    const struct snapshot *s = v->s;
    v->torch_rule = -1;
    for (size_t i = 0; v->sup && i < v->sup->n; i++)
        if (v->sup->rules[i].builtin && strcmp(v->sup->rules[i].name, "pytorch-caching-allocator") == 0 &&
            supp_rule_applies(&v->sup->rules[i], env))
            v->torch_rule = (int)i;
    torch_check_build(s, &v->torch_check);
    if (s->ntorch_blocks == 0 || v->torch_check.nproblems > 0)
        return;
    v->torch_segs = xcalloc(s->ntorch_blocks, sizeof *v->torch_segs);
    for (size_t i = 0; i < s->ntorch_blocks; i++)
        v->torch_segs[i] = s->torch_blocks[i].segment;
    qsort(v->torch_segs, s->ntorch_blocks, sizeof *v->torch_segs, cmp_u64);
    size_t n = 0;
    for (size_t i = 0; i < s->ntorch_blocks; i++)
        if (n == 0 || v->torch_segs[n - 1] != v->torch_segs[i])
            v->torch_segs[n++] = v->torch_segs[i];
    v->ntorch_segs = n;
}

bool sview_is_torch_segment(const struct snapview *v, uint64_t ptr)
{
    size_t lo = 0, hi = v->ntorch_segs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->torch_segs[mid] < ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->ntorch_segs && v->torch_segs[lo] == ptr;
}

int sview_init(struct snapview *v, const struct snapshot *s, struct symbolizer *sy,
               struct stackdb *db, const struct suppressions *sup)
{
    memset(v, 0, sizeof *v);
    v->s = s;
    v->sup = sup;
    v->sy = sy;
    v->db = db;
    v->cs_of = xcalloc(s->nstacks, sizeof *v->cs_of);
    v->rule_of = xcalloc(s->nstacks, sizeof *v->rule_of);
    const char **paths = xcalloc(s->nmodules, sizeof *paths);
    for (size_t i = 0; i < s->nmodules; i++)
        paths[i] = module_path(s, i);

    /* dense id table when it costs at most a few times the stack array */
    uint32_t maxid = s->nstacks ? s->stacks[s->nstacks - 1].id : 0;
    if (s->nstacks && maxid <= 4 * s->nstacks + 1024) {
        v->ndense = (size_t)maxid + 1;
        v->dense = xcalloc(v->ndense, sizeof *v->dense);
        for (size_t i = 0; i < s->nstacks; i++)
            v->dense[s->stacks[i].id] = (uint32_t)(i + 1);
    }

    /* What the built-in allocator rules need to know of the environment the
     * program ran with (its allocator settings). */
    const struct supp_env env = {
        .no_caching = snap_env(s, "PYTORCH_NO_CUDA_MEMORY_CACHING"),
        .alloc_conf = snap_env(s, "PYTORCH_ALLOC_CONF"),
        .cuda_alloc_conf = snap_env(s, "PYTORCH_CUDA_ALLOC_CONF"),
    };
    const struct sym_frame **fr = NULL;
    uint32_t *ids = NULL;
    size_t cap = 0, idcap = 0;
    for (size_t i = 0; i < s->nstacks; i++) {
        const struct snap_stack *st = &s->stacks[i];
        size_t n = stack_frames(sy, s, st, &fr, &cap);
        if (cap > idcap) {
            idcap = cap;
            ids = xrealloc(ids, idcap * sizeof *ids);
        }
        v->rule_of[i] = sup ? supp_match(sup, fr, n, paths, s->nmodules) : -1;
        if (v->rule_of[i] >= 0) {
            const struct supp_rule *rule = &sup->rules[v->rule_of[i]];
            if (!supp_rule_applies(rule, &env))
                v->rule_of[i] = -1;
        }
        size_t skip = 0, dropped = 0;
        /* An allocation made from Python is shown, and grouped, by its
         * Python frames: that is the user's code (docs/python-frames.md). */
        if (!db->o.native) {
            size_t np = 0;
            for (size_t m = 0; m < n; m++)
                if (fr[m]->python)
                    fr[np++] = fr[m];
            if (np > 0) {
                dropped = n - np;
                n = np;
            }
        }
        const char *via_static = NULL;
        if (!db->o.all_frames && dropped == 0)
            skip = fold_count(fr, n, &via_static);
        size_t keep = n - skip, start = 0;
        bool limited = s->proc.depth_limit && st->depth >= s->proc.depth_limit;
        if (!db->o.all_frames && dropped == 0 && !limited)
            keep -= start = start_count(fr, n, skip);
        uint8_t cut = CS_WHOLE;
        if (db->o.group_depth && keep > db->o.group_depth) {
            keep = db->o.group_depth;
            cut = CS_CUT_GROUP;
        } else if (limited) {
            cut = CS_CUT_LIMIT;
        }
        for (size_t m = 0; m < keep; m++)
            ids[m] = intern_frame(db, fr[skip + m]);
        v->cs_of[i] = intern_cs(db, ids, keep, cut, st->depth == 0, (uint32_t)(skip + dropped),
                                (uint32_t)start);
        if (via_static && v->cs_of[i] && !db->cs[v->cs_of[i]].via_static)
            db->cs[v->cs_of[i]].via_static = via_static;
    }
    free(fr);
    free(ids);
    free(paths);
    torch_segments(v, &env);
    return 0;
}

void sview_free(struct snapview *v)
{
    free(v->torch_segs);
    torch_check_free(&v->torch_check);
    free(v->cs_of);
    free(v->rule_of);
    free(v->dense);
    memset(v, 0, sizeof *v);
}

long sview_index(const struct snapview *v, uint32_t id)
{
    if (id == 0)
        return -1;
    if (v->dense)
        return id < v->ndense && v->dense[id] ? (long)v->dense[id] - 1 : -1;
    const struct snap_stack *st = snap_find_stack(v->s, id);
    return st ? (long)(st - v->s->stacks) : -1;
}

uint32_t sview_cs(const struct snapview *v, uint32_t stack_id)
{
    long i = sview_index(v, stack_id);
    return i < 0 ? 0 : v->cs_of[i];
}

int sview_rule(const struct snapview *v, uint32_t stack_id)
{
    long i = sview_index(v, stack_id);
    return i < 0 ? -1 : v->rule_of[i];
}

int sview_kind_rule(const struct snapview *v, uint32_t stack_id, unsigned kind)
{
    int rule = sview_rule(v, stack_id);
    if (rule >= 0 && (gl_kind_is_mapping(kind) || kind == GL_KIND_MODULE) && v->sup && (size_t)rule < v->sup->n &&
        v->sup->rules[rule].builtin)
        return -1;
    return rule;
}

int sview_alloc_rule(const struct snapview *v, const struct snap_alloc *a)
{
    int rule = sview_kind_rule(v, a->stack_id, a->kind);
    if (rule < 0 && v->torch_rule >= 0 && a->kind == GL_KIND_DEVICE && sview_is_torch_segment(v, a->ptr))
        rule = v->torch_rule;
    return rule;
}

int32_t *sview_match_rules(const struct snapview *v, const struct suppressions *sp)
{
    const struct snapshot *s = v->s;
    int32_t *rule = xcalloc(s->nstacks ? s->nstacks : 1, sizeof *rule);
    const char **paths = xcalloc(s->nmodules ? s->nmodules : 1, sizeof *paths);
    for (size_t i = 0; i < s->nmodules; i++)
        paths[i] = module_path(s, i);
    const struct sym_frame **fr = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < s->nstacks; i++) {
        size_t n = stack_frames(v->sy, s, &s->stacks[i], &fr, &cap);
        rule[i] = supp_match(sp, fr, n, paths, s->nmodules);
    }
    free(fr);
    free(paths);
    return rule;
}
