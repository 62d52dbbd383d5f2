/* Unit test of the teardown groups (report/analysis/teardown.c): the
 * allocations a context teardown released, grouped by shown stack, kind,
 * API, device and teardown call; the order (bytes, then count, then the
 * earliest time); the rule of each group (a user rule; a built-in allocator
 * rule, which does not cover mapped memory) and the totals with and without
 * the groups a rule matched; saturation; an empty snapshot.  Expected values
 * are written out by hand from the entries. */
#include <stdio.h>
#include <string.h>

#include "analysis/teardown.h"
#include "model/suppress.h"
#include "snapbuild.h"

#define RESET GL_API_CUDA_DEVICE_RESET
#define DESTROY GL_API_CU_CTX_DESTROY

static struct {
    uint32_t train, train_again, load, ext, bfc;
} st;

static const char user_rules[] = "{\n   ext-is-fine\n   fun:ext_alloc\n}\n";

/* One TEARDOWN entry. */
static void torn(struct sb *b, uint32_t stack_id, int32_t device, uint16_t kind, uint16_t api, uint16_t teardown,
                 uint64_t bytes, uint64_t count, uint64_t time_ns)
{
    SB_ADD(b, TEARDOWN, teardown, .bytes = bytes, .count = count, .time_ns = time_ns, .stack_id = stack_id,
           .device = device, .kind = kind, .api = api, .teardown = teardown);
}

static void build(struct sb *b)
{
    sb_init(b);
    st.train = sb_site(b, "train.py", 10, "train_step");
    st.train_again = sb_site(b, "train.py", 10, "train_step"); /* one shown stack with train */
    st.load = sb_site(b, "data.py", 42, "load_batch");
    st.ext = sb_site(b, "ext.py", 3, "ext_alloc");
    uint64_t bfc[2] = {sb_frame(b, "alloc.cc", 7, "tensorflow::BFCAllocator::AllocateRaw"),
                       sb_frame(b, "model.py", 5, "forward")};
    st.bfc = sb_stack(b, 2, bfc);
    /* train's two ids, one call: one group of 1024 bytes, 3 allocations, the earlier time */
    torn(b, st.train_again, 0, 0, GL_API_CUDA_MALLOC, RESET, 1000, 2, 50);
    torn(b, st.train, 0, 0, GL_API_CUDA_MALLOC, RESET, 24, 1, 30);
    /* the same stack, another teardown call: a group of its own */
    torn(b, st.train, 0, 0, GL_API_CUDA_MALLOC, DESTROY, 4096, 1, 70);
    /* equal bytes on two devices: more allocations first */
    torn(b, st.load, 0, 0, GL_API_CU_MEM_ALLOC, RESET, 2048, 1, 40);
    torn(b, st.load, 1, 0, GL_API_CU_MEM_ALLOC, RESET, 2048, 4, 45);
    /* the user's rule */
    torn(b, st.ext, 0, 0, GL_API_CUDA_MALLOC, RESET, 8192, 1, 10);
    /* the built-in allocator rule: device memory is the cache's, a mapping is not */
    torn(b, st.bfc, 0, 0, GL_API_CUDA_MALLOC, RESET, 512, 1, 20);
    torn(b, st.bfc, 0, GL_KIND_IPC, GL_API_CUDA_MALLOC, RESET, 256, 1, 25);
}

static void check_group(const struct stackdb *db, const struct torn_group *g, const char *where, uint32_t stack_id,
                        int32_t device, uint16_t kind, uint16_t api, uint16_t teardown, uint64_t bytes,
                        uint64_t count, uint64_t time_ns)
{
    CHECK_STR(sb_cs_text(db, g->cs), where);
    CHECK_EQ(g->stack_id, stack_id);
    CHECK_EQ(g->device, (uint32_t)device);
    CHECK_EQ(g->kind, kind);
    CHECK_EQ(g->api, api);
    CHECK_EQ(g->teardown, teardown);
    CHECK_EQ(g->bytes, bytes);
    CHECK_EQ(g->count, count);
    CHECK_EQ(g->time_ns, time_ns);
}

static void test_groups(void)
{
    struct sb b;
    build(&b);
    struct sb_env e;
    sb_open(&b, user_rules, &e);
    const struct stackdb *db = e.db;
    const struct suppressions *sup = &e.sup;
    struct torn_groups t;
    CHECK(torn_build(&e.m.v, &t) == 0, "torn_build");
    CHECK_EQ(t.n, 7);
    if (t.n == 7) {
        const char *train = "train_step train.py:10", *load = "load_batch data.py:42";
        const char *bfc = "tensorflow::BFCAllocator::AllocateRaw alloc.cc:7 < forward model.py:5";
        check_group(db, &t.g[0], "ext_alloc ext.py:3", st.ext, 0, 0, GL_API_CUDA_MALLOC, RESET, 8192, 1, 10);
        check_group(db, &t.g[1], train, st.train, 0, 0, GL_API_CUDA_MALLOC, DESTROY, 4096, 1, 70);
        check_group(db, &t.g[2], load, st.load, 1, 0, GL_API_CU_MEM_ALLOC, RESET, 2048, 4, 45);
        check_group(db, &t.g[3], load, st.load, 0, 0, GL_API_CU_MEM_ALLOC, RESET, 2048, 1, 40);
        check_group(db, &t.g[4], train, st.train, 0, 0, GL_API_CUDA_MALLOC, RESET, 1024, 3, 30);
        check_group(db, &t.g[5], bfc, st.bfc, 0, 0, GL_API_CUDA_MALLOC, RESET, 512, 1, 20);
        check_group(db, &t.g[6], bfc, st.bfc, 0, GL_KIND_IPC, GL_API_CUDA_MALLOC, RESET, 256, 1, 25);
        CHECK(t.g[0].rule >= 0 && strcmp(sup->rules[t.g[0].rule].name, "ext-is-fine") == 0, "ext: the user's rule");
        CHECK(t.g[5].rule >= 0 && sup->rules[t.g[5].rule].builtin, "bfc device memory: a built-in rule");
        for (size_t i = 1; i < 5; i++)
            CHECK(t.g[i].rule == -1, "group %zu: no rule, got %d", i, t.g[i].rule);
        CHECK(t.g[6].rule == -1, "a mapping under the allocator's frame: no rule, got %d", t.g[6].rule);
    }
    CHECK_EQ(t.bytes, 8192 + 4096 + 2048 + 2048 + 1024 + 512 + 256);
    CHECK_EQ(t.count, 1 + 1 + 4 + 1 + 3 + 1 + 1);
    CHECK_EQ(t.leaked_bytes, 4096 + 2048 + 2048 + 1024 + 256);
    CHECK_EQ(t.leaked_count, 1 + 4 + 1 + 3 + 1);
    torn_free(&t);
    CHECK(t.g == NULL && t.n == 0, "torn_free empties");
    sb_close(&e);
}

/* Sums saturate instead of wrapping; a snapshot without TEARDOWN has no groups. */
static void test_saturate_and_empty(void)
{
    struct sb b;
    sb_init(&b);
    uint32_t s = sb_site(&b, "big.py", 1, "big");
    torn(&b, s, 0, 0, 0, RESET, UINT64_MAX - 10, 1, 5);
    torn(&b, s, 0, 0, 0, RESET, 100, 2, 6);
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m;
    sb_load(&b, db, NULL, &m);
    struct torn_groups t;
    CHECK(torn_build(&m.v, &t) == 0, "torn_build");
    CHECK_EQ(t.n, 1);
    if (t.n == 1) {
        CHECK_EQ(t.g[0].bytes, UINT64_MAX);
        CHECK_EQ(t.g[0].count, 3);
    }
    CHECK_EQ(t.bytes, UINT64_MAX);
    CHECK_EQ(t.leaked_bytes, UINT64_MAX);
    torn_free(&t);
    sb_unload(&m);

    sb_init(&b);
    sb_load(&b, db, NULL, &m);
    CHECK(torn_build(&m.v, &t) == 0, "torn_build, none");
    CHECK(t.n == 0 && t.g == NULL && t.bytes == 0 && t.leaked_count == 0, "no TEARDOWN: no groups");
    torn_free(&t);
    sb_unload(&m);
    sdb_free(db);
}

int main(void)
{
    test_groups();
    test_saturate_and_empty();
    return sb_done("analysis_teardown: groups, order, rules, totals");
}
