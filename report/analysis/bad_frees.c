#include "analysis/bad_frees.h"

#include "analysis/bad_free_block.h"

#include <inttypes.h>
#include <stdlib.h>

#include "render/json/json.h"
#include "render/report.h"
#include "util/sat.h"
#include "snapshot_format.h"
#include "util/sort.h"
#include "render/text/textout.h"
#include "util/xalloc.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs); /* output_json.c */

static int cmp(const void *a, const void *b)
{
    const struct snap_bad_free *x = *(const struct snap_bad_free *const *)a;
    const struct snap_bad_free *y = *(const struct snap_bad_free *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    if (x->stack_id != y->stack_id)
        return x->stack_id < y->stack_id ? -1 : 1;
    return x->api < y->api ? -1 : x->api > y->api;
}

const struct snap_bad_free **bad_frees_sorted(const struct snapshot *s, struct bad_free_totals *t)
{
    *t = (struct bad_free_totals){.sites = s->nbad_frees};
    if (s->nbad_frees == 0)
        return NULL;
    const struct snap_bad_free **v = xcalloc(s->nbad_frees, sizeof *v);
    for (size_t i = 0; i < s->nbad_frees; i++) {
        const struct snap_bad_free *b = &s->bad_frees[i];
        v[i] = b;
        t->count = sat_add(t->count, b->count);
        if (b->flags & GL_BAD_FREE_F_REJECTED)
            t->refused_count = sat_add(t->refused_count, b->count);
    }
    sort_array(v, s->nbad_frees, sizeof *v, cmp);
    return v;
}

static bool refused(const struct snap_bad_free *b) { return (b->flags & GL_BAD_FREE_F_REJECTED) != 0; }

const struct snap_event *bad_free_previous(const struct snapshot *s, const struct snap_bad_free *b,
                                           const struct snap_event **alloc)
{
    *alloc = NULL;
    size_t i = s->nevents;
    while (i > 0) {
        const struct snap_event *e = &s->events[--i];
        if (e->type != GL_EV_FREE || e->ptr != b->ptr || e->time_ns > b->time_ns)
            continue;
        for (size_t k = i; k > 0;) {
            const struct snap_event *a = &s->events[--k];
            if (a->type == GL_EV_ALLOC && a->ptr == e->ptr && a->seq < e->seq) {
                *alloc = a;
                break;
            }
        }
        return e;
    }
    return NULL;
}

void text_bad_frees_summary(struct report_ctx *r)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    if (v == NULL)
        return;
    FILE *f = r->out;
    tc_on(r, TC_RED);
    fprintf(f, "    %-18s", "invalid frees:");
    put_count(f, t.count, "free");
    fputs(" from ", f);
    put_count(f, t.sites, "stack");
    tc_off(r);
    fprintf(f, ", %" PRIu64 " refused by CUDA\n", t.refused_count);
    free(v);
}

/* "16-byte" below a KiB, "4.0 KiB" above */
static void put_block_size(FILE *f, uint64_t bytes)
{
    char h[32];
    fmt_human(h, sizeof h, bytes);
    if (h[0])
        fputs(h, f);
    else
        fprintf(f, "%" PRIu64 "-byte", bytes);
}

/* valgrind's "Address 0x... is 16 bytes inside a block of size 4,096
 * alloc'd", with the place the block was allocated at. */
static void text_inside(struct report_ctx *r, const struct snap_bad_free *b,
                        const struct bad_free_block *k)
{
    FILE *f = r->out;
    fprintf(f, "    %" PRIu64 " byte%s inside the ", b->ptr - k->base, b->ptr - k->base == 1 ? "" : "s");
    put_block_size(f, k->bytes);
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
    t_title(r, "INVALID FREES");
    fputs("Frees of an address or handle that had no live allocation.  Refused by\n"
          "CUDA: freed twice, never allocated, or not the start of an allocation -- a\n"
          "bug in the program.  Accepted by CUDA: memory allocated where gpuleak could\n"
          "not see it.\n", f);
    struct bad_free_block *blocks = bad_free_blocks(r->s);
    for (size_t i = 0; i < t.sites; i++) {
        const struct snap_bad_free *b = v[i];
        const struct bad_free_block *k = &blocks[b - r->s->bad_frees];
        fputc('\n', f);
        tc_on(r, refused(b) ? TC_RED : TC_YELLOW);
        put_count(f, b->count, "free");
        tc_off(r);
        fputs(" (", f);
        put_api(f, b->api);
        fputs(") on ", f);
        put_where(f, b->device);
        fputs(!refused(b) ? ", accepted by CUDA (allocated where gpuleak could not see it)\n"
              : k->found  ? ", refused by CUDA (invalid free: not the start of an allocation)\n"
                          : ", refused by CUDA (double or invalid free)\n", f);
        fprintf(f, "    first at ");
        put_secs(f, b->time_ns);
        fprintf(f, ", address 0x%" PRIx64 "\n", b->ptr);
        put_cs(r, "    ", sview_cs(r->v, b->stack_id));
        if (k->found)
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

void json_bad_frees(struct report_ctx *r, struct json *j)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    json_key(j, "invalid_frees");
    json_obj(j);
    json_key(j, "count"); json_u64(j, t.count);
    json_key(j, "refused_count"); json_u64(j, t.refused_count);
    json_key(j, "sites");
    json_arr(j);
    struct bad_free_block *blocks = bad_free_blocks(r->s);
    for (size_t i = 0; i < t.sites; i++) {
        const struct snap_bad_free *b = v[i];
        const struct bad_free_block *k = &blocks[b - r->s->bad_frees];
        json_obj(j);
        json_key(j, "count"); json_u64(j, b->count);
        json_key(j, "refused"); json_bool(j, refused(b));
        json_key(j, "api"); json_str(j, gl_api_name(b->api));
        json_key(j, "api_code"); json_u64(j, b->api);
        json_key(j, "device"); json_i64(j, b->device);
        json_key(j, "first_ptr"); json_u64(j, b->ptr);
        json_key(j, "first_time_ns"); json_u64(j, b->time_ns);
        json_key(j, "stack_id"); json_u64(j, b->stack_id);
        json_frames(j, r->db, sview_cs(r->v, b->stack_id));
        json_key(j, "inside_block"); /* the address is not a block's start */
        if (!k->found) {
            json_null(j);
        } else {
            json_obj(j);
            json_key(j, "offset"); json_u64(j, b->ptr - k->base);
            json_key(j, "ptr"); json_u64(j, k->base);
            json_key(j, "bytes"); json_u64(j, k->bytes);
            json_key(j, "alloc_seq"); json_u64(j, k->alloc_seq);
            json_key(j, "alloc_time_ns"); json_u64(j, k->alloc_time_ns);
            json_key(j, "freed_time_ns");
            if (k->freed)
                json_u64(j, k->free_time_ns);
            else
                json_null(j);
            json_key(j, "stack_id"); json_u64(j, k->stack_id);
            json_frames(j, r->db, sview_cs(r->v, k->stack_id));
            json_end_obj(j);
        }
        const struct snap_event *al, *fr = bad_free_previous(r->s, b, &al);
        json_key(j, "previous_free");
        if (fr == NULL) {
            json_null(j);
        } else {
            json_obj(j);
            json_key(j, "seq"); json_u64(j, fr->seq);
            json_key(j, "time_ns"); json_u64(j, fr->time_ns);
            json_key(j, "bytes"); json_u64(j, fr->size);
            json_key(j, "alloc_seq");
            if (al)
                json_u64(j, al->seq);
            else
                json_null(j);
            json_key(j, "alloc_stack_id"); json_u64(j, fr->stack_id);
            json_frames(j, r->db, sview_cs(r->v, fr->stack_id)); /* the allocation's */
            json_key(j, "free_stack"); /* the free's own, with GPULEAK_FREE_STACKS */
            if (fr->free_stack_id == 0) {
                json_null(j);
            } else {
                json_obj(j);
                json_key(j, "stack_id"); json_u64(j, fr->free_stack_id);
                json_frames(j, r->db, sview_cs(r->v, fr->free_stack_id));
                json_end_obj(j);
            }
            json_end_obj(j);
        }
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    free(blocks);
    free(v);
}
