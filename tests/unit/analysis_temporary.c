/* Unit test of the temporary allocations (report/analysis/temporary.c):
 * heaptrack's rule on the history (an allocation is temporary when the next
 * allocation or free is its own free: not when another free, another
 * allocation, or the same address on another device comes first; an
 * annotation in between does not count), sites by shown stack, API and kind
 * (two stack ids of one line are one site), their order (most temporary,
 * then most bytes), each site's allocations, the totals, and a history
 * without allocations.  Expected values are written out by hand. */
#include <stdio.h>
#include <string.h>

#include "analysis/temporary.h"
#include "snapbuild.h"

static struct {
    uint32_t step, step_again, load, keep;
} st;
static uint64_t seq;

static void ev(struct sb *b, uint16_t type, uint64_t ptr, uint64_t size, uint32_t stack_id, int32_t device,
               uint16_t api)
{
    seq++;
    SB_ADD(b, EVENTS, events, .seq = seq, .time_ns = seq * 1000, .type = type, .ptr = ptr, .size = size,
           .stack_id = stack_id, .device = device, .api = api);
}

static void alloc(struct sb *b, uint64_t ptr, uint64_t size, uint32_t stack_id, uint16_t api)
{
    ev(b, GL_EV_ALLOC, ptr, size, stack_id, 0, api);
}

static void release(struct sb *b, uint64_t ptr, uint64_t size, uint32_t stack_id)
{
    ev(b, GL_EV_FREE, ptr, size, stack_id, 0, 0);
}

static void build(struct sb *b)
{
    sb_init(b);
    seq = 0;
    st.step = sb_site(b, "train.py", 10, "step");
    st.step_again = sb_site(b, "train.py", 10, "step"); /* one shown stack with step */
    st.load = sb_site(b, "data.py", 42, "load_batch");
    st.keep = sb_site(b, "model.py", 7, "weights");
    uint32_t warm = sb_label(b, "warm");
    alloc(b, 0x1000, 1 << 20, st.keep, GL_API_CUDA_MALLOC); /* never freed */
    /* step: temporary three times, once through its second stack id, once
     * with an annotation in between */
    alloc(b, 0x2000, 4096, st.step, GL_API_CUDA_MALLOC);
    release(b, 0x2000, 4096, st.step);
    alloc(b, 0x2000, 4096, st.step_again, GL_API_CUDA_MALLOC);
    ev(b, GL_EV_ANNOTATION, warm, 0, 0, 0, 0);
    release(b, 0x2000, 4096, st.step_again);
    alloc(b, 0x3000, 8192, st.step, GL_API_CUDA_MALLOC);
    release(b, 0x3000, 8192, st.step);
    /* step, not temporary: another allocation comes first */
    alloc(b, 0x4000, 100, st.step, GL_API_CUDA_MALLOC);
    alloc(b, 0x5000, 65536, st.load, GL_API_CU_MEM_ALLOC);
    release(b, 0x4000, 100, st.step);
    /* load, not temporary: another free came first (0x4000's, above) */
    release(b, 0x5000, 65536, st.load);
    /* load: temporary, and its own site by API */
    alloc(b, 0x6000, 65536, st.load, GL_API_CU_MEM_ALLOC);
    release(b, 0x6000, 65536, st.load);
    /* load with cudaMalloc: the same address freed on another device is not its free */
    alloc(b, 0x7000, 512, st.load, GL_API_CUDA_MALLOC);
    ev(b, GL_EV_FREE, 0x7000, 512, st.load, 1, 0);
}

static void check_site(const struct stackdb *db, const struct temp_site *s, const char *where, uint32_t stack_id,
                       uint16_t api, uint64_t temporary, uint64_t bytes, uint64_t allocs)
{
    CHECK_STR(sb_cs_text(db, s->cs), where);
    CHECK_EQ(s->stack_id, stack_id);
    CHECK_EQ(s->api, api);
    CHECK_EQ(s->kind, 0);
    CHECK_EQ(s->temporary, temporary);
    CHECK_EQ(s->bytes, bytes);
    CHECK_EQ(s->allocs, allocs);
}

/* Reads snapshot b and builds its temporary allocations, checking totals. */
static void build_and_count(struct sb *b, struct sb_env *e, struct temporaries *t, uint64_t allocs,
                            uint64_t temporary, uint64_t bytes, size_t n)
{
    sb_open(b, NULL, e);
    CHECK(temporaries_build(&e->m.v, t) == 0, "temporaries_build");
    CHECK_EQ(t->allocs, allocs);
    CHECK_EQ(t->temporary, temporary);
    CHECK_EQ(t->bytes, bytes);
    CHECK_EQ(t->n, n);
}

static void test_sites(void)
{
    struct sb b;
    build(&b);
    struct sb_env e;
    struct temporaries t;
    build_and_count(&b, &e, &t, 8, 4, 4096 + 4096 + 8192 + 65536, 2);
    if (t.n == 2) {
        check_site(e.db, &t.site[0], "step train.py:10", st.step, GL_API_CUDA_MALLOC, 3, 16384, 4);
        check_site(e.db, &t.site[1], "load_batch data.py:42", st.load, GL_API_CU_MEM_ALLOC, 1, 65536, 2);
    }
    temporaries_free(&t);
    CHECK_EQ(t.n, 0);
    sb_close(&e);
}

/* No history: nothing, and no array. */
static void test_empty(void)
{
    struct sb b;
    sb_init(&b);
    struct sb_env e;
    struct temporaries t;
    build_and_count(&b, &e, &t, 0, 0, 0, 0);
    CHECK(t.site == NULL, "no sites");
    temporaries_free(&t);
    sb_close(&e);
}

int main(void)
{
    test_sites();
    test_empty();
    return sb_done("analysis_temporary: heaptrack's rule, sites, order, totals");
}
