/* PYTORCH'S CACHE: what PyTorch's caching allocator said it held when the
 * snapshot was taken, segment by segment, each with the live tensors that
 * hold it, by the Python line that allocated them. */
#include "render/text/torch.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/multi/rate.h"
#include "analysis/multi/torch_multi.h"
#include "analysis/torch_blocks.h"
#include "render/text/sites_multi.h"
#include "render/text/textout.h"

#define LINES_SHOWN 10 /* tensor lines per segment */
#define TOP_LINES_SHOWN 5 /* lines over the whole cache, in the totals */


/* The snapshot is of a process gpuleak attach tracked (docs/attach.md): a
 * segment gpuleak did not see made may predate the attach. */
static bool attached(const struct snapshot *s)
{
    for (size_t i = 0; i < s->ndevices; i++)
        if (s->devices[i].before_attach_used != 0)
            return true;
    return false;
}

static void put_line(const struct report_ctx *r, const struct torch_line *l)
{
    FILE *f = r->out;
    fputs("        ", f);
    put_bytes(f, l->bytes);
    fputs(" in ", f);
    put_count(f, l->count, "tensor");
    fputs(": ", f);
    if (l->frame == 0)
        fputs("(no Python line: PyTorch recorded none; see GPULEAK_TORCH_LINES)", f);
    else
        put_frame_short(f, &r->db->frames[l->frame]);
    fputc('\n', f);
}

/* What PyTorch said it reserved and allocated, and the difference. */
static void put_totals(FILE *f, const struct torch_blocks *t)
{
    fputs("    reserved:  ", f);
    put_bytes(f, t->reserved_bytes);
    fputs(" in ", f);
    put_count(f, t->segments_reported, "segment");
    fputs("\n    allocated: ", f);
    put_bytes(f, t->allocated_bytes);
    fputs(" in ", f);
    put_count(f, t->tensors, "tensor");
    fputs("\n    cached:    ", f);
    put_bytes(f, t->reserved_bytes > t->allocated_bytes ? t->reserved_bytes - t->allocated_bytes : 0);
    fputs(" (free for reuse, or waiting for a stream)\n", f);
}

/* The two names of PyTorch's allocator variable (since 2.10
 * PYTORCH_ALLOC_CONF, with PYTORCH_CUDA_ALLOC_CONF the old one), as the
 * process had them (ENV), and which one PyTorch 2.14 reads: its CUDA
 * allocator's configuration takes PYTORCH_CUDA_ALLOC_CONF first and looks
 * at PYTORCH_ALLOC_CONF only when that is unset (c10/cuda/
 * CUDAAllocatorConfig.h). */
static void put_conf(FILE *f, const struct snapshot *s)
{
    const char *unified = snap_env(s, "PYTORCH_ALLOC_CONF"), *old = snap_env(s, "PYTORCH_CUDA_ALLOC_CONF");
    fputs("    settings:  ", f);
    if (unified == NULL && old == NULL) {
        fputs("PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF not set (PyTorch's defaults)\n", f);
    } else {
        fputs("PYTORCH_ALLOC_CONF=", f);
        put_str(f, unified ? unified : "(not set)");
        fputs(", PYTORCH_CUDA_ALLOC_CONF=", f);
        put_str(f, old ? old : "(not set)");
        fputc('\n', f);
    }
    if (unified != NULL && old != NULL && strcmp(unified, old) != 0)
        fputs("    note: both are set and differ: PyTorch 2.14 uses PYTORCH_CUDA_ALLOC_CONF and ignores PYTORCH_ALLOC_CONF\n",
              f);
    if (s->ntorch_settings == 0)
        return;
    fputs("    PyTorch's allocator_settings: ", f);
    for (size_t i = 0; i < s->ntorch_settings; i++) {
        if (i)
            fputs(", ", f);
        put_safe(f, s->torch_settings[i].s, s->torch_settings[i].len);
    }
    fputc('\n', f);
}

/* The PyTorch block (issue 45, item 6) is shown when the snapshot carries
 * what PyTorch answered beside its blocks (its peaks, its settings: a
 * PyTorch that has them), or an allocator variable was set. */
static bool block_known(const struct snapshot *s)
{
    return s->torch.max_allocated_bytes != 0 || s->torch.max_reserved_bytes != 0 || s->have_torch_settings ||
           snap_env(s, "PYTORCH_ALLOC_CONF") != NULL || snap_env(s, "PYTORCH_CUDA_ALLOC_CONF") != NULL;
}

static void put_peaks(FILE *f, const struct snapshot *s);
static void put_conf(FILE *f, const struct snapshot *s);

/* The whole cache's lines, most live bytes first: indented and worded
 * apart from the segments' own lines ("as", not "in"), which scripts sum. */
static void put_top_lines(const struct report_ctx *r, const struct torch_blocks *t)
{
    FILE *f = r->out;
    if (t->nlines == 0)
        return;
    fputs("    top lines by live bytes, all segments:\n", f);
    for (size_t i = 0; i < t->nlines && i < TOP_LINES_SHOWN; i++) {
        const struct torch_line *l = &t->lines[i];
        fputs("      ", f);
        put_bytes(f, l->bytes);
        fputs(" as ", f);
        put_count(f, l->count, "tensor");
        fputs(": ", f);
        if (l->frame == 0)
            fputs("(no Python line)", f);
        else
            put_frame_short(f, &r->db->frames[l->frame]);
        fputc('\n', f);
    }
    if (t->nlines > TOP_LINES_SHOWN)
        fprintf(f, "      ... and %zu more lines\n", t->nlines - TOP_LINES_SHOWN);
}

static void put_block(const struct report_ctx *r, const struct torch_blocks *t, bool adds_up)
{
    put_peaks(r->out, r->s);
    put_conf(r->out, r->s);
    if (adds_up)
        put_top_lines(r, t);
}

/* PyTorch's peaks, asked with its view (0: not known, an older file). */
static void put_peaks(FILE *f, const struct snapshot *s)
{
    if (s->torch.max_allocated_bytes == 0 && s->torch.max_reserved_bytes == 0)
        return;
    fputs("    peak allocated: ", f);
    put_bytes(f, s->torch.max_allocated_bytes);
    fputs(" (torch.cuda.max_memory_allocated())\n    peak reserved:  ", f);
    put_bytes(f, s->torch.max_reserved_bytes);
    fputs(" (torch.cuda.max_memory_reserved())\n", f);
}

void text_torch(const struct report_ctx *r)
{
    if (r->s->torch.status == 0)
        return;
    FILE *f = r->out;
    put_title(r, "PYTORCH'S CACHE");
    if (r->s->torch.status == GL_TORCH_NO_ANSWER) {
        fputs("PyTorch was not asked in time: Python's main thread ran no bytecode within 2 s\n"
              "(it was blocked in C), or took over 60 s to answer; this snapshot has no tensors.\n"
              "It is asked again when it returns: a follow-up snapshot carries its view.\n",
              f);
        return;
    }
    if (r->s->torch.status != GL_TORCH_ANSWERED) {
        fputs("torch.cuda.memory._snapshot() failed; this snapshot has no tensors.\n", f);
        return;
    }
    struct torch_blocks t;
    torch_blocks_build(r->v, &t);
    const struct torch_check *c = &r->v->torch_check;
    if (c->nproblems > 0) {
        /* One line, whatever the view says: its totals are not shown. */
        fputs("warning: PyTorch's view does not add up, so its totals are not used: ", f);
        for (size_t i = 0; i < c->nproblems; i++)
            fprintf(f, "%s%s", i ? "; " : "", c->problems[i]);
        fputs("\n", f);
    }
    if (r->s->torch.age_us != 0)
        fprintf(f, "PyTorch's view from %.1f s before this snapshot, the last one it gave: this snapshot\n"
                   "could not ask (at exit, fatal signal, or after a main thread busy in C).\n",
                (double)r->s->torch.age_us / 1e6);
    fputs("What PyTorch's caching allocator held (torch.cuda.memory._snapshot()), segment\n"
          "by segment, with the live tensors in each by the Python line that allocated them:\n",
          f);
    if (c->nproblems == 0)
        put_totals(f, &t);
    if (block_known(r->s))
        put_block(r, &t, c->nproblems == 0);
    for (size_t k = 0; k < t.nsegs; k++) {
        const struct torch_segment *g = &t.segs[k];
        fprintf(f, "\nsegment 0x%" PRIx64 ": ", g->address);
        put_bytes(f, g->size);
        fputs(" on ", f);
        put_where(f, g->device);
        if (g->alloc >= 0) {
            uint32_t cs, frame = torch_line_frame(r->v, r->s->allocs[g->alloc].stack_id, &cs);
            fputs(", cudaMalloc from ", f);
            if (frame)
                put_frame_short(f, &r->db->frames[frame]);
            else
                put_cs_top(r, cs);
        } else if (g->before_attach) {
            fputs(", reserved by PyTorch before the attach (gpuleak attach)", f);
        } else if (attached(r->s)) {
            fputs(", not a cudaMalloc gpuleak saw (made before the attach, or an expandable segment)", f);
        } else {
            fputs(", not a cudaMalloc gpuleak saw (an expandable segment?)", f);
        }
        fputs("\n    ", f);
        put_bytes(f, g->allocated_bytes);
        fputs(" in ", f);
        put_count(f, g->allocated_count, "tensor");
        fputs(", ", f);
        put_bytes(f, g->cached_bytes);
        fputs(" cached", f);
        if (g->pending_bytes) {
            fputs(", ", f);
            put_bytes(f, g->pending_bytes);
            fputs(" waiting for a stream", f);
        }
        fputc('\n', f);
        for (size_t i = 0; i < g->nlines && i < LINES_SHOWN; i++)
            put_line(r, &g->lines[i]);
        if (g->nlines > LINES_SHOWN)
            fprintf(f, "        ... and %zu more lines\n", g->nlines - LINES_SHOWN);
    }
    torch_blocks_free(&t);
}

/* Why snapshot m has no view to use: its TORCH record's status. */
static const char *no_view_why(const struct msnap *m)
{
    switch (m->s.torch.status) {
    case 0: return "none recorded";
    case GL_TORCH_NO_ANSWER: return "PyTorch was not asked in time";
    case GL_TORCH_ANSWERED: return "its view does not add up";
    default: return "torch.cuda.memory._snapshot() failed";
    }
}

/* One line for the snapshots without PyTorch's view: their tensors are
 * unknown (never zero), shown as "?", and no step of the growth. */
static void put_unknown_snapshots(FILE *f, const struct msnap *m, const struct torch_multi *t)
{
    size_t missing = t->n - t->answered, said = 0;
    if (missing == 0)
        return;
    fputs(missing == 1 ? "snapshot " : "snapshots ", f);
    for (size_t i = 0; i < t->n; i++) {
        if (t->known[i])
            continue;
        if (said == 8) {
            fprintf(f, " and %zu more", missing - said);
            break;
        }
        fprintf(f, "%s%zu", said == 0 ? "" : said + 1 == missing ? " and " : ", ", i + 1);
        said++;
    }
    if (missing == 1) {
        for (size_t i = 0; i < t->n; i++)
            if (!t->known[i])
                fprintf(f, " has no PyTorch view (%s): its tensors are unknown", no_view_why(&m[i]));
    } else {
        fputs(" have no PyTorch view: their tensors are unknown", f);
    }
    fputs(" (?), never 0, and no step of the growth\n", f);
}

/* "a -> ? -> c": a snapshot without the view is "?". */
static void put_series(FILE *f, const uint64_t *v, const bool *known, size_t n, bool commas)
{
    for (size_t k = 0; k < n; k++) {
        fputs(k ? " -> " : "", f);
        if (!known[k])
            fputc('?', f);
        else
            text_sites_series(f, &v[k], 1, commas);
    }
}

void text_torch_diff(const struct report_ctx *r, const struct msnap *m, size_t n)
{
    struct torch_multi t;
    torch_multi_build(m, n, &t);
    if (t.answered == 0) {
        torch_multi_free(&t);
        return;
    }
    FILE *f = r->out;
    put_title(r, "TENSORS IN PYTORCH'S CACHE");
    fprintf(f, "Live tensors by the Python line that allocated them, from PyTorch's own view\n"
               "(%zu of the %zu snapshots carry it):\n",
            t.answered, n);
    put_unknown_snapshots(f, m, &t);
    struct series_clock clock = series_clock_of(m, n);
    size_t shown = 0;
    for (size_t k = 0; k < t.nrows; k++) {
        const struct torch_mrow *row = &t.rows[k];
        if (row->change == 0 && !row->suspected)
            continue;
        fputc('\n', f);
        put_color(r, row->change < 0 ? TC_GREEN : TC_RED);
        fputs(row->change < 0 ? "-" : "+", f);
        put_bytes(f, row->change < 0 ? (uint64_t)-row->change : (uint64_t)row->change);
        put_color_end(r);
        fputs(": ", f);
        if (row->frame)
            put_frame_short(f, &r->db->frames[row->frame]);
        else
            fputs("(no Python line: PyTorch recorded none; see GPULEAK_TORCH_LINES)", f);
        if (row->suspected) {
            fputs(", ", f);
            put_color(r, TC_RED);
            fputs("suspected leak (its tensors grew at every step)", f);
            put_color_end(r);
        }
        fputs("\n    live bytes: ", f);
        put_series(f, row->bytes, t.known, n, true);
        fputs("\n    tensors:    ", f);
        put_series(f, row->count, t.known, n, false);
        fputc('\n', f);
        uint64_t per_hour = torch_mrow_per_hour(&clock, m, &t, row);
        if (per_hour) {
            fputs("    rate:       ", f);
            put_per_hour(f, per_hour);
            fputc('\n', f);
        }
        put_cs(r, "    ", row->cs);
        shown++;
    }
    if (shown == 0)
        fputs("No change in the tensors between the snapshots.\n", f);
    torch_multi_free(&t);
}
