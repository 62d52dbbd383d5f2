/* The report's sections, one table (sections.c): what --sections names, what
 * each one builds from the snapshot, and what it writes in each format.
 * The command line's names, its --help and error lines, the default, the
 * build and free of the analyses and the output loops of the text, JSON
 * and HTML reports all walk it; adding a section is its analysis, its renderers and
 * a row. */
#ifndef GPULEAK_RENDER_SECTIONS_H
#define GPULEAK_RENDER_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "analysis/ledger.h"
#include "analysis/phases.h"
#include "model/categories.h"

struct report_ctx;
struct json;
struct hw;

/* What the sections' analyses read. */
struct section_inputs {
    const struct snapview *v;
    const struct suppressions *sup;
    const struct analyze_opts *an;
    const struct categories *cat;
};

/* What they build: every analysis of one snapshot. */
struct section_data {
    struct analysis a;
    struct history h;
    struct frag fr;
    struct phases ph;
    struct ledger lg;
};

/* One row: a selectable section, or a part of one shown at another place
 * of the output (name NULL).  Rows are in output order; a NULL column is a
 * format the row writes nothing in. */
struct report_section {
    const char *name;    /* --sections NAME; NULL: a part, shown with part_of */
    const char *alias;   /* a second accepted name, or NULL */
    const char *part_of; /* a section that also shows this row; NULL: none, and
                          * for a nameless row: always shown */
    int (*build)(const struct section_inputs *in, struct section_data *d); /* 0 or -1 (OOM) */
    void (*free)(struct section_data *d);
    void (*text)(struct report_ctx *r);
    void (*json)(struct report_ctx *r, struct json *j);
    void (*html)(struct hw *w, const struct report_ctx *r);
};

extern const struct report_section report_sections[];
extern const size_t report_nsections;

/* The selectable names, comma-separated in output order ("leaks,torch,..."). */
const char *sections_names(void);
/* The rows every section shows: the default. */
unsigned sections_all(void);
/* A --sections LIST (names, aliases, "all") into the rows it shows: 0, or
 * -1 for an unknown or empty name. */
int sections_parse(const char *list, unsigned *rows);
/* Whether the selection shows section name's own row. */
bool section_shown(const struct report_ctx *r, const char *name);

/* Every row's analysis, in table order (a row may read an earlier row's).
 * 0, or -1 (out of memory) with what was built freed. */
int sections_build(const struct section_inputs *in, struct section_data *d);
void sections_free(struct section_data *d);

/* The selected rows' text and JSON, in table order. */
void sections_text(struct report_ctx *r);
void sections_json(struct report_ctx *r, struct json *j);
/* Every row's part of the HTML page, in table order, whatever the
 * selection: the page is one view whose script links its parts. */
void sections_html(struct hw *w, const struct report_ctx *r);

#endif
