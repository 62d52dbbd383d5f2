/* The report's sections, one registry: what --sections names, what each
 * one builds from the snapshot, and what it writes in each format.  The
 * command line's names, its --help and error lines, the default, the build
 * and free of the analyses and the output loops of the text, JSON and HTML
 * reports all walk it.  A row is registered where it is written, with
 * REPORT_SECTION: the first sections' rows are in sections.c, and a section
 * of its own file (report/sections/X.c) holds its row, its renderers and
 * its build, with its analysis in what section_state gives back, so adding
 * one edits no list (CONTRIBUTING.md's worked example). */
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

/* A selection is a bit per row. */
#define SECTIONS_MAX 32

/* What they build: every analysis of one snapshot.  The members are the
 * first sections', which other parts of the report read too; a section of
 * its own file keeps its analysis in its slot of state (section_state). */
struct section_data {
    struct analysis a;
    struct history h;
    struct frag fr;
    struct phases ph;
    struct ledger lg;
    void *state[SECTIONS_MAX]; /* by row index: what each row's build made */
};

/* One row: a selectable section, or a part of one shown at another place
 * of the output (name NULL).  Rows are written in the order of their
 * `order` (each row's own: sections.c's are 10, 20, ... so a new one fits
 * between); a NULL column is a format the row writes nothing in. */
struct report_section {
    const char *name;    /* --sections NAME; NULL: a part, shown with part_of */
    const char *alias;   /* a second accepted name, or NULL */
    const char *part_of; /* a section that also shows this row; NULL: none, and
                          * for a nameless row: always shown */
    unsigned order;      /* its place in the output, lowest first; unique */
    /* 0 or -1 (out of memory, with nothing left allocated).  *state starts
     * NULL; what it is set to, section_state gives the row's renderers. */
    int (*build)(const struct section_inputs *in, struct section_data *d, void **state);
    void (*free)(struct section_data *d, void *state);
    void (*text)(struct report_ctx *r);
    void (*json)(struct report_ctx *r, struct json *j);
    void (*html)(struct hw *w, const struct report_ctx *r);
};

/* Registers row ID (a static struct report_section defined by this macro
 * from the designated initializers that follow ID) in the linker section
 * gl_report_sections, which the registry walks: nothing else names it. */
#define REPORT_SECTION(ID, ...)                                                            \
    static const struct report_section ID = {__VA_ARGS__};                                \
    __attribute__((used, section("gl_report_sections"))) static const struct report_section \
        *const ID##_registered = &ID

/* The rows, in output order: how many, and the i-th (i < sections_count()). */
size_t sections_count(void);
const struct report_section *section_row(size_t i);
/* What row self's build left in its state; NULL when nothing was built
 * (r->data is NULL in diff and merge). */
void *section_state(const struct report_ctx *r, const struct report_section *self);

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
