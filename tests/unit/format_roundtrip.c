/* Unit test: every part of the snapshot format through the writer's encoding
 * and the reporter's reader, in process.
 *
 * Each part's fields get distinct values (a swapped, truncated or shifted
 * field shows as a wrong value), then are encoded with the functions the
 * interposer's writer uses (snapshot_codec.h, expanded from
 * snapshot_fields.h) into one file holding every record type; snap_parse (the
 * reporter's reader, report/model/snap_read.c) reads it back and every field of
 * every record is compared with what was written.  The comparisons are
 * expanded from the same field lists, so a field added to a list is checked
 * here with no edit.  Links only the reader and common/: no interposer state,
 * no CUDA. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snap_read.h"
#include "snapshot_codec.h"

static int failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "FAIL: " __VA_ARGS__);                             \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)

/* ---- distinct values for every field ---------------------------------- */

/* Field k of the part filled with seed s: the low byte is the field, the
 * next the part, and 64-bit fields have high bits set too, so a value read
 * from a neighbour or cut to a narrower width never matches. */
static void fill_u16(uint16_t *v, unsigned s, unsigned k) { *v = (uint16_t)(s << 8 | k); }
static void fill_u32(uint32_t *v, unsigned s, unsigned k) { *v = 0x40000000u | s << 8 | k; }
static void fill_i32(int32_t *v, unsigned s, unsigned k) { *v = (int32_t)(0x20000000u | s << 8 | k); }
static void fill_u64(uint64_t *v, unsigned s, unsigned k)
{
    *v = 0x8000000000000000ull | (uint64_t)s << 40 | (uint64_t)k << 32 | s << 8 | k;
}
static void fill_b8(uint8_t (*v)[8], unsigned s, unsigned k)
{
    for (unsigned i = 0; i < 8; i++)
        (*v)[i] = (uint8_t)(s + k + i);
}

#define FILL_F(t, name, doc) fill_##t(&v_->name, s_, ++k_);
#define FILL_R(t, name, doc) ++k_;
#define FILL(PART, v, seed)                                                    \
    do {                                                                       \
        __typeof__(v) v_ = (v);                                                \
        unsigned s_ = (seed), k_ = 0;                                          \
        GL_FIELDS_##PART(FILL_F, FILL_R)                                       \
    } while (0)

/* Every field of a decoded struct (the reader's or the codec's) equal to
 * what was written. */
#define SAME_F(t, name, doc)                                                   \
    CHECK(memcmp(&got_->name, &want_->name, sizeof want_->name) == 0,          \
          "%s[%zu].%s: read back differs from what was written", part_, i_, #name);
#define SAME_R(t, name, doc)
#define SAME(PART, got, want, i)                                               \
    do {                                                                       \
        __typeof__(got) got_ = (got);                                          \
        __typeof__(want) want_ = (want);                                       \
        const char *part_ = #PART;                                             \
        size_t i_ = (i);                                                       \
        GL_FIELDS_##PART(SAME_F, SAME_R)                                       \
    } while (0)

/* Reserved fields are written as 0. */
#define ZERO_F(t, name, doc)
#define ZERO_R(t, name, doc)                                                   \
    for (size_t b_ = 0; b_ < sizeof(gl_wire_##t); b_++)                        \
        CHECK(enc_[offsetof(gl_lay_, reserved_##name) + b_] == 0, "%s.%s: reserved byte not 0", what_, #name);

/* encode then decode with the codec alone, for every part (the file frame
 * included), with its reserved bytes checked. */
#define CODEC_ROUNDTRIP(PART, part, size)                                      \
    {                                                                          \
        typedef struct gl_wire_##part##_layout gl_lay_;                        \
        struct gl_wire_##part want, got;                                       \
        uint8_t enc_[(size) + 1];                                              \
        const char *what_ = #PART;                                             \
        memset(&want, 0, sizeof want);                                         \
        memset(&got, 0, sizeof got);                                           \
        memset(enc_, 0xa5, sizeof enc_);                                       \
        FILL(PART, &want, 0x7e);                                               \
        gl_wire_##part##_encode(enc_, &want);                                  \
        CHECK(enc_[size] == 0xa5, "%s: encoding wrote past its %u bytes", what_, (unsigned)(size)); \
        GL_FIELDS_##PART(ZERO_F, ZERO_R)                                       \
        (void)sizeof(gl_lay_); /* used only by parts with reserved fields */   \
        gl_wire_##part##_decode(enc_, &got);                                   \
        SAME(PART, &got, &want, 0);                                            \
        nparts++;                                                              \
    }

/* ---- a file with every record type ------------------------------------ */

static uint8_t file[1 << 16];
static size_t flen;
static uint64_t nrec;

static void put(const void *p, size_t n)
{
    if (flen + n > sizeof file) {
        fputs("FAIL: test file too large\n", stderr);
        exit(1);
    }
    memcpy(file + flen, p, n);
    flen += n;
}

static void put_u32(uint32_t v) { put(&v, 4); }

static void put_str(const char *s)
{
    put_u32((uint32_t)strlen(s));
    put(s, strlen(s));
}

/* A record header whose length is patched by end_record. */
static size_t begin_record(uint32_t type, uint32_t count)
{
    size_t at = flen;
    uint8_t h[GL_SNAP_RECORD_HEADER_SIZE];
    gl_wire_record_header_encode(h, &(struct gl_wire_record_header){.type = type, .count = count});
    put(h, sizeof h);
    return at;
}

static void end_record(size_t at)
{
    struct gl_wire_record_header h;
    gl_wire_record_header_decode(file + at, &h);
    h.length = flen - at - GL_SNAP_RECORD_HEADER_SIZE;
    gl_wire_record_header_encode(file + at, &h);
    nrec++;
}

/* The parts of one kind, encoded back to back. */
#define PUT_PART(part, v)                                                      \
    do {                                                                       \
        uint8_t e_[sizeof(struct gl_wire_##part##_layout)];                    \
        gl_wire_##part##_encode(e_, (v));                                      \
        put(e_, sizeof e_);                                                    \
    } while (0)

#define NENT 3 /* entries per array record */

/* An array entry's minimum size (GL_ENTRY_MIN_<PART>) is no larger than
 * today's and ends where a field ends: an older writer wrote whole fields. */
#define END_IS_MIN_F(t, name, doc) at_field |= offsetof(lay_, name) + sizeof(gl_wire_##t) == min_;
#define END_IS_MIN_R(t, name, doc) at_field |= offsetof(lay_, reserved_##name) + sizeof(gl_wire_##t) == min_;
#define CHECK_ENTRY_MIN(PART, part)                                                                                  \
    do {                                                                                                             \
        typedef struct gl_wire_##part##_layout lay_;                                                                 \
        size_t min_ = GL_ENTRY_MIN_##PART;                                                                           \
        int at_field = 0;                                                                                            \
        GL_FIELDS_##PART(END_IS_MIN_F, END_IS_MIN_R)                                                                 \
        CHECK(min_ <= sizeof(lay_) && at_field, #PART ": minimum entry size %zu is not the end of a field",          \
              min_);                                                                                                 \
    } while (0);

int main(void)
{
    unsigned nparts = 0;
    GL_PART_LIST(CODEC_ROUNDTRIP)
    CHECK_ENTRY_MIN(ALLOCS, allocs)
    CHECK_ENTRY_MIN(DEVICES, devices)
    CHECK_ENTRY_MIN(PEAK, peak)
    CHECK_ENTRY_MIN(EVENTS, events)
    CHECK_ENTRY_MIN(POOLS, pools)
    CHECK_ENTRY_MIN(VMM, vmm)
    CHECK_ENTRY_MIN(BAD_FREES, bad_frees)
    CHECK_ENTRY_MIN(CALLS, calls)
    CHECK_ENTRY_MIN(TEARDOWN, teardown)
    CHECK_ENTRY_MIN(TORCH_BLOCKS, torch_blocks)

    /* What is written; fields the reader checks get valid values. */
    struct gl_wire_file_header fh = {.version = GL_SNAP_VERSION, .flags = 0};
    memcpy(fh.magic, GL_SNAP_MAGIC, GL_SNAP_MAGIC_LEN);
    struct gl_wire_process pr;
    FILL(PROCESS, &pr, 1);
    struct gl_wire_module mod;
    FILL(MODULE, &mod, 2);
    mod.end = mod.start + 0x1000;
    mod.build_id_len = 20;
    struct gl_wire_stack st[2];
    FILL(STACK, &st[0], 3);
    FILL(STACK, &st[1], 4);
    st[0].id = 1, st[0].depth = 2;
    st[1].id = 7, st[1].depth = 1;
    const uint64_t pcs[] = {0x401000, 0xffffffff00000005ull, 0x402000};
    struct gl_wire_pyframe pf;
    FILL(PYFRAME, &pf, 5);
    struct gl_wire_label lab;
    FILL(LABEL, &lab, 6);
    struct gl_wire_env env = {.count = 2};
    struct gl_wire_torch_step ts[2];
    FILL(TORCH_STEP, &ts[0], 7);
    FILL(TORCH_STEP, &ts[1], 8);
    ts[0].flags = GL_TORCH_STEP_F_LINES, ts[0].lines = 2;
    ts[1].flags = 0, ts[1].lines = 0;
    struct gl_wire_allocs al[NENT];
    struct gl_wire_devices dv[NENT];
    struct gl_wire_peak pk[NENT];
    struct gl_wire_events ev[NENT];
    struct gl_wire_pools po[NENT];
    struct gl_wire_vmm vm[NENT];
    struct gl_wire_bad_frees bf[NENT];
    struct gl_wire_calls ca[NENT];
    struct gl_wire_teardown td[NENT];
    for (unsigned i = 0; i < NENT; i++) {
        int32_t dev = (int32_t)i - 1; /* -1 (host), 0, 1 */
        uint32_t stack = i % 2 ? 7 : 1;
        FILL(ALLOCS, &al[i], 10 + i);
        al[i].device = dev, al[i].stack_id = stack;
        FILL(DEVICES, &dv[i], 20 + i);
        dv[i].device = dev;
        FILL(PEAK, &pk[i], 30 + i);
        pk[i].device = dev, pk[i].stack_id = stack;
        FILL(EVENTS, &ev[i], 40 + i);
        ev[i].device = dev, ev[i].stack_id = stack;
        FILL(POOLS, &po[i], 50 + i);
        po[i].device = dev;
        FILL(VMM, &vm[i], 60 + i);
        vm[i].device = dev;
        FILL(BAD_FREES, &bf[i], 70 + i);
        bf[i].device = dev, bf[i].stack_id = stack;
        FILL(CALLS, &ca[i], 80 + i);
        ca[i].stack_id = stack;
        FILL(TEARDOWN, &td[i], 90 + i);
        td[i].device = dev, td[i].stack_id = stack;
    }
    /* the event types whose fields the reader does not take as they are: a
     * FREE's mem_free is its own stack (moved to free_stack_id) */
    ev[0].type = GL_EV_ALLOC;
    ev[1].type = GL_EV_FREE;
    ev[1].mem_free = 7;
    ev[2].type = GL_EV_OOM;

    PUT_PART(file_header, &fh);
    size_t h = begin_record(GL_REC_PROCESS, 1);
    PUT_PART(process, &pr);
    put_str("host");
    put_str("/bin/exe");
    put_u32(2);
    put_str("exe");
    put_str("--flag");
    end_record(h);
    h = begin_record(GL_REC_ENV, 1);
    PUT_PART(env, &env);
    put_str("CUDA_VISIBLE_DEVICES=1");
    put_str("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    end_record(h);
    h = begin_record(GL_REC_MODULE, 1);
    PUT_PART(module, &mod);
    for (uint8_t i = 0; i < mod.build_id_len; i++)
        put(&i, 1);
    put_str("/lib/libx.so");
    end_record(h);
    h = begin_record(GL_REC_PYFRAME, 1);
    PUT_PART(pyframe, &pf);
    put_str("train.py");
    put_str("Model.step");
    end_record(h);
    for (unsigned i = 0, pc = 0; i < 2; i++) {
        h = begin_record(GL_REC_STACK, 1);
        PUT_PART(stack, &st[i]);
        for (uint32_t d = 0; d < st[i].depth; d++, pc++)
            put(&pcs[pc], sizeof pcs[pc]);
        end_record(h);
    }
#define ARRAY(TYPE, part, a)                                                   \
    h = begin_record(TYPE, NENT);                                              \
    for (unsigned i = 0; i < NENT; i++)                                        \
        PUT_PART(part, &a[i]);                                                 \
    end_record(h);
    ARRAY(GL_REC_ALLOCS, allocs, al)
    ARRAY(GL_REC_DEVICES, devices, dv)
    ARRAY(GL_REC_POOLS, pools, po)
    ARRAY(GL_REC_PEAK, peak, pk)
    ARRAY(GL_REC_EVENTS, events, ev)
    ARRAY(GL_REC_VMM, vmm, vm)
    ARRAY(GL_REC_BAD_FREES, bad_frees, bf)
    ARRAY(GL_REC_CALLS, calls, ca)
    ARRAY(GL_REC_TEARDOWN, teardown, td)
    h = begin_record(GL_REC_LABEL, 1);
    PUT_PART(label, &lab);
    put_str("epoch 1");
    end_record(h);
    /* TORCH_STEP: a step with two lines (u64 bytes, u64 count, u32 line,
     * str file, str function each) and the trailer (u64 recorded_steps,
     * u32 lines_every, u32 0), then one without either, as written before
     * the trailer existed */
    const uint64_t line_bytes[2][2] = {{262144, 1}, {1048576, 4}};
    for (unsigned i = 0; i < 2; i++) {
        h = begin_record(GL_REC_TORCH_STEP, 1);
        PUT_PART(torch_step, &ts[i]);
        for (uint32_t k = 0; k < ts[i].lines; k++) {
            uint32_t line = 17 + k;
            put(line_bytes[k], sizeof line_bytes[k]);
            put(&line, sizeof line);
            put_str(k ? "model.py" : "train.py");
            put_str(k ? "forward" : "<module>");
        }
        if (i == 0) {
            const uint64_t recorded = 5;
            const uint32_t every[2] = {16, 0};
            put(&recorded, sizeof recorded);
            put(every, sizeof every);
        }
        end_record(h);
    }
    struct gl_wire_end end = {.records = nrec, .offset = flen};
    h = begin_record(GL_REC_END, 1);
    PUT_PART(end, &end);
    end_record(h);

    struct snapshot s;
    char err[256];
    if (snap_parse(file, flen, &s, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL: the reader rejects the file: %s\n", err);
        return 1;
    }
    SAME(PROCESS, &s.proc, &pr, 0);
    CHECK(strcmp(s.proc.host.s, "host") == 0 && strcmp(s.proc.exe.s, "/bin/exe") == 0, "PROCESS strings");
    CHECK(s.proc.argc == 2 && strcmp(s.proc.argv[1].s, "--flag") == 0, "PROCESS argv");
    CHECK(s.nenv == 2 && strcmp(snap_env(&s, "CUDA_VISIBLE_DEVICES"), "1") == 0, "ENV");
    CHECK(s.nmodules == 1, "MODULE count %zu", s.nmodules);
    if (s.nmodules == 1) {
        SAME(MODULE, &s.modules[0], &mod, 0);
        CHECK(s.modules[0].build_id[19] == 19 && strcmp(s.modules[0].path.s, "/lib/libx.so") == 0, "MODULE tail");
    }
    CHECK(s.npyframes == 1, "PYFRAME count");
    if (s.npyframes == 1) {
        SAME(PYFRAME, &s.pyframes[0], &pf, 0);
        CHECK(strcmp(s.pyframes[0].function.s, "Model.step") == 0, "PYFRAME strings");
    }
    for (unsigned i = 0; i < 2; i++) {
        const struct snap_stack *got = snap_find_stack(&s, st[i].id);
        CHECK(got != NULL, "STACK %u missing", st[i].id);
        if (got != NULL)
            SAME(STACK, got, &st[i], i);
    }
    CHECK(s.nstacks == 2 && snap_stack_pcs(&s, snap_find_stack(&s, 1))[1] == pcs[1] &&
              snap_stack_pcs(&s, snap_find_stack(&s, 7))[0] == pcs[2], "STACK pcs");
    CHECK(s.nlabels == 1, "LABEL count");
    if (s.nlabels == 1) {
        SAME(LABEL, &s.labels[0], &lab, 0);
        CHECK(strcmp(s.labels[0].text.s, "epoch 1") == 0, "LABEL text");
    }
    CHECK(s.ntorch_steps == 2, "TORCH_STEP count %zu", s.ntorch_steps);
    if (s.ntorch_steps == 2) {
        SAME(TORCH_STEP, &s.torch_steps[0], &ts[0], 0);
        SAME(TORCH_STEP, &s.torch_steps[1], &ts[1], 1);
        const struct snap_torch_step_line *l = s.torch_steps[0].line_list;
        CHECK(l[0].bytes == 262144 && l[0].count == 1 && l[0].line == 17 && strcmp(l[0].file.s, "train.py") == 0 &&
                  strcmp(l[0].function.s, "<module>") == 0,
              "TORCH_STEP first line");
        CHECK(l[1].bytes == 1048576 && l[1].count == 4 && l[1].line == 18 && strcmp(l[1].file.s, "model.py") == 0 &&
                  strcmp(l[1].function.s, "forward") == 0,
              "TORCH_STEP second line");
        CHECK(s.torch_steps[0].has_trailer && s.torch_steps[0].recorded_steps == 5 &&
                  s.torch_steps[0].lines_every == 16,
              "TORCH_STEP trailer");
        CHECK(!s.torch_steps[1].has_trailer && s.torch_steps[1].recorded_steps == 0 &&
                  s.torch_steps[1].lines_every == 0,
              "TORCH_STEP without a trailer");
    }
#define SAME_ARRAY(PART, arr, n, a)                                            \
    CHECK(s.n == NENT, #PART ": %zu entries read, %d written", s.n, NENT);     \
    for (size_t i = 0; i < s.n && i < NENT; i++)                               \
        SAME(PART, &s.arr[i], &a[i], i);
    /* the reader's own reading of a FREE event's mem_free */
    ev[1].mem_free = 0;
    CHECK(s.nevents == NENT && s.events[1].free_stack_id == 7 && s.events[0].free_stack_id == 0,
          "EVENTS: a FREE event's stack");
    SAME_ARRAY(ALLOCS, allocs, nallocs, al)
    SAME_ARRAY(DEVICES, devices, ndevices, dv)
    SAME_ARRAY(PEAK, peaks, npeaks, pk)
    SAME_ARRAY(EVENTS, events, nevents, ev)
    SAME_ARRAY(POOLS, pools, npools, po)
    SAME_ARRAY(VMM, vmms, nvmms, vm)
    SAME_ARRAY(BAD_FREES, bad_frees, nbad_frees, bf)
    SAME_ARRAY(CALLS, calls, ncalls, ca)
    SAME_ARRAY(TEARDOWN, teardowns, nteardowns, td)
    CHECK(s.unknown_records == 0 && s.long_entries == 0, "nothing unknown");
    snap_free(&s);

    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok: %u parts through the codec, %" PRIu64 " records of every type through writer and reader\n",
           nparts, nrec);
    return 0;
}
