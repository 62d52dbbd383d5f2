/* Human-readable report, modelled on valgrind's leak report: a header, one
 * paragraph per leak group (exact bytes, human units, where it was
 * allocated), a LEAK SUMMARY, then each device's peak and what made it up.
 * Strings from the snapshot are printed with control bytes as \xNN so a
 * hostile path or argv cannot drive the terminal. */
#include "report.h"

#include "json.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

/* Valid UTF-8 passes through; control bytes, DEL and bytes of invalid
 * UTF-8 sequences are written as \xNN. */
static void put_safe(FILE *f, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        size_t n = s[i] < 0x20 || s[i] == 0x7f ? 0 : utf8_len(s + i, len - i);
        if (n == 0) {
            fprintf(f, "\\x%02x", s[i]);
            i++;
        } else {
            fwrite(s + i, 1, n, f);
            i += n;
        }
    }
}

static void put_str(FILE *f, const char *s)
{
    put_safe(f, s, strlen(s));
}

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

/* "1,048,576 bytes (1.0 MiB)" */
static void put_bytes(FILE *f, uint64_t v)
{
    char c[32], h[32];
    fmt_commas(c, sizeof c, v);
    fmt_human(h, sizeof h, v);
    fprintf(f, "%s byte%s", c, v == 1 ? "" : "s");
    if (h[0])
        fprintf(f, " (%s)", h);
}

static void put_count(FILE *f, uint64_t n, const char *noun)
{
    char c[32];
    fmt_commas(c, sizeof c, n);
    fprintf(f, "%s %s%s", c, noun, n == 1 ? "" : "s");
}

static void put_secs(FILE *f, uint64_t ns)
{
    fprintf(f, "%.2f s", (double)ns / 1e9);
}

static void put_where(FILE *f, int32_t dev)
{
    if (dev < 0)
        fputs("host", f);
    else
        fprintf(f, "device %d", dev);
}

/* Kinds and APIs newer than this reader print with their number. */
static void put_kind(FILE *f, unsigned kind)
{
    if (kind < GL_KIND_COUNT)
        fputs(gl_kind_name(kind), f);
    else
        fprintf(f, "unknown (kind %u)", kind);
}

static void put_api(FILE *f, unsigned api)
{
    if (api < GL_API_COUNT)
        fputs(gl_api_name(api), f);
    else
        fprintf(f, "unknown api %u", api);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void put_frame(FILE *f, const char *indent, unsigned idx,
                      const struct sym_frame *fr)
{
    fprintf(f, "%s#%u ", indent, idx);
    if (!fr->module) {
        fprintf(f, "0x%" PRIx64 " (in no known module)\n", fr->address);
        return;
    }
    if (!fr->function) {
        put_str(f, fr->module);
        fprintf(f, "+0x%" PRIx64 "\n", fr->offset);
        return;
    }
    put_str(f, fr->function);
    if (fr->file) {
        fputs(" (", f);
        put_str(f, base_name(fr->file));
        if (fr->line)
            fprintf(f, ":%u", fr->line);
        fputs(") [", f);
        put_str(f, fr->module);
        fputc(']', f);
    } else {
        fputs(" [", f);
        put_str(f, fr->module);
        fprintf(f, "+0x%" PRIx64 "]", fr->offset);
    }
    fputs(fr->inlined ? " (inlined)\n" : "\n", f);
}

static void put_stack(struct report_ctx *r, const char *indent, uint32_t id)
{
    FILE *f = r->out;
    const struct snap_stack *st = snap_find_stack(r->s, id);
    if (!st) {
        fprintf(f, "%s(no stack captured)\n", indent);
        return;
    }
    const uint64_t *pcs = snap_stack_pcs(r->s, st);
    unsigned idx = 0;
    for (uint32_t i = 0; i < st->depth; i++) {
        size_t n;
        const struct sym_frame *fr = sym_pc(r->sy, pcs[i], &n);
        for (size_t k = 0; k < n; k++)
            put_frame(f, indent, idx++, &fr[k]);
    }
    if (st->depth == 0)
        fprintf(f, "%s(empty stack)\n", indent);
    else if (r->s->proc.depth_limit && st->depth >= r->s->proc.depth_limit)
        fprintf(f, "%s... (stack cut at the %u-frame limit)\n", indent,
                r->s->proc.depth_limit);
}

static void header(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    fputs("==== gpuleak report ====\n", f);
    fputs("snapshot: ", f);
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
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        fputc('\n', f);
    }
}

static void leaks(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    const struct snap_process *p = &r->s->proc;
    fputs("\nLEAKS\n", f);
    if (a->ngroups_total == 0) {
        uint64_t total = 0;
        for (size_t i = 0; i < r->s->ndevices; i++)
            total += r->s->devices[i].alloc_count;
        fputs("No leaks: all ", f);
        put_count(f, total, "allocation");
        fputs(" were freed.\n", f);
        return;
    }
    for (size_t i = 0; i < a->ngroups; i++) {
        const struct leak_group *g = &a->groups[i];
        if (i)
            fputc('\n', f);
        put_bytes(f, g->bytes);
        fputs(" in ", f);
        put_count(f, g->count, "allocation");
        fputs(": ", f);
        put_kind(f, g->kind);
        fputs(" memory on ", f);
        put_where(f, g->device);
        fputs(" (", f);
        put_api(f, g->api);
        fputs("), ", f);
        if (p->reason == GL_REASON_EXIT)
            fputs("not freed at exit\n", f);
        else
            fprintf(f, "live at the snapshot (%s)\n", reason_phrase(p->reason));
        put_stack(r, "    ", g->stack_id);
    }
    if (a->ngroups < a->ngroups_total) {
        fprintf(f, "\n(%zu more group%s, ", a->ngroups_total - a->ngroups,
                a->ngroups_total - a->ngroups == 1 ? "" : "s");
        put_bytes(f, a->hidden_bytes);
        fputs(" in ", f);
        put_count(f, a->hidden_count, "allocation");
        fputs(", not shown: see --top / --min-bytes)\n", f);
    }
}

static void summary(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    fputs("\nLEAK SUMMARY\n    total: ", f);
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
}

static void peaks(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    fputs("\nPEAK\n", f);
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
        if (dr->ncomp_total == 0)
            continue;
        fputs("    at the peak:\n", f);
        for (size_t i = 0; i < dr->ncomp; i++) {
            const struct snap_peak *pk = &dr->comp[i];
            fputs("    ", f);
            put_bytes(f, pk->bytes);
            fputs(" in ", f);
            put_count(f, pk->count, "allocation");
            fputs(" from:\n", f);
            put_stack(r, "        ", pk->stack_id);
        }
        if (dr->ncomp < dr->ncomp_total) {
            fprintf(f, "    (%zu more, ", dr->ncomp_total - dr->ncomp);
            put_bytes(f, dr->comp_bytes_hidden);
            fputs(" in ", f);
            put_count(f, dr->comp_count_hidden, "allocation");
            fputs(", not shown)\n", f);
        }
    }
}

void output_text(struct report_ctx *r)
{
    header(r);
    leaks(r);
    summary(r);
    peaks(r);
}
