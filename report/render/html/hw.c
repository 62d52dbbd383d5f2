/* The page's writer state and its own tables of stacks and frames: every
 * stack the page names is an index into "stacks", every frame one into
 * "frames", so a frame shared by many stacks is written once. */
#include "render/html/hw.h"

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
#include "model/user_frame.h"
#include "model/symbolize.h"
#include "render/report.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

int hw_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 256;
    while (nc < need)
        nc *= 2;
    void *q = xrealloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

int32_t hw_frame(struct hw *w, uint32_t fid)
{
    if (w->fr_local[fid] >= 0)
        return w->fr_local[fid];
    if (hw_grow((void **)&w->fr_list, &w->capfr, w->nfr + 1, sizeof *w->fr_list)) {
        w->oom = true;
        return 0;
    }
    w->fr_list[w->nfr] = fid;
    return w->fr_local[fid] = (int32_t)w->nfr++;
}

int32_t hw_pseudo(struct hw *w, const char *name)
{
    for (size_t i = 0; i < w->nfr; i++)
        if (w->fr_list[i] < 0 && strcmp(w->pseudo[-w->fr_list[i] - 1], name) == 0)
            return (int32_t)i;
    char **np = xrealloc(w->pseudo, (w->npseudo + 1) * sizeof *np);
    char *copy = xstrdup(name);
    if (np)
        w->pseudo = np;
    if (!np || !copy || hw_grow((void **)&w->fr_list, &w->capfr, w->nfr + 1, sizeof *w->fr_list)) {
        free(copy);
        w->oom = true;
        return 0;
    }
    w->pseudo[w->npseudo++] = copy;
    w->fr_list[w->nfr] = -(int64_t)w->npseudo;
    return (int32_t)w->nfr++;
}

/* Local index of a canonical stack (0 = none captured is a stack too). */
int32_t hw_stack(struct hw *w, uint32_t cs)
{
    if (cs >= w->db->ncs)
        cs = 0;
    if (w->cs_local[cs] >= 0)
        return w->cs_local[cs];
    if (hw_grow((void **)&w->cs_list, &w->capcs, w->ncs + 1, sizeof *w->cs_list)) {
        w->oom = true;
        return 0;
    }
    const struct cstack *c = &w->db->cs[cs];
    for (uint32_t i = 0; cs && i < c->n; i++)
        hw_frame(w, w->db->seq[c->first + i]);
    w->cs_list[w->ncs] = cs;
    return w->cs_local[cs] = (int32_t)w->ncs++;
}

void hw_put_frames(struct hw *w)
{
    json_key(&w->j, "frames");
    json_arr(&w->j);
    for (size_t i = 0; i < w->nfr; i++) {
        if (w->fr_list[i] < 0) {
            json_arr(&w->j);
            json_str(&w->j, w->pseudo[-w->fr_list[i] - 1]);
            json_str(&w->j, "");
            json_u64(&w->j, 0);
            json_str(&w->j, "");
            json_u64(&w->j, 0);
            json_end_arr(&w->j);
            continue;
        }
        const struct sym_frame *fr = &w->db->frames[w->fr_list[i]];
        char buf[96];
        const char *name = fr->function;
        if (!name) {
            if (fr->module)
                snprintf(buf, sizeof buf, "%s+0x%" PRIx64, fr->module, fr->offset);
            else
                snprintf(buf, sizeof buf, "0x%" PRIx64, fr->address);
            name = buf;
        }
        /* [name, file (full), line, module, flags: 1 inlined, 2 python,
         * 4 in PyTorch's libraries (a run of them is one line on the page,
         * "PyTorch internals, N frames", unless full_stacks)] */
        json_arr(&w->j);
        json_str(&w->j, name);
        json_str(&w->j, fr->file ? fr->file : "");
        json_u64(&w->j, fr->line);
        json_str(&w->j, fr->module ? fr->module : "");
        json_u64(&w->j, (fr->inlined ? 1u : 0u) | (fr->python ? 2u : 0u) | (frame_in_torch_library(fr) ? 4u : 0u));
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
    json_key(&w->j, "stacks");
    json_arr(&w->j);
    for (size_t i = 0; i < w->ncs; i++) {
        json_arr(&w->j);
        uint32_t cs = w->cs_list[i];
        const struct cstack *c = &w->db->cs[cs];
        for (uint32_t k = 0; cs && k < c->n; k++) {
            json_u64(&w->j, (uint64_t)w->fr_local[w->db->seq[c->first + k]]);
        }
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
    /* each stack's label frame (model/user_frame.h), by position in it:
     * the page names a row by that frame, never by an allocator wrapper */
    json_key(&w->j, "full_stacks");
    json_bool(&w->j, w->db->o.full_stacks || w->db->o.all_frames);
    json_key(&w->j, "stack_labels");
    json_arr(&w->j);
    for (size_t i = 0; i < w->ncs; i++)
        json_u64(&w->j, sdb_user_frame_pos(w->db, w->cs_list[i]));
    json_end_arr(&w->j);
}
