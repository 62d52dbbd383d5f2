/* `gpuleak check`'s verdict on one snapshot (verdict.h).  The gate lives
 * here, once: --error-exitcode fails exactly when the count of errors is
 * not 0, and the launcher reads the same count from the --verdict file. */
#include "cli/verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "analysis/bad_frees.h"
#include "analysis/teardown.h"
#include "analysis/torch_steps.h"
#include "model/snap_read.h"
#include "render/json/json.h"
#include "render/json/torch.h"
#include "render/report.h"
#include "render/text/oom.h"
#include "render/text/summary.h"
#include "util/atomic_file.h"

/* Groups of at least floor bytes: estimated, in a sampled snapshot, where
 * the allocations not sampled are no stack of their own (their bytes are
 * in the sampled groups' estimates). */
static uint64_t groups_from(const struct snapshot *s, const struct group_list *l, uint64_t floor)
{
    uint64_t n = 0;
    for (size_t i = 0; i < l->total; i++)
        n += !group_unsampled(s, &l->g[i]) && l->g[i].est_bytes >= (double)floor;
    return n;
}

/* Mappings left: those of at least floor bytes, and the imported VMM
 * handles never released, whose size is not known (0 in the snapshot):
 * only --min-bytes hides those, as it does in the report. */
static uint64_t mapped_from(const struct group_list *l, uint64_t floor, uint64_t min_bytes)
{
    uint64_t n = 0;
    for (size_t i = 0; i < l->total; i++)
        if (l->g[i].bytes >= floor ||
            (l->g[i].api == GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE && l->g[i].bytes >= min_bytes))
            n++;
    return n;
}

/* A free CUDA refused too (double or invalid free) is a bug whatever the
 * byte floor, as valgrind counts an invalid free as an error. */
static uint64_t refused_frees(const struct snapshot *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->nbad_frees; i++)
        n += (s->bad_frees[i].flags & GL_BAD_FREE_F_REJECTED) != 0;
    return n;
}

int verdict_count(const struct report_ctx *r, uint64_t floor, uint64_t min_bytes, struct verdict *vd)
{
    memset(vd, 0, sizeof *vd);
    vd->leak_stacks = groups_from(r->s, &r->a->leaks, floor);
    vd->mapped_stacks = mapped_from(&r->a->mapped, floor, min_bytes);
    vd->refused_frees = refused_frees(r->s);
    struct bad_free_totals bt;
    free(bad_frees_sorted(r->s, &bt));
    vd->double_frees = bt.double_count;
    /* memory never freed that a context teardown released: a leak until
     * then (compute-sanitizer's leak check counts it) */
    struct torn_groups t;
    if (torn_build(r->v, &t) != 0)
        return -1;
    for (size_t i = 0; i < t.n; i++) { /* sampled: by estimate, the ones not sampled no stack */
        struct sample_est e = sample_scale(r->s, t.g[i].stack_id, t.g[i].count, t.g[i].bytes);
        vd->torn_stacks += t.g[i].rule < 0 && !stack_unsampled(r->s, t.g[i].stack_id) && e.bytes >= (double)floor;
    }
    vd->torn_bytes = t.leaked_bytes;
    torn_free(&t);
    struct growth_verdict gv;
    torch_growth_verdict(r->s, r->growth_steps, floor, &gv);
    vd->growth_leaks = gv.n;
    growth_verdict_free(&gv);
    vd->errors = vd->leak_stacks + vd->mapped_stacks + vd->refused_frees + vd->torn_stacks + vd->growth_leaks;
    return 0;
}

/* SUMMARY's findings as one line: its lines joined by "; ", the label
 * padding squeezed ("leaked: 2,097,152 bytes (2.0 MiB) in 2 allocations
 * from 1 stack").  NULL when out of memory. */
static char *summary_line(struct report_ctx *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    struct report_ctx plain = *r;
    plain.out = f;
    plain.color = false;
    text_summary_findings(&plain);
    text_oom_summary(&plain);
    char *line = fclose(f) == 0 ? malloc(2 * len + 1) : NULL;
    char *w = line;
    bool blank = true; /* at a line's start, or after a blank: blanks dropped */
    for (size_t i = 0; line && i < len; i++) {
        if (text[i] == '\n' || text[i] == ' ') {
            if (w > line && !blank)
                *w++ = text[i] == '\n' ? ';' : ' ';
            if (text[i] == '\n' && w > line)
                *w++ = ' ';
            blank = true;
        } else {
            *w++ = text[i];
            blank = false;
        }
    }
    while (w && w > line && (w[-1] == ' ' || w[-1] == ';'))
        w--;
    if (w)
        *w = '\0';
    free(text);
    return line;
}

static void put_count(struct json *j, const char *key, uint64_t v)
{
    json_key(j, key);
    json_u64(j, v);
}

/* "leaks_by_growth": each one as the report's JSON writes it (its kind,
 * line and bytes per step), for check's JSON. */
static void put_growth(struct json *j, const struct report_ctx *r)
{
    struct growth_verdict gv;
    torch_growth_verdict(r->s, r->growth_steps, r->min_bytes, &gv);
    put_count(j, "leaked_by_growth_bytes_per_step", gv.per_step);
    json_key(j, "leaks_by_growth");
    json_arr(j);
    for (size_t i = 0; i < gv.n; i++)
        json_growth_leak(j, &gv.leaks[i]);
    json_end_arr(j);
    growth_verdict_free(&gv);
}

int verdict_write(const char *path, struct report_ctx *r, const struct verdict *vd)
{
    char *summary = summary_line(r);
    char *text = NULL;
    size_t len = 0;
    FILE *f = summary ? open_memstream(&text, &len) : NULL;
    if (!f) {
        fprintf(stderr, "gpuleak-report: %s: cannot write: %s\n", path, summary ? strerror(errno) : "out of memory");
        free(summary);
        return 1;
    }
    const struct snap_process *p = &r->s->proc;
    struct json j;
    json_init_compact(&j, f);
    json_obj(&j);
    put_count(&j, "pid", p->pid);
    json_key(&j, "rank");
    if (p->flags & GL_SNAP_F_NO_RANK)
        json_null(&j); /* no rank variable set: 0 would claim rank 0 */
    else
        json_u64(&j, p->rank);
    json_key(&j, "host");
    json_strn(&j, p->host.s, p->host.len);
    json_key(&j, "snapshot");
    json_str(&j, r->path);
    json_key(&j, "verdict");
    json_str(&j, vd->errors ? "errors" : "no errors");
    put_count(&j, "errors", vd->errors);
    put_count(&j, "leaked_bytes", r->a->leaks.bytes);
    put_count(&j, "leaked_allocations", r->a->leaks.count);
    put_count(&j, "leaked_stacks", r->a->leaks.total - r->a->leaks.unsampled_groups);
    put_count(&j, "never_released_bytes", r->a->mapped.bytes);
    put_count(&j, "refused_frees", vd->refused_frees);
    put_count(&j, "double_frees", vd->double_frees);
    put_count(&j, "teardown_leaked_bytes", vd->torn_bytes);
    put_count(&j, "leaked_by_growth", vd->growth_leaks);
    json_key(&j, "summary");
    json_str(&j, summary);
    put_growth(&j, r);
    json_end_obj(&j);
    fputc('\n', f);
    free(summary);
    /* Written as every output file is (util/atomic_file.h): whole, 0600,
     * a device or FIFO in place, a symlink refused. */
    char err[256] = "cannot write: out of memory";
    int rc = fclose(f) == 0 ? afile_write(path, text, len, err, sizeof err) : -1;
    if (rc != 0)
        fprintf(stderr, "gpuleak-report: %s: %s\n", path, err);
    free(text);
    return rc != 0;
}
