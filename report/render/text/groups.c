/* The paragraphs that leak, cache and mapping groups share: what a group
 * holds, where, when it was made and from which stack, and the line that
 * counts the groups not shown. */
#include "render/text/groups.h"

#include <inttypes.h>

#include "analysis/analyze.h"
#include "model/reason.h"
#include "model/stackdb.h"
#include "render/report.h"
#include "render/text/textout.h"

/* When a group was made ("allocated" or "mapped") and its stack. */
void text_group_when(struct report_ctx *r, const struct leak_group *g, const char *verb)
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
void text_group_where(struct report_ctx *r, const struct leak_group *g)
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
void text_group_what(struct report_ctx *r, const struct leak_group *g, enum tcolor color, const char *noun)
{
    if (r->s->sampling.mode && !group_unsampled(r->s, g)) {
        /* light mode: what the site is estimated to hold, then what was seen */
        FILE *f = r->out;
        put_color(r, color);
        fputs("~", f);
        put_bytes(f, est_round(g->est_bytes));
        put_color_end(r);
        fputs(" in ~", f);
        put_count(f, est_round(g->est_count), noun);
        fputs(" (estimated from ", f);
        put_count(f, g->count, "sampled allocation");
        fputs(" of ", f);
        put_bytes(f, g->bytes);
        fputc(')', f);
    } else {
        put_amount(r, color, g->bytes, g->count, noun);
    }
    text_group_where(r, g);
}

void text_unsampled_line(struct report_ctx *r, const struct group_list *l)
{
    if (l->unsampled_count == 0)
        return;
    FILE *f = r->out;
    fputs("\n(not sampled: ", f);
    put_bytes(f, l->unsampled_bytes);
    fputs(" in ", f);
    put_count(f, l->unsampled_count, "allocation");
    fputs(" with no stack, GPULEAK_MODE=light;\n their bytes are in the estimates above)\n", f);
}

void text_group_head(struct report_ctx *r, const struct leak_group *g, bool rule)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    text_group_what(r, g, rule ? TC_YELLOW : TC_RED, "allocation");
    if (rule) {
        fputs("held by ", f);
        put_str(f, r->sup->rules[g->rule].name);
        fputc('\n', f);
    } else if (p->reason == GL_REASON_EXIT) {
        fputs("not freed at exit\n", f);
    } else {
        fprintf(f, "live at the snapshot (%s)\n", reason_phrase(p->reason));
    }
    text_group_when(r, g, "allocated");
}

void text_hidden_line(FILE *f, const struct group_list *l)
{
    size_t more = l->total - l->n - l->unsampled_groups;
    if (more == 0)
        return;
    fprintf(f, "\n(%zu more group%s, ", more, more == 1 ? "" : "s");
    put_bytes(f, l->hidden_bytes);
    fputs(" in ", f);
    put_count(f, l->hidden_count, "allocation");
    fputs(", not shown: see --top / --min-bytes)\n", f);
}
