/* LOADED MODULES: modules and libraries still loaded, with the device
 * memory the driver took for each load and the line that loaded it.  Not
 * leaks (a context's end unloads its modules), but part of what fills the
 * card, and a program that keeps loading (JIT-compiled kernels) shows here. */
#include "render/text/modules.h"

#include "analysis/analyze.h"
#include "model/reason.h"
#include "render/report.h"
#include "render/text/groups.h"
#include "render/text/textout.h"

void text_modules(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    if (a->modules.total == 0)
        return;
    put_title(r, "LOADED MODULES");
    fputs("Modules and libraries still loaded, with the device memory the driver took\n"
          "for their code and data (measured around each load; 0 when the load took\n"
          "none, as a library loaded lazily does).  Not leaks: a context's end unloads\n"
          "its modules:\n", f);
    bool at_exit = r->s->proc.reason == GL_REASON_EXIT;
    for (size_t i = 0; i < a->modules.n; i++) {
        const struct leak_group *g = &a->modules.g[i];
        fputc('\n', f);
        text_group_what(r, g, TC_CYAN, "module");
        if (at_exit)
            fputs("still loaded at exit\n", f);
        else
            fprintf(f, "loaded at the snapshot (%s)\n", reason_phrase(r->s->proc.reason));
        text_group_when(r, g, "loaded");
    }
    text_hidden_line(f, &a->modules);
}
