/* The page's "flames" member: the leak and peak flame graphs, pruned
 * below 1/HF_DIV of the total and to HF_NODES nodes. */
#include "render/html/flames.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "analysis/calls.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "analysis/oom.h"
#include "analysis/teardown.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/symbolize.h"
#include "render/report.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

struct fnode {
    int32_t name; /* local frame index */
    uint32_t parent;
    uint64_t value;
    uint32_t child, sib; /* 0 = none (node 0 is the root) */
};

struct ftree {
    struct fnode *n;
    size_t nn, cap;
    uint32_t *slots; /* hash (parent, name) -> node + 1 */
    size_t nslots;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int ft_rehash(struct ftree *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *sl = xcalloc(ns, sizeof *sl);
    if (!sl)
        return -1;
    free(t->slots);
    t->slots = sl;
    t->nslots = ns;
    for (size_t c = 1; c < t->nn; c++) {
        size_t h = mix(((uint64_t)t->n[c].parent << 32) ^ (uint32_t)t->n[c].name) & (ns - 1);
        while (sl[h])
            h = (h + 1) & (ns - 1);
        sl[h] = (uint32_t)c + 1;
    }
    return 0;
}

/* Child of p named name, created if missing; 0 when out of memory. */
static uint32_t ft_child(struct ftree *t, uint32_t p, int32_t name)
{
    if ((t->nn + 1) * 2 > t->nslots && ft_rehash(t))
        return 0;
    size_t h = mix(((uint64_t)p << 32) ^ (uint32_t)name) & (t->nslots - 1);
    for (; t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
        uint32_t c = t->slots[h] - 1;
        if (t->n[c].name == name && t->n[c].parent == p)
            return c;
    }
    if (grow((void **)&t->n, &t->cap, t->nn + 1, sizeof *t->n))
        return 0;
    uint32_t c = (uint32_t)t->nn++;
    t->n[c] = (struct fnode){name, p, 0, 0, t->n[p].child};
    t->n[p].child = c;
    t->slots[h] = c + 1;
    return c;
}

static int ft_add(struct hw *w, struct ftree *t, int32_t top, uint32_t cs, uint64_t bytes)
{
    t->n[0].value += bytes;
    uint32_t p = ft_child(t, 0, top);
    if (!p && t->nn <= 1)
        return -1;
    t->n[p].value += bytes;
    const struct cstack *c = cs < w->db->ncs ? &w->db->cs[cs] : NULL;
    if (!cs || !c || c->n == 0) {
        uint32_t x = ft_child(t, p, pseudo_local(w, "[no stack]"));
        if (!x)
            return -1;
        t->n[x].value += bytes;
        return 0;
    }
    for (uint32_t i = c->n; i-- > 0;) { /* outermost first */
        uint32_t x = ft_child(t, p, frame_local(w, w->db->seq[c->first + i]));
        if (!x)
            return -1;
        t->n[x].value += bytes;
        p = x;
    }
    return 0;
}

static int cmp_val_desc(const void *a, const void *b, void *ctx)
{
    const struct fnode *n = ctx;
    uint64_t x = n[*(const uint32_t *)a].value, y = n[*(const uint32_t *)b].value;
    return x > y ? -1 : x < y;
}

static void ft_emit(struct hw *w, const struct ftree *t, uint32_t i, uint64_t min, size_t *budget)
{
    json_arr(&w->j);
    json_i64(&w->j, t->n[i].name);
    json_u64(&w->j, t->n[i].value);
    uint32_t kids[64];
    size_t nk = 0;
    uint32_t *all = NULL;
    size_t nall = 0;
    for (uint32_t c = t->n[i].child; c; c = t->n[c].sib)
        if (t->n[c].value >= min)
            nall++;
    if (nall) {
        all = nall <= 64 ? kids : xmalloc(nall * sizeof *all);
        if (!all) {
            w->oom = true;
            json_end_arr(&w->j);
            return;
        }
        for (uint32_t c = t->n[i].child; c; c = t->n[c].sib)
            if (t->n[c].value >= min)
                all[nk++] = c;
        sort_array_r(all, nk, sizeof *all, cmp_val_desc, t->n);
        json_arr(&w->j);
        for (size_t k = 0; k < nk && *budget; k++) {
            (*budget)--;
            ft_emit(w, t, all[k], min, budget);
        }
        json_end_arr(&w->j);
        if (all != kids)
            free(all);
    }
    json_end_arr(&w->j);
}

static void ft_free(struct ftree *t)
{
    free(t->n);
    free(t->slots);
}

static int ft_init(struct ftree *t, struct hw *w, const char *root)
{
    memset(t, 0, sizeof *t);
    if (grow((void **)&t->n, &t->cap, 1, sizeof *t->n) || ft_rehash(t))
        return -1;
    t->n[0] = (struct fnode){pseudo_local(w, root), 0, 0, 0, 0};
    t->nn = 1;
    return 0;
}

void put_flames(struct hw *w, const struct analysis *a)
{
    json_key(&w->j, "flame");
    json_obj(&w->j);
    for (int which = 0; which < 2; which++) {
        struct ftree t;
        if (ft_init(&t, w, which ? "peak" : "leaks")) {
            w->oom = true;
            break;
        }
        int rc = 0;
        char name[64];
        if (!which) {
            for (size_t i = 0; rc == 0 && i < a->leaks.total; i++) {
                const struct leak_group *g = &a->leaks.g[i];
                if (g->device < 0)
                    snprintf(name, sizeof name, "host:%s", gl_kind_name(g->kind));
                else
                    snprintf(name, sizeof name, "device_%d:%s", g->device, gl_kind_name(g->kind));
                rc = ft_add(w, &t, pseudo_local(w, name), g->cs, g->bytes);
            }
        } else {
            for (size_t d = 0; rc == 0 && d < a->ndevs; d++)
                for (size_t i = 0; rc == 0 && i < a->devs[d].ncomp_total; i++) {
                    const struct peak_item *p = &a->devs[d].comp[i];
                    if (p->device < 0)
                        snprintf(name, sizeof name, "host");
                    else
                        snprintf(name, sizeof name, "device_%d", p->device);
                    rc = ft_add(w, &t, pseudo_local(w, name), p->cs, p->bytes);
                }
        }
        if (rc)
            w->oom = true;
        json_key(&w->j, which ? "peak" : "leaks");
        uint64_t min = t.n[0].value / HF_DIV;
        if (min == 0)
            min = 1;
        size_t budget = HF_NODES;
        ft_emit(w, &t, 0, min, &budget);
        ft_free(&t);
    }
    json_end_obj(&w->j);
}
