/* The TIMELINE and FRAGMENTATION sections of the text report.
 *
 * The timeline chart is W columns over the time the history covers; each
 * column shows the highest level reached in it (so no peak is ever averaged
 * away), drawn with the eighth-block characters for 8 levels per row. */
#include "render/report.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "render/text/text_sections.h"
#include "render/text/textout.h"
#include "util/fmt.h"

#define CHART_W 64
#define CHART_H 6

static const char *const eighths[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

static size_t column(const struct history *h, uint64_t t)
{
    if (t <= h->t0 || h->t1 <= h->t0)
        return 0;
    double x = (double)(t - h->t0) / (double)(h->t1 - h->t0) * CHART_W;
    return x >= CHART_W ? CHART_W - 1 : (size_t)x;
}

static char mark_char(const struct hist_mark *m, size_t nth_annotation)
{
    static const char ids[] = "123456789abcdefghijklmnopqrstuvwxyz";
    if (m->type == GL_EV_OOM)
        return 'X';
    if (m->type == GL_EV_SNAPSHOT)
        return 'S';
    return nth_annotation < sizeof ids - 1 ? ids[nth_annotation] : '*';
}

static void legend(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct history *h = r->h;
    size_t na = 0, shown = 0;
    for (size_t i = 0; i < h->nmarks; i++) {
        const struct hist_mark *m = &h->marks[i];
        char c = mark_char(m, na);
        if (m->type == GL_EV_ANNOTATION)
            na++;
        if (shown++ == 40) {
            fprintf(f, "    ... and %zu more marks\n", h->nmarks - i);
            break;
        }
        fprintf(f, "    %c ", c);
        if (m->type == GL_EV_ANNOTATION) {
            if (m->label) {
                fputc('"', f);
                put_safe(f, m->label->text.s, m->label->text.len);
                fputc('"', f);
            } else {
                fprintf(f, "annotation %u", m->label_id);
            }
        } else if (m->type == GL_EV_OOM) {
            fputs("out of memory on ", f);
            put_where(f, m->device);
            fputs(" asking for ", f);
            put_bytes(f, m->size);
            if (m->mem_total) {
                fputs(" (driver: ", f);
                put_bytes(f, m->mem_free);
                fputs(" free of ", f);
                put_bytes(f, m->mem_total);
                fputc(')', f);
            }
        } else {
            fputs("snapshot taken", f);
        }
        fputs(" at ", f);
        put_secs(f, m->time_ns);
        fprintf(f, " (seq %" PRIu64 ")\n", m->seq);
    }
}

static void chart(struct report_ctx *r, const struct hist_dev *hd)
{
    FILE *f = r->out;
    const struct history *h = r->h;
    uint64_t col[CHART_W];
    uint64_t level = hd->base;
    size_t idx = 0;
    for (size_t c = 0; c < CHART_W; c++) {
        uint64_t m = level;
        while (idx < hd->n && (c == CHART_W - 1 || column(h, hd->time_ns[idx]) <= c)) {
            level = hd->bytes[idx++];
            if (level > m)
                m = level;
        }
        col[c] = m;
    }
    uint64_t ymax = hd->max_bytes;
    unsigned ht[CHART_W];
    for (size_t c = 0; c < CHART_W; c++) {
        double x = ymax ? (double)col[c] / (double)ymax * CHART_H * 8 : 0;
        ht[c] = (unsigned)(x + 0.5);
        if (col[c] && ht[c] == 0)
            ht[c] = 1;
    }
    char top[32];
    fmt_human(top, sizeof top, ymax);
    if (!top[0])
        snprintf(top, sizeof top, "%" PRIu64 " B", ymax);
    for (int row = CHART_H - 1; row >= 0; row--) {
        if (row == CHART_H - 1)
            fprintf(f, "  %10s ┤", top);
        else if (row == 0)
            fprintf(f, "  %10s ┤", "0");
        else
            fprintf(f, "  %10s │", "");
        put_color(r, TC_CYAN);
        for (size_t c = 0; c < CHART_W; c++) {
            int k = (int)ht[c] - row * 8;
            fputs(eighths[k < 0 ? 0 : k > 8 ? 8 : k], f);
        }
        put_color_end(r);
        fputc('\n', f);
    }
    fprintf(f, "  %10s └", "");
    for (size_t c = 0; c < CHART_W; c++)
        fputs("─", f);
    fputc('\n', f);
    char marks[CHART_W + 1];
    memset(marks, ' ', CHART_W);
    marks[CHART_W] = '\0';
    size_t na = 0;
    for (size_t i = 0; i < h->nmarks; i++) {
        const struct hist_mark *m = &h->marks[i];
        char c = mark_char(m, na);
        if (m->type == GL_EV_ANNOTATION)
            na++;
        if (m->type == GL_EV_OOM && m->device != hd->device)
            continue;
        marks[column(h, m->time_ns)] = c;
    }
    marks[column(h, hd->max_time_ns)] = '^';
    size_t end = CHART_W;
    while (end > 0 && marks[end - 1] == ' ')
        end--;
    marks[end] = '\0';
    fprintf(f, "  %10s  %s\n", "", marks);
    char a[32], b[32];
    snprintf(a, sizeof a, "%.2f s", (double)h->t0 / 1e9);
    snprintf(b, sizeof b, "%.2f s", (double)h->t1 / 1e9);
    fprintf(f, "  %10s  %-*s%s\n", "", (int)(CHART_W - strlen(b)), a, b);
}

void text_timeline(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct history *h = r->h;
    put_title(r, "TIMELINE");
    if (!h->present) {
        fputs("No history in this snapshot.\n", f);
        return;
    }
    char c[32];
    fmt_commas(c, sizeof c, r->s->nevents);
    fprintf(f, "%s events from seq %" PRIu64 " to %" PRIu64 ", ", c, h->first_seq, h->last_seq);
    put_secs(f, h->t0);
    fputs(" to ", f);
    put_secs(f, h->t1);
    fputs(" (", f);
    put_count(f, h->nalloc, "allocation");
    fputs(", ", f);
    put_count(f, h->nfree, "free");
    fputs(")\n", f);
    if (h->inconsistent)
        fputs("(the history frees more than was live: levels before it are estimated)\n", f);
    if (h->nmarks) {
        fputs("marks: ^ highest point of the device", f);
        fputs("\n", f);
        legend(r);
    }
    bool any = false;
    for (size_t d = 0; d < h->ndev; d++) {
        const struct hist_dev *hd = &h->dev[d];
        if (hd->n == 0)
            continue;
        any = true;
        fputc('\n', f);
        put_where(f, hd->device);
        fputs(": from ", f);
        put_human(f, hd->base);
        fputs(", highest ", f);
        put_bytes(f, hd->max_bytes);
        fputs(" at ", f);
        put_secs(f, hd->max_time_ns);
        fprintf(f, " (seq %" PRIu64 ")\n", hd->max_seq);
        chart(r, hd);
    }
    if (!any)
        fputs("No allocations or frees in the history.\n", f);
}

static void put_pct(FILE *f, uint64_t part, uint64_t whole)
{
    fprintf(f, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static void size_classes(struct report_ctx *r, const struct frag_dev *fd)
{
    FILE *f = r->out;
    const struct hist_dev *hd = NULL;
    for (size_t i = 0; i < r->h->ndev; i++)
        if (r->h->dev[i].device == fd->device)
            hd = &r->h->dev[i];
    bool req = r->h->present && hd && hd->nreq;
    fprintf(f, "    size classes:   %21s %s\n", "live", req ? "   requested (history)" : "");
    for (unsigned k = 0; k < HIST_NCLASS; k++) {
        uint64_t lc = fd->live_class_count[k], rc = req ? hd->req_count[k] : 0;
        if (!lc && !rc)
            continue;
        char lo[32], hi[32], cnt[32], rq[32];
        uint64_t l = hist_size_class_low(k);
        if (l < 1024)
            snprintf(lo, sizeof lo, "%" PRIu64 " B", l);
        else
            fmt_human(lo, sizeof lo, l);
        if (k == 0)
            snprintf(hi, sizeof hi, "0 B");
        else if (k == 64)
            snprintf(hi, sizeof hi, "more");
        else if (2 * l < 1024)
            snprintf(hi, sizeof hi, "%" PRIu64 " B", 2 * l);
        else
            fmt_human(hi, sizeof hi, 2 * l);
        char range[72];
        if (k == 0)
            snprintf(range, sizeof range, "0 B");
        else
            snprintf(range, sizeof range, "%s - %s", lo, hi);
        fmt_commas(cnt, sizeof cnt, lc);
        fprintf(f, "        %-22s %10s", range, cnt);
        if (req) {
            fmt_commas(rq, sizeof rq, rc);
            fprintf(f, " %12s", rq);
        }
        fputc('\n', f);
    }
}

/* A pool's reserve and what of it is used: "R reserved, U<used_what>
 * R - U<unused_what>", the unused part in the short form. */
static void put_reserve(FILE *f, uint64_t reserved, uint64_t used, const char *used_what,
                        const char *unused_what)
{
    put_bytes(f, reserved);
    fputs(" reserved, ", f);
    put_bytes(f, used);
    fputs(used_what, f);
    put_human(f, reserved > used ? reserved - used : 0);
    fputs(unused_what, f);
}

void text_fragmentation(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct frag *fr = r->fr;
    put_title(r, "FRAGMENTATION");
    if (fr->idle_reservations) {
        /* address space alone is no device's until something is mapped */
        fputs("virtual address space reserved with nothing mapped in it: ", f);
        put_bytes(f, fr->idle_reserved);
        fputs(" in ", f);
        put_count(f, fr->idle_reservations, "reservation");
        fputs(fr->ndev ? "\n\n" : "\n", f);
    }
    if (fr->ndev == 0) {
        if (!fr->idle_reservations)
            fputs("No device memory in this snapshot.\n", f);
        return;
    }
    for (size_t d = 0; d < fr->ndev; d++) {
        const struct frag_dev *fd = &fr->dev[d];
        if (d)
            fputc('\n', f);
        put_where(f, fd->device);
        if (fd->addr_count)
            fprintf(f, ": fragmentation %.2f (1 - largest hole / free bytes in the used span)\n",
                    fd->headline);
        else
            fputs(": no live device or pool allocations\n", f);
        fputs("    live: ", f);
        put_bytes(f, fd->live_bytes);
        fputs(" in ", f);
        put_count(f, fd->live_count, "allocation");
        if (fd->have_driver) {
            fputs("; driver reports ", f);
            put_bytes(f, fd->driver_used);
            fputs(" used, ", f);
            if (fd->driver_used >= fd->live_bytes) {
                put_human(f, fd->driver_used - fd->live_bytes);
                fputs(" more than live\n", f);
            } else {
                put_human(f, fd->live_bytes - fd->driver_used);
                fputs(" less than live\n", f);
            }
        } else {
            fputs("; driver's view not recorded\n", f);
        }
        if (fd->addr_count) {
            fputs("    pages: ", f);
            put_count(f, fd->pages, "page");
            fputs(" of 2 MiB touched (", f);
            put_human(f, fd->pages * FRAG_PAGE);
            fputs(") for ", f);
            put_human(f, fd->addr_bytes);
            fputs(" of device/pool allocations: ", f);
            put_pct(f, fd->addr_bytes, fd->pages * FRAG_PAGE);
            fputs(" occupancy; ", f);
            put_count(f, fd->sparse_pages, "mostly-empty page");
            fputs(" (", f);
            put_human(f, fd->sparse_empty_bytes);
            fputs(" empty)\n", f);
            fputs("    holes: ", f);
            put_count(f, fd->holes, "hole");
            fprintf(f, " in the span 0x%" PRIx64 "-0x%" PRIx64 " (", fd->span_lo, fd->span_hi);
            put_human(f, fd->span_hi - fd->span_lo);
            fputs("): ", f);
            put_bytes(f, fd->hole_bytes);
            fputs(" free, largest ", f);
            put_bytes(f, fd->largest_hole);
            fputc('\n', f);
            if (fd->npins) {
                fputs("    allocations pinning mostly-empty pages:\n", f);
                for (size_t i = 0; i < fd->npins; i++) {
                    const struct frag_pin *p = &fd->pins[i];
                    fputs("    ", f);
                    put_bytes(f, p->empty_bytes);
                    fputs(" of empty pages held by ", f);
                    put_count(f, p->count, "allocation");
                    fputs(" from:\n", f);
                    put_cs(r, "        ", p->cs);
                }
                if (fd->npins < fd->npins_total)
                    fprintf(f, "    (%zu more stacks not shown)\n", fd->npins_total - fd->npins);
            }
        }
        if (fd->live_count || r->h->present)
            size_classes(r, fd);
        if (fd->npools) {
            fputs("    pools: ", f);
            put_count(f, fd->npools, "pool");
            fputs(", ", f);
            put_reserve(f, fd->pool_reserved, fd->pool_used, " used (", " reserved but unused)\n");
        }
        if (fd->have_graph_pool) {
            fputs("    graph memory pool: ", f);
            put_reserve(f, fd->graph_reserved, fd->graph_used, " used by live graph allocations (",
                        " kept until cuDeviceGraphMemTrim)\n");
        }
        if (fd->nreservations || fd->nmappings || fd->nphysical) {
            fputs("    virtual memory: ", f);
            put_bytes(f, fd->va_reserved);
            fputs(" of address space reserved, ", f);
            put_bytes(f, fd->va_mapped);
            fputs(" mapped, ", f);
            put_bytes(f, fd->physical);
            fputs(" physical created (", f);
            put_human(f, fd->physical_unmapped);
            fputs(" of it not mapped)\n", f);
        }
    }
}
