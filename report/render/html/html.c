/* --html: the self-contained page.  Everything the page shows is computed
 * and aggregated here and embedded as one JSON document in a
 * <script type="application/json"> element; the script of render/html/js/
 * (its parts in the order of html_assets.c, after ticks.js) draws it
 * (SVG, no library) and render/html/report.css styles it.  A Content
 * Security Policy in the page forbids every network request.
 *
 * Size bounds, whatever the snapshot (docs/html-report.md):
 *   timeline    at most HT_POINTS points per device: the raw series when it
 *               is shorter, else HT_POINTS time buckets with the lowest,
 *               highest and last level and the event that reached the
 *               highest (shown on hover)
 *   flame graph nodes under 1/HF_DIV of the total are left out (their
 *               bytes still count in their parents), at most HF_NODES
 *   address map at most HM_CELLS cells per device: 2 MiB pages, or runs of
 *               2^k pages, with long empty stretches folded into one cell
 *   tables      at most HT_ROWS rows each
 *   growth      at most HG_COLS snapshot columns (several snapshots)
 *
 * This file writes the page and its first members; each other member has a
 * file of its own (timeline.c, flames.c, tables.c, addrmap.c, growth.c), all
 * through the writer state and stack tables of hw.c. */
#include "render/html/html.h"

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
#include "model/reason.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "render/html/addrmap.h"
#include "render/html/flames.h"
#include "render/html/growth.h"
#include "render/html/merge.h"
#include "render/html/hw.h"
#include "render/html/ledger.h"
#include "render/html/phases.h"
#include "render/html/tables.h"
#include "render/html/timeline.h"
#include "render/json/common.h"
#include "render/json/json.h"
#include "render/json/torch.h"
#include "render/report.h"
#include "render/sections.h"
#include "util/path.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/utf8.h"
#include "util/xalloc.h"


/* ---- snapshot header and summary ---- */

static void put_snapshot(struct hw *w, const struct report_ctx *r, const char *path)
{
    const struct snap_process *p = &r->s->proc;
    json_key(&w->j, "snapshot");
    json_obj(&w->j);
    kv_s(w, "path", path);
    kv_u(w, "pid", p->pid);
    json_key(&w->j, "rank"); json_rank(&w->j, p);
    kv_u(w, "index", p->index); /* its number: its mark on the timeline */
    kv_s(w, "reason", reason_name(p->reason));
    kv_b(w, "final", p->flags & GL_SNAP_F_FINAL);
    kv_sn(w, "host", &p->host);
    kv_sn(w, "exe", &p->exe);
    json_key(&w->j, "argv");
    json_arr(&w->j);
    for (uint32_t i = 0; i < p->argc; i++) {
        json_strn(&w->j, p->argv[i].s, p->argv[i].len);
    }
    json_end_arr(&w->j);
    kv_u(w, "start_unix_ns", p->start_unix_ns);
    kv_u(w, "duration_ns", p->snapshot_mono_ns);
    kv_u(w, "live_allocations", r->s->nallocs);
    kv_u(w, "stacks", r->s->nstacks);
    kv_u(w, "events", r->s->nevents);
    kv_u(w, "sample_bytes", r->s->sampling.mode ? r->s->sampling.sample_bytes : 0); /* 0: not sampled */
    json_end_obj(&w->j);
}

static void put_summary(struct hw *w, const struct analysis *a)
{
    json_key(&w->j, "summary");
    json_obj(&w->j);
    kv_u(w, "bytes", a->total_bytes);
    kv_u(w, "count", a->total_count);
    kv_u(w, "leaked_bytes", a->leaks.bytes);
    kv_u(w, "leaked_count", a->leaks.count);
    kv_u(w, "leak_groups", a->leaks.total);
    kv_u(w, "cached_bytes", a->cached.bytes);
    kv_u(w, "cached_count", a->cached.count);
    kv_u(w, "suppressed_bytes", a->suppressed.bytes);
    kv_u(w, "suppressed_count", a->suppressed.count);
    kv_u(w, "mapped_bytes", a->mapped.bytes);
    kv_u(w, "mapped_count", a->mapped.count);
    kv_u(w, "mapped_groups", a->mapped.total);
    kv_u(w, "modules_bytes", a->modules.bytes);
    kv_u(w, "modules_count", a->modules.count);
    kv_u(w, "modules_groups", a->modules.total);
    json_end_obj(&w->j);
}

static void put_devices(struct hw *w, const struct analysis *a, const struct frag *fr)
{
    json_key(&w->j, "devices");
    json_arr(&w->j);
    for (size_t d = 0; d < a->ndevs; d++) {
        const struct snap_device *v = a->devs[d].dev;
        json_obj(&w->j);
        kv_i(w, "device", v->device);
        kv_u(w, "live_bytes", v->live_bytes);
        kv_u(w, "live_count", v->live_count);
        kv_u(w, "peak_bytes", v->peak_bytes);
        kv_u(w, "peak_seq", v->peak_seq);
        kv_u(w, "peak_time_ns", v->peak_time_ns);
        kv_u(w, "alloc_count", v->alloc_count);
        kv_u(w, "free_count", v->free_count);
        kv_u(w, "failed_count", v->failed_count);
        kv_u(w, "mem_free", v->mem_free);
        kv_u(w, "mem_total", v->mem_total);
        for (size_t i = 0; fr && i < fr->ndev; i++)
            if (fr->dev[i].device == v->device)
                kv_d(w, "fragmentation", fr->dev[i].headline);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

/* ---- the page ---- */

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    /* nothing may be fetched: the page must work offline, from a file */
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"generator\" content=\"gpuleak-report\">\n";

/* The leaks section's part of the page: its flame graphs and tables. */
void html_leaks_block(struct hw *w, const struct report_ctx *r)
{
    html_flames(w, r->a);
    html_tables(w, r);
}

/* The writer state for r's page: 0, or -1 when out of memory. */
static int page_open(struct hw *w, struct report_ctx *r)
{
    *w = (struct hw){.r = r, .db = r->db};
    json_init_compact(&w->j, r->out);
    size_t ncs = r->db->ncs ? r->db->ncs : 1, nfr = r->db->nframes ? r->db->nframes : 1;
    w->cs_local = xmalloc(ncs * sizeof *w->cs_local);
    w->fr_local = xmalloc(nfr * sizeof *w->fr_local);
    if (!w->cs_local || !w->fr_local) {
        free(w->cs_local);
        free(w->fr_local);
        return -1;
    }
    memset(w->cs_local, 0xff, ncs * sizeof *w->cs_local);
    memset(w->fr_local, 0xff, nfr * sizeof *w->fr_local);
    return 0;
}

/* The head of the page up to the opening of its data; title: plain text. */
static void page_head_write(FILE *f, const char *title, unsigned pid, uint64_t sample_bytes)
{
    fputs(page_head, f);
    fputs("<title>", f);
    for (const char *p = title; p && *p; p++) /* text: escape what HTML would read */
        if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '&')
            fputs("&amp;", f);
        else
            fputc(*p, f);
    if (pid)
        fprintf(f, " (pid %u)", pid);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", gl_html_css);
    if (sample_bytes != 0) /* a sampled snapshot: said without script, too */
        fprintf(f, "<p id=\"gl-sampled\" class=\"meta\">Sampled report: stacks sampled (GPULEAK_MODE=light, one per "
                "%llu bytes allocated on average). Totals are exact; bytes by stack are estimates "
                "(est. columns).</p>\n", (unsigned long long)sample_bytes);
    fputs("<noscript>This report is drawn by JavaScript; enable it to see the charts.</noscript>\n"
          "<div id=\"app\"></div>\n<script type=\"application/json\" id=\"gl-data\">", f);
}

/* The data's last members (warnings, limits, frames and stacks), the
 * script and the end of the page; frees the writer.  0, or -1 when out of
 * memory. */
static int page_close(struct hw *w)
{
    const struct report_ctx *r = w->r;
    FILE *f = r->out;
    json_key(&w->j, "warnings");
    json_arr(&w->j);
    for (size_t i = 0; i < r->nwarnings; i++)
        json_str(&w->j, r->warnings[i]);
    json_end_arr(&w->j);
    json_key(&w->j, "limits");
    json_obj(&w->j);
    kv_u(w, "points", HT_POINTS);
    kv_u(w, "flame_div", HF_DIV);
    kv_u(w, "flame_nodes", HF_NODES);
    kv_u(w, "cells", HM_CELLS);
    kv_u(w, "rows", HT_ROWS);
    kv_u(w, "snapshot_columns", HG_COLS);
    json_end_obj(&w->j);
    hw_put_frames(w);
    json_end_obj(&w->j);
    fputs("</script>\n<script>\n", f);
    fputs(gl_html_js, f);
    fputs("</script>\n</body>\n</html>\n", f);

    bool oom = w->oom;
    free(w->cs_local);
    free(w->fr_local);
    free(w->cs_list);
    free(w->fr_list);
    for (size_t i = 0; i < w->npseudo; i++)
        free(w->pseudo[i]);
    free(w->pseudo);
    return oom ? -1 : 0;
}

int output_html(struct report_ctx *r, const struct html_multi *hm)
{
    struct hw w;
    if (page_open(&w, r) != 0)
        return -1;
    const char *exe = path_base(r->s->proc.exe.len ? r->s->proc.exe.s : r->path);
    char title[256];
    snprintf(title, sizeof title, "gpuleak report: %s", exe ? exe : "");
    page_head_write(r->out, title, r->s->proc.pid, r->s->sampling.mode ? r->s->sampling.sample_bytes : 0);
    json_obj(&w.j);
    kv_s(&w, "format", "gpuleak-html");
    kv_u(&w, "version", 1);
    kv_s(&w, "page", "snapshot");
    kv_u(&w, "page_size", FRAG_PAGE);
    put_snapshot(&w, r, r->path);
    put_summary(&w, r->a);
    /* PyTorch's verdict on its steps, as the JSON report has it: the page
     * shows its leaks by growth first, and its still-reachable lines */
    json_leaks_by_growth(r, &w.j);
    put_devices(&w, r->a, r->fr);
    sections_html(&w, r);
    html_growth(&w, hm);
    return page_close(&w);
}

int output_html_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr)
{
    struct hw w;
    if (page_open(&w, r) != 0)
        return -1;
    char title[64];
    snprintf(title, sizeof title, "gpuleak merge: %zu snapshot%s", n, n == 1 ? "" : "s");
    page_head_write(r->out, title, 0, 0);
    json_obj(&w.j);
    kv_s(&w, "format", "gpuleak-html");
    kv_u(&w, "version", 1);
    kv_s(&w, "page", "merge");
    html_merge(&w, m, n, mr);
    return page_close(&w);
}
