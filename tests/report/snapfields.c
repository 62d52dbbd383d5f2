/* snapfields: the field lists of common/snapshot_fields.h as data, for what
 * is not C: the docs tables and the tests that alter or read one field of a
 * snapshot.  Every offset it prints is computed from the lists (through the
 * layouts of snapshot_codec.h), so a test names a field and never counts
 * bytes.
 *
 *   snapfields layout           one line per field: PART FIELD OFFSET FORMAT
 *                               (FORMAT as Python's struct: H I Q i 8s),
 *                               and per part: PART :size SIZE -
 *   snapfields doc PART         the markdown table of PART's fields
 *   snapfields records          the markdown table of record types
 *   snapfields set IN OUT RECORD ENTRY FIELD VALUE
 *                               a copy of IN with FIELD of entry ENTRY (0 for
 *                               a record that is no array) of the first
 *                               RECORD record set to VALUE; FIELD "count" or
 *                               "length" with ENTRY -1: that record's header
 *   snapfields count IN RECORD  how many RECORD records IN holds, and their
 *                               entries (the headers' counts), as "N E"
 *   snapfields resize IN OUT RECORD BYTES
 *                               a copy of IN whose RECORD entries ("all":
 *                               every array record's) are BYTES long: a
 *                               number, "min" (GL_ENTRY_MIN_<PART>: the file
 *                               an oldest writer wrote) or "+N" (N bytes past
 *                               today's size: a newer writer's).  Fields cut
 *                               off and grown back read 0; bytes past
 *                               today's size are 0xee
 *
 * Built by tests/module.mk; scripts/format-doc.py compiles it on its own
 * when there is no build. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_codec.h"

struct field {
    const char *type, *name, *doc;
    size_t offset, width;
    int reserved;
};

struct part {
    const char *name;
    size_t size;
    const struct field *fields;
    size_t nfields;
};

#define FIELD_F(t, n, d) {#t, #n, d, offsetof(gl_lay_cur, n), sizeof(gl_wire_##t), 0},
#define FIELD_R(t, n, d) {#t, #n, d, offsetof(gl_lay_cur, reserved_##n), sizeof(gl_wire_##t), 1},
#define DEFINE_TABLE(PART, part, size)                                          \
    static const struct field *fields_of_##part(size_t *n)                      \
    {                                                                           \
        typedef struct gl_wire_##part##_layout gl_lay_cur;                      \
        static const struct field f[] = {GL_FIELDS_##PART(FIELD_F, FIELD_R)};   \
        *n = sizeof f / sizeof f[0];                                            \
        return f;                                                               \
    }
GL_PART_LIST(DEFINE_TABLE)

static struct part parts[64];
static size_t nparts;

static void load_parts(void)
{
#define ADD_PART(PART, part, sz)                                                \
    parts[nparts].name = #PART;                                                 \
    parts[nparts].size = (sz);                                                  \
    parts[nparts].fields = fields_of_##part(&parts[nparts].nfields);            \
    nparts++;
    GL_PART_LIST(ADD_PART)
#undef ADD_PART
}

static const struct part *find_part(const char *name)
{
    for (size_t i = 0; i < nparts; i++)
        if (strcmp(parts[i].name, name) == 0)
            return &parts[i];
    return NULL;
}

static const struct field *find_field(const struct part *p, const char *name)
{
    for (size_t i = 0; i < p->nfields; i++)
        if (!p->fields[i].reserved && strcmp(p->fields[i].name, name) == 0)
            return &p->fields[i];
    return NULL;
}

static const char *pyfmt(const struct field *f)
{
    if (strcmp(f->type, "u16") == 0) return "H";
    if (strcmp(f->type, "u32") == 0) return "I";
    if (strcmp(f->type, "u64") == 0) return "Q";
    if (strcmp(f->type, "i32") == 0) return "i";
    return "8s";
}

static int cmd_layout(void)
{
    for (size_t i = 0; i < nparts; i++) {
        printf("%s :size %zu -\n", parts[i].name, parts[i].size);
        for (size_t k = 0; k < parts[i].nfields; k++) {
            const struct field *f = &parts[i].fields[k];
            if (!f->reserved)
                printf("%s %s %zu %s\n", parts[i].name, f->name, f->offset, pyfmt(f));
        }
    }
    return 0;
}

static int cmd_doc(const char *name)
{
    const struct part *p = find_part(name);
    if (p == NULL) {
        fprintf(stderr, "snapfields: no part %s\n", name);
        return 2;
    }
    printf("| offset | field | meaning |\n|---|---|---|\n");
    for (size_t k = 0; k < p->nfields; k++) {
        const struct field *f = &p->fields[k];
        const char *type = strcmp(f->type, "b8") == 0 ? "u8[8]" : f->type;
        printf("| %zu | %s %s%s | %s |\n", f->offset, type, f->name, f->reserved ? " (0)" : "",
               f->reserved ? "reserved, written as 0" : f->doc);
    }
    return 0;
}

static int cmd_records(void)
{
    printf("| type | name | occurs | payload |\n|---|---|---|---|\n");
#define ARRAY_PAYLOAD(NAME)                                                     \
    do {                                                                        \
        printf("array of %zu-byte entries", find_part(#NAME)->size);            \
        if (GL_ENTRY_MIN_##NAME < find_part(#NAME)->size)                       \
            printf(" (%u-byte ones from older writers)", GL_ENTRY_MIN_##NAME);  \
    } while (0)
#define FIXED_PAYLOAD(NAME)                                                     \
    do {                                                                        \
        const struct part *p_ = find_part(#NAME);                               \
        for (size_t k = 0; k < p_->nfields; k++)                                \
            if (!p_->fields[k].reserved)                                        \
                printf("%s`%s %s`", k ? ", " : "", p_->fields[k].type, p_->fields[k].name); \
        if (GL_TAIL_##NAME[0])                                                  \
            printf(", %s", GL_TAIL_##NAME);                                     \
    } while (0)
#define RECORD_ROW(NAME, occurs, shape, what)                                   \
    if (GL_REC_##NAME == GL_REC_END)                                            \
        printf("| 0xffffffff | %s | %s | ", #NAME, occurs);                     \
    else                                                                        \
        printf("| %u | %s | %s | ", (unsigned)GL_REC_##NAME, #NAME, occurs);    \
    shape##_PAYLOAD(NAME);                                                      \
    printf("%s%s |\n", (what)[0] ? ": " : "", what);
    GL_RECORD_LIST(RECORD_ROW)
#undef RECORD_ROW
    return 0;
}

/* The type of the record named rec; 0 (and a line on stderr) for none. */
static uint32_t record_type(const char *rec)
{
    uint32_t type = 0;
#define REC_TYPE(NAME, occurs, shape, what)                                     \
    if (strcmp(rec, #NAME) == 0)                                                \
        type = GL_REC_##NAME;
    GL_RECORD_LIST(REC_TYPE)
#undef REC_TYPE
    if (type == 0)
        fprintf(stderr, "snapfields: no record type %s\n", rec);
    return type;
}

static int cmd_count(const char *in, const char *rec)
{
    uint32_t type = record_type(rec);
    if (type == 0)
        return 2;
    FILE *fp = fopen(in, "rb");
    if (fp == NULL) {
        perror(in);
        return 2;
    }
    uint64_t records = 0, entries = 0;
    uint8_t head[GL_SNAP_RECORD_HEADER_SIZE];
    if (fseek(fp, GL_SNAP_FILE_HEADER_SIZE, SEEK_SET) == 0) {
        while (fread(head, 1, sizeof head, fp) == sizeof head) {
            struct gl_wire_record_header h;
            gl_wire_record_header_decode(head, &h);
            if (h.type == type) {
                records++;
                entries += h.count;
            }
            if (h.type == GL_REC_END || h.length > INT64_MAX || fseeko(fp, (off_t)h.length, SEEK_CUR) != 0)
                break;
        }
    }
    fclose(fp);
    printf("%" PRIu64 " %" PRIu64 "\n", records, entries);
    return 0;
}

static int cmd_set(char **a)
{
    const char *in = a[0], *out = a[1], *rec = a[2], *fname = a[4];
    long entry = strtol(a[3], NULL, 10);
    uint64_t value = a[5][0] == '-' ? (uint64_t)strtoll(a[5], NULL, 0) : strtoull(a[5], NULL, 0);
    uint32_t type = record_type(rec);
    if (type == 0)
        return 2;
    const struct part *p = find_part(entry < 0 ? "RECORD_HEADER" : rec);
    const struct field *f = p ? find_field(p, fname) : NULL;
    if (f == NULL) {
        fprintf(stderr, "snapfields: %s has no field %s\n", entry < 0 ? "RECORD_HEADER" : rec, fname);
        return 2;
    }
    FILE *fp = fopen(in, "rb");
    if (fp == NULL) {
        perror(in);
        return 2;
    }
    static uint8_t buf[1 << 26];
    size_t len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    size_t pos = GL_SNAP_FILE_HEADER_SIZE;
    while (pos + GL_SNAP_RECORD_HEADER_SIZE <= len) {
        struct gl_wire_record_header h;
        gl_wire_record_header_decode(buf + pos, &h);
        if (h.type == type) {
            size_t at;
            if (entry < 0) {
                at = pos + f->offset;
            } else {
                /* entries are length/count bytes each, as a reader takes them */
                size_t stride = h.count ? (size_t)(h.length / h.count) : 0;
                at = pos + GL_SNAP_RECORD_HEADER_SIZE + (size_t)entry * stride + f->offset;
            }
            if (at + f->width > len) {
                fprintf(stderr, "snapfields: %s entry %ld is past the end of %s\n", rec, entry, in);
                return 2;
            }
            memcpy(buf + at, &value, f->width); /* little-endian, like the file */
            fp = fopen(out, "wb");
            if (fp == NULL || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0) {
                perror(out);
                return 2;
            }
            return 0;
        }
        pos += GL_SNAP_RECORD_HEADER_SIZE + h.length;
    }
    fprintf(stderr, "snapfields: no %s record in %s\n", rec, in);
    return 2;
}

/* The entry sizes of an array record: today's and the minimum; 0 for a
 * record that is no array. */
static size_t array_entry_size(uint32_t type, size_t *min)
{
    *min = 0;
#define ARRAY_SIZES(NAME) (*min = GL_ENTRY_MIN_##NAME, find_part(#NAME)->size)
#define FIXED_SIZES(NAME) 0
#define ENTRY_SIZE(NAME, occurs, shape, what)                                   \
    if (type == GL_REC_##NAME)                                                  \
        return shape##_SIZES(NAME);
    GL_RECORD_LIST(ENTRY_SIZE)
#undef ENTRY_SIZE
    return 0;
}

/* The size RECORD's entries get for BYTES (see resize); 0 for none. */
static size_t resized_entry(const char *bytes, size_t size, size_t min)
{
    if (strcmp(bytes, "min") == 0)
        return min;
    if (bytes[0] == '+')
        return size + strtoul(bytes + 1, NULL, 10);
    return strtoul(bytes, NULL, 10);
}

static int cmd_resize(char **a)
{
    const char *in = a[0], *out = a[1], *rec = a[2], *bytes = a[3];
    uint32_t only = strcmp(rec, "all") == 0 ? 0 : record_type(rec);
    if (only == 0 && strcmp(rec, "all") != 0)
        return 2;
    FILE *fp = fopen(in, "rb");
    if (fp == NULL) {
        perror(in);
        return 2;
    }
    static uint8_t buf[1 << 24], res[1 << 25];
    size_t len = fread(buf, 1, sizeof buf, fp), rlen = GL_SNAP_FILE_HEADER_SIZE;
    fclose(fp);
    memcpy(res, buf, GL_SNAP_FILE_HEADER_SIZE);
    for (size_t pos = GL_SNAP_FILE_HEADER_SIZE; pos + GL_SNAP_RECORD_HEADER_SIZE <= len;) {
        struct gl_wire_record_header h;
        gl_wire_record_header_decode(buf + pos, &h);
        const uint8_t *body = buf + pos + GL_SNAP_RECORD_HEADER_SIZE;
        if (h.length > len - pos - GL_SNAP_RECORD_HEADER_SIZE) {
            fprintf(stderr, "snapfields: %s: record at %zu is truncated\n", in, pos);
            return 2;
        }
        size_t min, size = array_entry_size(h.type, &min), stride = h.count ? h.length / h.count : 0;
        size_t to = size && (only == 0 || only == h.type) ? resized_entry(bytes, size, min) : stride;
        if (h.type == GL_REC_END) { /* it says where it is */
            struct gl_wire_end e;
            gl_wire_end_decode(body, &e);
            e.offset = rlen;
            gl_wire_end_encode((uint8_t *)body, &e);
        }
        uint64_t length = h.count && to != stride ? (uint64_t)h.count * to : h.length;
        if (rlen + GL_SNAP_RECORD_HEADER_SIZE + length > sizeof res) {
            fprintf(stderr, "snapfields: %s is too large\n", in);
            return 2;
        }
        struct gl_wire_record_header nh = {.type = h.type, .count = h.count, .length = length};
        gl_wire_record_header_encode(res + rlen, &nh);
        rlen += GL_SNAP_RECORD_HEADER_SIZE;
        if (length == h.length) {
            memcpy(res + rlen, body, length);
        } else {
            for (uint32_t i = 0; i < h.count; i++) {
                uint8_t *e = res + rlen + (size_t)i * to;
                memset(e, 0, to < size ? to : size);
                if (to > size)
                    memset(e + size, 0xee, to - size);
                memcpy(e, body + (size_t)i * stride, stride < to ? stride : to);
            }
        }
        rlen += length;
        pos += GL_SNAP_RECORD_HEADER_SIZE + h.length;
    }
    fp = fopen(out, "wb");
    if (fp == NULL || fwrite(res, 1, rlen, fp) != rlen || fclose(fp) != 0) {
        perror(out);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    load_parts();
    if (argc == 2 && strcmp(argv[1], "layout") == 0)
        return cmd_layout();
    if (argc == 3 && strcmp(argv[1], "doc") == 0)
        return cmd_doc(argv[2]);
    if (argc == 2 && strcmp(argv[1], "records") == 0)
        return cmd_records();
    if (argc == 8 && strcmp(argv[1], "set") == 0)
        return cmd_set(argv + 2);
    if (argc == 4 && strcmp(argv[1], "count") == 0)
        return cmd_count(argv[2], argv[3]);
    if (argc == 6 && strcmp(argv[1], "resize") == 0)
        return cmd_resize(argv + 2);
    fputs("usage: snapfields layout | doc PART | records | set IN OUT RECORD ENTRY FIELD VALUE | count IN RECORD"
          " | resize IN OUT RECORD BYTES\n",
          stderr);
    return 2;
}
