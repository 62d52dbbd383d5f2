/* Strict reader for snapshot format v1 (common/snapshot_format.h).
 *
 * Design for hostile input: every length and count is checked against the
 * bytes that remain before anything is allocated, so the memory used is a
 * small multiple of the file size; fields are decoded with memcpy (no
 * unaligned casts); the first problem stops the parse with one message that
 * names the file offset. */
#include "model/snap_read.h"
#include "util/sort.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARRAY_RECS 16

struct parser {
    const uint8_t *buf;
    size_t len;
    struct snapshot *s;
    char *err;
    size_t errlen;
    bool failed;
    size_t cap_modules, cap_stacks, cap_pcs, cap_labels, cap_pyframes, cap_torch_steps;
    /* by the row of array_recs: the room of its array, and whether its
     * record was seen */
    size_t cap_arrays[MAX_ARRAY_RECS];
    unsigned char seen[MAX_ARRAY_RECS];
};

static int fail(struct parser *p, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, size_t off, const char *fmt, ...)
{
    if (!p->failed && p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(p->err, p->errlen, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < p->errlen)
            snprintf(p->err + n, p->errlen - (size_t)n, " (at offset %zu)", off);
    }
    p->failed = true;
    return -1;
}

/* The u32 of a string's length or a count in a variable tail (the fixed
 * parts are decoded from their field lists, snapshot_codec.h). */
static uint32_t get32(const uint8_t *b) { uint32_t v; gl_wire_get_u32(&v, b); return v; }

/* Grows *arr (element size elem) so that it holds at least need elements.
 * Callers have already checked need against the file size. */
static int grow(struct parser *p, void **arr, size_t *cap, size_t need,
                size_t elem, size_t off)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, ncap * elem);
    if (!n)
        return fail(p, off, "out of memory");
    *arr = n;
    *cap = ncap;
    return 0;
}

/* Reads "u32 length + bytes" at *pos within [.., end). */
static int read_str(struct parser *p, size_t *pos, size_t end, const char *what,
                    struct snap_str *out)
{
    if (end - *pos < 4)
        return fail(p, *pos, "truncated %s length", what);
    uint32_t n = get32(p->buf + *pos);
    if (n > GL_SNAP_MAX_STRING)
        return fail(p, *pos, "%s length %u exceeds limit %u", what, n,
                    GL_SNAP_MAX_STRING);
    if (end - *pos - 4 < n)
        return fail(p, *pos, "%s length %u exceeds remaining %zu bytes", what,
                    n, end - *pos - 4);
    out->s = malloc((size_t)n + 1);
    if (!out->s)
        return fail(p, *pos, "out of memory");
    memcpy(out->s, p->buf + *pos + 4, n);
    out->s[n] = '\0';
    out->len = n;
    *pos += 4 + (size_t)n;
    return 0;
}

static int parse_process(struct parser *p, size_t off, size_t end)
{
    struct snap_process *pr = &p->s->proc;
    const uint8_t *b = p->buf + off;
    if (end - off < GL_PROCESS_FIXED_SIZE)
        return fail(p, off, "PROCESS record too short (%zu bytes, need %u)",
                    end - off, GL_PROCESS_FIXED_SIZE);
    GL_WIRE_DECODE(PROCESS, process, b, pr);
    size_t pos = off + GL_PROCESS_FIXED_SIZE;
    if (read_str(p, &pos, end, "host name", &pr->host) ||
        read_str(p, &pos, end, "exe path", &pr->exe))
        return -1;
    if (end - pos < 4)
        return fail(p, pos, "truncated argc");
    uint32_t argc = get32(p->buf + pos);
    if (argc > GL_SNAP_MAX_ARGS)
        return fail(p, pos, "argc %u exceeds limit %u", argc, GL_SNAP_MAX_ARGS);
    /* each argument takes at least its 4-byte length */
    if ((end - pos - 4) / 4 < argc)
        return fail(p, pos, "argc %u exceeds remaining %zu bytes", argc,
                    end - pos - 4);
    pos += 4;
    pr->argv = calloc(argc ? argc : 1, sizeof *pr->argv);
    if (!pr->argv)
        return fail(p, pos, "out of memory");
    for (uint32_t i = 0; i < argc; i++) {
        if (read_str(p, &pos, end, "argument", &pr->argv[i]))
            return -1;
        pr->argc = i + 1; /* so snap_free frees exactly what was read */
    }
    return 0; /* bytes after argv: fields of a newer writer, ignored */
}

static int parse_module(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (end - off < GL_MODULE_FIXED_SIZE)
        return fail(p, off, "MODULE record too short (%zu bytes, need %u)",
                    end - off, GL_MODULE_FIXED_SIZE);
    if (grow(p, (void **)&s->modules, &p->cap_modules, s->nmodules + 1,
             sizeof *s->modules, off))
        return -1;
    struct snap_module *m = &s->modules[s->nmodules];
    memset(m, 0, sizeof *m);
    const uint8_t *b = p->buf + off;
    GL_WIRE_DECODE(MODULE, module, b, m);
    if (m->start > m->end)
        return fail(p, off + GL_WIRE_OFF(module, start), "module start 0x%llx above end 0x%llx",
                    (unsigned long long)m->start, (unsigned long long)m->end);
    if (m->build_id_len > GL_SNAP_MAX_BUILD_ID)
        return fail(p, off + GL_WIRE_OFF(module, build_id_len), "build-id length %u exceeds limit %u",
                    m->build_id_len, GL_SNAP_MAX_BUILD_ID);
    size_t pos = off + GL_MODULE_FIXED_SIZE;
    if (end - pos < m->build_id_len)
        return fail(p, pos, "truncated build-id");
    memcpy(m->build_id, p->buf + pos, m->build_id_len);
    pos += m->build_id_len;
    if (read_str(p, &pos, end, "module path", &m->path))
        return -1;
    s->nmodules++;
    return 0;
}

static int parse_stack(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (end - off < GL_STACK_FIXED_SIZE)
        return fail(p, off, "STACK record too short (%zu bytes, need %u)",
                    end - off, GL_STACK_FIXED_SIZE);
    struct gl_wire_stack h;
    gl_wire_stack_decode(p->buf + off, &h);
    uint32_t id = h.id, depth = h.depth;
    if (id == 0)
        return fail(p, off + GL_WIRE_OFF(stack, id), "STACK record with reserved id 0");
    if (depth > GL_SNAP_MAX_DEPTH)
        return fail(p, off + GL_WIRE_OFF(stack, depth), "stack depth %u exceeds limit %u", depth,
                    GL_SNAP_MAX_DEPTH);
    if ((end - off - GL_STACK_FIXED_SIZE) / sizeof(uint64_t) < depth)
        return fail(p, off + GL_WIRE_OFF(stack, depth), "stack depth %u exceeds record length", depth);
    if (grow(p, (void **)&s->stacks, &p->cap_stacks, s->nstacks + 1,
             sizeof *s->stacks, off) ||
        grow(p, (void **)&s->pcs, &p->cap_pcs, s->npcs + depth + 1,
             sizeof *s->pcs, off))
        return -1;
    struct snap_stack *st = &s->stacks[s->nstacks++];
    st->id = id;
    st->depth = depth;
    st->pc_off = s->npcs;
    for (uint32_t i = 0; i < depth; i++)
        gl_wire_get_u64(&s->pcs[s->npcs++], p->buf + off + GL_STACK_FIXED_SIZE + sizeof(uint64_t) * (size_t)i);
    return 0;
}

static int parse_torch(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (s->torch.status != 0)
        return fail(p, off, "second TORCH record");
    if (end - off < GL_TORCH_FIXED_SIZE_V1)
        return fail(p, off, "TORCH record too short (%zu bytes, need %u)", end - off, GL_TORCH_FIXED_SIZE_V1);
    /* An older file's record ends before age_us: read as 0. */
    uint8_t fixed[GL_TORCH_FIXED_SIZE] = {0};
    memcpy(fixed, p->buf + off, end - off < sizeof fixed ? end - off : sizeof fixed);
    GL_WIRE_DECODE(TORCH, torch, fixed, &s->torch);
    if (s->torch.status == 0)
        return fail(p, off + GL_WIRE_OFF(torch, status), "TORCH record with status 0");
    return 0;
}

static int parse_sampling(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (s->sampling.mode != 0)
        return fail(p, off, "second SAMPLING record");
    if (end - off < GL_SAMPLING_FIXED_SIZE)
        return fail(p, off, "SAMPLING record too short (%zu bytes, need %u)", end - off, GL_SAMPLING_FIXED_SIZE);
    GL_WIRE_DECODE(SAMPLING, sampling, p->buf + off, &s->sampling);
    if (s->sampling.mode != GL_SAMPLING_BYTES)
        return fail(p, off + GL_WIRE_OFF(sampling, mode), "SAMPLING record with unknown mode %u", s->sampling.mode);
    if (s->sampling.sample_bytes == 0)
        return fail(p, off + GL_WIRE_OFF(sampling, sample_bytes), "SAMPLING record with sample_bytes 0");
    return 0;
}

/* ---- array records ----------------------------------------------------- */

/* Array records: count entries of equal size length/count, each at least
 * min bytes (an older writer's entry, where fields were appended since) and
 * counted as long beyond the size this reader knows (a newer writer may
 * append fields). */
static int array_stride(struct parser *p, size_t off, const char *what, uint32_t count, uint64_t length,
                        size_t min, size_t known, size_t *stride)
{
    *stride = 0;
    if (count == 0)
        return 0;
    if ((uint64_t)count * min > length)
        return fail(p, off, "%s count %u needs at least %llu bytes, record has %llu",
                    what, count, (unsigned long long)count * min,
                    (unsigned long long)length);
    if (length % count != 0)
        return fail(p, off, "%s record length %llu is not a multiple of its "
                    "count %u", what, (unsigned long long)length, count);
    *stride = (size_t)(length / count);
    if (*stride < min)
        return fail(p, off, "%s entries are %zu bytes, need at least %zu",
                    what, *stride, min);
    if (*stride > known)
        p->s->long_entries += count;
    return 0;
}

/* The largest entry this reader knows: an older writer's shorter entry is
 * copied into a zeroed buffer of this size before it is decoded. */
#define MAX_KNOWN_ENTRY 192u

/* decode_<part>(bytes, entry): one entry of today's size into its snap_*
 * struct, expanded from the part's field list. */
#define DEFINE_DECODER(PART, part, type)                                       \
    _Static_assert(sizeof(struct gl_wire_##part##_layout) <= MAX_KNOWN_ENTRY,  \
                   #PART " entries outgrew MAX_KNOWN_ENTRY");                  \
    static void decode_##part(const uint8_t *b, void *out)                     \
    {                                                                          \
        struct type *e = out;                                                  \
        GL_WIRE_DECODE(PART, part, b, e);                                      \
    }
DEFINE_DECODER(ALLOCS, allocs, snap_alloc)
DEFINE_DECODER(DEVICES, devices, snap_device)
DEFINE_DECODER(PEAK, peak, snap_peak)
DEFINE_DECODER(EVENTS, events, snap_event)
DEFINE_DECODER(POOLS, pools, snap_pool)
DEFINE_DECODER(VMM, vmm, snap_vmm)
DEFINE_DECODER(BAD_FREES, bad_frees, snap_bad_free)
DEFINE_DECODER(TEARDOWN, teardown, snap_teardown)
DEFINE_DECODER(CALLS, calls, snap_calls)
DEFINE_DECODER(TORCH_BLOCKS, torch_blocks, snap_torch_block)

struct array_rec;

/* What the reader knows of one array record: its entries' sizes and
 * decoder (from the format's field list), where they go in the snapshot,
 * and the checks beyond the decoding.  One generic routine, parse_array,
 * reads every array record from its row. */
struct array_rec {
    const char *name; /* in error messages: the record's name in the format */
    uint32_t type;
    size_t size, min; /* today's entry size; the smallest an older writer wrote */
    void (*decode)(const uint8_t *entry, void *out);
    size_t elem;          /* sizeof the snap_* struct */
    size_t arr, n;        /* offsets in struct snapshot of its array and count */
    bool device;          /* the entry has a device field, checked: */
    size_t dev_member, dev_wire; /* its offset in the struct and in the entry */
    bool once;            /* a second record would count everything twice */
    uint32_t max;         /* entries in the file, 0: no limit but the file size */
    const char *noun;     /* "more than MAX <noun> entries"; and, with count: */
    size_t count_member, count_wire; /* a count field that is never 0 */
    /* before the entries: the record in its context; 0 or fail */
    int (*admit)(struct parser *p, size_t hdr, uint32_t count);
    /* each entry, decoded at eo: 1 keep, 0 skip it, -1 fail */
    int (*check)(struct parser *p, const struct array_rec *k, void *entry, size_t eo);
};

#define ARRAY_OF(PART, part, stype, member)                                     \
    .name = #PART, .type = GL_REC_##PART, .size = sizeof(struct gl_wire_##part##_layout), \
    .min = GL_ENTRY_MIN_##PART, .decode = decode_##part, .elem = sizeof(struct stype), \
    .arr = offsetof(struct snapshot, member), .n = offsetof(struct snapshot, n##member)
#define WITH_DEVICE(part, stype)                                                \
    .device = true, .dev_member = offsetof(struct stype, device), .dev_wire = GL_WIRE_OFF(part, device)
#define WITH_COUNT(part, stype)                                                 \
    .count_member = offsetof(struct stype, count), .count_wire = GL_WIRE_OFF(part, count)

static int check_device(struct parser *p, int32_t dev, size_t off)
{
    /* the analyses index per-device tables by ordinal */
    if (dev < -1 || dev > GL_SNAP_MAX_DEVICE)
        return fail(p, off, "invalid device %d", dev);
    return 0;
}

/* DEVICES: one entry per device. */
static int check_devices_entry(struct parser *p, const struct array_rec *k, void *entry, size_t eo)
{
    (void)k;
    const struct snap_device *d = entry;
    struct snapshot *s = p->s;
    /* few devices: a linear duplicate check is fine, but bound it so a
     * hostile file with millions of entries stays fast */
    if (s->ndevices >= 4096)
        return fail(p, eo, "more than 4096 device entries");
    for (size_t j = 0; j < s->ndevices; j++)
        if (s->devices[j].device == d->device)
            return fail(p, eo, "duplicate entry for device %d", d->device);
    return 1;
}

/* EVENTS: a FREE event's mem_free is the free's own stack id. */
static int check_events_entry(struct parser *p, const struct array_rec *k, void *entry, size_t eo)
{
    (void)k;
    struct snap_event *e = entry;
    if (e->type == GL_EV_FREE) {
        if (e->mem_free > UINT32_MAX)
            return fail(p, eo + GL_WIRE_OFF(events, mem_free), "free event with a stack id of %" PRIu64,
                        e->mem_free);
        e->free_stack_id = (uint32_t)e->mem_free;
        e->mem_free = 0;
    }
    return 1;
}

/* BAD_FREES, TEARDOWN: each entry stands for at least one. */
static int check_count_entry(struct parser *p, const struct array_rec *k, void *entry, size_t eo)
{
    uint64_t count;
    memcpy(&count, (const char *)entry + k->count_member, sizeof count);
    if (count == 0)
        return fail(p, eo + k->count_wire, "%s entry with a count of 0", k->noun);
    return 1;
}

/* CALLS: entries with no calls (a writer's padding) are skipped. */
static int check_calls_entry(struct parser *p, const struct array_rec *k, void *entry, size_t eo)
{
    (void)p, (void)k, (void)eo;
    return ((const struct snap_calls *)entry)->allocs != 0;
}

/* TORCH_BLOCKS: only after a TORCH record that says it answered, and never
 * more entries than it announced: the count bounds the memory they take. */
static int admit_torch_blocks(struct parser *p, size_t hdr, uint32_t count)
{
    struct snapshot *s = p->s;
    if (s->torch.status != GL_TORCH_ANSWERED)
        return fail(p, hdr, "TORCH_BLOCKS record without an answered TORCH record before it");
    if (count > s->torch.blocks - s->ntorch_blocks)
        return fail(p, hdr, "more TORCH_BLOCKS entries than the TORCH record's %llu",
                    (unsigned long long)s->torch.blocks);
    return 0;
}

static const struct array_rec array_recs[] = {
    {ARRAY_OF(ALLOCS, allocs, snap_alloc, allocs), WITH_DEVICE(allocs, snap_alloc)},
    {ARRAY_OF(DEVICES, devices, snap_device, devices), WITH_DEVICE(devices, snap_device), .once = true,
     .check = check_devices_entry},
    {ARRAY_OF(PEAK, peak, snap_peak, peaks), WITH_DEVICE(peak, snap_peak), .once = true},
    {ARRAY_OF(EVENTS, events, snap_event, events), WITH_DEVICE(events, snap_event), .check = check_events_entry},
    {ARRAY_OF(POOLS, pools, snap_pool, pools), WITH_DEVICE(pools, snap_pool)},
    /* VMM entries of unknown types are kept and ignored by the analyses */
    {ARRAY_OF(VMM, vmm, snap_vmm, vmms), WITH_DEVICE(vmm, snap_vmm)},
    /* The writer keeps at most GL_BAD_FREE_MAX sites; more is a hostile file
     * (and each costs a pass over the history in the report). */
    {ARRAY_OF(BAD_FREES, bad_frees, snap_bad_free, bad_frees), WITH_DEVICE(bad_frees, snap_bad_free),
     .max = GL_BAD_FREE_MAX, .noun = "bad-free", WITH_COUNT(bad_frees, snap_bad_free), .check = check_count_entry},
    {ARRAY_OF(TEARDOWN, teardown, snap_teardown, teardowns), WITH_DEVICE(teardown, snap_teardown),
     .max = GL_TEARDOWN_MAX, .noun = "teardown", WITH_COUNT(teardown, snap_teardown), .check = check_count_entry},
    {ARRAY_OF(CALLS, calls, snap_calls, calls), .check = check_calls_entry},
    {ARRAY_OF(TORCH_BLOCKS, torch_blocks, snap_torch_block, torch_blocks), WITH_DEVICE(torch_blocks, snap_torch_block),
     .admit = admit_torch_blocks},
};
#define NARRAY_RECS (sizeof array_recs / sizeof array_recs[0])
_Static_assert(NARRAY_RECS <= MAX_ARRAY_RECS, "struct parser keeps room for every array record");

static const struct array_rec *array_rec_of(uint32_t type)
{
    for (size_t i = 0; i < NARRAY_RECS; i++)
        if (array_recs[i].type == type)
            return &array_recs[i];
    return NULL;
}

/* The record before its entries: once, within its limits, in context. */
static int admit_array(struct parser *p, const struct array_rec *k, size_t hdr, uint32_t count)
{
    size_t i = (size_t)(k - array_recs);
    size_t have = *(const size_t *)((const char *)p->s + k->n);
    if (k->once && p->seen[i]++)
        return fail(p, hdr, "second %s record", k->name);
    if (k->max && count > k->max - have)
        return fail(p, hdr, "more than %u %s entries", k->max, k->noun);
    return k->admit ? k->admit(p, hdr, count) : 0;
}

/* Decodes the entry of stride bytes at eo into out: an older writer's
 * shorter entry as if the fields appended since were 0, a newer writer's
 * longer one without the tail this reader does not know. */
static void decode_entry(struct parser *p, const struct array_rec *k, size_t eo, size_t stride, void *out)
{
    const uint8_t *b = p->buf + eo;
    uint8_t full[MAX_KNOWN_ENTRY] = {0};
    if (stride < k->size) {
        memcpy(full, b, stride);
        b = full;
    }
    memset(out, 0, k->elem);
    k->decode(b, out);
}

/* An array record of count entries in length bytes at off (header at hdr),
 * appended to the snapshot's array of its kind. */
static int parse_array(struct parser *p, const struct array_rec *k, size_t hdr, size_t off, uint32_t count,
                       uint64_t length)
{
    void **arr = (void **)((char *)p->s + k->arr);
    size_t *n = (size_t *)((char *)p->s + k->n), stride;
    if (admit_array(p, k, hdr, count) || array_stride(p, hdr, k->name, count, length, k->min, k->size, &stride) ||
        grow(p, arr, &p->cap_arrays[k - array_recs], *n + count, k->elem, hdr))
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        size_t eo = off + (size_t)i * stride;
        char *e = (char *)*arr + *n * k->elem;
        decode_entry(p, k, eo, stride, e);
        if (k->device) {
            int32_t dev;
            memcpy(&dev, e + k->dev_member, sizeof dev);
            if (check_device(p, dev, eo + k->dev_wire))
                return -1;
        }
        int keep = k->check ? k->check(p, k, e, eo) : 1;
        if (keep < 0)
            return -1;
        *n += (size_t)keep;
    }
    return 0;
}

static int parse_label(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (end - off < GL_LABEL_FIXED_SIZE)
        return fail(p, off, "LABEL record too short (%zu bytes, need %u)",
                    end - off, GL_LABEL_FIXED_SIZE);
    if (grow(p, (void **)&s->labels, &p->cap_labels, s->nlabels + 1,
             sizeof *s->labels, off))
        return -1;
    struct snap_label *l = &s->labels[s->nlabels];
    memset(l, 0, sizeof *l);
    GL_WIRE_DECODE(LABEL, label, p->buf + off, l);
    size_t pos = off + GL_LABEL_FIXED_SIZE;
    if (read_str(p, &pos, end, "label", &l->text))
        return -1;
    s->nlabels++;
    return 0;
}

static void free_str(struct snap_str *str);

static int parse_env(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (s->env != NULL)
        return fail(p, off, "second ENV record");
    if (end - off < GL_ENV_FIXED_SIZE)
        return fail(p, off, "ENV record too short (%zu bytes, need %u)", end - off, GL_ENV_FIXED_SIZE);
    struct gl_wire_env h;
    gl_wire_env_decode(p->buf + off, &h);
    uint32_t n = h.count;
    if (n > GL_ENV_MAX)
        return fail(p, off, "ENV count %u exceeds limit %u", n, GL_ENV_MAX);
    s->env = calloc(n ? n : 1, sizeof *s->env);
    if (s->env == NULL)
        return fail(p, off, "out of memory");
    size_t pos = off + GL_ENV_FIXED_SIZE;
    for (uint32_t i = 0; i < n; i++) {
        if (read_str(p, &pos, end, "environment variable", &s->env[i]))
            return -1;
        s->nenv++;
    }
    return 0;
}

static int parse_torch_settings(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (s->have_torch_settings)
        return fail(p, off, "second TORCH_SETTINGS record");
    if (end - off < GL_TORCH_SETTINGS_FIXED_SIZE)
        return fail(p, off, "TORCH_SETTINGS record too short (%zu bytes, need %u)", end - off,
                    GL_TORCH_SETTINGS_FIXED_SIZE);
    struct gl_wire_torch_settings h;
    gl_wire_torch_settings_decode(p->buf + off, &h);
    if (h.count > GL_TORCH_SETTINGS_MAX)
        return fail(p, off, "TORCH_SETTINGS count %u exceeds limit %u", h.count, GL_TORCH_SETTINGS_MAX);
    s->have_torch_settings = true;
    s->torch_settings = calloc(h.count ? h.count : 1, sizeof *s->torch_settings);
    if (s->torch_settings == NULL)
        return fail(p, off, "out of memory");
    size_t pos = off + GL_TORCH_SETTINGS_FIXED_SIZE;
    for (uint32_t i = 0; i < h.count; i++) {
        if (read_str(p, &pos, end, "allocator setting", &s->torch_settings[i]))
            return -1;
        s->ntorch_settings++;
    }
    return 0;
}

static int parse_torch_oom(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (s->torch_oom.present)
        return fail(p, off, "second TORCH_OOM record");
    if (end - off < GL_TORCH_OOM_FIXED_SIZE)
        return fail(p, off, "TORCH_OOM record too short (%zu bytes, need %u)", end - off, GL_TORCH_OOM_FIXED_SIZE);
    GL_WIRE_DECODE(TORCH_OOM, torch_oom, p->buf + off, &s->torch_oom);
    s->torch_oom.present = true;
    return 0;
}

const char *snap_env(const struct snapshot *s, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < s->nenv; i++)
        if (s->env[i].len > len && strncmp(s->env[i].s, name, len) == 0 && s->env[i].s[len] == '=')
            return s->env[i].s + len + 1;
    return NULL;
}

static int parse_pyframe(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (end - off < GL_PYFRAME_FIXED_SIZE)
        return fail(p, off, "PYFRAME record too short (%zu bytes, need %u)",
                    end - off, GL_PYFRAME_FIXED_SIZE);
    if (grow(p, (void **)&s->pyframes, &p->cap_pyframes, s->npyframes + 1,
             sizeof *s->pyframes, off))
        return -1;
    struct snap_pyframe *f = &s->pyframes[s->npyframes];
    memset(f, 0, sizeof *f);
    GL_WIRE_DECODE(PYFRAME, pyframe, p->buf + off, f);
    size_t pos = off + GL_PYFRAME_FIXED_SIZE;
    if (read_str(p, &pos, end, "Python file", &f->file))
        return -1;
    if (read_str(p, &pos, end, "Python function", &f->function)) {
        free_str(&f->file);
        return -1;
    }
    s->npyframes++;
    return 0;
}

static int parse_torch_step_line(struct parser *p, size_t *pos, size_t end, struct snap_torch_step_line *l)
{
    if (end - *pos < GL_TORCH_STEP_LINE_FIXED_SIZE)
        return fail(p, *pos, "TORCH_STEP line too short (%zu bytes, need %u)", end - *pos,
                    GL_TORCH_STEP_LINE_FIXED_SIZE);
    memcpy(&l->bytes, p->buf + *pos, 8);
    memcpy(&l->count, p->buf + *pos + 8, 8);
    memcpy(&l->line, p->buf + *pos + 16, 4);
    *pos += GL_TORCH_STEP_LINE_FIXED_SIZE;
    if (read_str(p, pos, end, "step line's file", &l->file))
        return -1;
    if (read_str(p, pos, end, "step line's function", &l->function)) {
        free_str(&l->file);
        return -1;
    }
    return 0;
}

static void free_torch_step(struct snap_torch_step *t, uint32_t nlines)
{
    for (uint32_t i = 0; i < nlines; i++) {
        free_str(&t->line_list[i].file);
        free_str(&t->line_list[i].function);
    }
    free(t->line_list);
}

static int parse_torch_step(struct parser *p, size_t off, size_t end)
{
    struct snapshot *s = p->s;
    if (end - off < GL_TORCH_STEP_FIXED_SIZE)
        return fail(p, off, "TORCH_STEP record too short (%zu bytes, need %u)", end - off,
                    GL_TORCH_STEP_FIXED_SIZE);
    if (grow(p, (void **)&s->torch_steps, &p->cap_torch_steps, s->ntorch_steps + 1, sizeof *s->torch_steps, off))
        return -1;
    struct snap_torch_step *t = &s->torch_steps[s->ntorch_steps];
    memset(t, 0, sizeof *t);
    GL_WIRE_DECODE(TORCH_STEP, torch_step, p->buf + off, t);
    if (t->lines > GL_TORCH_STEP_MAX_LINES)
        return fail(p, off + GL_WIRE_OFF(torch_step, lines), "TORCH_STEP record with %u lines (at most %u)", t->lines,
                    GL_TORCH_STEP_MAX_LINES);
    t->line_list = calloc(t->lines + 1, sizeof *t->line_list);
    if (t->line_list == NULL)
        return fail(p, off, "out of memory");
    size_t pos = off + GL_TORCH_STEP_FIXED_SIZE;
    for (uint32_t i = 0; i < t->lines; i++)
        if (parse_torch_step_line(p, &pos, end, &t->line_list[i]) != 0) {
            free_torch_step(t, i);
            return -1;
        }
    /* the trailer: absent from older records; a newer writer's longer one is
     * read by its prefix */
    if (end - pos >= GL_TORCH_STEP_TRAILER_SIZE) {
        t->has_trailer = true;
        memcpy(&t->recorded_steps, p->buf + pos, 8);
        memcpy(&t->lines_every, p->buf + pos + 8, 4);
    }
    s->ntorch_steps++;
    return 0;
}

/* STACK, PYFRAME and LABEL records are sorted and found by their id, the
 * first field of each (snapshot_fields.h): one comparator, one duplicate
 * check and one search serve the three. */
_Static_assert(offsetof(struct snap_stack, id) == 0 && offsetof(struct snap_pyframe, id) == 0 &&
                   offsetof(struct snap_label, id) == 0,
               "id leads every record looked up by id");

static uint32_t leading_id(const void *rec)
{
    uint32_t id;
    memcpy(&id, rec, sizeof id);
    return id;
}

static int cmp_leading_id(const void *a, const void *b)
{
    uint32_t x = leading_id(a), y = leading_id(b);
    return x < y ? -1 : x > y;
}

/* Sorts n records of size bytes by id.  false, with *dup the id, when an id
 * repeats. */
static bool sort_unique_ids(void *recs, size_t n, size_t size, uint32_t *dup)
{
    sort_array(recs, n, size, cmp_leading_id);
    const char *r = recs;
    for (size_t i = 1; i < n; i++)
        if (leading_id(r + i * size) == leading_id(r + (i - 1) * size)) {
            *dup = leading_id(r + i * size);
            return false;
        }
    return true;
}

/* The record with that id among n records of size bytes sorted by id, or NULL. */
static const void *find_by_id(const void *recs, size_t n, size_t size, uint32_t id)
{
    const char *r = recs;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (leading_id(r + mid * size) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && leading_id(r + lo * size) == id ? r + lo * size : NULL;
}

const struct snap_pyframe *snap_find_pyframe(const struct snapshot *s, uint32_t id)
{
    return find_by_id(s->pyframes, s->npyframes, sizeof *s->pyframes, id);
}

const struct snap_label *snap_find_label(const struct snapshot *s, uint32_t id)
{
    return find_by_id(s->labels, s->nlabels, sizeof *s->labels, id);
}

const struct snap_stack *snap_find_stack(const struct snapshot *s, uint32_t id)
{
    return find_by_id(s->stacks, s->nstacks, sizeof *s->stacks, id);
}

/* Cross-record checks, once everything is read.  Offsets name the END record
 * since the problem is with the file as a whole. */
/* Light mode: the allocations not sampled share one stack whose only frame
 * is no code address.  Every analysis already knows stack id 0, "no
 * stack", so they get that, and renderers say "not sampled" for it. */
static void unsampled_to_no_stack(struct snapshot *s)
{
    uint32_t u = s->sampling.unsampled_stack_id;
    if (s->sampling.mode == 0 || u == 0)
        return;
#define UNSAMPLE(arr, n, field)                                                \
    for (size_t i = 0; i < (n); i++)                                           \
        if ((arr)[i].field == u)                                               \
            (arr)[i].field = 0;
    UNSAMPLE(s->allocs, s->nallocs, stack_id)
    UNSAMPLE(s->peaks, s->npeaks, stack_id)
    UNSAMPLE(s->events, s->nevents, stack_id)
    UNSAMPLE(s->calls, s->ncalls, stack_id)
    UNSAMPLE(s->teardowns, s->nteardowns, stack_id)
#undef UNSAMPLE
}

static int validate(struct parser *p, size_t end_off)
{
    struct snapshot *s = p->s;
    uint32_t dup;
    if (!sort_unique_ids(s->stacks, s->nstacks, sizeof *s->stacks, &dup))
        return fail(p, end_off, "duplicate stack id %u", dup);
    if (!sort_unique_ids(s->pyframes, s->npyframes, sizeof *s->pyframes, &dup))
        return fail(p, end_off, "duplicate Python frame id %u", dup);
    if (!sort_unique_ids(s->labels, s->nlabels, sizeof *s->labels, &dup))
        return fail(p, end_off, "duplicate label id %u", dup);
    for (size_t i = 0; i < s->nallocs; i++) {
        uint32_t id = s->allocs[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "allocation %zu refers to undefined stack id %u", i, id);
    }
    for (size_t i = 0; i < s->npeaks; i++) {
        uint32_t id = s->peaks[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "peak entry %zu refers to undefined stack id %u", i, id);
    }
    for (size_t i = 0; i < s->nevents; i++) {
        uint32_t id = s->events[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "event %zu refers to undefined stack id %u", i, id);
        id = s->events[i].free_stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "free event %zu refers to undefined stack id %u", i, id);
    }
    for (size_t i = 0; i < s->ncalls; i++) {
        uint32_t id = s->calls[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "calls entry %zu refers to undefined stack id %u", i, id);
    }
    for (size_t i = 0; i < s->nteardowns; i++) {
        uint32_t id = s->teardowns[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "teardown entry %zu refers to undefined stack id %u", i, id);
    }
    for (size_t i = 0; i < s->ntorch_blocks; i++) {
        uint32_t id = s->torch_blocks[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "torch block %zu refers to undefined stack id %u", i, id);
    }
    for (size_t i = 0; i < s->nbad_frees; i++) {
        uint32_t id = s->bad_frees[i].stack_id;
        if (id && !snap_find_stack(s, id))
            return fail(p, end_off, "bad-free entry %zu refers to undefined stack id %u", i, id);
    }
    unsampled_to_no_stack(s);
    return 0;
}

static int check_header(struct parser *p)
{
    const uint8_t *buf = p->buf;
    size_t len = p->len;
    if (len < GL_SNAP_FILE_HEADER_SIZE)
        return fail(p, len, "file too short for a snapshot header (%zu bytes)", len);
    struct gl_wire_file_header h;
    gl_wire_file_header_decode(buf, &h);
    if (memcmp(h.magic, GL_SNAP_MAGIC, GL_SNAP_MAGIC_LEN) != 0)
        return fail(p, GL_WIRE_OFF(file_header, magic), "not a gpuleak snapshot (bad magic)");
    if (h.version != GL_SNAP_VERSION)
        return fail(p, GL_WIRE_OFF(file_header, version),
                    "unsupported snapshot version %u (this reader knows %u)", h.version, GL_SNAP_VERSION);
    if (h.flags != 0)
        return fail(p, GL_WIRE_OFF(file_header, flags), "unsupported file header flags 0x%x", h.flags);
    return 0;
}

int snap_check_header(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    struct parser p = {.buf = buf, .len = len, .err = err, .errlen = errlen};
    return check_header(&p);
}

static int parse(struct parser *p)
{
    const uint8_t *buf = p->buf;
    size_t len = p->len;
    if (check_header(p) != 0)
        return -1;

    size_t pos = GL_SNAP_FILE_HEADER_SIZE;
    uint64_t nrec = 0;
    bool have_process = false;
    for (;;) {
        if (pos == len)
            return fail(p, pos, "truncated: no END record");
        if (len - pos < GL_SNAP_RECORD_HEADER_SIZE)
            return fail(p, pos, "truncated record header (%zu of %u bytes)",
                        len - pos, GL_SNAP_RECORD_HEADER_SIZE);
        struct gl_wire_record_header rh;
        gl_wire_record_header_decode(buf + pos, &rh);
        uint32_t type = rh.type, count = rh.count;
        uint64_t length = rh.length;
        size_t body = pos + GL_SNAP_RECORD_HEADER_SIZE;
        if (length > len - body)
            return fail(p, pos, "record length %llu exceeds the %zu bytes left "
                        "(truncated?)", (unsigned long long)length, len - body);
        size_t end = body + (size_t)length;
        if (!have_process && type != GL_REC_PROCESS)
            return fail(p, pos, "first record is type %u, not PROCESS", type);
        int rc = 0;
        switch (type) {
        case GL_REC_PROCESS:
            if (have_process)
                return fail(p, pos, "second PROCESS record");
            have_process = true;
            rc = parse_process(p, body, end);
            break;
        case GL_REC_MODULE: rc = parse_module(p, body, end); break;
        case GL_REC_STACK: rc = parse_stack(p, body, end); break;
        case GL_REC_LABEL: rc = parse_label(p, body, end); break;
        case GL_REC_PYFRAME: rc = parse_pyframe(p, body, end); break;
        case GL_REC_ENV: rc = parse_env(p, body, end); break;
        case GL_REC_TORCH: rc = parse_torch(p, body, end); break;
        case GL_REC_TORCH_SETTINGS: rc = parse_torch_settings(p, body, end); break;
        case GL_REC_TORCH_OOM: rc = parse_torch_oom(p, body, end); break;
        case GL_REC_SAMPLING: rc = parse_sampling(p, body, end); break;
        case GL_REC_TORCH_STEP: rc = parse_torch_step(p, body, end); break;
        case GL_REC_END: {
            if (length < GL_END_SIZE)
                return fail(p, pos, "END record too short (%llu bytes, need %u)",
                            (unsigned long long)length, GL_END_SIZE);
            struct gl_wire_end e;
            gl_wire_end_decode(buf + body, &e);
            if (e.records != nrec)
                return fail(p, body + GL_WIRE_OFF(end, records), "END record counts %llu records, file has %llu",
                            (unsigned long long)e.records, (unsigned long long)nrec);
            if (e.offset != pos)
                return fail(p, body + GL_WIRE_OFF(end, offset), "END record says it is at offset %llu",
                            (unsigned long long)e.offset);
            if (end != len && len - end >= GL_SNAP_RECORD_HEADER_SIZE) {
                struct gl_wire_record_header next;
                gl_wire_record_header_decode(buf + end, &next);
                return fail(p, end, "record of type %u after the END record", next.type);
            }
            if (end != len)
                return fail(p, end, "%zu bytes of data after the END record",
                            len - end);
            return validate(p, pos);
        }
        default: {
            const struct array_rec *k = array_rec_of(type);
            if (k != NULL)
                rc = parse_array(p, k, pos, body, count, length);
            else
                p->s->unknown_records++; /* a newer writer's record: skip it */
            break;
        }
        }
        if (rc)
            return -1;
        nrec++;
        pos = end;
    }
}

int snap_parse(const uint8_t *buf, size_t len, struct snapshot *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    struct parser p = {.buf = buf, .len = len, .s = out, .err = err, .errlen = errlen};
    out->file_size = len;
    if (parse(&p) != 0) {
        snap_free(out);
        return -1;
    }
    return 0;
}

static void free_str(struct snap_str *str)
{
    free(str->s);
    str->s = NULL;
    str->len = 0;
}

void snap_free(struct snapshot *s)
{
    free_str(&s->proc.host);
    free_str(&s->proc.exe);
    if (s->proc.argv)
        for (uint32_t i = 0; i < s->proc.argc; i++)
            free_str(&s->proc.argv[i]);
    free(s->proc.argv);
    /* modules: a failed parse_module never incremented nmodules, but it may
     * have allocated nothing (read_str frees nothing on failure; it only
     * allocates after all checks pass and then succeeds) */
    for (size_t i = 0; i < s->nmodules; i++)
        free_str(&s->modules[i].path);
    free(s->modules);
    free(s->stacks);
    free(s->pcs);
    free(s->allocs);
    free(s->devices);
    free(s->peaks);
    free(s->events);
    free(s->pools);
    free(s->vmms);
    free(s->bad_frees);
    free(s->teardowns);
    free(s->torch_blocks);
    for (size_t i = 0; i < s->ntorch_steps; i++)
        free_torch_step(&s->torch_steps[i], s->torch_steps[i].lines);
    free(s->torch_steps);
    free(s->calls);
    for (size_t i = 0; i < s->nlabels; i++)
        free_str(&s->labels[i].text);
    free(s->labels);
    for (size_t i = 0; i < s->npyframes; i++) {
        free_str(&s->pyframes[i].file);
        free_str(&s->pyframes[i].function);
    }
    free(s->pyframes);
    for (size_t i = 0; i < s->nenv; i++)
        free_str(&s->env[i]);
    free(s->env);
    for (size_t i = 0; i < s->ntorch_settings; i++)
        free_str(&s->torch_settings[i]);
    free(s->torch_settings);
    memset(s, 0, sizeof *s);
}
