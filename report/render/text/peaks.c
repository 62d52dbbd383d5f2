/* PEAK: each device's peak, what made it up, and what the history says
 * about it (the annotation in force, the allocations just before it). */
#include "render/text/peaks.h"

#include <inttypes.h>

#include "analysis/analyze.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "render/report.h"
#include "render/text/textout.h"

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

/* "BYTES in N allocations", or in a sampled snapshot what the stack's
 * sampled allocations stand for (as text_group_what says it). */
static void peak_item_what(struct report_ctx *r, const struct peak_item *pk)
{
    FILE *f = r->out;
    if (r->s->sampling.mode) {
        fputc('~', f);
        put_bytes(f, est_round(pk->est_bytes));
        fputs(" in ~", f);
        put_count(f, est_round(pk->est_count), "allocation");
        fputs(" (estimated from ", f);
        put_count(f, pk->count, "sampled allocation");
        fputs(" of ", f);
        put_bytes(f, pk->bytes);
        fputc(')', f);
        return;
    }
    put_bytes(f, pk->bytes);
    fputs(" in ", f);
    put_count(f, pk->count, "allocation");
}

void text_peaks(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    put_title(r, "PEAK");
    if (r->s->sampling.mode) /* the device figures are exact; the stacks', estimates */
        fputs("Sampled (GPULEAK_MODE=light): the device figures are exact; each stack's\n"
              "bytes at the peak are estimates (~) from its sampled allocations.\n", f);
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
            peak_item_what(r, pk);
            fputs(" from:\n", f);
            put_cs(r, "        ", pk->cs);
        }
        if (dr->comp_unsampled_count) {
            fputs("    (not sampled: ", f);
            put_bytes(f, dr->comp_unsampled_bytes);
            fputs(" in ", f);
            put_count(f, dr->comp_unsampled_count, "allocation");
            fputs(", in the estimates above)\n", f);
        }
        if (dr->ncomp + dr->ncomp_unsampled < dr->ncomp_total) {
            fprintf(f, "    (%zu more, ", dr->ncomp_total - dr->ncomp - dr->ncomp_unsampled);
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
