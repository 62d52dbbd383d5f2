/* --folded: Brendan Gregg's folded-stack format, read by flamegraph.pl,
 * inferno and speedscope: "root;...;leaf WEIGHT" per line, outermost frame
 * first, weight in bytes (estimated from the sampled allocations, as the
 * leak groups are, in a GPULEAK_MODE=light snapshot).  The device is the root frame so one flame graph
 * can hold several devices apart. */
#include "render/report.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/analyze.h"
#include "model/stackdb.h"
#include "render/folded/folded.h"
#include "render/text/textout.h"

/* A frame name without the characters the format uses as separators. */
static void put_name(FILE *f, const struct sym_frame *fr)
{
    char buf[64];
    const char *s = fr->function;
    if (!s) {
        if (fr->module)
            snprintf(buf, sizeof buf, "%s+0x%" PRIx64, fr->module, fr->offset);
        else
            snprintf(buf, sizeof buf, "0x%" PRIx64, fr->address);
        s = buf;
    }
    /* ';' separates frames and the last ' ' the weight: neither may appear
     * in a name (C++ names hold spaces: "f(int, char)") */
    char clean[512];
    size_t n = 0;
    for (const char *p = s; *p && n < sizeof clean - 1; p++)
        clean[n++] = *p == ';' ? ':' : *p == ' ' ? '_' : *p;
    put_safe(f, clean, n);
}

static void line(struct report_ctx *r, int32_t device, uint16_t kind, uint32_t cs,
                 uint64_t bytes)
{
    FILE *f = r->out;
    /* root frame: "device_0" / "host", with the kind for leaks */
    if (device < 0)
        fputs("host", f);
    else
        fprintf(f, "device_%d", device);
    if (kind != 0xffff) {
        fputc(':', f);
        if (kind < GL_KIND_COUNT)
            fputs(gl_kind_name(kind), f);
        else
            fprintf(f, "kind%u", kind);
    }
    if (cs) {
        const struct cstack *c = &r->db->cs[cs];
        for (uint32_t i = c->n; i-- > 0;) {
            fputc(';', f);
            put_name(f, sdb_frame(r->db, c, i));
        }
    } else {
        fputs(";[no stack]", f);
    }
    fprintf(f, " %" PRIu64 "\n", bytes);
}

void output_folded(struct report_ctx *r, bool peak)
{
    const struct analysis *a = r->a;
    if (!peak) {
        for (size_t i = 0; i < a->leaks.n; i++) {
            const struct leak_group *g = &a->leaks.g[i];
            line(r, g->device, g->kind, g->cs, shown_bytes(a, g->bytes, g->est_bytes));
        }
        return;
    }
    for (size_t d = 0; d < a->ndevs; d++)
        for (size_t i = 0; i < a->devs[d].ncomp; i++) {
            const struct peak_item *p = &a->devs[d].comp[i];
            line(r, p->device, 0xffff, p->cs, shown_bytes(a, p->bytes, p->est_bytes));
        }
}
