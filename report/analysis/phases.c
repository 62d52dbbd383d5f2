/* Phases from the history's annotations (the rules are in phases.h).
 *
 * Three passes over the events.  (1) Structure: annotations are paired
 * backwards ("X" with the first unclaimed "X (end)" after it), then a
 * forward pass with a stack of open phases gives each phase its span and
 * nesting.  (2) Levels: one sweep with the device levels, updating the
 * peak of every open phase at each allocation and free.  (3) Composition:
 * one replay of per-(device, stack, kind) counters, stopping at each
 * phase's peak to read what was live there.
 *
 * The level where the history starts is not recorded; as in history.c it is
 * derived backwards from what is exact, the live allocations at the
 * snapshot (base = live at the end - net change over the window), here per
 * (device, stack, kind) so that the composition at any point is exact too.
 * The device levels start from history.c's base, so they are the
 * timeline's even in an inconsistent history.  history.c replays per device
 * and kind only, which cannot say which stacks made a peak, hence the keyed
 * replay here. */
#include "analysis/phases.h"

#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

typedef __int128 i128;

static const char END_SUFFIX[] = " (end)";
#define END_LEN (sizeof END_SUFFIX - 1)

const char *phase_end_name(enum phase_end e)
{
    switch (e) {
    case PHASE_END_MARK: return "end";
    case PHASE_END_NEXT: return "next";
    case PHASE_END_PARENT: return "enclosing";
    case PHASE_END_HISTORY: return "history";
    }
    return "?";
}

/* ---- (1) structure ---- */

struct ann {
    size_t ev;                 /* index into snapshot.events */
    const struct snap_label *label;
    uint32_t label_id;
    const char *text;          /* NULL: no label text */
    size_t len, base;          /* text length; an end's "X" length */
    bool is_end;
    long name;                 /* "X" of "X" and of "X (end)", numbered; -1 no text */
    long pair;                 /* the matching start or end, -1 none */
    long phase;                /* the phase a start (or orphan end) made */
};

struct span {
    long start_ev, end_ev; /* events strictly between are the phase's; -1: before
                              the history; nevents: its end */
};

static int cmp_name(const void *x, const void *y)
{
    const struct ann *a = *(const struct ann *const *)x, *b = *(const struct ann *const *)y;
    size_t n = a->base < b->base ? a->base : b->base;
    int c = memcmp(a->text, b->text, n);
    if (c)
        return c;
    return a->base < b->base ? -1 : a->base > b->base;
}

/* Numbers the names ("X" for both "X" and "X (end)"), so that pairing
 * compares numbers: a sort, never a scan per annotation. */
static void number_names(struct ann *a, size_t n)
{
    struct ann **by = xcalloc(n ? n : 1, sizeof *by);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (a[j].text)
            by[m++] = &a[j];
    sort_array(by, m, sizeof *by, cmp_name);
    long id = -1;
    for (size_t k = 0; k < m; k++) {
        if (k == 0 || cmp_name(&by[k - 1], &by[k]) != 0)
            id++;
        by[k]->name = id;
    }
    free(by);
}

/* Each "X" takes the first unclaimed "X (end)" after it: backwards, the
 * latest pending end of that name (a stack per name, linked through next). */
static void pair_backwards(struct ann *a, size_t n)
{
    number_names(a, n);
    long *head = xcalloc(n ? n : 1, sizeof *head), *next = xcalloc(n ? n : 1, sizeof *next);
    for (size_t j = 0; j < n; j++)
        head[j] = -1;
    for (size_t j = n; j-- > 0;) {
        long nm = a[j].name;
        if (nm < 0)
            continue;
        if (a[j].is_end) {
            next[j] = head[nm];
            head[nm] = (long)j;
        } else if (head[nm] >= 0) {
            a[j].pair = head[nm];
            a[head[nm]].pair = (long)j;
            head[nm] = next[head[nm]];
        }
    }
    free(head);
    free(next);
}

struct builder {
    struct phases *ph;
    struct span *span;
    size_t cap;
    long *open; /* stack of open phases */
    long *pos;  /* by phase: its place in open, -1 closed */
    size_t nopen;
    const struct snapshot *s;
    const struct history *h;
};

static long new_phase(struct builder *b, const struct ann *a, bool bracketed, bool start_known)
{
    struct phases *ph = b->ph;
    if (ph->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        ph->p = xrealloc(ph->p, b->cap * sizeof *ph->p);
        b->span = xrealloc(b->span, b->cap * sizeof *b->span);
        b->open = xrealloc(b->open, b->cap * sizeof *b->open);
        b->pos = xrealloc(b->pos, b->cap * sizeof *b->pos);
    }
    struct phase *p = &ph->p[ph->n];
    memset(p, 0, sizeof *p);
    p->label = a->label;
    p->label_id = a->label_id;
    p->name_len = a->is_end ? a->base : a->len;
    p->bracketed = bracketed;
    p->start_known = start_known;
    p->depth = (unsigned)b->nopen;
    p->parent = b->nopen ? b->open[b->nopen - 1] : -1;
    if (start_known) {
        const struct snap_event *e = &b->s->events[a->ev];
        p->start_seq = e->seq;
        p->start_time_ns = e->time_ns;
        b->span[ph->n].start_ev = (long)a->ev;
    } else {
        p->start_seq = b->h->first_seq;
        p->start_time_ns = b->h->t0;
        b->span[ph->n].start_ev = -1;
    }
    b->pos[ph->n] = (long)b->nopen;
    b->open[b->nopen++] = (long)ph->n;
    return (long)ph->n++;
}

/* Closes the top of the stack at event ev (nevents: the history's end). */
static void close_top(struct builder *b, long ev, enum phase_end how)
{
    long i = b->open[--b->nopen];
    b->pos[i] = -1;
    struct phase *p = &b->ph->p[i];
    p->end = how;
    b->span[i].end_ev = ev;
    if ((size_t)ev < b->s->nevents) {
        p->end_seq = b->s->events[ev].seq;
        p->end_time_ns = b->s->events[ev].time_ns;
    } else {
        p->end_seq = b->h->last_seq;
        p->end_time_ns = b->h->t1;
    }
}

/* Closes phase i, and those inside it, at event ev. */
static void close_phase(struct builder *b, long i, long ev)
{
    if (b->pos[i] < 0)
        return; /* already closed by the end of a phase around it */
    while (b->nopen > (size_t)b->pos[i] + 1)
        close_top(b, ev, PHASE_END_PARENT);
    close_top(b, ev, PHASE_END_MARK);
}

static int cmp_ann_end_desc(const void *x, const void *y)
{
    const struct ann *a = *(const struct ann *const *)x, *b = *(const struct ann *const *)y;
    return a->ev < b->ev ? 1 : a->ev > b->ev ? -1 : 0;
}

static void structure(struct builder *b, struct ann *a, size_t n)
{
    pair_backwards(a, n);
    /* ends whose start the ring lost: open from the history's start, the
     * one ending last outermost */
    if (b->ph->wrapped) {
        struct ann **orphans = xcalloc(n ? n : 1, sizeof *orphans);
        size_t no = 0;
        for (size_t j = 0; j < n; j++)
            if (a[j].is_end && a[j].pair < 0)
                orphans[no++] = &a[j];
        sort_array(orphans, no, sizeof *orphans, cmp_ann_end_desc);
        for (size_t k = 0; k < no; k++) {
            if (b->nopen >= PHASE_MAX_DEPTH) {
                b->ph->too_deep++;
                continue;
            }
            orphans[k]->phase = new_phase(b, orphans[k], true, false);
        }
        free(orphans);
    }
    for (size_t j = 0; j < n; j++) {
        struct ann *x = &a[j];
        if (x->is_end) {
            long i = x->pair >= 0 ? a[x->pair].phase : x->phase;
            if (i >= 0)
                close_phase(b, i, (long)x->ev);
            else if (x->pair < 0 && !b->ph->wrapped)
                b->ph->unmatched_ends++; /* (else: a phase too deep to open) */
            continue;
        }
        if (x->pair < 0 && b->nopen && !b->ph->p[b->open[b->nopen - 1]].bracketed)
            close_top(b, (long)x->ev, PHASE_END_NEXT);
        if (b->nopen >= PHASE_MAX_DEPTH) {
            b->ph->too_deep++; /* bounds the work per event: every open phase's peak moves */
            continue;
        }
        x->phase = new_phase(b, x, x->pair >= 0, true);
    }
    while (b->nopen)
        close_top(b, (long)b->s->nevents, PHASE_END_HISTORY);
}

/* ---- per-(device, stack, kind) counters ---- */

struct key {
    uint32_t dev; /* index into history.dev */
    uint32_t stack_id;
    uint16_t kind;
    bool used;
    i128 bytes, count;       /* running */
    i128 net, lo, cnet, clo; /* over the window; the lowest running net */
    uint32_t cat, cs;
    bool torch; /* made a segment PyTorch's own view names (TORCH_BLOCKS) */
};

struct keymap {
    struct key *k;
    size_t cap, n;
};

static uint64_t key_hash(uint32_t dev, uint32_t stack, unsigned kind)
{
    uint64_t x = ((uint64_t)dev << 48) ^ ((uint64_t)kind << 32) ^ stack;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static struct key *key_get(struct keymap *m, uint32_t dev, uint32_t stack, unsigned kind);

/* Doubles the table: the distinct (device, stack, kind) are far fewer than
 * the allocations, so it starts small. */
static void key_grow(struct keymap *m)
{
    struct keymap old = *m;
    m->cap = old.cap ? 2 * old.cap : 1024;
    m->n = 0;
    m->k = xcalloc(m->cap, sizeof *m->k);
    for (size_t i = 0; i < old.cap; i++)
        if (old.k[i].used) {
            struct key *k = key_get(m, old.k[i].dev, old.k[i].stack_id, old.k[i].kind);
            *k = old.k[i];
        }
    free(old.k);
}

static struct key *key_get(struct keymap *m, uint32_t dev, uint32_t stack, unsigned kind)
{
    if (m->cap == 0)
        key_grow(m);
    for (size_t i = key_hash(dev, stack, kind) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct key *k = &m->k[i];
        if (k->used && k->dev == dev && k->stack_id == stack && k->kind == kind)
            return k; /* found: never moves the table (the replay holds pointers) */
        if (k->used)
            continue;
        if (2 * (m->n + 1) > m->cap) {
            key_grow(m);
            return key_get(m, dev, stack, kind);
        }
        k->used = true;
        k->dev = dev;
        k->stack_id = stack;
        k->kind = (uint16_t)kind;
        m->n++;
        return k;
    }
}

static bool counted(const struct history *h, unsigned kind, int32_t device, long *d)
{
    if (!gl_kind_in_usage(kind))
        return false; /* not the device's usage, as in history.c */
    *d = hist_dev_index(h, device);
    return *d >= 0;
}

static bool is_change(const struct snap_event *e)
{
    return e->type == GL_EV_ALLOC || e->type == GL_EV_FREE;
}

/* ---- (3) composition at the peaks ---- */

struct capture {
    long ev;      /* read after this event (-1: at the history's start) */
    size_t phase, pd; /* phase and its phase_dev */
};

static int cmp_capture(const void *x, const void *y)
{
    const struct capture *a = x, *b = y;
    if (a->ev != b->ev)
        return a->ev < b->ev ? -1 : 1;
    return a->phase < b->phase ? -1 : a->phase > b->phase ? 1 : 0;
}

static int cmp_key_cs(const void *x, const void *y)
{
    const struct key *a = *(const struct key *const *)x, *b = *(const struct key *const *)y;
    if (a->cs != b->cs)
        return a->cs < b->cs ? -1 : 1;
    return a->stack_id < b->stack_id ? -1 : a->stack_id > b->stack_id;
}

static int cmp_stack_bytes(const void *x, const void *y)
{
    const struct phase_stack *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->stack_id < b->stack_id ? -1 : a->stack_id > b->stack_id;
}

static int cmp_cat_bytes(const void *x, const void *y)
{
    const struct phase_cat *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return a->cat < b->cat ? -1 : a->cat > b->cat;
}

static uint64_t clamp(i128 v)
{
    return v < 0 ? 0 : v > (i128)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* Adds a stack to the top PHASE_STACKS kept in best[0..*nb), in
 * cmp_stack_bytes order. */
static void keep_top(struct phase_stack *best, size_t *nb, const struct phase_stack *st)
{
    if (*nb == PHASE_STACKS && cmp_stack_bytes(st, &best[*nb - 1]) >= 0)
        return;
    size_t i = *nb < PHASE_STACKS ? (*nb)++ : *nb - 1;
    while (i > 0 && cmp_stack_bytes(st, &best[i - 1]) < 0) {
        best[i] = best[i - 1];
        i--;
    }
    best[i] = *st;
}

/* What is live on pd's device now: keys, sorted by (cs, stack id), are
 * summed per canonical stack (stacks that look the same once folded are
 * one, as in the PEAK list; the lowest stack id live names it), the largest
 * kept.  No sort per read: a phase's peak is read for every phase. */
static void read_composition(struct phase_dev *pd, struct key **keys, size_t nkeys,
                             const struct categories *cat, struct phase_cat *ctmp)
{
    struct phase_stack best[PHASE_STACKS], cur = {0};
    size_t nb = 0;
    uint64_t all_bytes = 0, all_count = 0;
    bool open = false;
    memset(ctmp, 0, cat->nnames * sizeof *ctmp);
    for (size_t i = 0; i <= nkeys; i++) {
        const struct key *k = i < nkeys ? keys[i] : NULL;
        if (open && (!k || k->cs != cur.cs)) { /* a canonical stack is complete */
            keep_top(best, &nb, &cur);
            pd->nstacks_total++;
            open = false;
        }
        if (!k || (k->bytes <= 0 && k->count <= 0))
            continue;
        uint64_t b = clamp(k->bytes), c = clamp(k->count);
        if (!open)
            cur = (struct phase_stack){.cs = k->cs, .stack_id = k->stack_id};
        open = true;
        cur.bytes += b;
        cur.count += c;
        all_bytes += b;
        all_count += c;
        ctmp[k->cat].bytes += b;
        ctmp[k->cat].count += c;
    }
    pd->nstacks = nb;
    pd->stacks = xcalloc(nb ? nb : 1, sizeof *pd->stacks);
    memcpy(pd->stacks, best, nb * sizeof *best);
    pd->hidden_bytes = all_bytes;
    pd->hidden_count = all_count;
    for (size_t i = 0; i < nb; i++) {
        pd->hidden_bytes -= best[i].bytes;
        pd->hidden_count -= best[i].count;
    }
    size_t nc = 0;
    for (size_t c = 0; c < cat->nnames; c++)
        if (ctmp[c].bytes || ctmp[c].count)
            nc++;
    pd->cats = xcalloc(nc ? nc : 1, sizeof *pd->cats);
    for (size_t c = 0; c < cat->nnames; c++)
        if (ctmp[c].bytes || ctmp[c].count)
            pd->cats[pd->ncats++] = (struct phase_cat){(uint32_t)c, ctmp[c].bytes, ctmp[c].count};
    sort_array(pd->cats, pd->ncats, sizeof *pd->cats, cmp_cat_bytes);
}

static void apply(struct key *k, const struct snap_event *e)
{
    bool alloc = e->type == GL_EV_ALLOC;
    k->bytes += alloc ? (i128)e->size : -(i128)e->size;
    k->count += alloc ? 1 : -1;
}

/* What the stages after the structure share: the phases' spans, the keys
 * (and each device's, sorted by canonical stack), and per (phase, device)
 * the levels, whether an event touched it, and the event of its peak. */
struct pass {
    const struct snapview *v;
    const struct snapshot *s;
    const struct history *h;
    const struct categories *cat;
    struct phases *out;
    struct span *span;
    size_t np, nd;
    struct keymap km;
    struct key ***dkeys;
    size_t *dn;
    struct phase_dev *pdv;
    bool *touched;
    long *peak_ev;
};

/* (1) The annotations of the history, read, then shaped into phases (their
 * spans in *span).  Returns the number of phases. */
static size_t make_phases(const struct snapshot *s, const struct history *h, struct phases *out,
                          struct span **span)
{
    size_t nann = 0;
    for (size_t i = 0; i < s->nevents; i++)
        nann += s->events[i].type == GL_EV_ANNOTATION;
    *span = NULL;
    if (nann == 0)
        return 0;
    struct ann *a = xcalloc(nann, sizeof *a);
    nann = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type != GL_EV_ANNOTATION)
            continue;
        struct ann *x = &a[nann++];
        x->ev = i;
        x->pair = x->phase = x->name = -1;
        x->label_id = (uint32_t)e->ptr;
        x->label = e->ptr <= UINT32_MAX ? snap_find_label(s, (uint32_t)e->ptr) : NULL;
        if (x->label) {
            x->text = x->label->text.s;
            x->len = x->label->text.len;
            x->is_end = x->len > END_LEN &&
                        memcmp(x->text + x->len - END_LEN, END_SUFFIX, END_LEN) == 0;
            x->base = x->is_end ? x->len - END_LEN : x->len;
        }
    }
    struct builder b = {.ph = out, .s = s, .h = h};
    structure(&b, a, nann);
    free(a);
    free(b.open);
    free(b.pos);
    *span = b.span;
    return out->n;
}

/* The keys and their base: live at the end less the window's net; each
 * key's category and canonical stack. */
static void make_keys(struct pass *p)
{
    const struct snapshot *s = p->s;
    long d;
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *al = &s->allocs[i];
        if (!counted(p->h, al->kind, al->device, &d))
            continue;
        struct key *k = key_get(&p->km, (uint32_t)d, al->stack_id, al->kind);
        k->bytes += al->size;
        k->count++;
        k->torch |= al->kind == GL_KIND_DEVICE && sview_is_torch_segment(p->v, al->ptr);
    }
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (!is_change(e) || !counted(p->h, e->kind, e->device, &d))
            continue;
        struct key *k = key_get(&p->km, (uint32_t)d, e->stack_id, e->kind);
        bool alloc = e->type == GL_EV_ALLOC;
        k->torch |= alloc && e->kind == GL_KIND_DEVICE && sview_is_torch_segment(p->v, e->ptr);
        k->net += alloc ? (i128)e->size : -(i128)e->size;
        k->cnet += alloc ? 1 : -1;
        if (k->net < k->lo)
            k->lo = k->net;
        if (k->cnet < k->clo)
            k->clo = k->cnet;
    }
    int32_t *rule = sview_match_rules(p->v, &p->cat->rules);
    for (size_t i = 0; i < p->km.cap; i++) {
        struct key *k = &p->km.k[i];
        if (!k->used)
            continue;
        i128 bb = k->bytes - k->net, bc = k->count - k->cnet;
        if (bb + k->lo < 0) { /* frees of more than was live */
            bb = -k->lo;
            p->out->inconsistent = true;
        }
        if (bc + k->clo < 0)
            bc = -k->clo;
        k->bytes = bb;
        k->count = bc;
        long si = sview_index(p->v, k->stack_id);
        int32_t r = si >= 0 ? rule[si] : -1;
        /* a stack no rule names whose memory PyTorch's own view calls its
         * segments is its cache, as in the leak report (stackdb.c) */
        k->cat = r < 0 && k->torch ? p->cat->pytorch : cat_pick(p->cat, r, k->kind);
        k->cs = sview_cs(p->v, k->stack_id);
    }
    free(rule);
}

/* Each device's keys, sorted by canonical stack, for reading a composition. */
static void keys_by_device(struct pass *p)
{
    size_t nd = p->nd;
    size_t *per_dev = xcalloc(nd, sizeof *per_dev);
    for (size_t i = 0; i < p->km.cap; i++)
        if (p->km.k[i].used)
            per_dev[p->km.k[i].dev]++;
    p->dkeys = xcalloc(nd, sizeof *p->dkeys);
    p->dn = xcalloc(nd, sizeof *p->dn);
    for (size_t i = 0; i < nd; i++)
        p->dkeys[i] = xcalloc(per_dev[i] ? per_dev[i] : 1, sizeof **p->dkeys);
    for (size_t i = 0; i < p->km.cap; i++)
        if (p->km.k[i].used)
            p->dkeys[p->km.k[i].dev][p->dn[p->km.k[i].dev]++] = &p->km.k[i];
    for (size_t i = 0; i < nd; i++)
        sort_array(p->dkeys[i], p->dn[i], sizeof *p->dkeys[i], cmp_key_cs);
    free(per_dev);
}

/* Phases starting at event ev (-1: before the history) open at the levels
 * now. */
static void open_phases(struct pass *p, long ev, const i128 *level, size_t *active, size_t *nact,
                        size_t *next)
{
    while (*next < p->np && p->span[*next].start_ev == ev) {
        for (size_t q = 0; q < p->nd; q++) {
            struct phase_dev *pd = &p->pdv[*next * p->nd + q];
            pd->start_bytes = pd->peak_bytes = clamp(level[q]);
            p->peak_ev[*next * p->nd + q] = ev;
        }
        active[(*nact)++] = (*next)++;
    }
}

/* An alloc or free at event i, in every open phase. */
static void count_change(struct pass *p, const struct snap_event *e, long i, long d, uint64_t lv,
                         const size_t *active, size_t nact)
{
    bool alloc = e->type == GL_EV_ALLOC;
    for (size_t q = 0; q < nact; q++) {
        size_t at = active[q] * p->nd + (size_t)d;
        struct phase_dev *pd = &p->pdv[at];
        p->touched[at] = true;
        if (alloc) {
            pd->allocs++;
            pd->alloc_bytes += e->size;
        } else {
            pd->frees++;
            pd->free_bytes += e->size;
        }
        if (lv > pd->peak_bytes) {
            pd->peak_bytes = lv;
            p->peak_ev[at] = i;
        }
    }
}

/* (2) Levels: every phase's start, end and peak per device.  The device
 * levels are the timeline's: the same base (history.c), which equals the
 * keys' sum unless the history is inconsistent (its per-kind raise is then
 * smaller than the per-stack one). */
static void replay_levels(struct pass *p)
{
    const struct snapshot *s = p->s;
    size_t np = p->np, nd = p->nd, nact = 0, next = 0;
    i128 *level = xcalloc(nd, sizeof *level);
    size_t *active = xcalloc(np, sizeof *active);
    p->pdv = xcalloc(np * nd, sizeof *p->pdv);
    p->touched = xcalloc(np * nd, sizeof *p->touched);
    p->peak_ev = xcalloc(np * nd, sizeof *p->peak_ev);
    for (size_t i = 0; i < nd; i++)
        level[i] = p->h->dev[i].base;
    open_phases(p, -1L, level, active, &nact, &next);
    for (size_t i = 0; i <= s->nevents; i++) {
        const struct snap_event *e = i < s->nevents ? &s->events[i] : NULL;
        long d;
        if (e)
            open_phases(p, (long)i, level, active, &nact, &next);
        if (e && is_change(e) && counted(p->h, e->kind, e->device, &d)) {
            level[d] += e->type == GL_EV_ALLOC ? (i128)e->size : -(i128)e->size;
            count_change(p, e, (long)i, d, clamp(level[d]), active, nact);
        }
        /* close what ends here (after the last event: everything left) */
        for (size_t q = 0; q < nact;) {
            size_t pi = active[q];
            if (e && p->span[pi].end_ev != (long)i) {
                q++;
                continue;
            }
            for (size_t r = 0; r < nd; r++)
                p->pdv[pi * nd + r].end_bytes = clamp(level[r]);
            active[q] = active[--nact];
        }
    }
    free(active);
    free(level);
}

/* Which devices each phase shows, and the captures of their peaks (sorted
 * by event).  Returns their number. */
static size_t show_devices(struct pass *p, struct capture **capp)
{
    size_t np = p->np, nd = p->nd, ncap = 0;
    struct capture *cap = xcalloc(np * nd, sizeof *cap);
    for (size_t pi = 0; pi < np; pi++) {
        struct phase *ph = &p->out->p[pi];
        size_t nshow = 0;
        for (size_t r = 0; r < nd; r++) {
            const struct phase_dev *pd = &p->pdv[pi * nd + r];
            nshow += p->touched[pi * nd + r] || pd->start_bytes || pd->end_bytes;
        }
        ph->devs = xcalloc(nshow ? nshow : 1, sizeof *ph->devs);
        for (size_t r = 0; r < nd; r++) {
            struct phase_dev *pd = &p->pdv[pi * nd + r];
            if (!(p->touched[pi * nd + r] || pd->start_bytes || pd->end_bytes))
                continue;
            long pe = p->peak_ev[pi * nd + r];
            pd->device = p->h->dev[r].device;
            pd->peak_at_start = pe == p->span[pi].start_ev;
            if (pd->peak_at_start) {
                pd->peak_seq = ph->start_seq;
                pd->peak_time_ns = ph->start_time_ns;
            } else {
                pd->peak_seq = p->s->events[pe].seq;
                pd->peak_time_ns = p->s->events[pe].time_ns;
            }
            ph->devs[ph->ndevs] = *pd;
            cap[ncap++] = (struct capture){.ev = pe, .phase = pi, .pd = ph->ndevs++};
        }
    }
    sort_array(cap, ncap, sizeof *cap, cmp_capture);
    *capp = cap;
    return ncap;
}

/* (3) One replay of the keys, reading each capture at its event. */
static void read_captures(struct pass *p, const struct capture *cap, size_t ncap)
{
    const struct snapshot *s = p->s;
    struct phase_cat *ctmp = xcalloc(p->cat->nnames ? p->cat->nnames : 1, sizeof *ctmp);
    size_t c = 0;
    for (long i = -1; i < (long)s->nevents && c < ncap; i++) {
        long d;
        if (i >= 0) {
            const struct snap_event *e = &s->events[i];
            if (is_change(e) && counted(p->h, e->kind, e->device, &d))
                apply(key_get(&p->km, (uint32_t)d, e->stack_id, e->kind), e);
        }
        for (; c < ncap && cap[c].ev == i; c++) {
            struct phase_dev *pd = &p->out->p[cap[c].phase].devs[cap[c].pd];
            long r = hist_dev_index(p->h, pd->device);
            read_composition(pd, p->dkeys[r], p->dn[r], p->cat, ctmp);
        }
    }
    free(ctmp);
}

static void pass_free(struct pass *p)
{
    free(p->pdv);
    free(p->touched);
    free(p->peak_ev);
    for (size_t i = 0; p->dkeys && i < p->nd; i++)
        free(p->dkeys[i]);
    free(p->dkeys);
    free(p->dn);
    free(p->km.k);
    free(p->span);
}

int phases_build(const struct snapview *v, const struct history *h,
                 const struct categories *cat, struct phases *out)
{
    memset(out, 0, sizeof *out);
    out->cat = cat;
    out->present = h->present;
    if (!h->present)
        return 0;
    out->first_seq = h->first_seq;
    out->wrapped = h->first_seq > 1;
    struct pass p = {.v = v, .s = v->s, .h = h, .cat = cat, .out = out, .nd = h->ndev};
    p.np = make_phases(v->s, h, out, &p.span);
    if (p.np == 0 || p.nd == 0) {
        free(p.span);
        return 0;
    }
    make_keys(&p);
    keys_by_device(&p);
    replay_levels(&p);
    struct capture *cap;
    size_t ncap = show_devices(&p, &cap);
    read_captures(&p, cap, ncap);
    free(cap);
    pass_free(&p);
    return 0;
}

void phases_free(struct phases *ph)
{
    for (size_t i = 0; i < ph->n; i++) {
        for (size_t r = 0; r < ph->p[i].ndevs; r++) {
            free(ph->p[i].devs[r].stacks);
            free(ph->p[i].devs[r].cats);
        }
        free(ph->p[i].devs);
    }
    free(ph->p);
    memset(ph, 0, sizeof *ph);
}
