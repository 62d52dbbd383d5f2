/* Human-readable report of one snapshot, modelled on valgrind's leak report
 * and heaptrack_print: a header, a SUMMARY block, one paragraph per leak
 * group (exact bytes, human units, when and where it was allocated), what
 * allocator caches hold, a LEAK SUMMARY, each device's peak, then the
 * timeline and fragmentation sections (text_sections.c). */
#include "render/report.h"
#include "util/sat.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/reason.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "render/text/bad_frees.h"
#include "render/text/calls.h"
#include "render/text/oom.h"
#include "render/text/output_text.h"
#include "render/text/teardown.h"
#include "render/text/phases.h"
#include "render/text/text_sections.h"
#include "render/text/textout.h"
#include "util/fmt.h"

/* One argv word, single-quoted when the shell would need it. */
static void put_word(FILE *f, const struct snap_str *w)
{
    bool plain = w->len > 0;
    for (uint32_t i = 0; i < w->len && plain; i++) {
        unsigned char c = (unsigned char)w->s[i];
        plain = c > 0x20 && c < 0x7f && !strchr("'\"\\$`!*?[]{}()<>|&;#~", c);
    }
    if (plain) {
        put_safe(f, w->s, w->len);
        return;
    }
    fputc('\'', f);
    /* print the spans between single quotes whole, so UTF-8 stays intact */
    uint32_t start = 0;
    for (uint32_t i = 0; i <= w->len; i++) {
        if (i == w->len || w->s[i] == '\'') {
            put_safe(f, w->s + start, i - start);
            if (i < w->len)
                fputs("'\\''", f);
            start = i + 1;
        }
    }
    fputc('\'', f);
}

static void header(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    tc_on(r, TC_BOLD);
    fputs("==== gpuleak report ====", f);
    tc_off(r);
    fputs("\nsnapshot: ", f);
    put_str(f, r->path);
    fprintf(f, "\nprocess:  pid %u, ppid %u, rank %u, host ", p->pid, p->ppid, p->rank);
    put_safe(f, p->host.s, p->host.len);
    fputs("\ncommand: ", f);
    for (uint32_t i = 0; i < p->argc; i++) {
        fputc(' ', f);
        put_word(f, &p->argv[i]);
    }
    fputs("\nexe:      ", f);
    put_safe(f, p->exe.s, p->exe.len);
    fprintf(f, "\ntaken:    %s, ", reason_phrase(p->reason));
    put_secs(f, p->snapshot_mono_ns);
    fprintf(f, " after start (snapshot %" PRIu64 "%s)", p->index,
            p->flags & GL_SNAP_F_FINAL ? ", final" : "");
    time_t t = (time_t)(p->start_unix_ns / 1000000000u);
    struct tm tm;
    char when[64];
    if (p->start_unix_ns && gmtime_r(&t, &tm) &&
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm))
        fprintf(f, "\nstarted:  %s", when);
    fputc('\n', f);
    for (size_t i = 0; i < r->nwarnings; i++) {
        tc_on(r, TC_YELLOW);
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        tc_off(r);
        fputc('\n', f);
    }
}

static const struct frag_dev *frag_of(const struct report_ctx *r, int32_t dev)
{
    for (size_t i = 0; r->fr && i < r->fr->ndev; i++)
        if (r->fr->dev[i].device == dev)
            return &r->fr->dev[i];
    return NULL;
}

static void summary_line(FILE *f, const char *label, uint64_t bytes, uint64_t count,
                         size_t groups, const char *noun)
{
    fprintf(f, "    %-18s", label);
    put_bytes(f, bytes);
    fputs(" in ", f);
    put_count(f, count, noun);
    fputs(" from ", f);
    put_count(f, groups, "stack");
    fputc('\n', f);
}

/* The headline figures first: what is left, what caches hold, each device's
 * peak and fragmentation. */
static void summary(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    bool at_exit = r->s->proc.reason == GL_REASON_EXIT;
    t_title(r, "SUMMARY");
    if (r->sections & SEC_LEAKS) {
        if (a->leaks.bytes)
            tc_on(r, TC_RED);
        summary_line(f, at_exit ? "leaked:" : "live:", a->leaks.bytes,
                     a->leaks.count, a->leaks.total, "allocation");
        tc_off(r);
        if (a->cached.total)
            summary_line(f, "allocator caches:", a->cached.bytes, a->cached.count,
                         a->cached.total, "allocation");
        if (a->suppressed.total)
            summary_line(f, "suppressed:", a->suppressed.bytes, a->suppressed.count,
                         a->suppressed.total, "allocation");
        if (a->mapped.total)
            summary_line(f, at_exit ? "never released:" : "mapped:", a->mapped.bytes,
                         a->mapped.count, a->mapped.total, "mapping");
        text_bad_frees_summary(r);
        text_torn_summary(r);
    }
    text_oom_summary(r);
    for (size_t d = 0; d < a->ndevs; d++) {
        const struct snap_device *dv = a->devs[d].dev;
        fputs("    ", f);
        put_where(f, dv->device);
        fputs(": peak ", f);
        put_human(f, dv->peak_bytes);
        fputs(" at ", f);
        put_secs(f, dv->peak_time_ns);
        fputs(", live ", f);
        put_human(f, dv->live_bytes);
        const struct frag_dev *fd = frag_of(r, dv->device);
        if ((r->sections & SEC_FRAG) && fd && fd->addr_count)
            fprintf(f, ", fragmentation %.2f", fd->headline);
        fputc('\n', f);
    }
}

/* When a group was made ("allocated" or "mapped") and its stack. */
static void group_when(struct report_ctx *r, const struct leak_group *g, const char *verb)
{
    FILE *f = r->out;
    if (g->count == 1) {
        fprintf(f, "    %s at ", verb);
        put_secs(f, g->first_time_ns);
        fprintf(f, " (seq %" PRIu64 ")\n", g->first_seq);
    } else {
        fprintf(f, "    %s from ", verb);
        put_secs(f, g->first_time_ns);
        fputs(" to ", f);
        put_secs(f, g->last_time_ns);
        fprintf(f, " (seq %" PRIu64 "..%" PRIu64 ")\n", g->first_seq, g->last_seq);
    }
    put_cs(r, "    ", g->cs);
}

/* ": KIND memory on WHERE (API[ via the static runtime's X]), " */
static void group_where(struct report_ctx *r, const struct leak_group *g)
{
    FILE *f = r->out;
    put_kind_where(f, g->kind, g->device);
    fputs(" (", f);
    put_api(f, g->api);
    const char *via = g->cs ? r->db->cs[g->cs].via_static : NULL;
    if (via) {
        fputs(" via the static runtime's ", f);
        put_str(f, via);
    }
    fputs("), ", f);
}

/* "BYTES in N NOUNs: KIND memory on ..." -- the start of every group's
 * first line. */
static void group_what(struct report_ctx *r, const struct leak_group *g, enum tcolor color, const char *noun)
{
    put_amount(r, color, g->bytes, g->count, noun);
    group_where(r, g);
}

static void group_head(struct report_ctx *r, const struct leak_group *g, bool rule)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    group_what(r, g, rule ? TC_YELLOW : TC_RED, "allocation");
    if (rule) {
        fputs("held by ", f);
        put_str(f, r->sup->rules[g->rule].name);
        fputc('\n', f);
    } else if (p->reason == GL_REASON_EXIT) {
        fputs("not freed at exit\n", f);
    } else {
        fprintf(f, "live at the snapshot (%s)\n", reason_phrase(p->reason));
    }
    group_when(r, g, "allocated");
}

static void hidden_line(FILE *f, const struct group_list *l)
{
    if (l->n >= l->total)
        return;
    fprintf(f, "\n(%zu more group%s, ", l->total - l->n, l->total - l->n == 1 ? "" : "s");
    put_bytes(f, l->hidden_bytes);
    fputs(" in ", f);
    put_count(f, l->hidden_count, "allocation");
    fputs(", not shown: see --top / --min-bytes)\n", f);
}

static void leaks(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    t_title(r, "LEAKS");
    if (a->leaks.total == 0) {
        if (a->total_count == 0) {
            uint64_t total = 0;
            for (size_t i = 0; i < r->s->ndevices; i++)
                total += r->s->devices[i].alloc_count;
            uint64_t torn = 0;
            for (size_t i = 0; i < r->s->nteardowns; i++)
                torn = sat_add(torn, r->s->teardowns[i].count);
            fputs("No leaks: all ", f);
            put_count(f, total, "allocation");
            if (torn) {
                char c[32];
                fmt_commas(c, sizeof c, torn);
                fprintf(f, " were freed (%s only by a context teardown, below).\n", c);
            } else {
                fputs(" were freed.\n", f);
            }
        } else {
            if (a->mapped.count == a->total_count) {
                fputs("No leaks: nothing this process allocated is live; it still maps memory\n"
                      "allocated elsewhere (below).\n", f);
                return;
            }
            fputs("No leaks: the ", f);
            put_count(f, a->total_count, "live allocation");
            fputs(a->mapped.count ? " are held by allocator caches, suppressed, or mapped from\n"
                                    "other processes.\n"
                                  : " are held by allocator caches or suppressed.\n",
                  f);
        }
        return;
    }
    for (size_t i = 0; i < a->leaks.n; i++) {
        if (i)
            fputc('\n', f);
        group_head(r, &a->leaks.g[i], false);
    }
    hidden_line(f, &a->leaks);
}

static void rule_totals(struct report_ctx *r, bool builtin)
{
    FILE *f = r->out;
    for (size_t i = 0; i < r->a->nrules; i++) {
        const struct rule_total *t = &r->a->rules[i];
        if (!t->count || r->sup->rules[i].builtin != builtin)
            continue;
        fputs("    ", f);
        put_str(f, r->sup->rules[i].name);
        fputs(": ", f);
        put_bytes(f, t->bytes);
        fputs(" in ", f);
        put_count(f, t->count, "allocation");
        fputc('\n', f);
    }
}

static void caches(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    if (a->cached.total == 0)
        return;
    t_title(r, "HELD BY ALLOCATOR CACHES");
    fputs("Memory a caching allocator keeps for reuse on purpose (built-in rules;\n"
          "--no-default-suppressions reports it as leaks):\n", f);
    rule_totals(r, true);
    for (size_t i = 0; i < a->cached.n; i++) {
        fputc('\n', f);
        group_head(r, &a->cached.g[i], true);
    }
    hidden_line(f, &a->cached);
}

/* How a mapping of memory this process did not allocate ends, by the API
 * that made it: an IPC handle is closed, an imported pool pointer or a buffer
 * or array mapped from external memory freed, an imported VMM handle's
 * mapping unmapped and the handle itself released, an imported external
 * memory object destroyed. */
static const char *mapping_end(unsigned api)
{
    switch (api) {
    case GL_API_CUDA_MEM_POOL_IMPORT_POINTER:
    case GL_API_CU_MEM_POOL_IMPORT_POINTER:
    case GL_API_CUDA_EXTERNAL_MEMORY_GET_MAPPED_BUFFER:
    case GL_API_CU_EXTERNAL_MEMORY_GET_MAPPED_BUFFER:
    case GL_API_CUDA_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY:
    case GL_API_CU_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY:
        return "freed";
    case GL_API_CU_MEM_MAP:
        return "unmapped";
    case GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE:
        return "released";
    case GL_API_CUDA_IMPORT_EXTERNAL_MEMORY:
    case GL_API_CU_IMPORT_EXTERNAL_MEMORY:
        return "destroyed";
    default:
        return "closed";
    }
}

static bool is_import(unsigned api)
{
    return api == GL_API_CUDA_IMPORT_EXTERNAL_MEMORY || api == GL_API_CU_IMPORT_EXTERNAL_MEMORY ||
           api == GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE;
}

/* Imported VMM handles: the import says nothing of their size (the exporter
 * knows it; vmm_import.h), so the group has no bytes to show. */
static bool unsized_handles(const struct leak_group *g)
{
    return g->api == GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE && g->bytes == 0;
}

static void handles_what(struct report_ctx *r, const struct leak_group *g)
{
    FILE *f = r->out;
    tc_on(r, TC_RED);
    put_count(f, g->count, "imported handle");
    tc_off(r);
    fputs(" (size known only to the exporter)", f);
    group_where(r, g);
}

/* A group of mappings: what this process still had mapped or imported of
 * memory it did not allocate -- IPC handles never closed, imported pool
 * pointers never freed, imported VMM handles never unmapped, external memory
 * never destroyed and its buffers and arrays never freed. */
static void mapped_head(struct report_ctx *r, const struct leak_group *g)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    if (unsized_handles(g))
        handles_what(r, g);
    else
        group_what(r, g, TC_RED, is_import(g->api) ? "import" : "mapping");
    if (p->reason == GL_REASON_EXIT)
        fprintf(f, "never %s at exit\n", mapping_end(g->api));
    else
        fprintf(f, "%s at the snapshot (%s)\n", is_import(g->api) ? "imported" : "mapped",
                reason_phrase(p->reason));
    group_when(r, g, is_import(g->api) ? "imported" : "mapped");
}

static void mapped(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    if (a->mapped.total == 0)
        return;
    t_title(r, "MAPPED FROM OTHER PROCESSES OR APIS");
    fputs("Memory other processes exported (CUDA IPC handles, pool pointers, VMM\n"
          "handles) or other APIs allocated (external memory: Vulkan, Direct3D,\n"
          "DMA-BUF) that this one still maps or holds imported: it keeps that memory\n"
          "alive.  Not allocated through CUDA here, so not in this process's usage or\n"
          "peak:\n", f);
    for (size_t i = 0; i < a->mapped.n; i++) {
        fputc('\n', f);
        mapped_head(r, &a->mapped.g[i]);
    }
    hidden_line(f, &a->mapped);
}

static void leak_summary(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    t_title(r, "LEAK SUMMARY");
    fputs("    total: ", f);
    put_bytes(f, a->total_bytes);
    fputs(" in ", f);
    put_count(f, a->total_count, "allocation");
    fputc('\n', f);
    for (size_t i = 0; i < a->nby_kind; i++) {
        const struct kind_total *k = &a->by_kind[i];
        fputs("    ", f);
        put_kind(f, k->kind);
        fputs(" memory on ", f);
        put_where(f, k->device);
        fputs(": ", f);
        put_bytes(f, k->bytes);
        fputs(" in ", f);
        put_count(f, k->count, "allocation");
        fputc('\n', f);
    }
    if (a->cached.total) {
        fputs("    of which held by allocator caches: ", f);
        put_bytes(f, a->cached.bytes);
        fputs(" in ", f);
        put_count(f, a->cached.count, "allocation");
        fputc('\n', f);
    }
    if (a->suppressed.total) {
        fputs("    of which suppressed: ", f);
        put_bytes(f, a->suppressed.bytes);
        fputs(" in ", f);
        put_count(f, a->suppressed.count, "allocation");
        fputc('\n', f);
        rule_totals(r, false);
    }
    if (a->mapped.total) {
        fputs("    of which mapped from other processes or APIs: ", f);
        put_bytes(f, a->mapped.bytes);
        fputs(" in ", f);
        put_count(f, a->mapped.count, "mapping");
        fputc('\n', f);
    }
}

static const struct hist_dev *hist_of(const struct report_ctx *r, int32_t dev)
{
    for (size_t i = 0; i < r->h->ndev; i++)
        if (r->h->dev[i].device == dev)
            return &r->h->dev[i];
    return NULL;
}

static void put_label(const struct report_ctx *r, const struct hist_mark *m)
{
    if (m->label) {
        fputc('"', r->out);
        put_safe(r->out, m->label->text.s, m->label->text.len);
        fputc('"', r->out);
    } else {
        fprintf(r->out, "annotation %u", m->label_id);
    }
}

/* What the history says about one device's peak. */
static void peak_history(struct report_ctx *r, const struct snap_device *dv)
{
    FILE *f = r->out;
    const struct hist_dev *hd = hist_of(r, dv->device);
    if (!r->h->present || !hd)
        return;
    if (hd->peak_mark >= 0) {
        const struct hist_mark *m = &r->h->marks[hd->peak_mark];
        fputs("    after annotation ", f);
        put_label(r, m);
        fputs(" (", f);
        put_secs(f, m->time_ns);
        fputs(")\n", f);
    } else if (hd->peak_mark_known) {
        fputs("    no annotation before it\n", f);
    }
    if (hd->nbefore) {
        fputs("    allocations just before it (from the history):\n", f);
        for (size_t i = 0; i < hd->nbefore; i++) {
            const struct snap_event *e = &r->s->events[hd->before[i]];
            fputs("        ", f);
            put_bytes(f, e->size);
            fputs(" at ", f);
            put_secs(f, e->time_ns);
            fprintf(f, " (seq %" PRIu64 ") ", e->seq);
            put_kind(f, e->kind);
            fputs(": ", f);
            put_cs_top(r, sview_cs(r->v, e->stack_id));
            fputc('\n', f);
        }
    } else if (dv->peak_seq) {
        fputs("    the history does not reach back to the peak\n", f);
    }
    bool any = false;
    for (unsigned k = 0; k < GL_KIND_SLOTS; k++) {
        if (!hd->has_kind[k])
            continue;
        fputs(any ? ", " : "    highest by kind in the history: ", f);
        any = true;
        put_kind(f, k < GL_KIND_COUNT ? k : 0xffff);
        fputc(' ', f);
        put_human(f, hd->kind_max[k]);
        fputs(" at ", f);
        put_secs(f, hd->kind_max_time_ns[k]);
    }
    if (any)
        fputc('\n', f);
}

static void peaks(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    t_title(r, "PEAK");
    if (a->ndevs == 0)
        fputs("No device counters in this snapshot.\n", f);
    for (size_t d = 0; d < a->ndevs; d++) {
        const struct device_report *dr = &a->devs[d];
        const struct snap_device *dv = dr->dev;
        if (d)
            fputc('\n', f);
        put_where(f, dv->device);
        fputs(": peak ", f);
        put_bytes(f, dv->peak_bytes);
        fprintf(f, " at seq %" PRIu64 ", ", dv->peak_seq);
        put_secs(f, dv->peak_time_ns);
        fputs(" after start\n    ", f);
        put_count(f, dv->alloc_count, "allocation");
        fputs(" (", f);
        put_bytes(f, dv->alloc_bytes_total);
        fputs(" in total), ", f);
        put_count(f, dv->free_count, "free");
        fputs(", ", f);
        put_count(f, dv->failed_count, "failed allocation");
        fputs(", ", f);
        put_count(f, dv->unknown_free_count, "free");
        fputs(" of unknown pointers\n    live at the snapshot: ", f);
        put_bytes(f, dv->live_bytes);
        fputs(" in ", f);
        put_count(f, dv->live_count, "allocation");
        fputc('\n', f);
        if (dv->mem_total) {
            fputs("    driver: ", f);
            put_bytes(f, dv->mem_free);
            fputs(" free of ", f);
            put_bytes(f, dv->mem_total);
            fputc('\n', f);
        }
        peak_history(r, dv);
        if (dr->ncomp_total == 0)
            continue;
        fputs("    at the peak:\n", f);
        for (size_t i = 0; i < dr->ncomp; i++) {
            const struct peak_item *pk = &dr->comp[i];
            fputs("    ", f);
            put_bytes(f, pk->bytes);
            fputs(" in ", f);
            put_count(f, pk->count, "allocation");
            fputs(" from:\n", f);
            put_cs(r, "        ", pk->cs);
        }
        if (dr->ncomp < dr->ncomp_total) {
            fprintf(f, "    (%zu more, ", dr->ncomp_total - dr->ncomp);
            put_bytes(f, dr->comp_bytes_hidden);
            fputs(" in ", f);
            put_count(f, dr->comp_count_hidden, "allocation");
            fputs(", not shown)\n", f);
        }
    }
    if (!r->h->present && a->ndevs)
        fputs("\n(no history in this snapshot: the annotation and allocations before each\n"
              "peak and the peaks of each kind are not known)\n", f);
}

/* Allocation sites shown by default: the few that matter. */
#define CALLS_SHOWN 5

void output_text(struct report_ctx *r)
{
    header(r);
    summary(r);
    if (r->sections & SEC_PEAK)
        text_oom(r);
    if (r->sections & SEC_LEAKS) {
        leaks(r);
        caches(r);
        mapped(r);
        text_bad_frees(r);
        text_torn(r, r->top);
        leak_summary(r);
        text_calls(r, r->top ? r->top : CALLS_SHOWN);
    }
    if (r->sections & SEC_PEAK) {
        peaks(r);
        text_phases(r);
    }
    if (r->sections & SEC_TIMELINE)
        text_timeline(r);
    if (r->sections & SEC_FRAG)
        text_fragmentation(r);
}
