/* The page's "flames" member: the leak and peak flame graphs that
 * analysis/flame.c builds, pruned below 1/HF_DIV of the total and to
 * HF_NODES nodes. */
#include "render/html/flames.h"

#include <stdlib.h>

#include "analysis/flame.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* The page's frame index of a tree node's name. */
static int32_t local_name(struct hw *w, const struct flame_tree *t, int64_t name)
{
    return name >= 0 ? hw_frame(w, (uint32_t)name) : hw_pseudo(w, flame_pseudo(t, name));
}

static int cmp_val_desc(const void *a, const void *b, void *ctx)
{
    const struct flame_node *n = ctx;
    uint64_t x = n[*(const uint32_t *)a].value, y = n[*(const uint32_t *)b].value;
    return x > y ? -1 : x < y;
}

/* [name, value, [children...]]: children by value, largest first, those
 * under min left out (their bytes still count in the parent), at most
 * *budget nodes in all. */
static void emit(struct hw *w, const struct flame_tree *t, uint32_t i, uint64_t min, size_t *budget)
{
    json_arr(&w->j);
    json_i64(&w->j, local_name(w, t, t->n[i].name));
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
            emit(w, t, all[k], min, budget);
        }
        json_end_arr(&w->j);
        if (all != kids)
            free(all);
    }
    json_end_arr(&w->j);
}

void html_flames(struct hw *w, const struct analysis *a)
{
    json_key(&w->j, "flame");
    json_obj(&w->j);
    for (int which = 0; which < 2; which++) {
        struct flame_tree t;
        if (which ? flame_peak(&t, a, w->db) : flame_leaks(&t, a, w->db)) {
            w->oom = true;
            break;
        }
        json_key(&w->j, which ? "peak" : "leaks");
        uint64_t min = t.n[0].value / HF_DIV;
        if (min == 0)
            min = 1;
        size_t budget = HF_NODES;
        emit(w, &t, 0, min, &budget);
        flame_free(&t);
    }
    json_end_obj(&w->j);
}
