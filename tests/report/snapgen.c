/* snapgen: writes gpuleak snapshots of known content for the reporter tests.
 *
 *   snapgen leaks OUT [--bad-build-id] [--missing-module] [--reason N]
 *       the known leak set; prints the expected frames as JSON on stdout
 *   snapgen noleak OUT          everything freed
 *   snapgen weird OUT           strings that need escaping (JSON, text)
 *   snapgen inline OUT          one leak through an inlined function
 *   snapgen future OUT          valid, with unknown records and long entries
 *   snapgen many OUT NALLOCS NSTACKS   large scenario for benchmarks
 *   snapgen bench OUT NALLOCS NSTACKS NEVENTS   the same with a history,
 *       pools, VMM and labels: `make bench` / scripts/bench-report.sh
 *   snapgen phasewrap OUT       phases in a history ring that wrapped
 *   snapgen phasedeep OUT       100 phases nested in one another
 *   snapgen history OUT / nohistory OUT   known timeline, peak and
 *       fragmentation (snapgen_scen.inc); nohistory: the same without EVENTS
 *   snapgen caches OUT          allocator-cache, cuBLAS and static-runtime
 *       stacks (suppressions and folding); snapgen ipc OUT: with mappings
 *   snapgen diffset DIR         DIR/a.snap b.snap c.snap (one process over
 *       time) and DIR/other.snap (another run)
 *   snapgen ranks DIR           DIR/r0.snap r1.snap r2.snap (three ranks)
 *   snapgen finalset DIR        DIR/s.0.snap ... s.3.snap: a series whose
 *                               last is the exit snapshot repeating s.2
 *   snapgen rankset DIR         DIR/r3.0.snap ...: 4 ranks, 2 with several
 *                               snapshots, and a process with no rank
 *   snapgen small OUT           tiny valid file (every record type once)
 *   snapgen torchview OUT KIND  PyTorch's view, adding up or not (KIND:
 *       snapgen_torch.inc); snapgen torchlines OUT N: N tensor lines
 *   snapgen corrupt KIND OUT    a small file broken in one way; KIND is one
 *       of the names in corrupt_kinds[] (snapgen corrupt list prints them)
 *
 * Stacks hold real return addresses into this program's own functions
 * (see snapgen.h), and the module map comes from dl_iterate_phdr with the
 * build-ids from PT_NOTE, so symbolization can be checked exactly. */
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapgen.h"
#include "snapshot_format.h"
#include "snapwrite.h"

/* ---- call chains whose return addresses become the stacks ---- */

#define NOINL __attribute__((noinline))

void fake_cuda_api(struct stk *s) { STK_ENTER(s); }

NOINL static void alloc_weights(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "alloc_weights", fake_cuda_api(s));
}

NOINL static void alloc_managed(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "alloc_managed", fake_cuda_api(s));
}

NOINL static void load_model(struct stk *s, int managed)
{
    STK_ENTER(s);
    if (managed)
        STK_CALL(s, "load_model", alloc_managed(s));
    else
        STK_CALL(s, "load_model", alloc_weights(s));
}

NOINL static void alloc_activations(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "alloc_activations", fake_cuda_api(s));
}

NOINL static void pin_staging(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "pin_staging", fake_cuda_api(s));
}

NOINL static void train_loop(struct stk *s, int pinned)
{
    STK_ENTER(s);
    if (pinned)
        STK_CALL(s, "train_loop", pin_staging(s));
    else
        STK_CALL(s, "train_loop", alloc_activations(s));
}

NOINL static void tie_a(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "tie_a", fake_cuda_api(s));
}

NOINL static void tie_b(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "tie_b", fake_cuda_api(s));
}

/* The static runtime's shape: the program calls a cuda* function linked
 * into itself, which calls an internal fc_* helper, which calls the API the
 * interposer sees.  Both must be folded away. */
NOINL static void fc_static_impl(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "fc_static_impl", fake_cuda_api(s));
}

NOINL void cudaFakeStaticMalloc(struct stk *s);
NOINL void cudaFakeStaticMalloc(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "cudaFakeStaticMalloc", fc_static_impl(s));
}

NOINL static void static_user(struct stk *s)
{
    STK_ENTER(s);
    STK_CALL(s, "static_user", cudaFakeStaticMalloc(s));
}

enum { CH_WEIGHTS, CH_ACTIV, CH_PINNED, CH_CXX, CH_MANAGED, CH_TIE_A, CH_TIE_B,
       NCHAINS, CH_INLINE = NCHAINS, CH_TORCH, CH_STATIC, NALLCHAINS };

NOINL static void capture(int which, struct stk *s)
{
    memset(s, 0, sizeof *s);
    switch (which) {
    case CH_WEIGHTS: STK_CALL(s, "capture", load_model(s, 0)); break;
    case CH_ACTIV: STK_CALL(s, "capture", train_loop(s, 0)); break;
    case CH_PINNED: STK_CALL(s, "capture", train_loop(s, 1)); break;
    case CH_CXX: STK_CALL(s, "capture", cxx_train(s)); break;
    case CH_MANAGED: STK_CALL(s, "capture", load_model(s, 1)); break;
    case CH_TIE_A: STK_CALL(s, "capture", tie_a(s)); break;
    case CH_TIE_B: STK_CALL(s, "capture", tie_b(s)); break;
    case CH_INLINE: STK_CALL(s, "capture", inl_outer(s)); break;
    case CH_TORCH: STK_CALL(s, "capture", torch_step(s)); break;
    case CH_STATIC: STK_CALL(s, "capture", static_user(s)); break;
    }
}

/* ---- module map ---- */

struct mod {
    uint64_t bias, start, end;
    uint8_t build_id[GL_SNAP_MAX_BUILD_ID];
    uint32_t build_id_len;
    char path[PATH_MAX];
};
static struct mod mods[256];
static int nmods;
static char self_exe[PATH_MAX];

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (nmods == (int)(sizeof mods / sizeof *mods))
        return 1;
    struct mod *m = &mods[nmods];
    memset(m, 0, sizeof *m);
    m->bias = info->dlpi_addr;
    m->start = UINT64_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uint64_t lo = info->dlpi_addr + ph->p_vaddr;
            uint64_t hi = lo + ph->p_memsz;
            if (lo < m->start)
                m->start = lo;
            if (hi > m->end)
                m->end = hi;
        } else if (ph->p_type == PT_NOTE && !m->build_id_len) {
            const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
            const uint8_t *e = p + ph->p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= e) {
                const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
                const uint8_t *name = p + sizeof *nh;
                const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
                if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= GL_SNAP_MAX_BUILD_ID) {
                    memcpy(m->build_id, desc, nh->n_descsz);
                    m->build_id_len = nh->n_descsz;
                    break;
                }
                p = desc + ((nh->n_descsz + 3) & ~3u);
            }
        }
    }
    if (m->start == UINT64_MAX)
        return 0;
    /* the main program has an empty name: record its real path */
    snprintf(m->path, sizeof m->path, "%s",
             info->dlpi_name && *info->dlpi_name ? info->dlpi_name : self_exe);
    nmods++;
    return 0;
}

static void load_modules(void)
{
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    self_exe[n > 0 ? n : 0] = '\0';
    nmods = 0;
    dl_iterate_phdr(phdr_cb, NULL);
}

/* ---- record writers ---- */

#define SNAPGEN_NO_RANK UINT32_MAX

struct proc_opts {
    uint32_t reason;
    const char *host, *exe;
    const char *const *argv;
    int argc;
    /* 0 = the defaults: pid 4242, rank 0, snapshot 2.5 s after start;
     * rank SNAPGEN_NO_RANK: none set (GL_SNAP_F_NO_RANK, rank 0) */
    uint32_t pid, rank;
    uint64_t mono_ns, index, start_ns;
};

static void write_process(struct sw *w, const struct proc_opts *o)
{
    size_t h = sw_begin(w, GL_REC_PROCESS, 1);
    uint64_t start = o->start_ns ? o->start_ns : 1700000000000000000ull;
    uint64_t mono = o->mono_ns ? o->mono_ns : 2500000000ull;
    int no_rank = o->rank == SNAPGEN_NO_RANK;
    SW_PART(w, process, .pid = o->pid ? o->pid : 4242, .ppid = 1, .rank = no_rank ? 0 : o->rank,
            .reason = o->reason, .index = o->index, .start_unix_ns = start, .snapshot_unix_ns = start + mono,
            .snapshot_mono_ns = mono,
            .flags = (o->reason == GL_REASON_EXIT ? GL_SNAP_F_FINAL : 0) | (no_rank ? GL_SNAP_F_NO_RANK : 0),
            .depth_limit = 64);
    sw_str(w, o->host);
    sw_str(w, o->exe);
    sw_u32(w, (uint32_t)o->argc);
    for (int i = 0; i < o->argc; i++)
        sw_str(w, o->argv[i]);
    sw_end(w, h);
}

static void write_modules(struct sw *w, int bad_build_id, int missing)
{
    for (int i = 0; i < nmods; i++) {
        const struct mod *m = &mods[i];
        size_t h = sw_begin(w, GL_REC_MODULE, 1);
        SW_PART(w, module, .load_bias = m->bias, .start = m->start, .end = m->end,
                .build_id_len = m->build_id_len);
        uint8_t id[GL_SNAP_MAX_BUILD_ID];
        memcpy(id, m->build_id, m->build_id_len);
        int self = strcmp(m->path, self_exe) == 0;
        if (self && bad_build_id && m->build_id_len)
            id[0] ^= 0xff;
        sw_bytes(w, id, m->build_id_len);
        sw_str(w, self && missing ? "/nonexistent/dir/snapgen" : m->path);
        sw_end(w, h);
    }
}

/* STACK record from a captured chain, innermost first. */
static void write_stack(struct sw *w, uint32_t id, const struct stk *s)
{
    size_t h = sw_begin(w, GL_REC_STACK, 1);
    SW_PART(w, stack, .id = id, .depth = (uint32_t)s->n);
    for (int i = s->n - 1; i >= 0; i--)
        sw_u64(w, s->pc[i]);
    sw_end(w, h);
}

struct alloc {
    uint64_t ptr, size, seq, time_ns;
    uint32_t stack_id;
    int32_t device;
    uint16_t kind, api;
};

static void put_alloc(struct sw *w, const struct alloc *a, size_t extra)
{
    SW_PART(w, allocs, .ptr = a->ptr, .size = a->size, .seq = a->seq, .time_ns = a->time_ns, .stream = 0,
            .stack_id = a->stack_id, .device = a->device, .kind = a->kind, .api = a->api);
    for (size_t i = 0; i < extra; i++)
        sw_bytes(w, "\xee", 1);
}

struct device {
    int32_t device;
    uint64_t v[12]; /* the counters, in put_device's order */
};

static void put_device(struct sw *w, const struct device *d, size_t extra)
{
    const uint64_t *v = d->v;
    SW_PART(w, devices, .device = d->device, .live_bytes = v[0], .live_count = v[1], .peak_bytes = v[2],
            .peak_seq = v[3], .peak_time_ns = v[4], .alloc_count = v[5], .free_count = v[6],
            .alloc_bytes_total = v[7], .failed_count = v[8], .unknown_free_count = v[9], .mem_free = v[10],
            .mem_total = v[11]);
    for (size_t i = 0; i < extra; i++)
        sw_bytes(w, "\xee", 1);
}

static void put_peak(struct sw *w, int32_t dev, uint32_t stack, uint64_t bytes, uint64_t count)
{
    SW_PART(w, peak, .device = dev, .stack_id = stack, .bytes = bytes, .count = count);
}

static void put_event(struct sw *w, uint64_t seq, uint16_t type, uint64_t size,
                      uint32_t stack, int32_t dev, uint16_t kind, uint16_t api)
{
    SW_PART(w, events, .seq = seq, .time_ns = seq * 1000000, .ptr = 0x7f0000000000ull + seq * 0x100000,
            .size = size, .stack_id = stack, .device = dev, .type = type, .kind = kind, .api = api);
}

static const char *const default_argv[] = {"./train", "--epochs", "3", "it's here"};

/* ---- the known leak set ---- */

#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)

static const struct alloc leak_set[] = {
    /* G (stack 7) before F (stack 6) in the file: order must come from ids */
    {0x7f0000700000, 1000, 13, 130000000, 7, 1, GL_KIND_DEVICE, GL_API_CU_MEM_ALLOC},
    {0x7f0000100000, 1 * MiB, 3, 10000000, 1, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC},
    {0x7f0000200000, 65536, 4, 20000000, 2, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC},
    {0x7f0000210000, 65536, 6, 40000000, 2, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC},
    {0x7f0000220000, 65536, 8, 60000000, 2, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC},
    {0x7e0000001000, 4096, 5, 30000000, 3, -1, GL_KIND_HOST_PINNED, GL_API_CUDA_MALLOC_HOST},
    {0x7e0000002000, 4096, 7, 50000000, 3, -1, GL_KIND_HOST_PINNED, GL_API_CUDA_MALLOC_HOST},
    {0x7f0000400000, 262144, 11, 110000000, 4, 1, GL_KIND_POOL, GL_API_CUDA_MALLOC_ASYNC},
    {0x7f0000440000, 262144, 10, 100000000, 4, 1, GL_KIND_POOL, GL_API_CUDA_MALLOC_ASYNC},
    {0x7f0000500000, 196608, 12, 120000000, 5, 0, GL_KIND_MANAGED, GL_API_CUDA_MALLOC_MANAGED},
    {0x7f0000600000, 1000, 14, 140000000, 6, 1, GL_KIND_DEVICE, GL_API_CU_MEM_ALLOC},
    {0x7f0000800000, 12, 15, 150000000, 0, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC},
};

static const struct device leak_devices[] = {
    /* live_bytes live_count peak_bytes peak_seq peak_time alloc_count
     * free_count alloc_bytes_total failed unknown_free mem_free mem_total */
    {-1, {8192, 2, 16384, 5, 30000000, 4, 2, 16384, 0, 0, 0, 0}},
    {0, {1441804, 6, 4 * MiB, 17, 520000000, 12, 6, 6000000, 1, 0, 70 * GiB, 80 * GiB}},
    {1, {526288, 4, 1 * MiB, 9, 250000000, 6, 2, 1050576, 0, 2, 75 * GiB, 80 * GiB}},
};

static void print_expect(const struct stk *chains)
{
    printf("{\"exe\": \"%s\", \"stacks\": {", self_exe);
    for (int c = 0; c < NCHAINS; c++) {
        const struct stk *s = &chains[c];
        printf("%s\"%d\": [", c ? ", " : "", c + 1);
        for (int i = s->n - 1; i >= 0; i--) {
            const char *file = strrchr(s->file[i], '/');
            printf("{\"function\": \"%s\", \"file\": \"%s\", \"line\": %u}%s",
                   s->func[i], file ? file + 1 : s->file[i], s->line[i], i ? ", " : "");
        }
        printf("]");
    }
    printf("}}\n");
}

static int gen_leaks(const char *out, int bad_build_id, int missing, uint32_t reason)
{
    struct stk chains[NCHAINS];
    for (int c = 0; c < NCHAINS; c++)
        capture(c, &chains[c]);
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    struct proc_opts po = {reason, "testhost", self_exe, default_argv, 4, 0, 0, 0, 0, 0};
    write_process(&w, &po);
    write_modules(&w, bad_build_id, missing);
    for (int c = 0; c < NCHAINS; c++)
        write_stack(&w, (uint32_t)c + 1, &chains[c]);
    size_t n = sizeof leak_set / sizeof *leak_set;
    size_t h = sw_begin(&w, GL_REC_ALLOCS, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        put_alloc(&w, &leak_set[i], 0);
    sw_end(&w, h);
    h = sw_begin(&w, GL_REC_DEVICES, 3);
    for (int i = 0; i < 3; i++)
        put_device(&w, &leak_devices[i], 0);
    sw_end(&w, h);
    h = sw_begin(&w, GL_REC_PEAK, 5);
    put_peak(&w, 0, 5, 1 * MiB, 1); /* E: ties with B on bytes, fewer allocations */
    put_peak(&w, 0, 1, 2 * MiB, 2);
    put_peak(&w, 0, 2, 1 * MiB, 16);
    put_peak(&w, 1, 4, 1 * MiB, 4);
    put_peak(&w, -1, 3, 16384, 4);
    sw_end(&w, h);
    h = sw_begin(&w, GL_REC_EVENTS, 2);
    put_event(&w, 3, GL_EV_ALLOC, 1 * MiB, 1, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC);
    put_event(&w, 16, GL_EV_FREE, 65536, 2, 0, GL_KIND_DEVICE, GL_API_CUDA_FREE);
    sw_end(&w, h);
    sw_finish(&w);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    print_expect(chains);
    return rc ? 1 : 0;
}

static int gen_noleak(const char *out)
{
    struct stk s;
    capture(CH_WEIGHTS, &s);
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    struct proc_opts po = {GL_REASON_EXIT, "testhost", self_exe, default_argv, 1, 0, 0, 0, 0, 0};
    write_process(&w, &po);
    write_modules(&w, 0, 0);
    write_stack(&w, 1, &s);
    size_t h = sw_begin(&w, GL_REC_ALLOCS, 0);
    sw_end(&w, h);
    struct device d = {0, {0, 0, 2 * MiB, 4, 40000000, 10, 10, 5 * MiB, 0, 0, 0, 0}};
    h = sw_begin(&w, GL_REC_DEVICES, 1);
    put_device(&w, &d, 0);
    sw_end(&w, h);
    h = sw_begin(&w, GL_REC_PEAK, 1);
    put_peak(&w, 0, 1, 2 * MiB, 2);
    sw_end(&w, h);
    sw_finish(&w);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    return rc ? 1 : 0;
}

/* Newer-writer features the reader must tolerate: unknown record types,
 * longer entries, extra PROCESS/STACK tails. Content = one leak of 4096. */
static int gen_future(const char *out)
{
    struct stk s;
    capture(CH_WEIGHTS, &s);
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    struct proc_opts po = {GL_REASON_EXIT, "testhost", self_exe, default_argv, 1, 0, 0, 0, 0, 0};
    write_process(&w, &po);
    /* extend PROCESS: patch length after appending a tail */
    size_t h = sw_begin(&w, 77, 3); /* unknown type */
    sw_bytes(&w, "future!", 7);
    sw_end(&w, h);
    write_modules(&w, 0, 0);
    h = sw_begin(&w, GL_REC_STACK, 1);
    SW_PART(&w, stack, .id = 1, .depth = (uint32_t)s.n);
    for (int i = s.n - 1; i >= 0; i--)
        sw_u64(&w, s.pc[i]);
    sw_u64(&w, 0xdeadbeef); /* tail field of a newer STACK */
    sw_end(&w, h);
    struct alloc a = {0x7f0000100000, 4096, 2, 1000, 1, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC};
    h = sw_begin(&w, GL_REC_ALLOCS, 2);
    put_alloc(&w, &a, 8);
    a.ptr += 4096;
    a.seq = 3;
    a.kind = 99;  /* a kind this reader does not know */
    a.api = 999;  /* likewise */
    put_alloc(&w, &a, 8);
    sw_end(&w, h);
    struct device d = {0, {8192, 2, 8192, 3, 2000, 2, 0, 8192, 0, 0, 0, 0}};
    h = sw_begin(&w, GL_REC_DEVICES, 1);
    put_device(&w, &d, 16);
    sw_end(&w, h);
    h = sw_begin(&w, 0x12345, 0);
    sw_end(&w, h);
    sw_finish(&w);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    return rc ? 1 : 0;
}

/* One leak whose innermost pc lies in an inlined body; prints the expected
 * frames like gen_leaks (inl_helper inlined, then inl_outer, capture). */
static int gen_inline(const char *out)
{
    struct stk s;
    capture(CH_INLINE, &s);
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    struct proc_opts po = {GL_REASON_EXIT, "testhost", self_exe, default_argv, 1, 0, 0, 0, 0, 0};
    write_process(&w, &po);
    write_modules(&w, 0, 0);
    write_stack(&w, 1, &s);
    struct alloc a = {0x7f0000100000, 4096, 2, 1000, 1, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC};
    size_t h = sw_begin(&w, GL_REC_ALLOCS, 1);
    put_alloc(&w, &a, 0);
    sw_end(&w, h);
    sw_finish(&w);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    printf("{\"stacks\": {\"1\": ["
           "{\"function\": \"inl_helper\", \"file\": \"snapgen_inl.c\", \"line\": %u, \"inlined\": true}, "
           "{\"function\": \"inl_outer\", \"file\": \"snapgen_inl.c\", \"line\": %u, \"inlined\": false}, "
           "{\"function\": \"capture\", \"file\": \"snapgen.c\", \"line\": %u, \"inlined\": false}]}}\n",
           s.line[1], inl_call_line, s.line[0]);
    return rc ? 1 : 0;
}

/* Strings that need escaping: quotes, backslash, control bytes, invalid
 * UTF-8 (a lone 0xff, a truncated sequence), valid UTF-8 (e-acute), NUL. */
static int gen_weird(const char *out)
{
    static const char a1[] = "q\"b\\s\n\t\x01\x7f";
    static const char a2[] = "\xff|\xc3\xa9|\xe2\x82|end";
    static const char *const argv_[] = {"./weird", a1, a2};
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    struct proc_opts po = {GL_REASON_SIGNAL, "host\twith\x1b[31mescape", "/no/such/exe", argv_, 3, 0, 0, 0, 0, 0};
    write_process(&w, &po);
    /* a module whose path holds a NUL byte: written by hand */
    size_t h = sw_begin(&w, GL_REC_MODULE, 1);
    SW_PART(&w, module, .load_bias = 0x10000, .start = 0x10000, .end = 0x20000, .build_id_len = 0);
    sw_u32(&w, 5);
    sw_bytes(&w, "/a\0b\n", 5);
    sw_end(&w, h);
    h = sw_begin(&w, GL_REC_STACK, 1);
    SW_PART(&w, stack, .id = 1, .depth = 2);
    sw_u64(&w, 0x10123); /* in the module (which cannot be opened) */
    sw_u64(&w, 0x99999); /* in no module */
    sw_end(&w, h);
    struct alloc a = {0x1000, 10, 1, 5, 1, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC};
    h = sw_begin(&w, GL_REC_ALLOCS, 1);
    put_alloc(&w, &a, 0);
    sw_end(&w, h);
    sw_finish(&w);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    return rc ? 1 : 0;
}

/* Big scenario: nallocs live allocations over nstacks distinct stacks made of
 * real return addresses (so symbolization does real work, then hits the
 * cache). */
static int gen_many(const char *out, uint64_t nallocs, uint32_t nstacks)
{
    struct stk chains[NCHAINS];
    uint64_t pool[NCHAINS * STK_MAX];
    size_t npool = 0;
    for (int c = 0; c < NCHAINS; c++) {
        capture(c, &chains[c]);
        for (int i = 0; i < chains[c].n; i++)
            pool[npool++] = chains[c].pc[i];
    }
    struct sw w;
    sw_init(&w, GL_SNAP_VERSION);
    struct proc_opts po = {GL_REASON_EXIT, "benchhost", self_exe, default_argv, 1, 0, 0, 0, 0, 0};
    write_process(&w, &po);
    write_modules(&w, 0, 0);
    for (uint32_t id = 1; id <= nstacks; id++) {
        /* distinct stacks: the digits of id in base npool pick the frames */
        uint64_t x = id;
        uint32_t depth = 4 + id % 5;
        size_t h = sw_begin(&w, GL_REC_STACK, 1);
        SW_PART(&w, stack, .id = id, .depth = depth);
        for (uint32_t i = 0; i < depth; i++) {
            sw_u64(&w, pool[x % npool]);
            x /= npool;
        }
        sw_end(&w, h);
    }
    /* ALLOCS in chunks of at most 1M entries (count is a u32) */
    int32_t ndev = 4;
    uint64_t live[4] = {0}, livec[4] = {0};
    for (uint64_t done = 0; done < nallocs;) {
        uint64_t chunk = nallocs - done > 1000000 ? 1000000 : nallocs - done;
        size_t h = sw_begin(&w, GL_REC_ALLOCS, (uint32_t)chunk);
        for (uint64_t i = done; i < done + chunk; i++) {
            struct alloc a = {0x7f0000000000ull + i * 0x1000, 256 * (1 + i % 64), i + 1,
                              i * 1000, nstacks ? (uint32_t)(i % nstacks) + 1 : 0,
                              (int32_t)(i % (uint64_t)ndev), GL_KIND_DEVICE, GL_API_CUDA_MALLOC};
            put_alloc(&w, &a, 0);
            live[a.device] += a.size;
            livec[a.device]++;
        }
        sw_end(&w, h);
        done += chunk;
    }
    size_t h = sw_begin(&w, GL_REC_DEVICES, (uint32_t)ndev);
    for (int32_t d = 0; d < ndev; d++) {
        struct device dv = {d, {live[d], livec[d], live[d], nallocs, nallocs * 1000,
                                livec[d], 0, live[d], 0, 0, 0, 0}};
        put_device(&w, &dv, 0);
    }
    sw_end(&w, h);
    /* peak = everything live: one entry per (device, stack) pair used */
    uint32_t npk = nstacks < 1000 ? nstacks : 1000;
    h = sw_begin(&w, GL_REC_PEAK, npk);
    for (uint32_t i = 0; i < npk; i++)
        put_peak(&w, (int32_t)(i % (uint32_t)ndev), i + 1, 256 * (1 + i % 64), 1);
    sw_end(&w, h);
    sw_finish(&w);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    return rc ? 1 : 0;
}

/* ---- small file and its corruptions ---- */

static const char *const corrupt_kinds[] = {
    "magic", "version", "flags", "hugecount", "hugelength", "hugestring",
    "hugeargc", "hugedepth", "badstack", "dupstack", "stack0", "afterend",
    "noend", "endcount", "endoffset", "notfirst", "twoprocess", "shortentry",
    "oddlength", "buildidlen", "baddevice", "peakstack", "eventstack",
    "modrange", "trailing", "shortprocess", "twodevices", NULL,
};

static int is(const char *k, const char *name) { return k && strcmp(k, name) == 0; }

/* kind NULL: the valid small file. */
static int gen_small(const char *out, const char *k)
{
    struct sw w;
    sw_init(&w, is(k, "version") ? 2 : GL_SNAP_VERSION);
    if (is(k, "magic"))
        w.buf[0] = 'X';
    if (is(k, "flags"))
        SW_SET(&w, 0, file_header, flags, 1);
    if (is(k, "notfirst")) {
        size_t h = sw_begin(&w, GL_REC_STACK, 1);
        SW_PART(&w, stack, .id = 9, .depth = 0);
        sw_end(&w, h);
    }
    size_t h = sw_begin(&w, GL_REC_PROCESS, 1);
    if (is(k, "shortprocess")) {
        sw_u64(&w, 1);
    } else {
        SW_PART(&w, process, .pid = 0, .ppid = 1, .rank = 2, .reason = 3, .index = 1000, .start_unix_ns = 1001,
                .snapshot_unix_ns = 1002, .snapshot_mono_ns = 1003, .flags = GL_SNAP_F_FINAL, .depth_limit = 8);
        if (is(k, "hugestring"))
            sw_u32(&w, 0xffffffffu);
        else
            sw_str(&w, "h");
        sw_str(&w, "/x");
        sw_u32(&w, is(k, "hugeargc") ? 0xfffffff0u : 1);
        sw_str(&w, "x");
    }
    sw_end(&w, h);
    if (is(k, "twoprocess")) {
        h = sw_begin(&w, GL_REC_PROCESS, 1);
        sw_end(&w, h);
    }
    h = sw_begin(&w, GL_REC_MODULE, 1);
    SW_PART(&w, module, .load_bias = 0x400000, .start = is(k, "modrange") ? 0x500000 : 0x400000, .end = 0x401000,
            .build_id_len = is(k, "buildidlen") ? 65 : 4);
    sw_bytes(&w, "\x01\x02\x03\x04", 4);
    sw_str(&w, "/x");
    sw_end(&w, h);
    for (uint32_t id = 1; id <= (is(k, "dupstack") ? 2u : 1u); id++) {
        h = sw_begin(&w, GL_REC_STACK, 1);
        SW_PART(&w, stack, .id = is(k, "stack0") ? 0 : 1, .depth = is(k, "hugedepth") ? 0x7fffffffu : 2);
        sw_u64(&w, 0x400123);
        sw_u64(&w, 0x400456);
        sw_end(&w, h);
    }
    struct alloc a = {0x1000, 100, 1, 5, is(k, "badstack") ? 999 : 1,
                      is(k, "baddevice") ? -7 : 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC};
    h = sw_begin(&w, GL_REC_ALLOCS, is(k, "hugecount") ? 0xffffffffu : 1);
    put_alloc(&w, &a, 0);
    if (is(k, "oddlength")) { /* 2 entries + 1 byte: no common entry size */
        SW_SET(&w, h, record_header, count, 2);
        put_alloc(&w, &a, 1);
    }
    if (is(k, "shortentry"))
        w.len -= 16;
    sw_end(&w, h);
    if (is(k, "hugelength"))
        SW_SET(&w, h, record_header, length, UINT64_MAX);
    struct device d = {0, {100, 1, 200, 2, 10, 2, 1, 200, 0, 0, 0, 0}};
    h = sw_begin(&w, GL_REC_DEVICES, 1);
    put_device(&w, &d, 0);
    sw_end(&w, h);
    if (is(k, "twodevices")) {
        h = sw_begin(&w, GL_REC_DEVICES, 1);
        d.device = 1;
        put_device(&w, &d, 0);
        sw_end(&w, h);
    }
    h = sw_begin(&w, GL_REC_PEAK, 1);
    put_peak(&w, 0, is(k, "peakstack") ? 5 : 1, 200, 2);
    sw_end(&w, h);
    h = sw_begin(&w, GL_REC_EVENTS, 1);
    put_event(&w, 1, GL_EV_ALLOC, 100, is(k, "eventstack") ? 6 : 1, 0, 0, 1);
    sw_end(&w, h);
    h = sw_begin(&w, 99, 1); /* unknown record: skipped */
    sw_u32(&w, 7);
    sw_end(&w, h);
    if (!is(k, "noend")) {
        size_t end = w.len;
        sw_finish(&w);
        if (is(k, "endcount"))
            SW_SET(&w, end + GL_SNAP_RECORD_HEADER_SIZE, end, records, 3);
        if (is(k, "endoffset"))
            SW_SET(&w, end + GL_SNAP_RECORD_HEADER_SIZE, end, offset, 5);
    }
    if (is(k, "afterend")) {
        h = sw_begin(&w, GL_REC_STACK, 1);
        SW_PART(&w, stack, .id = 5, .depth = 0);
        sw_end(&w, h);
    }
    if (is(k, "trailing"))
        sw_bytes(&w, "xyz", 3);
    int rc = sw_save(&w, out, w.len);
    sw_free(&w);
    return rc ? 1 : 0;
}

#include "snapgen_scen.inc"
/* snapgen series DIR NSNAPS NSTACKS NDEV: a long series of one process,
 * mostly distinct stacks in each snapshot (below the chains: the tests
 * name lines of this file) */
#include "snapgen_series.inc"
#include "snapgen_torch.inc"

static int usage(void)
{
    fputs("usage: snapgen leaks|noleak|future|small OUT | many OUT NALLOCS NSTACKS |"
          " corrupt KIND OUT | corrupt list\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    load_modules();
    if (argc < 2)
        return usage();
    const char *mode = argv[1];
    if (strcmp(mode, "corrupt") == 0) {
        if (argc == 3 && strcmp(argv[2], "list") == 0) {
            for (int i = 0; corrupt_kinds[i]; i++)
                puts(corrupt_kinds[i]);
            return 0;
        }
        if (argc != 4)
            return usage();
        for (int i = 0; corrupt_kinds[i]; i++)
            if (strcmp(argv[2], corrupt_kinds[i]) == 0)
                return gen_small(argv[3], argv[2]);
        fprintf(stderr, "snapgen: unknown corruption '%s'\n", argv[2]);
        return 2;
    }
    if (argc < 3)
        return usage();
    const char *out = argv[2];
    if (strcmp(mode, "leaks") == 0) {
        int bad = 0, missing = 0;
        uint32_t reason = GL_REASON_EXIT;
        for (int i = 3; i < argc; i++) {
            if (strcmp(argv[i], "--bad-build-id") == 0)
                bad = 1;
            else if (strcmp(argv[i], "--missing-module") == 0)
                missing = 1;
            else if (strcmp(argv[i], "--reason") == 0 && i + 1 < argc)
                reason = (uint32_t)strtoul(argv[++i], NULL, 10);
            else
                return usage();
        }
        return gen_leaks(out, bad, missing, reason);
    }
    if (strcmp(mode, "noleak") == 0 && argc == 3)
        return gen_noleak(out);
    if (strcmp(mode, "weird") == 0 && argc == 3)
        return gen_weird(out);
    if (strcmp(mode, "inline") == 0 && argc == 3)
        return gen_inline(out);
    if (strcmp(mode, "future") == 0 && argc == 3)
        return gen_future(out);
    if (strcmp(mode, "small") == 0 && argc == 3)
        return gen_small(out, NULL);
    if (strcmp(mode, "many") == 0 && argc == 5)
        return gen_many(out, strtoull(argv[3], NULL, 10), (uint32_t)strtoul(argv[4], NULL, 10));
    if (strcmp(mode, "bench") == 0 && argc == 6)
        return gen_bench(out, strtoull(argv[3], NULL, 10), (uint32_t)strtoul(argv[4], NULL, 10),
                         strtoull(argv[5], NULL, 10));
    if (strcmp(mode, "history") == 0 && argc == 3)
        return gen_history(out, 1);
    if (strcmp(mode, "nohistory") == 0 && argc == 3)
        return gen_history(out, 0);
    if (strcmp(mode, "caches") == 0 && argc == 3)
        return gen_caches(out);
    if (strcmp(mode, "ipc") == 0 && argc == 3)
        return gen_ipc(out);
    if (strcmp(mode, "badfree") == 0 && argc == 3)
        return gen_badfree(out);
    if (strcmp(mode, "badinside") == 0 && argc == 3)
        return gen_badinside(out);
    if (strcmp(mode, "phasewrap") == 0 && argc == 3)
        return gen_phasewrap(out);
    if (strcmp(mode, "phasedeep") == 0 && argc == 3)
        return gen_phasedeep(out);
    if (strcmp(mode, "diffset") == 0 && argc == 3)
        return gen_diffset(out);
    if (strcmp(mode, "ranks") == 0 && argc == 3)
        return gen_ranks(out);
    if (strcmp(mode, "finalset") == 0 && argc == 3)
        return gen_finalset(out);
    if (strcmp(mode, "rankset") == 0 && argc == 3)
        return gen_rankset(out);
    if (strcmp(mode, "torchview") == 0 && argc == 4)
        return gen_torchview(out, argv[3]);
    if (strcmp(mode, "torchlines") == 0 && argc == 4)
        return gen_torchlines(out, (uint32_t)strtoul(argv[3], NULL, 10));
    if (strcmp(mode, "series") == 0 && argc == 6)
        return gen_series(out, (uint32_t)strtoul(argv[3], NULL, 10), (uint32_t)strtoul(argv[4], NULL, 10),
                          (int32_t)strtol(argv[5], NULL, 10), 0);
    if (strcmp(mode, "rankseries") == 0 && argc == 6)
        return gen_series(out, (uint32_t)strtoul(argv[3], NULL, 10), (uint32_t)strtoul(argv[4], NULL, 10),
                          (int32_t)strtol(argv[5], NULL, 10), 1);
    return usage();
}
