/* See textout.h.  Strings from the snapshot are printed with control bytes
 * as \xNN so a hostile path or argv cannot drive the terminal. */
#include "render/text/textout.h"

#include <inttypes.h>
#include <string.h>

#include "model/stackdb.h"
#include "model/user_frame.h"
#include "render/json/json.h"
#include "render/report.h"
#include "util/path.h"
#include "util/fmt.h"
#include "util/utf8.h"

static const char *const codes[] = {
    [TC_BOLD] = "\033[1m", [TC_RED] = "\033[1;31m", [TC_YELLOW] = "\033[33m",
    [TC_GREEN] = "\033[32m", [TC_CYAN] = "\033[36m", [TC_DIM] = "\033[2m",
};

void put_color(const struct report_ctx *r, enum tcolor c)
{
    if (r->color)
        fputs(codes[c], r->out);
}

void put_color_end(const struct report_ctx *r)
{
    if (r->color)
        fputs("\033[0m", r->out);
}

void put_title(const struct report_ctx *r, const char *title)
{
    fputc('\n', r->out);
    put_color(r, TC_BOLD);
    fputs(title, r->out);
    put_color_end(r);
    fputc('\n', r->out);
}

/* Valid UTF-8 passes through; control bytes, DEL and bytes of invalid
 * UTF-8 sequences are written as \xNN. */
void put_safe(FILE *f, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        size_t run = i;
        while (run < len && s[run] >= 0x20 && s[run] < 0x7f)
            run++;
        if (run > i) {
            fwrite_unlocked(s + i, 1, run - i, f);
            i = run;
            continue;
        }
        size_t n = s[i] < 0x20 || s[i] == 0x7f ? 0 : utf8_len(s + i, len - i);
        if (n == 0) {
            fprintf(f, "\\x%02x", s[i]);
            i++;
        } else {
            fwrite_unlocked(s + i, 1, n, f);
            i += n;
        }
    }
}

void put_str(FILE *f, const char *s)
{
    put_safe(f, s, strlen(s));
}

void put_bytes(FILE *f, uint64_t v)
{
    char c[32], h[32];
    fmt_commas(c, sizeof c, v);
    fmt_human(h, sizeof h, v);
    fprintf(f, "%s byte%s", c, v == 1 ? "" : "s");
    if (h[0])
        fprintf(f, " (%s)", h);
}

void put_human_or(FILE *f, uint64_t v, const char *small_unit)
{
    char h[32];
    fmt_human(h, sizeof h, v);
    if (h[0])
        fputs(h, f);
    else
        fprintf(f, "%" PRIu64 "%s", v, small_unit);
}

void put_human(FILE *f, uint64_t v) { put_human_or(f, v, " B"); }

void put_per_hour(FILE *f, uint64_t bytes_per_hour)
{
    fputc('+', f);
    put_human(f, bytes_per_hour);
    fputs("/hour", f);
}

void put_count(FILE *f, uint64_t n, const char *noun)
{
    char c[32];
    fmt_commas(c, sizeof c, n);
    fprintf(f, "%s %s%s", c, noun, n == 1 ? "" : "s");
}

void put_secs(FILE *f, uint64_t ns)
{
    fprintf(f, "%.2f s", (double)ns / 1e9);
}

void put_where(FILE *f, int32_t dev)
{
    if (dev < 0)
        fputs("host", f);
    else
        fprintf(f, "device %d", dev);
}

void put_amount(const struct report_ctx *r, enum tcolor c, uint64_t bytes, uint64_t count, const char *noun)
{
    put_color(r, c);
    put_bytes(r->out, bytes);
    put_color_end(r);
    fputs(" in ", r->out);
    put_count(r->out, count, noun);
}

void put_kind_where(FILE *f, unsigned kind, int32_t dev)
{
    fputs(": ", f);
    put_kind(f, kind);
    fputs(" memory on ", f);
    put_where(f, dev);
}

/* Kinds and APIs newer than this reader print with their number. */
void put_kind(FILE *f, unsigned kind)
{
    if (kind < GL_KIND_COUNT)
        fputs(gl_kind_name(kind), f);
    else
        fprintf(f, "unknown (kind %u)", kind);
}

void put_api(FILE *f, unsigned api)
{
    if (api < GL_API_COUNT)
        fputs(gl_api_name(api), f);
    else
        fprintf(f, "unknown api %u", api);
}


/* " (file.c:LINE)" of a frame with a source file: its base name, and the
 * line where it is known. */
static void put_source(FILE *f, const struct sym_frame *fr)
{
    fputs(" (", f);
    put_str(f, path_base(fr->file));
    if (fr->line)
        fprintf(f, ":%u", fr->line);
    fputc(')', f);
}

static void put_frame(FILE *f, const char *indent, unsigned idx, const struct sym_frame *fr)
{
    fprintf(f, "%s#%u ", indent, idx);
    if (!fr->module) {
        fprintf(f, "0x%" PRIx64 " (in no known module)\n", fr->address);
        return;
    }
    if (!fr->function) {
        put_str(f, fr->module);
        fprintf(f, "+0x%" PRIx64 "\n", fr->offset);
        return;
    }
    put_str(f, fr->function);
    if (fr->file) {
        put_source(f, fr);
        fputs(" [", f);
        put_str(f, fr->module);
        fputc(']', f);
    } else {
        fputs(" [", f);
        put_str(f, fr->module);
        fprintf(f, "+0x%" PRIx64 "]", fr->offset);
    }
    fputs(fr->inlined ? " (inlined)\n" : "\n", f);
}

void put_frame_short(FILE *f, const struct sym_frame *fr)
{
    if (!fr->module) {
        fprintf(f, "0x%" PRIx64, fr->address);
    } else if (!fr->function) {
        put_str(f, fr->module);
        fprintf(f, "+0x%" PRIx64, fr->offset);
    } else {
        put_str(f, fr->function);
        if (fr->file)
            put_source(f, fr);
    }
}

void put_cs(const struct report_ctx *r, const char *indent, uint32_t cs)
{
    FILE *f = r->out;
    if (cs == 0) {
        fprintf(f, "%s(%s)\n", indent,
                r->s->sampling.mode ? "no stack: not sampled, GPULEAK_MODE=light" : "no stack captured");
        return;
    }
    const struct cstack *c = &r->db->cs[cs];
    for (uint32_t i = 0; i < c->n; i++) {
        /* A run of PyTorch's C++ frames (autograd, the dispatcher: 20 and
         * more) reads as one line; --full-stacks and --all-frames show it. */
        uint32_t run = r->db->o.full_stacks || r->db->o.all_frames ? 0 : sdb_torch_run(r->db, c, i);
        if (run >= 2) {
            fprintf(f, "%s#%u-#%u PyTorch internals, %u frames\n", indent, i, i + run - 1, run);
            i += run - 1;
            continue;
        }
        put_frame(f, indent, i, sdb_frame(r->db, c, i));
    }
    if (c->empty)
        fprintf(f, "%s(empty stack)\n", indent);
    else if (c->cut == CS_CUT_GROUP)
        fprintf(f, "%s... (grouped on the innermost %u frames: --group-depth)\n", indent,
                r->db->o.group_depth);
    else if (c->cut == CS_CUT_LIMIT)
        fprintf(f, "%s... (stack cut at the %u-frame limit)\n", indent,
                r->s->proc.depth_limit);
}

void put_cs_top(const struct report_ctx *r, uint32_t cs)
{
    const struct cstack *c = cs ? &r->db->cs[cs] : NULL;
    if (!c || c->n == 0)
        fputs(cs ? "(empty stack)" : r->s->sampling.mode ? "(not sampled)" : "(no stack captured)", r->out);
    else
        put_frame_short(r->out, sdb_frame(r->db, c, sdb_user_frame_pos(r->db, cs)));
}
