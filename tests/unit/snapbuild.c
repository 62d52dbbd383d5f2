/* See snapbuild.h. */
#include "snapbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/symbolize.h"
#include "snapshot_format.h"

int sb_failures;

static const uint32_t array_type[SB_NARRAYS] = {
    [SB_ALLOCS] = GL_REC_ALLOCS, [SB_DEVICES] = GL_REC_DEVICES, [SB_PEAK] = GL_REC_PEAK,
    [SB_EVENTS] = GL_REC_EVENTS, [SB_POOLS] = GL_REC_POOLS,     [SB_VMM] = GL_REC_VMM,
    [SB_TEARDOWN] = GL_REC_TEARDOWN, [SB_TORCH_BLOCKS] = GL_REC_TORCH_BLOCKS, [SB_CALLS] = GL_REC_CALLS,
};

static void too_many(const char *what)
{
    fprintf(stderr, "FAIL: snapbuild: more than %d %s\n", SB_MAX, what);
    exit(1);
}

void sb_init(struct sb *b)
{
    memset(b, 0, sizeof *b);
    b->proc = (struct gl_wire_process){.pid = 4242, .ppid = 1, .snapshot_mono_ns = 1000000,
                                       .start_unix_ns = 1700000000000000000ull};
    b->host = "unit";
}

uint64_t sb_frame(struct sb *b, const char *file, unsigned line, const char *function)
{
    if (b->nframes == SB_MAX)
        too_many("frames");
    b->frame[b->nframes].file = file;
    b->frame[b->nframes].line = line;
    b->frame[b->nframes].function = function;
    return GL_PYFRAME_TAG | ++b->nframes;
}

uint32_t sb_stack(struct sb *b, unsigned depth, const uint64_t *pcs)
{
    if (b->nstacks == SB_MAX || depth > 8)
        too_many("stacks (or 8 frames)");
    b->stack[b->nstacks].depth = depth;
    memcpy(b->stack[b->nstacks].pc, pcs, depth * sizeof *pcs);
    return ++b->nstacks;
}

uint32_t sb_site(struct sb *b, const char *file, unsigned line, const char *function)
{
    uint64_t pc = sb_frame(b, file, line, function);
    return sb_stack(b, 1, &pc);
}

uint32_t sb_label(struct sb *b, const char *text)
{
    if (b->nlabels == SB_MAX)
        too_many("labels");
    b->label[b->nlabels] = text;
    return ++b->nlabels;
}

void sb_entry(struct sb *b, enum sb_array a, const void *enc, size_t len)
{
    sw_bytes(&b->arr[a].w, enc, len);
    b->arr[a].n++;
}

static void write_fixed(struct sb *b, struct sw *w)
{
    size_t h = sw_begin(w, GL_REC_PROCESS, 1);
    uint8_t e[sizeof(struct gl_wire_process_layout)];
    gl_wire_process_encode(e, &b->proc);
    sw_bytes(w, e, sizeof e);
    sw_str(w, b->host);
    sw_str(w, "/unit/exe");
    sw_u32(w, 0);
    sw_end(w, h);
    for (uint32_t i = 0; i < b->nframes; i++) {
        h = sw_begin(w, GL_REC_PYFRAME, 1);
        SW_PART(w, pyframe, .id = i + 1, .line = b->frame[i].line);
        sw_str(w, b->frame[i].file);
        sw_str(w, b->frame[i].function);
        sw_end(w, h);
    }
    for (uint32_t i = 0; i < b->nstacks; i++) {
        h = sw_begin(w, GL_REC_STACK, 1);
        SW_PART(w, stack, .id = i + 1, .depth = b->stack[i].depth);
        for (uint32_t k = 0; k < b->stack[i].depth; k++)
            sw_u64(w, b->stack[i].pc[k]);
        sw_end(w, h);
    }
    for (uint32_t i = 0; i < b->nlabels; i++) {
        h = sw_begin(w, GL_REC_LABEL, 1);
        SW_PART(w, label, .id = i + 1);
        sw_str(w, b->label[i]);
        sw_end(w, h);
    }
}

void sb_load(struct sb *b, struct stackdb *db, const struct suppressions *sup, struct msnap *m)
{
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    write_fixed(b, &w);
    if (b->torch.status != 0) {
        size_t h = sw_begin(&w, GL_REC_TORCH, 1);
        b->torch.blocks = b->arr[SB_TORCH_BLOCKS].n;
        uint8_t e[sizeof(struct gl_wire_torch_layout)];
        gl_wire_torch_encode(e, &b->torch);
        sw_bytes(&w, e, sizeof e);
        sw_end(&w, h);
    }
    for (unsigned a = 0; a < SB_NARRAYS; a++) {
        if (b->arr[a].n == 0)
            continue;
        if (a == SB_TORCH_BLOCKS && b->torch.status == 0) { /* no TORCH record: no blocks */
            sw_free(&b->arr[a].w);
            continue;
        }
        size_t h = sw_begin(&w, array_type[a], b->arr[a].n);
        sw_bytes(&w, b->arr[a].w.buf, b->arr[a].w.len);
        sw_end(&w, h);
        sw_free(&b->arr[a].w);
    }
    sw_finish(&w);
    memset(m, 0, sizeof *m);
    m->path = "unit.gpuleak";
    char err[256];
    if (snap_parse(w.buf, w.len, &m->s, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL: the reader rejects the built snapshot: %s\n", err);
        exit(1);
    }
    sw_free(&w);
    m->sy = sym_new(&m->s, false);
    if (!m->sy || sview_init(&m->v, &m->s, m->sy, db, sup) != 0) {
        fputs("FAIL: out of memory\n", stderr);
        exit(1);
    }
}

void sb_open(struct sb *b, const char *user_rules, struct sb_env *e)
{
    char err[128];
    memset(e, 0, sizeof *e);
    if (user_rules && supp_parse(&e->sup, user_rules, false, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL: user rules: %s\n", err);
        sb_failures++;
    }
    supp_add_defaults(&e->sup);
    e->db = sdb_new(&(struct sdb_opts){0});
    sb_load(b, e->db, &e->sup, &e->m);
}

void sb_close(struct sb_env *e)
{
    sb_unload(&e->m);
    sdb_free(e->db);
    supp_free(&e->sup);
}

void sb_unload(struct msnap *m)
{
    sview_free(&m->v);
    sym_free(m->sy);
    snap_free(&m->s);
}

const char *sb_cs_text(const struct stackdb *db, uint32_t cs)
{
    static char buf[1024];
    size_t at = 0;
    buf[0] = '\0';
    const struct cstack *c = &db->cs[cs];
    for (uint32_t i = 0; i < c->n && at < sizeof buf; i++) {
        const struct sym_frame *f = sdb_frame(db, c, i);
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s %s:%u", i ? " < " : "",
                               f->function ? f->function : "?", f->file ? f->file : "?", f->line);
    }
    return buf;
}

int sb_done(const char *name)
{
    if (sb_failures) {
        fprintf(stderr, "%s: %d failures\n", name, sb_failures);
        return 1;
    }
    printf("ok: %s\n", name);
    return 0;
}
