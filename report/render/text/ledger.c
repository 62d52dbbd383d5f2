/* The LEDGER section: one table per device with the driver's view, the
 * amount first (exact bytes, human units, share of used memory), then what
 * it is, so long labels need no column.  The remainder is always printed,
 * signed: a ledger that hid what it cannot explain would explain nothing. */
#include "render/text/ledger.h"

#include <inttypes.h>
#include <stdio.h>

#include "analysis/ledger.h"
#include "render/report.h"
#include "render/text/textout.h"
#include "util/fmt.h"

/* "      23,068,672  (22.0 MiB)   36.7%  " -- the amount columns of a row;
 * pct < 0: no share (a part of a row). */
static void amount(FILE *f, const char *sign, uint64_t v, double pct, bool share)
{
    char c[32], h[32], hh[40];
    fmt_commas(c, sizeof c, v);
    fmt_human(h, sizeof h, v);
    hh[0] = '\0';
    if (h[0])
        snprintf(hh, sizeof hh, "(%s%s)", sign, h);
    char cc[40];
    snprintf(cc, sizeof cc, "%s%s", sign, c);
    fprintf(f, "  %16s  %-12s", cc, hh);
    if (share)
        fprintf(f, " %6.1f%%  ", pct);
    else
        fputs("          ", f);
}

static double pct(uint64_t v, uint64_t used) { return used ? (double)v * 100.0 / (double)used : 0.0; }

static void row(FILE *f, uint64_t v, uint64_t used, const char *label)
{
    amount(f, "", v, pct(v, used), true);
    fprintf(f, "%s\n", label);
}

/* The before-attach row's parts: PyTorch's segments made before the attach
 * (as PyTorch listed them when the attach asked) and the rest. */
static void before_attach_torch(FILE *f, const struct ledger_dev *d)
{
    if (d->torch_status == GL_BEFORE_ATTACH_TORCH_NO_ANSWER) {
        fprintf(f, "  %16s  %-12s %7s    %s\n", "", "", "",
                "of them, PyTorch's segments: not known, PyTorch has not answered the attach yet");
        return;
    }
    if (d->torch_status != GL_BEFORE_ATTACH_TORCH_ANSWERED)
        return;
    amount(f, "", d->torch_left, 0, false);
    fputs("  of them, PyTorch's segments, reserved by its caching allocator before the attach:\n", f);
    fprintf(f, "  %16s  %-12s %7s      ", "", "", "");
    put_bytes(f, d->torch_at_attach);
    fprintf(f, " in %" PRIu32 " segment%s at the attach, less ", d->torch_segments, d->torch_segments == 1 ? "" : "s");
    put_bytes(f, d->torch_freed);
    fprintf(f, " freed since (%" PRIu32 " free%s)\n", d->torch_frees, d->torch_frees == 1 ? "" : "s");
    if (d->torch_left != 0) {
        fprintf(f, "  %16s  %-12s %7s      their live tensors now: ", "", "", "");
        put_bytes(f, d->torch_tensor_bytes);
        fprintf(f, " in %" PRIu64 " tensor%s, by line in PYTORCH'S CACHE\n", d->torch_tensors,
                d->torch_tensors == 1 ? "" : "s");
    }
    amount(f, "", d->before_attach_rest, 0, false);
    fputs("  of them, the rest: CUDA context(s), other libraries, other processes\n", f);
}

static void device(struct report_ctx *r, const struct ledger_dev *d)
{
    FILE *f = r->out;
    put_where(f, d->device);
    fputs(": ", f);
    put_bytes(f, d->used);
    fputs(" used of ", f);
    put_human(f, d->mem_total);
    fputs(" (total - free, the driver's view):\n", f);
    row(f, d->live, d->used, "live allocations of this process");
    for (unsigned k = 0; k < GL_KIND_COUNT; k++) {
        if (!ledger_resident(k) || d->kind_count[k] == 0)
            continue;
        amount(f, "", d->kind_bytes[k], 0, false);
        fprintf(f, "  %s: %" PRIu64 " allocation%s\n", gl_kind_name(k), d->kind_count[k],
                d->kind_count[k] == 1 ? "" : "s");
    }
    amount(f, "", d->cached, 0, false);
    fputs(r->s->sampling.mode ? "  of them, held by allocator caches (built-in rules; estimated, sampled)\n"
                               : "  of them, held by allocator caches (built-in rules)\n", f);
    row(f, d->pool_idle, d->used, "memory pools' reserve, not allocated");
    row(f, d->graph_idle, d->used, "graph memory pool's reserve, not allocated");
    row(f, d->modules, d->used, "loaded modules");
    if (d->ctx_measured) {
        amount(f, "", d->ctx, pct(d->ctx, d->used), true);
        fputs("CUDA context(s), and other processes when it was created", f);
        if (d->ctx_creations > 1)
            fprintf(f, " (the last of %" PRIu32 " creations)", d->ctx_creations);
        fputc('\n', f);
    } else if (!d->attached) {
        fprintf(f, "  %16s  %-12s %7s  %s\n", "-", "", "",
                "CUDA context: not measured (in \"unexplained\")");
    }
    if (d->attached) {
        row(f, d->before_attach, d->used, "made before attach (gpuleak attach), CUDA context(s) included");
        fprintf(f, "  %16s  %-12s %7s    ", "", "", "");
        put_bytes(f, d->before_attach_used);
        fprintf(f, " used at the attach, less ");
        put_bytes(f, d->before_attach_freed);
        fprintf(f, " seen freed since (%" PRIu64 " free%s)\n", d->before_attach_frees,
                d->before_attach_frees == 1 ? "" : "s");
        before_attach_torch(f, d);
    }
    row(f, d->ipc, d->used, "mapped from other processes (their allocations)");
    row(f, d->external, d->used, "other APIs' memory imported here (external)");
    uint64_t mag = d->remainder < 0 ? (uint64_t)0 - (uint64_t)d->remainder : (uint64_t)d->remainder;
    if (d->remainder != 0)
        put_color(r, TC_YELLOW);
    amount(f, d->remainder < 0 ? "-" : "", mag, d->used ? ledger_remainder_pct(d) : 0.0, true);
    fputs("unexplained: other processes, or memory gpuleak did not see\n", f);
    put_color_end(r);
    if (d->remainder < 0)
        fputs("        (negative: more explained than used; the context was measured while memory\n"
              "        since freed was in use, by this or another process)\n",
              f);
    if (d->nmanaged) {
        fputs("    not counted: ", f);
        put_bytes(f, d->managed);
        fputs(" of managed memory, on the device only where its pages are (then in \"unexplained\")\n", f);
    }
}

void text_ledger(struct report_ctx *r)
{
    const struct ledger *l = r->lg;
    if (l == NULL || l->ndev == 0)
        return;
    put_title(r, "LEDGER");
    for (size_t i = 0; i < l->ndev; i++) {
        if (i)
            fputc('\n', r->out);
        device(r, &l->dev[i]);
    }
}
