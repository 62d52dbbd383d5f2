/* "phases": one row per phase and device (the first HT_ROWS), with the
 * peak's categories and its largest stack as a page-local stack index; the
 * page draws the table "Memory by phase" from it. */
#include "render/html/phases.h"

#include "analysis/phases.h"
#include "render/report.h"

void html_phases(struct hw *w, const struct report_ctx *r)
{
    const struct phases *ph = r->ph;
    struct json *j = &w->j;
    json_key(j, "phases");
    json_obj(j);
    size_t total = 0;
    for (size_t i = 0; ph && i < ph->n; i++)
        total += ph->p[i].ndevs;
    kv_u(w, "total", total);
    json_key(j, "wrapped"); json_bool(j, ph && ph->wrapped);
    json_key(j, "rows");
    json_arr(j);
    size_t n = 0;
    for (size_t i = 0; ph && i < ph->n && n < HT_ROWS; i++) {
        const struct phase *p = &ph->p[i];
        for (size_t k = 0; k < p->ndevs && n < HT_ROWS; k++, n++) {
            const struct phase_dev *pd = &p->devs[k];
            json_obj(j);
            kv_u(w, "phase", i);
            json_key(j, "label");
            if (p->label)
                json_strn(j, p->label->text.s, p->name_len);
            else
                json_null(j);
            kv_u(w, "depth", p->depth);
            json_key(j, "start_known"); json_bool(j, p->start_known);
            kv_s(w, "ended_by", phase_end_name(p->end));
            json_key(j, "device"); json_i64(j, pd->device);
            kv_u(w, "start_bytes", pd->start_bytes);
            kv_u(w, "end_bytes", pd->end_bytes);
            json_key(j, "net_bytes");
            json_i64(j, pd->end_bytes >= pd->start_bytes ? (int64_t)(pd->end_bytes - pd->start_bytes)
                                                         : -(int64_t)(pd->start_bytes - pd->end_bytes));
            kv_u(w, "bytes", pd->peak_bytes); /* the table's rows are sized by their peak */
            kv_u(w, "peak_seq", pd->peak_seq);
            json_key(j, "categories");
            json_arr(j);
            for (size_t c = 0; c < pd->ncats; c++) {
                json_arr(j);
                json_str(j, ph->cat->names[pd->cats[c].cat]);
                json_u64(j, pd->cats[c].bytes);
                json_end_arr(j);
            }
            json_end_arr(j);
            json_key(j, "stack");
            json_i64(j, pd->nstacks ? hw_stack(w, pd->stacks[0].cs) : -1);
            json_end_obj(j);
        }
    }
    json_end_arr(j);
    json_end_obj(j);
}
