/* The INVALID FREES section and summary line of the text report. */
#include "render/text/bad_frees.h"

#include <inttypes.h>
#include <stdlib.h>

#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "model/stackdb.h"
#include "render/report.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/fmt.h"
#include "util/sat.h"

void text_bad_frees_summary(struct report_ctx *r)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    if (v == NULL)
        return;
    FILE *f = r->out;
    /* Double frees are their own kind, as in valgrind's and
     * compute-sanitizer's summaries; the other invalid frees follow. */
    if (t.double_sites) {
        put_color(r, TC_RED);
        fprintf(f, "    %-18s", "double frees:");
        put_count(f, t.double_count, "free");
        fputs(" from ", f);
        put_count(f, t.double_sites, "stack");
        put_color_end(r);
        fputs(", each of an address freed before\n", f);
    }
    if (t.sites > t.double_sites) {
        put_color(r, TC_RED);
        fprintf(f, "    %-18s", "invalid frees:");
        put_count(f, t.count - t.double_count, "free");
        fputs(" from ", f);
        put_count(f, t.sites - t.double_sites, "stack");
        put_color_end(r);
        fprintf(f, ", %" PRIu64 " refused by CUDA\n", t.refused_count - t.double_count);
    }
    free(v);
}

/* valgrind's "Address 0x... is 16 bytes inside a block of size 4,096
 * alloc'd", with the place the block was allocated at. */
static void text_inside(struct report_ctx *r, const struct snap_bad_free *b,
                        const struct bad_free_block *k)
{
    FILE *f = r->out;
    fprintf(f, "    %" PRIu64 " byte%s inside the ", b->ptr - k->base, b->ptr - k->base == 1 ? "" : "s");
    put_human_or(f, k->bytes, "-byte");
    fputs(" block", f);
    if (k->freed) {
        fputs(" freed at ", f);
        put_secs(f, k->free_time_ns);
        fputs(",", f);
    }
    fputs(" allocated at ", f);
    put_cs_top(r, sview_cs(r->v, k->stack_id));
    fputs(", ", f);
    put_secs(f, k->alloc_time_ns);
    fprintf(f, " (seq %" PRIu64 "), by\n", k->alloc_seq);
    put_cs(r, "        ", sview_cs(r->v, k->stack_id));
}

void text_bad_frees(struct report_ctx *r)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    if (v == NULL)
        return;
    FILE *f = r->out;
    put_title(r, "INVALID FREES");
    fputs("Frees of an address or handle that had no live allocation.  Refused by\n"
          "CUDA: freed twice (a double free: the history holds the first free), never\n"
          "allocated, or not the start of an allocation -- a bug in the program.\n"
          "Accepted by CUDA: memory allocated where gpuleak could not see it.\n", f);
    struct bad_free_block *blocks = bad_free_blocks(r->s);
    for (size_t i = 0; i < t.sites; i++) {
        const struct snap_bad_free *b = v[i];
        const struct bad_free_block *k = &blocks[b - r->s->bad_frees];
        fputc('\n', f);
        put_color(r, bad_free_refused(b) ? TC_RED : TC_YELLOW);
        put_count(f, b->count, "free");
        put_color_end(r);
        fputs(" (", f);
        put_api(f, b->api);
        fputs(") on ", f);
        put_where(f, b->device);
        bool twice = bad_free_is_double(r->s, b);
        fputs(!bad_free_refused(b) ? ", accepted by CUDA (allocated where gpuleak could not see it)\n"
              : twice     ? ", refused by CUDA (double free: the address was freed before)\n"
              : k->found  ? ", refused by CUDA (invalid free: not the start of an allocation)\n"
                          : ", refused by CUDA (double or invalid free)\n", f);
        fprintf(f, "    first at ");
        put_secs(f, b->time_ns);
        fprintf(f, ", address 0x%" PRIx64 "\n", b->ptr);
        put_cs(r, "    ", sview_cs(r->v, b->stack_id));
        if (k->found && !twice) /* a double free's address starts its own block */
            text_inside(r, b, k);
        const struct snap_event *al, *fr = bad_free_previous(r->s, b, &al);
        if (fr != NULL) {
            fputs("    that address was freed before, at ", f);
            put_secs(f, fr->time_ns);
            fprintf(f, " (seq %" PRIu64 "): ", fr->seq);
            put_bytes(f, fr->size);
            fputs(" allocated", f);
            if (al != NULL) {
                fputs(" at ", f);
                put_secs(f, al->time_ns);
                fprintf(f, " (seq %" PRIu64 ")", al->seq);
            }
            fputs(" by\n", f);
            put_cs(r, "        ", sview_cs(r->v, fr->stack_id));
            if (fr->free_stack_id) {
                fputs("    and freed by\n", f);
                put_cs(r, "        ", sview_cs(r->v, fr->free_stack_id));
            } else {
                fputs("    (where it was freed is not recorded: GPULEAK_FREE_STACKS=1 records it)\n", f);
            }
        }
    }
    free(blocks);
    free(v);
}
