/* Unit test of the decoder of PyTorch's answer (interpose/control/
 * torch_decode.c), a pure function: fed answers recorded from real PyTorch
 * 2.14.1 on fakecuda (tests/unit/data/torch_answers/README), then every
 * prefix of them and planted faults.  In process, no Python.
 *
 *     torch_decode DATA_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/torch_decode.h"
#include "fail_check.h"

static int failures;
#define CHECK(cond, ...) CHECK_COUNT(failures, cond, __VA_ARGS__)

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "FAIL: cannot open %s\n", path);
        exit(1);
    }
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

/* Decodes a malloc'd copy of exactly len bytes, so that a sanitizer sees
 * any read past the answer. */
static bool decode_copy(const char *buf, size_t len, struct gl_torch_view *v)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, buf, len);
    memset(v, 0, sizeof *v);
    bool ok = gl_torch_decode(copy, len, v);
    free(copy);
    return ok;
}

static const struct gl_view_frame *frame_of(const struct gl_view_stacks *t, uint32_t stack, uint32_t i)
{
    if (stack == 0 || stack > t->nstacks || i >= t->stacks[stack - 1]->depth)
        return NULL;
    return t->frames[t->stacks[stack - 1]->frames[i] - 1];
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

static void expect_frame(const struct gl_torch_view *v, size_t block, uint32_t i, const char *file_tail,
                         const char *func, uint32_t line)
{
    const struct gl_view_frame *f = frame_of(&v->stacks, v->blocks[block].stack_id, i);
    CHECK(f != NULL, "block %zu: no frame %u", block, i);
    if (f == NULL)
        return;
    CHECK(ends_with(gl_view_frame_file(f), file_tail), "block %zu frame %u: file %s", block, i, gl_view_frame_file(f));
    CHECK(strcmp(gl_view_frame_func(f), func) == 0, "block %zu frame %u: func %s", block, i, gl_view_frame_func(f));
    CHECK(f->line == line, "block %zu frame %u: line %u", block, i, f->line);
}

/* t_torch_real's answer after its third step (torch_real_train.py). */
static void train_step2(const char *buf, size_t len)
{
    struct gl_torch_view v;
    CHECK(decode_copy(buf, len, &v), "train_step2: not decoded");
    CHECK(v.nblocks == 11 && v.segments == 2, "blocks %zu segments %u", v.nblocks, v.segments);
    CHECK(v.reserved_bytes == 4194304 && v.allocated_bytes == 2621952, "reserved %llu allocated %llu",
          (unsigned long long)v.reserved_bytes, (unsigned long long)v.allocated_bytes);
    CHECK(v.max_allocated_bytes == 2884608 && v.max_reserved_bytes == 4194304, "maxima %llu %llu",
          (unsigned long long)v.max_allocated_bytes, (unsigned long long)v.max_reserved_bytes);
    CHECK(v.nsettings == 11 && v.settings_len == 523 - 24, "settings %u, %zu bytes", v.nsettings, v.settings_len);
    CHECK(v.settings != NULL && memcmp(v.settings, "\x18\0\0\0PYTORCH_CUDA_ALLOC_CONF=", 28) == 0, "first setting");
    const struct gl_torch_block *b = v.blocks;
    CHECK(b[5].segment == 0x200000000000ull && b[5].address == 0x2000001c0200ull && b[5].size == 512 &&
              b[5].requested_size == 4 && b[5].device == 0 && b[5].state == 1 && b[5].flags == 0,
          "block 5 fields");
    CHECK(b[10].segment == 0x200000200000ull && b[10].size == 1048576 && b[10].state == 3, "block 10 fields");
    expect_frame(&v, 0, 0, "torch_real_train.py", "<module>", 14);
    expect_frame(&v, 3, 0, "torch/optim/sgd.py", "_multi_tensor_sgd", 454);
    expect_frame(&v, 3, 1, "torch/optim/sgd.py", "sgd", 306);
    CHECK(v.stacks.stacks[b[3].stack_id - 1]->depth == 6, "block 3: depth");
    /* cached blocks carry no stack; one line's tensors share one */
    CHECK(b[1].stack_id == 0 && b[6].stack_id == 0 && b[7].stack_id == 0, "stacks of unstacked blocks");
    CHECK(b[2].stack_id != 0 && b[2].stack_id == b[4].stack_id && b[4].stack_id == b[9].stack_id,
          "line 24's tensors: one stack");
    CHECK(v.stacks.nstacks == 5, "distinct stacks %u", v.stacks.nstacks);
    gl_torch_view_free(&v);
    CHECK(v.blocks == NULL && v.nblocks == 0 && v.settings == NULL, "freed view not empty");
}

/* t_torch_real_viz_settings's answer: PYTORCH_CUDA_ALLOC_CONF set. */
static void viz_settings(const char *buf, size_t len)
{
    struct gl_torch_view v;
    CHECK(decode_copy(buf, len, &v), "viz_settings: not decoded");
    CHECK(v.nblocks == 8 && v.segments == 3 && v.reserved_bytes == 16777216 && v.allocated_bytes == 3473408,
          "totals: %zu %u %llu %llu", v.nblocks, v.segments, (unsigned long long)v.reserved_bytes,
          (unsigned long long)v.allocated_bytes);
    CHECK(v.max_allocated_bytes == 15990784 && v.max_reserved_bytes == 16777216, "maxima");
    const char want[] = "max_split_size=314572800";
    CHECK(v.nsettings == 11 && v.settings != NULL && memmem(v.settings, v.settings_len, want, sizeof want - 1),
          "settings: %u", v.nsettings);
    expect_frame(&v, 1, 0, "torch_real_viz.py", "make", 21);
    expect_frame(&v, 1, 1, "torch_real_viz.py", "<module>", 29);
    expect_frame(&v, 3, 0, "torch/nn/functional.py", "relu", 1777);
    CHECK(v.blocks[1].stack_id == v.blocks[6].stack_id && v.blocks[6].stack_id == v.blocks[7].stack_id,
          "make()'s tensors: one stack");
    CHECK(v.blocks[5].size == 12582912 && v.blocks[5].state == 3 && v.blocks[5].stack_id == 0, "block 5");
    gl_torch_view_free(&v);
}

/* Every prefix: the blocks and strings are all or nothing; the settings
 * tail ("GLX1") cut anywhere is left out, the blocks kept. */
static void prefixes(const char *name, const char *buf, size_t len, size_t extra)
{
    size_t strings_end = len - extra;
    for (size_t n = 0; n < len; n++) {
        struct gl_torch_view v;
        bool ok = decode_copy(buf, n, &v);
        if (n < strings_end)
            CHECK(!ok, "%s: a prefix of %zu bytes decoded", name, n);
        else
            CHECK(ok && v.max_allocated_bytes == 0 && v.nsettings == 0 && v.settings == NULL,
                  "%s: prefix %zu: ok %d, settings %u", name, n, ok, v.nsettings);
        gl_torch_view_free(&v);
    }
}

/* Faults planted in a copy: a bad magic, a block with more frames than
 * any answer has, a device beyond the format's, a string index past the
 * strings. */
static void planted(const char *buf, size_t len)
{
    char *c = malloc(len);
    struct gl_torch_view v;
    memcpy(c, buf, len);
    c[3] = '2';
    CHECK(!decode_copy(c, len, &v), "GLT2 decoded");
    gl_torch_view_free(&v);

    memcpy(c, buf, len);
    uint32_t frames = GL_TORCH_MAX_FRAMES + 1;
    memcpy(c + 28 + 40, &frames, 4); /* block 0's frame count */
    CHECK(!decode_copy(c, len, &v), "65 frames decoded");
    gl_torch_view_free(&v);

    memcpy(c, buf, len);
    int32_t device = 5000;
    memcpy(c + 28 + 32, &device, 4);
    CHECK(decode_copy(c, len, &v) && v.blocks[0].device == -1, "device 5000 not made -1");
    gl_torch_view_free(&v);

    memcpy(c, buf, len);
    uint32_t file = 100000; /* block 0's one frame: its file index */
    memcpy(c + 28 + 44 + 4, &file, 4);
    CHECK(decode_copy(c, len, &v) && v.blocks[0].stack_id == 0 && v.nblocks == 11, "a bad string index kept");
    gl_torch_view_free(&v);
    free(c);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: torch_decode DATA_DIR\n");
        return 2;
    }
    size_t tlen, vlen;
    char *train = slurp(argv[1], "train_step2.bin", &tlen);
    char *viz = slurp(argv[1], "viz_settings.bin", &vlen);
    CHECK(tlen == 1482 && vlen == 1725, "recorded sizes %zu %zu", tlen, vlen);
    train_step2(train, tlen);
    viz_settings(viz, vlen);
    prefixes("train_step2", train, tlen, 523);
    prefixes("viz_settings", viz, vlen, 761);
    planted(train, tlen);
    free(train);
    free(viz);
    if (failures == 0)
        printf("torch_decode: ok\n");
    return failures != 0;
}
