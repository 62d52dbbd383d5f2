/* The profile, field numbers from pprof's proto/profile.proto:
 *
 *   Profile   1 sample_type (ValueType)  2 sample  4 location  5 function
 *             6 string_table  9 time_nanos  10 duration_nanos
 *             11 period_type  12 period  13 comment  14 default_sample_type
 *   ValueType 1 type  2 unit                  (string table indices)
 *   Sample    1 location_id (packed, leaf first)  2 value (packed)  3 label
 *   Label     1 key  2 str
 *   Location  1 id  3 address  4 line
 *   Line      1 function_id  2 line
 *   Function  1 id  2 name  3 system_name  4 filename
 *
 * A location is a shown frame of the stackdb (its id the frame's id), so
 * an inlined call and a Python frame are locations like any other; no
 * mapping is written, so pprof takes the names as they are and never tries
 * to symbolize the addresses again. */
#include "render/pprof/pprof.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "model/stackdb.h"
#include "render/pprof/pb.h"
#include "render/pprof/samples.h"
#include "render/report.h"
#include "util/atomic_file.h"
#include "util/xalloc.h"

/* ---- strings and functions, each written once and named by index ---- */

struct strtab {
    char **str;
    size_t n, cap;
    uint32_t *slot; /* index + 1; 0 empty */
    size_t nslot;   /* a power of two, at least twice n */
};

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

static void str_grow(struct strtab *t)
{
    size_t nslot = t->nslot ? t->nslot * 2 : 1024;
    uint32_t *slot = xcalloc(nslot, sizeof *slot);
    for (size_t i = 0; i < t->n; i++) {
        size_t k = hash_bytes(t->str[i], strlen(t->str[i]), 0xcbf29ce484222325ull) & (nslot - 1);
        while (slot[k])
            k = (k + 1) & (nslot - 1);
        slot[k] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
}

/* The index of s in the table, added when new. */
static uint64_t str_id(struct strtab *t, const char *s)
{
    if (2 * (t->n + 1) > t->nslot)
        str_grow(t);
    size_t k = hash_bytes(s, strlen(s), 0xcbf29ce484222325ull) & (t->nslot - 1);
    for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
        if (strcmp(t->str[t->slot[k] - 1], s) == 0)
            return t->slot[k] - 1;
    if (t->n == t->cap)
        t->str = xgrow(t->str, &t->cap, 256, sizeof *t->str);
    t->str[t->n] = xstrdup(s);
    t->slot[k] = (uint32_t)++t->n;
    return t->n - 1;
}

static void str_free(struct strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->str[i]);
    free(t->str);
    free(t->slot);
}

/* Functions by (name, file); their ids are index + 1. */
struct functab {
    uint64_t *key; /* name << 32 | file, string indices */
    size_t n, cap;
    uint32_t *slot;
    size_t nslot;
};

static void fn_grow(struct functab *f)
{
    size_t nslot = f->nslot ? f->nslot * 2 : 1024;
    uint32_t *slot = xcalloc(nslot, sizeof *slot);
    for (size_t i = 0; i < f->n; i++) {
        size_t k = hash_bytes(&f->key[i], sizeof f->key[i], 0xcbf29ce484222325ull) & (nslot - 1);
        while (slot[k])
            k = (k + 1) & (nslot - 1);
        slot[k] = (uint32_t)i + 1;
    }
    free(f->slot);
    f->slot = slot;
    f->nslot = nslot;
}

static uint64_t fn_id(struct functab *f, uint64_t name, uint64_t file)
{
    uint64_t key = name << 32 | file;
    if (2 * (f->n + 1) > f->nslot)
        fn_grow(f);
    size_t k = hash_bytes(&key, sizeof key, 0xcbf29ce484222325ull) & (f->nslot - 1);
    for (; f->slot[k]; k = (k + 1) & (f->nslot - 1))
        if (f->key[f->slot[k] - 1] == key)
            return f->slot[k];
    if (f->n == f->cap)
        f->key = xgrow(f->key, &f->cap, 256, sizeof *f->key);
    f->key[f->n] = key;
    f->slot[k] = (uint32_t)++f->n;
    return f->n;
}

/* ---- the profile ---- */

struct pw {
    const struct snapview *v;
    struct pb out, msg, sub, packed; /* the profile; scratch for nested messages */
    struct strtab st;
    struct functab fn;
    bool *loc_used; /* by location id: frame ids, and no_stack_loc */
    uint32_t no_stack_loc;
};

/* Field numbers of profile.proto */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
    PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
    PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
    LABEL_KEY = 1, LABEL_STR = 2,
    LOCATION_ID = 1, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1, LINE_LINE = 2,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

static void put_value_type(struct pw *w, uint32_t field, const char *type, const char *unit)
{
    w->sub.n = 0;
    pb_uint(&w->sub, VALUE_TYPE_TYPE, str_id(&w->st, type));
    pb_uint(&w->sub, VALUE_TYPE_UNIT, str_id(&w->st, unit));
    pb_msg(&w->out, field, &w->sub);
}

static void put_label(struct pw *w, const char *key, const char *value)
{
    w->sub.n = 0;
    pb_uint(&w->sub, LABEL_KEY, str_id(&w->st, key));
    pb_uint(&w->sub, LABEL_STR, str_id(&w->st, value));
    pb_msg(&w->msg, SAMPLE_LABEL, &w->sub);
}

static uint64_t clamp64(uint64_t v) { return v > INT64_MAX ? INT64_MAX : v; }

static void put_sample(struct pw *w, const struct pprof_sample *s)
{
    const struct stackdb *db = w->v->db;
    const struct cstack *c = &db->cs[s->cs];
    w->msg.n = 0;
    w->packed.n = 0;
    for (uint32_t i = 0; i < c->n; i++) { /* innermost first, as pprof wants */
        uint32_t id = db->seq[c->first + i];
        pb_varint(&w->packed, id);
        w->loc_used[id] = true;
    }
    if (c->n == 0) {
        pb_varint(&w->packed, w->no_stack_loc);
        w->loc_used[w->no_stack_loc] = true;
    }
    pb_msg(&w->msg, SAMPLE_LOCATION_ID, &w->packed);
    w->packed.n = 0;
    const uint64_t v[] = {s->alloc_objects, s->alloc_space, s->inuse_objects, s->inuse_space};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        pb_varint(&w->packed, clamp64(v[i]));
    pb_msg(&w->msg, SAMPLE_VALUE, &w->packed);
    char buf[32];
    if (s->device != PPROF_NO_DEVICE) {
        snprintf(buf, sizeof buf, "%" PRId32, s->device);
        put_label(w, "device", s->device < 0 ? "host" : buf);
    }
    put_label(w, "kind", gl_kind_name(s->kind));
    put_label(w, "api", gl_api_name(s->api));
    pb_msg(&w->out, PROFILE_SAMPLE, &w->msg);
}

/* What a frame is called: its function, else where its pc is (as the text
 * report and --folded name it). */
static const char *frame_name(const struct sym_frame *fr, char *buf, size_t len)
{
    if (fr->function)
        return fr->function;
    if (fr->module)
        snprintf(buf, len, "%s+0x%" PRIx64, fr->module, fr->offset);
    else
        snprintf(buf, len, "0x%" PRIx64, fr->address);
    return buf;
}

static void put_location(struct pw *w, uint64_t id, const struct sym_frame *fr)
{
    char buf[64];
    uint64_t name = str_id(&w->st, frame_name(fr, buf, sizeof buf));
    uint64_t file = str_id(&w->st, fr->file ? fr->file : "");
    uint64_t fid = fn_id(&w->fn, name, file);
    w->sub.n = 0;
    pb_uint(&w->sub, LINE_FUNCTION_ID, fid);
    if (fr->line)
        pb_uint(&w->sub, LINE_LINE, fr->line);
    w->msg.n = 0;
    pb_uint(&w->msg, LOCATION_ID, id);
    if (!fr->python && fr->address)
        pb_uint(&w->msg, LOCATION_ADDRESS, fr->address);
    pb_msg(&w->msg, LOCATION_LINE, &w->sub);
    pb_msg(&w->out, PROFILE_LOCATION, &w->msg);
}

static void put_functions(struct pw *w)
{
    for (size_t i = 0; i < w->fn.n; i++) {
        w->msg.n = 0;
        pb_uint(&w->msg, FUNCTION_ID, i + 1);
        pb_uint(&w->msg, FUNCTION_NAME, w->fn.key[i] >> 32);
        pb_uint(&w->msg, FUNCTION_SYSTEM_NAME, w->fn.key[i] >> 32);
        pb_uint(&w->msg, FUNCTION_FILENAME, w->fn.key[i] & 0xffffffffu);
        pb_msg(&w->out, PROFILE_FUNCTION, &w->msg);
    }
}

static void put_header(struct pw *w)
{
    const struct snapshot *s = w->v->s;
    str_id(&w->st, ""); /* index 0 must be the empty string */
    put_value_type(w, PROFILE_SAMPLE_TYPE, "alloc_objects", "count");
    put_value_type(w, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
    put_value_type(w, PROFILE_SAMPLE_TYPE, "inuse_objects", "count");
    put_value_type(w, PROFILE_SAMPLE_TYPE, "inuse_space", "bytes");
    put_value_type(w, PROFILE_PERIOD_TYPE, "space", "bytes");
    /* 1: every allocation counted; else, as Go's sampled heap profiles,
     * the mean bytes between samples (the values are already scaled) */
    pb_uint(&w->out, PROFILE_PERIOD, s->sampling.mode ? clamp64(s->sampling.sample_bytes) : 1);
    pb_uint(&w->out, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(&w->st, "inuse_space"));
    pb_uint(&w->out, PROFILE_TIME_NANOS, clamp64(s->proc.snapshot_unix_ns));
    pb_uint(&w->out, PROFILE_DURATION_NANOS, clamp64(s->proc.snapshot_mono_ns));
    char c[160];
    snprintf(c, sizeof c, "gpuleak snapshot %" PRIu64 " of pid %" PRIu32 " (rank %" PRIu32 ") on %s",
             s->proc.index, s->proc.pid, s->proc.rank, s->proc.host.s ? s->proc.host.s : "?");
    pb_uint(&w->out, PROFILE_COMMENT, str_id(&w->st, c));
    if (s->sampling.mode) { /* pprof -comments shows it */
        snprintf(c, sizeof c, "sampled (GPULEAK_MODE=light): a stack per %" PRIu64
                 " bytes on average; values estimated from the sampled allocations", s->sampling.sample_bytes);
        pb_uint(&w->out, PROFILE_COMMENT, str_id(&w->st, c));
    }
}

static void encode(struct pw *w, const struct pprof_samples *ps)
{
    const struct stackdb *db = w->v->db;
    put_header(w);
    for (size_t i = 0; i < ps->n; i++)
        put_sample(w, &ps->s[i]);
    for (uint32_t id = 1; id < db->nframes; id++)
        if (w->loc_used[id])
            put_location(w, id, &db->frames[id]);
    if (w->loc_used[w->no_stack_loc])
        put_location(w, w->no_stack_loc, &(struct sym_frame){.function = "[no stack]"});
    put_functions(w);
    for (size_t i = 0; i < w->st.n; i++)
        pb_bytes(&w->out, PROFILE_STRING_TABLE, w->st.str[i], strlen(w->st.str[i]));
}

/* gzip, as pprof and the profilers that ingest it expect; no name and no
 * time in the header, so one snapshot always gives the same bytes. */
static int gzip_buf(const struct pb *in, struct pb *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    uLong bound = deflateBound(&z, (uLong)in->n) + 32;
    out->p = xmalloc(bound);
    out->cap = bound;
    z.next_in = in->p;
    z.avail_in = (uInt)in->n;
    z.next_out = out->p;
    z.avail_out = (uInt)bound;
    int zr = deflate(&z, Z_FINISH);
    out->n = bound - z.avail_out;
    deflateEnd(&z);
    return zr == Z_STREAM_END ? 0 : -1;
}

static void pw_free(struct pw *w)
{
    free(w->loc_used);
    str_free(&w->st);
    free(w->fn.key);
    free(w->fn.slot);
    pb_free(&w->out);
    pb_free(&w->msg);
    pb_free(&w->sub);
    pb_free(&w->packed);
}

int pprof_encode(const struct snapview *v, struct pb *gz)
{
    struct pprof_samples ps;
    *gz = (struct pb){0};
    if (pprof_samples_build(v, &ps) != 0)
        return -1;
    struct pw w = {.v = v, .no_stack_loc = (uint32_t)v->db->nframes};
    w.loc_used = xcalloc(v->db->nframes + 1, sizeof *w.loc_used);
    encode(&w, &ps);
    /* zlib takes the length in a uInt; a profile that large is refused
     * rather than cut */
    int rc = w.out.n > UINT32_MAX ? -2 : gzip_buf(&w.out, gz) != 0 ? -2 : 0;
    if (rc != 0)
        pb_free(gz);
    pw_free(&w);
    pprof_samples_free(&ps);
    return rc;
}

int output_pprof(const struct report_ctx *r, const char *path)
{
    struct pb gz;
    char err[256];
    int rc = pprof_encode(r->v, &gz);
    if (rc == -1) {
        fputs("gpuleak-report: out of memory\n", stderr);
    } else if (rc != 0) {
        fprintf(stderr, "gpuleak-report: %s: cannot compress the profile\n", path);
    } else if (afile_write(path, gz.p, gz.n, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: %s: %s\n", path, err);
        rc = -1;
    }
    pb_free(&gz);
    return rc ? 1 : 0;
}
