/* PHASES: one block per phase, indented by nesting, one line per device
 * with its peak and net change, then what made up the peak by category
 * and by stack (innermost frame).  Exact byte counts first, as elsewhere. */
#include "render/text/phases.h"

#include "analysis/phases.h"
#include "render/report.h"
#include "render/text/textout.h"

#define TEXT_STACKS 3 /* stacks shown per device; the JSON has PHASE_STACKS */

static void indent(FILE *f, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++)
        fputs("  ", f);
}

static void put_phase_label(FILE *f, const struct phase *p)
{
    if (p->label) {
        fputc('"', f);
        put_safe(f, p->label->text.s, p->name_len);
        fputc('"', f);
    } else {
        fprintf(f, "annotation %u", p->label_id);
    }
}

static void put_net(FILE *f, uint64_t start, uint64_t end)
{
    if (end == start) {
        fputs("net 0 bytes", f);
        return;
    }
    fputs(end > start ? "net +" : "net -", f);
    put_bytes(f, end > start ? end - start : start - end);
}

static void device_line(struct report_ctx *r, const struct phase *p, const struct phase_dev *pd)
{
    FILE *f = r->out;
    indent(f, p->depth + 2);
    put_where(f, pd->device);
    fputs(": peak ", f);
    put_bytes(f, pd->peak_bytes);
    if (pd->peak_at_start)
        fputs(" at the start", f);
    else
        fprintf(f, " at seq %llu", (unsigned long long)pd->peak_seq);
    fputs(", ", f);
    put_net(f, pd->start_bytes, pd->end_bytes);
    fputs(" (", f);
    put_human(f, pd->start_bytes);
    fputs(" -> ", f);
    put_human(f, pd->end_bytes);
    fprintf(f, "; %llu allocs, %llu frees)\n", (unsigned long long)pd->allocs,
            (unsigned long long)pd->frees);
    if (pd->ncats) {
        indent(f, p->depth + 4);
        fputs("at the peak by category:", f);
        for (size_t i = 0; i < pd->ncats; i++) {
            const struct phase_cat *c = &pd->cats[i];
            fputs(i ? ", " : " ", f);
            put_str(f, r->ph->cat->names[c->cat]);
            fputc(' ', f);
            put_human(f, c->bytes);
        }
        fputc('\n', f);
    }
    size_t shown = pd->nstacks < TEXT_STACKS ? pd->nstacks : TEXT_STACKS;
    uint64_t hb = pd->hidden_bytes, hc = pd->hidden_count;
    for (size_t i = 0; i < pd->nstacks; i++) {
        const struct phase_stack *st = &pd->stacks[i];
        if (i >= shown) {
            hb += st->bytes;
            hc += st->count;
            continue;
        }
        indent(f, p->depth + 4);
        put_human(f, st->bytes);
        fputs(" in ", f);
        put_count(f, st->count, "allocation");
        fputs(": ", f);
        put_cs_top(r, st->cs);
        fputc('\n', f);
    }
    if (pd->nstacks_total > shown) {
        indent(f, p->depth + 4);
        fputc('(', f);
        put_count(f, pd->nstacks_total - shown, "more stack");
        fputs(", ", f);
        put_human(f, hb);
        fputs(" in ", f);
        put_count(f, hc, "allocation");
        fputs(")\n", f);
    }
}

static void phase_head(FILE *f, const struct phase *p)
{
    indent(f, p->depth);
    fputs("phase ", f);
    put_phase_label(f, p);
    if (p->start_known) {
        fprintf(f, ": seq %llu", (unsigned long long)p->start_seq);
    } else {
        fprintf(f, ": began before the history (its start was overwritten), shown from seq %llu",
                (unsigned long long)p->start_seq);
    }
    fprintf(f, " to %llu (", (unsigned long long)p->end_seq);
    put_secs(f, p->end_time_ns >= p->start_time_ns ? p->end_time_ns - p->start_time_ns : 0);
    fputc(')', f);
    switch (p->end) {
    case PHASE_END_MARK: fputs(", ended by its \"(end)\"\n", f); break;
    case PHASE_END_NEXT: fputs(", until the next annotation\n", f); break;
    case PHASE_END_PARENT: fputs(", ended with the phase around it\n", f); break;
    case PHASE_END_HISTORY: fputs(", still open at the snapshot\n", f); break;
    }
}

void text_phases(struct report_ctx *r)
{
    const struct phases *ph = r->ph;
    if (!ph || (ph->n == 0 && ph->unmatched_ends == 0 && ph->too_deep == 0))
        return;
    FILE *f = r->out;
    put_title(r, "PHASES");
    if (r->s->sampling.mode) /* not scaled: a phase's stacks come from the history's events */
        fputs("Sampled (GPULEAK_MODE=light): the levels and counts are exact; the stacks and\n"
              "categories at each peak hold sampled allocations only (the rest: not sampled).\n", f);
    if (ph->wrapped)
        fprintf(f, "(the history starts at seq %llu: annotations before it are gone)\n",
                (unsigned long long)ph->first_seq);
    if (ph->inconsistent)
        fputs("(the history frees more than was live: levels raised to stay non-negative)\n", f);
    for (size_t i = 0; i < ph->n; i++) {
        const struct phase *p = &ph->p[i];
        phase_head(f, p);
        if (p->ndevs == 0) {
            indent(f, p->depth + 2);
            fputs("no memory and no allocation\n", f);
        }
        for (size_t k = 0; k < p->ndevs; k++)
            device_line(r, p, &p->devs[k]);
    }
    if (ph->too_deep)
        fprintf(f, "(%zu phases nested more than %d deep not shown)\n", ph->too_deep, PHASE_MAX_DEPTH);
    if (ph->unmatched_ends)
        fprintf(f, "(%zu \"(end)\" annotations closed no phase)\n", ph->unmatched_ends);
}
