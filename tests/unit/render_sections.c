/* Unit test of the report's renderers, driven by the section registry
 * (report/render/sections.c): for every row, its text and its JSON on one
 * snapshot built in memory are compared, byte for byte, with one golden
 * file, tests/unit/golden/render_sections/KEY.golden, where KEY is the
 * row's name, or for a nameless part the section it belongs to (or
 * "always") and its number among that section's parts.  The file holds
 * each format the row writes under its own "==== text ====" or
 * "==== json ====" line (golden_text), so a section's output is one file
 * to write and to review.  A named row without a text or JSON renderer
 * fails, and so does a row whose golden file is missing: a new section is
 * not done until its output is seen here; so does a golden file that no
 * row writes.  GOLDEN_UPDATE=1 writes the files instead (read them before
 * committing them).  Links report/ without cli/. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/categories.h"
#include "render/json/json.h"
#include "render/report.h"
#include "render/sections.h"
#include "snapbuild.h"

/* Leaks at two lines, one of them a PyTorch segment with a live tensor and
 * a cached block, a freed allocation, an out-of-memory failure, phases cut
 * by annotations, every call per stack and the driver's view: something
 * for every section. */
static void build(struct sb *b)
{
    sb_init(b);
    uint32_t embed = sb_site(b, "model.py", 11, "embed"), attend = sb_site(b, "model.py", 22, "attend"),
             loss = sb_site(b, "loss.py", 33, "backward");
    uint32_t warmup = sb_label(b, "warmup"), step = sb_label(b, "step");
    const uint64_t ms = 1000000, MiB = 1 << 20;
#define EV(SEQ, TYPE, ...) SB_ADD(b, EVENTS, events, .seq = SEQ, .time_ns = SEQ * 100 * ms, .type = GL_EV_##TYPE, __VA_ARGS__)
    EV(1, ANNOTATION, .ptr = warmup);
    EV(2, ALLOC, .ptr = 0x10000, .size = 4096, .stack_id = embed);
    EV(3, ANNOTATION, .ptr = step);
    EV(4, ALLOC, .ptr = 0x20000, .size = 65536, .stack_id = attend);
    EV(5, ALLOC, .ptr = 0x40000, .size = MiB, .stack_id = loss);
    EV(6, FREE, .ptr = 0x40000, .size = MiB, .stack_id = loss);
    EV(7, OOM, .size = 8 * MiB, .stack_id = loss, .mem_free = MiB, .mem_total = 16 * MiB);
    EV(8, SNAPSHOT, .size = 0);
#undef EV
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x10000, .size = 4096, .seq = 2, .time_ns = 200 * ms, .stack_id = embed);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x20000, .size = 65536, .seq = 4, .time_ns = 400 * ms, .stack_id = attend);
    SB_ADD(b, DEVICES, devices, .device = 0, .live_bytes = 69632, .live_count = 2, .peak_bytes = 69632 + MiB,
           .peak_seq = 5, .peak_time_ns = 500 * ms, .alloc_count = 3, .free_count = 1,
           .alloc_bytes_total = 69632 + MiB, .failed_count = 1, .mem_free = 15 * MiB, .mem_total = 16 * MiB);
    /* every call since tracking started: more than the history holds */
    SB_ADD(b, CALLS, calls, .stack_id = embed, .api = GL_API_CUDA_MALLOC, .allocs = 1, .bytes = 4096);
    SB_ADD(b, CALLS, calls, .stack_id = attend, .api = GL_API_CUDA_MALLOC, .allocs = 3, .frees = 2, .bytes = 3 * 65536);
    SB_ADD(b, CALLS, calls, .stack_id = loss, .api = GL_API_CUDA_MALLOC, .allocs = 40, .frees = 40, .bytes = 40 * MiB);
    b->torch = (struct gl_wire_torch){.status = 1, .segments = 1, .reserved_bytes = 65536, .allocated_bytes = 16384};
    SB_ADD(b, TORCH_BLOCKS, torch_blocks, .segment = 0x20000, .address = 0x20000, .size = 16384,
           .requested_size = 16000, .stack_id = attend, .state = 1);
    SB_ADD(b, TORCH_BLOCKS, torch_blocks, .segment = 0x20000, .address = 0x24000, .size = 49152, .state = 3);
}

/* "leaks", or "peak.1" for peak's first nameless part. */
static void row_key(size_t i, char *key, size_t size)
{
    const struct report_section *s = section_row(i);
    if (s->name) {
        snprintf(key, size, "%s", s->name);
        return;
    }
    const char *owner = s->part_of ? s->part_of : "always";
    unsigned n = 0;
    for (size_t k = 0; k <= i; k++) {
        const struct report_section *o = section_row(k);
        n += !o->name && strcmp(o->part_of ? o->part_of : "always", owner) == 0;
    }
    snprintf(key, size, "%s.%u", owner, n);
}

/* Rows registered anywhere (REPORT_SECTION) sort into one order: no two
 * share a place, a name or an alias. */
static void rows_distinct(void)
{
    for (size_t i = 1; i < sections_count(); i++)
        CHECK(section_row(i - 1)->order < section_row(i)->order, "rows %zu and %zu share order %u", i - 1, i,
              section_row(i)->order);
    for (size_t i = 0; i < sections_count(); i++)
        for (size_t k = 0; k < i; k++) {
            const char *a[] = {section_row(i)->name, section_row(i)->alias};
            const char *b[] = {section_row(k)->name, section_row(k)->alias};
            for (size_t x = 0; x < 2; x++)
                for (size_t y = 0; y < 2; y++)
                    CHECK(!a[x] || !b[y] || strcmp(a[x], b[y]) != 0, "two rows are called %s", a[x]);
        }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    *len = cap;
    return buf;
}

/* One format's part of a golden file: its line, then the output as it
 * is; output not ending in a newline is followed by one and a marker line
 * (as diff marks it), so that no two outputs make the same file. */
static void golden_part(FILE *m, const char *format, const char *out, size_t len)
{
    fprintf(m, "==== %s ====\n", format);
    fwrite(out, 1, len, m);
    if (len == 0 || out[len - 1] != '\n')
        fputs("\n\\ No newline at end of the output\n", m);
}

/* The 1-based line of the first difference of a and b. */
static size_t first_diff_line(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t line = 1;
    for (size_t i = 0; i < alen && i < blen && a[i] == b[i]; i++)
        line += a[i] == '\n';
    return line;
}

/* Compares a row's golden text (golden_part's) with its file, or writes it. */
static void against_golden(const char *dir, const char *key, const char *got, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.golden", dir, key);
    if (getenv("GOLDEN_UPDATE")) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(got, 1, len, f) == len && fclose(f) == 0, "cannot write %s", path);
        return;
    }
    size_t want_len;
    char *want = slurp(path, &want_len);
    CHECK(want != NULL, "%s: no golden file (%s); its output was:\n%.*s", key, strerror(errno), (int)len, got);
    if (want) {
        CHECK(want_len == len && memcmp(want, got, len) == 0, "%s.golden differs from %s at line %zu; got:\n%.*s",
              key, path, first_diff_line(want, want_len, got, len), (int)len, got);
        free(want);
    }
}

/* Whether golden file NAME ("peak.1.golden") is what some row writes: its
 * key, and a text or JSON renderer. */
static bool golden_of_a_row(const char *name)
{
    for (size_t i = 0; i < sections_count(); i++) {
        const struct report_section *s = section_row(i);
        char key[64], want[80];
        row_key(i, key, sizeof key);
        if ((s->text || s->json) && strcmp(name, (snprintf(want, sizeof want, "%s.golden", key), want)) == 0)
            return true;
    }
    return false;
}

/* A golden file no row writes is one left by a section renamed, removed
 * or renumbered among its parts: it would pass unread, so it fails. */
static void no_orphan_goldens(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot list %s: %s", dir, strerror(errno));
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        CHECK(e->d_name[0] == '.' || golden_of_a_row(e->d_name), "%s/%s: no row writes it (delete it)", dir,
              e->d_name);
    closedir(d);
}

static void render_row(struct report_ctx *r, size_t i, const char *dir)
{
    const struct report_section *s = section_row(i);
    char key[64];
    row_key(i, key, sizeof key);
    if (s->name) {
        CHECK(s->text != NULL, "section %s has no text renderer", key);
        CHECK(s->json != NULL, "section %s has no JSON renderer", key);
    }
    CHECK(s->text || s->json || s->html, "row %s renders nothing", key);
    if (!s->text && !s->json)
        return;
    char *golden, *buf;
    size_t golden_len, len;
    FILE *g = open_memstream(&golden, &golden_len);
    if (s->text) {
        r->out = open_memstream(&buf, &len);
        s->text(r);
        fclose(r->out);
        /* an empty part would check nothing: build() must give every row
         * something to show */
        CHECK(len > 0, "%s writes no text for the test's snapshot (build() gives it nothing)", key);
        golden_part(g, "text", buf, len);
        free(buf);
    }
    if (s->json) {
        r->out = open_memstream(&buf, &len);
        struct json j;
        json_init(&j, r->out);
        json_obj(&j);
        s->json(r, &j);
        json_end_obj(&j);
        fclose(r->out);
        golden_part(g, "json", buf, len);
        free(buf);
    }
    fclose(g);
    against_golden(dir, key, golden, golden_len);
    free(golden);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: render_sections GOLDEN_DIR\n", stderr);
        return 2;
    }
    struct sb b;
    build(&b);
    struct sb_env e;
    sb_open(&b, NULL, &e);
    struct categories cat;
    char err[64];
    cat_init(&cat, NULL, err, sizeof err);
    struct analyze_opts an = {0};
    struct section_inputs in = {.v = &e.m.v, .sup = &e.sup, .an = &an, .cat = &cat};
    struct section_data d;
    if (sections_build(&in, &d) != 0) {
        fputs("FAIL: sections_build\n", stderr);
        return 1;
    }
    struct report_ctx r = {.path = "unit.gpuleak", .s = &e.m.s, .a = &d.a, .sy = e.m.sy, .v = &e.m.v, .db = e.db,
                           .sup = &e.sup, .h = &d.h, .fr = &d.fr, .ph = &d.ph, .lg = &d.lg, .data = &d,
                           .sections = sections_all(), .default_suppressions = true};
    report_prepare(&r);
    rows_distinct();
    for (size_t i = 0; i < sections_count(); i++)
        render_row(&r, i, argv[1]);
    no_orphan_goldens(argv[1]);
    report_ctx_free(&r);
    sections_free(&d);
    cat_free(&cat);
    sb_close(&e);
    return sb_done("render_sections: every row's text and JSON");
}
