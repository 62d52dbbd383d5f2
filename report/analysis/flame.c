/* Flame graph trees (flame.h): one node per distinct path of frames from
 * the outermost, found through a hash on (parent, name), so adding a stack
 * of depth d costs d lookups whatever the tree's size. */
#include "analysis/flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "model/stackdb.h"
#include "model/user_frame.h"
#include "snapshot_format.h"
#include "util/xalloc.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static size_t slot_of(const struct flame_tree *t, uint32_t parent, int64_t name)
{
    return mix(((uint64_t)parent << 32) ^ (uint64_t)name) & (t->nslots - 1);
}

static int rehash(struct flame_tree *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *sl = xcalloc(ns, sizeof *sl);
    if (!sl)
        return -1;
    free(t->slots);
    t->slots = sl;
    t->nslots = ns;
    for (size_t c = 1; c < t->nn; c++) {
        size_t h = slot_of(t, t->n[c].parent, t->n[c].name);
        while (sl[h])
            h = (h + 1) & (ns - 1);
        sl[h] = (uint32_t)c + 1;
    }
    return 0;
}

/* Child of p named name, created if missing; 0 when out of memory. */
static uint32_t child(struct flame_tree *t, uint32_t p, int64_t name)
{
    if ((t->nn + 1) * 2 > t->nslots && rehash(t))
        return 0;
    size_t h = slot_of(t, p, name);
    for (; t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
        uint32_t c = t->slots[h] - 1;
        if (t->n[c].name == name && t->n[c].parent == p)
            return c;
    }
    if (t->nn == t->cap)
        t->n = xgrow(t->n, &t->cap, 256, sizeof *t->n);
    uint32_t c = (uint32_t)t->nn++;
    t->n[c] = (struct flame_node){name, p, 0, t->n[p].child, 0};
    t->n[p].child = c;
    t->slots[h] = c + 1;
    return c;
}

/* The name of a pseudo frame, interned in the tree; 0 when out of memory
 * (0 is never a pseudo name). */
static int64_t pseudo(struct flame_tree *t, const char *s)
{
    for (size_t i = 0; i < t->npseudo; i++)
        if (strcmp(t->pseudo[i], s) == 0)
            return -(int64_t)i - 1;
    char **np = xrealloc(t->pseudo, (t->npseudo + 1) * sizeof *np);
    if (!np)
        return 0;
    t->pseudo = np;
    if (!(np[t->npseudo] = xstrdup(s)))
        return 0;
    return -(int64_t)t->npseudo++ - 1;
}

static int init(struct flame_tree *t, const char *root)
{
    memset(t, 0, sizeof *t);
    int64_t name = pseudo(t, root);
    t->n = xmalloc(256 * sizeof *t->n);
    if (!name || !t->n || rehash(t))
        return -1;
    t->cap = 256;
    t->n[0] = (struct flame_node){name, 0, 0, 0, 0};
    t->nn = 1;
    return 0;
}

/* The innermost position of the run of frames in PyTorch's libraries that
 * ends (outermost) at position i of c; i itself when frame i is not in one.
 * The run is the one the text folds (sdb_torch_run from its start), found
 * from its outermost frame because the tree is built outermost first. */
static uint32_t torch_run_start(const struct stackdb *db, const struct cstack *c, uint32_t i)
{
    uint32_t at = i;
    while (at > 0 && frame_in_torch_library(sdb_frame(db, c, i)) && frame_in_torch_library(sdb_frame(db, c, at - 1)))
        at--;
    return at;
}

/* bytes under root -> top -> the stack's frames, outermost first; a run of
 * frames in PyTorch's libraries is one node, "PyTorch internals, N frames",
 * as in the text's stacks, unless --full-stacks or --all-frames. */
static int add(struct flame_tree *t, const struct stackdb *db, const char *top, uint32_t cs, uint64_t bytes)
{
    int64_t name = pseudo(t, top);
    uint32_t p = name ? child(t, 0, name) : 0;
    if (!p)
        return -1;
    t->n[0].value += bytes;
    t->n[p].value += bytes;
    const struct cstack *c = cs < db->ncs ? &db->cs[cs] : NULL;
    if (!cs || !c || c->n == 0) {
        int64_t none = pseudo(t, "[no stack]");
        uint32_t x = none ? child(t, p, none) : 0;
        if (!x)
            return -1;
        t->n[x].value += bytes;
        return 0;
    }
    bool fold = !db->o.full_stacks && !db->o.all_frames;
    for (uint32_t i = c->n; i-- > 0;) {
        uint32_t at = fold ? torch_run_start(db, c, i) : i;
        int64_t node = db->seq[c->first + i];
        if (i - at + 1 >= 2) {
            char run[48];
            snprintf(run, sizeof run, "PyTorch internals, %u frames", i - at + 1);
            if (!(node = pseudo(t, run)))
                return -1;
            i = at;
        }
        uint32_t x = child(t, p, node);
        if (!x)
            return -1;
        t->n[x].value += bytes;
        p = x;
    }
    return 0;
}

int flame_leaks(struct flame_tree *t, const struct analysis *a, const struct stackdb *db)
{
    int rc = init(t, "leaks");
    char name[64];
    for (size_t i = 0; rc == 0 && i < a->leaks.total; i++) {
        const struct leak_group *g = &a->leaks.g[i];
        if (g->device < 0)
            snprintf(name, sizeof name, "host:%s", gl_kind_name(g->kind));
        else
            snprintf(name, sizeof name, "device_%d:%s", g->device, gl_kind_name(g->kind));
        if (a->sampled && g->stack_id == 0)
            continue; /* not sampled (GPULEAK_MODE=light): in the estimates */
        rc = add(t, db, name, g->cs, shown_bytes(a, g->bytes, g->est_bytes));
    }
    if (rc)
        flame_free(t);
    return rc;
}

int flame_peak(struct flame_tree *t, const struct analysis *a, const struct stackdb *db)
{
    int rc = init(t, "peak");
    char name[64];
    for (size_t d = 0; rc == 0 && d < a->ndevs; d++)
        for (size_t i = 0; rc == 0 && i < a->devs[d].ncomp_total; i++) {
            const struct peak_item *p = &a->devs[d].comp[i];
            if (a->sampled && p->stack_id == 0)
                continue; /* as above */
            if (p->device < 0)
                snprintf(name, sizeof name, "host");
            else
                snprintf(name, sizeof name, "device_%d", p->device);
            rc = add(t, db, name, p->cs, shown_bytes(a, p->bytes, p->est_bytes));
        }
    if (rc)
        flame_free(t);
    return rc;
}

const char *flame_pseudo(const struct flame_tree *t, int64_t name)
{
    size_t i = (size_t)(-(name + 1));
    return name < 0 && i < t->npseudo ? t->pseudo[i] : "";
}

void flame_free(struct flame_tree *t)
{
    for (size_t i = 0; i < t->npseudo; i++)
        free(t->pseudo[i]);
    free(t->pseudo);
    free(t->n);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
