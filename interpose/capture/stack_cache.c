#include "capture/stack_cache.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/* The generic API (libunwind-x86_64.so, _Ux86_64_*), not UNW_LOCAL_ONLY:
 * only it walks through an address space whose accessors are ours, so that
 * every register and word the walk reads passes through acc_reg/acc_mem and
 * is recorded.  The local-only walker reads memory directly. */
#include <libunwind.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/libc_dl.h"
#include "base/modules.h"
#include "capture/stack_regs.h"

#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define GL_STACK_CACHE_SUPPORTED 1
#endif

#ifdef GL_STACK_CACHE_SUPPORTED

/* Entries per thread, in sets of ASSOC candidates per key.  A PyTorch
 * step allocates from ~20 distinct stacks per thread (its ops at their
 * Python depths), and keys that claim one set beyond its size evict each
 * other at every step.  Over 670 steps of make bench's torch step
 * (cudaMallocAsync): 16 entries in pairs, 16-19% of the captures were
 * plain walks (2 runs); 64 in pairs, 0 in 4 runs of 9 and 6-13% in the
 * others (run to run: where the stacks fall); 128 in sets of 4, 0 in 8 runs (docs/performance.md,
 * "Stack cache").  ~6.3 KiB an entry, touched when first recorded. */
#define WAYS 128
#define ASSOC 4
#define SET_BITS 5 /* log2(WAYS / ASSOC) */
_Static_assert(WAYS == ASSOC << SET_BITS, "WAYS entries in sets of ASSOC");
#define MAX_FRAMES 136  /* deeper walks are not cached (GPULEAK_DEPTH <= 128) */
#define MAX_READS 320   /* stack words one cached walk may have read (~2.3 a frame) */
#define MAX_REGS 6      /* registers one cached walk may have read */
#define RO_RANGES 16    /* read-only segments of loaded objects remembered */
/* A recording walk costs ~4 us a frame on the bench VM (libunwind masks
 * signals around every step's look-up of its per-IP rules: two system
 * calls), ~500x an unw_backtrace frame.  So a thread records only when it
 * has the credit: one per capture, RECORD_COST per recording walk.  A new
 * thread's credit is WAYS / 2 recording walks (INITIAL_CREDIT), spent
 * once: a loop is recorded at once, and so are the ~20 stacks of a
 * PyTorch step, which at one recording in RECORD_COST captures took ~170
 * steps to fill (a one-time cost of at most 64 recordings, ~10 ms a thread
 * at 32 frames, again after a dlclose made every entry stale); then hits; a
 * program whose stacks never repeat pays one recording walk per
 * RECORD_COST captures, the rest are plain unw_backtrace walks. */
#define RECORD_COST 1024
#define CREDIT_MAX (4 * RECORD_COST)
#define INITIAL_CREDIT ((int64_t)(WAYS / 2) * RECORD_COST)

struct slot {
    uintptr_t addr, val;
};

struct entry {
    uint64_t gen;        /* load generation it was walked in; 0: empty */
    uintptr_t sp, bp;    /* key: the walker's stack and frame pointer */
    int size, n;         /* frames asked for, frames found */
    struct gl_walk_stop stop; /* key: where the walk stopped short */
    uint64_t used;       /* last use, for replacement */
    uint16_t nregs, nreads;
    uint8_t reg[MAX_REGS];
    uintptr_t regval[MAX_REGS];
    struct slot reads[MAX_READS];
    void *pcs[MAX_FRAMES];
};

/* One per thread, mmap'd on its first capture and unmapped at its exit. */
struct tcache {
    /* First, and all zero: libunwind's linear_search hands our as_arg to
     * its *local* access_mem, which reads it as a cursor and validates
     * when cursor->validate is set.  Zero keeps that read a plain load,
     * as in a local walk. */
    unw_cursor_t zero;
    uintptr_t stack_lo, stack_hi;
    /* The walk in progress (one per thread at a time: busy). */
    bool busy, cacheable, failed;
    const ucontext_t *uc;
    uintptr_t walk_lo;
    struct entry *cur;
    uint64_t clock;
    int64_t credit;
    uint64_t credit_gen; /* the load generation the credit was last filled for */
    /* Read-only segments of loaded objects, for the generation ro_gen. */
    uint64_t ro_gen;
    unsigned ro_n, ro_next;
    struct {
        uintptr_t lo, hi;
    } ro[RO_RANGES];
    struct entry e[WAYS];
};

/* Bumped by dlclose (gl_stack_cache_flush): code and unwind tables at an
 * address may have changed. */
static _Atomic uint64_t load_gen = 1;
static unw_addr_space_t cache_as;
static int (*local_find_proc_info)(unw_addr_space_t, unw_word_t, unw_proc_info_t *, int, void *);
static uintptr_t dyn_list; /* &_U_dyn_info_list: JIT-registered unwind info */
static bool cache_ready;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static pthread_key_t cache_key;
static GL_TLS struct tcache *my_cache;

/* The generic library's functions, taken from it by name: Debian's local
 * libunwind.so.8 exports some of the same names (_Ux86_64_get_accessors,
 * _Ux86_64_flush_cache, ...), and a program linked with it (as bench_work)
 * puts it first in the lookup order, so a plain call would reach the local
 * library's copy, which knows nothing of this address space. */
static struct {
    unw_addr_space_t *local_as;
    unw_accessors_t *(*get_accessors)(unw_addr_space_t);
    unw_addr_space_t (*create_addr_space)(unw_accessors_t *, int);
    int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
    void (*flush_cache)(unw_addr_space_t, unw_word_t, unw_word_t);
    int (*init_remote)(unw_cursor_t *, unw_addr_space_t, void *);
    int (*step)(unw_cursor_t *);
    int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
} U;

static bool bind_generic(void)
{
    void *h = dlopen("libunwind-x86_64.so.8", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (h == NULL)
        h = dlopen("libunwind-x86_64.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        return false;
#define BIND(field, name) (*(void **)&U.field = gl_libc_dlsym(h, name)) != NULL
    return BIND(local_as, "_Ux86_64_local_addr_space") && BIND(get_accessors, "_Ux86_64_get_accessors") &&
           BIND(create_addr_space, "_Ux86_64_create_addr_space") &&
           BIND(set_caching_policy, "_Ux86_64_set_caching_policy") &&
           BIND(flush_cache, "_Ux86_64_flush_cache") &&
           BIND(init_remote, "_Ux86_64_init_remote") && BIND(step, "_Ux86_64_step") &&
           BIND(get_reg, "_Ux86_64_get_reg");
#undef BIND
}

/* libunwind's register numbers -> ucontext_t's general registers. */
static const int8_t greg_of[] = {
    [UNW_X86_64_RAX] = REG_RAX, [UNW_X86_64_RDX] = REG_RDX, [UNW_X86_64_RCX] = REG_RCX,
    [UNW_X86_64_RBX] = REG_RBX, [UNW_X86_64_RSI] = REG_RSI, [UNW_X86_64_RDI] = REG_RDI,
    [UNW_X86_64_RBP] = REG_RBP, [UNW_X86_64_RSP] = REG_RSP, [UNW_X86_64_R8] = REG_R8,
    [UNW_X86_64_R9] = REG_R9,   [UNW_X86_64_R10] = REG_R10, [UNW_X86_64_R11] = REG_R11,
    [UNW_X86_64_R12] = REG_R12, [UNW_X86_64_R13] = REG_R13, [UNW_X86_64_R14] = REG_R14,
    [UNW_X86_64_R15] = REG_R15, [UNW_X86_64_RIP] = REG_RIP,
};

static bool in_dyn_list(uintptr_t addr)
{
    return addr >= dyn_list && addr + sizeof(unw_word_t) <= dyn_list + sizeof(unw_dyn_info_list_t);
}

/* JIT code registered with _U_dyn_register has unwind info that changes
 * without a dlopen/dlclose: the cache stands aside while there is any. */
static bool dyn_info_registered(void)
{
    return dyn_list != 0 &&
           __atomic_load_n(&((unw_dyn_info_list_t *)dyn_list)->first, __ATOMIC_RELAXED) != NULL;
}

struct seg_query {
    uintptr_t addr, lo, hi;
    bool found, writable;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct seg_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (q->addr >= lo && q->addr < hi) {
            q->lo = lo;
            q->hi = hi;
            q->found = true;
            q->writable = (ph->p_flags & PF_W) != 0;
            return 1;
        }
    }
    return 0;
}

/* True if [addr, addr+8) lies in a read-only segment of a loaded object:
 * code and unwind tables, which change only by dlopen/dlclose (the
 * generation), so a walk need not record reads of them. */
static bool in_read_only_object(struct tcache *tc, uintptr_t addr)
{
    uint64_t gen = atomic_load_explicit(&load_gen, memory_order_relaxed);
    if (tc->ro_gen != gen) {
        tc->ro_gen = gen;
        tc->ro_n = tc->ro_next = 0;
    }
    for (unsigned i = 0; i < tc->ro_n; i++)
        if (addr >= tc->ro[i].lo && addr + sizeof(unw_word_t) <= tc->ro[i].hi)
            return true;
    struct seg_query q = {.addr = addr};
    gl_loader_walk(find_segment, &q);
    if (!q.found || q.writable || addr + sizeof(unw_word_t) > q.hi)
        return false;
    tc->ro[tc->ro_next].lo = q.lo;
    tc->ro[tc->ro_next].hi = q.hi;
    tc->ro_next = (tc->ro_next + 1) % RO_RANGES;
    if (tc->ro_n < RO_RANGES)
        tc->ro_n++;
    return true;
}

/* A read that may fault (a guessed frame pointer): the kernel copies it or
 * says EFAULT, as libunwind's validated reads do. */
static int safe_read(struct tcache *tc, uintptr_t addr, unw_word_t *val)
{
    struct iovec local = {val, sizeof *val}, remote = {(void *)addr, sizeof *val};
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (n == (ssize_t)sizeof *val)
        return 0;
    if (n < 0 && errno != EFAULT)
        tc->failed = true; /* not allowed here: the caller walks the old way */
    return -UNW_EINVAL;
}

GL_NO_SANITIZE static int acc_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
                                  void *arg)
{
    (void)as;
    struct tcache *tc = arg;
    if (write)
        return -UNW_EINVAL;
    if (addr >= tc->walk_lo && addr <= tc->stack_hi - sizeof *val) {
        __builtin_memcpy(val, (const void *)addr, sizeof *val);
        struct entry *e = tc->cur;
        if (e->nreads < MAX_READS) {
            e->reads[e->nreads].addr = addr;
            e->reads[e->nreads].val = *val;
            e->nreads++;
        } else
            tc->cacheable = false;
        return 0;
    }
    if (in_dyn_list(addr) || in_read_only_object(tc, addr)) {
        __builtin_memcpy(val, (const void *)addr, sizeof *val);
        return 0;
    }
    /* Anything else (the heap, writable data, another stack) could change
     * unseen: the walk's result is used once, not kept. */
    tc->cacheable = false;
    return safe_read(tc, addr, val);
}

static int acc_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
    (void)as;
    struct tcache *tc = arg;
    if (write || reg < 0 || reg > UNW_X86_64_RIP)
        return -UNW_EBADREG;
    *val = (unw_word_t)tc->uc->uc_mcontext.gregs[greg_of[reg]];
    struct entry *e = tc->cur;
    for (unsigned i = 0; i < e->nregs; i++)
        if (e->reg[i] == reg)
            return 0;
    if (e->nregs < MAX_REGS) {
        e->reg[e->nregs] = (uint8_t)reg;
        e->regval[e->nregs] = *val;
        e->nregs++;
    } else
        tc->cacheable = false;
    return 0;
}

static int acc_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write, void *arg)
{
    (void)as, (void)reg, (void)val, (void)write, (void)arg;
    return -UNW_EBADREG; /* a backtrace reads no floating-point register */
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
    (void)as, (void)c, (void)arg;
    return -UNW_EINVAL;
}

/* libunwind's own lookup in the loaded objects' tables.  An address in no
 * object's tables is not kept: a later dlopen could put code there. */
static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need,
                              void *arg)
{
    int rc = local_find_proc_info(as, ip, pi, need, arg);
    if (rc < 0)
        ((struct tcache *)arg)->cacheable = false;
    return rc;
}

static void free_tcache(void *p)
{
    my_cache = NULL;
    munmap(p, sizeof(struct tcache));
}

/* Held across each recording walk (see cache_init); taken by fork's
 * prepare handler (control/lifecycle.c, first) and released on both sides,
 * so a child never inherits it held. */
static struct gl_lock unwind_lock = GL_LOCK_INIT(UNWIND);

void gl_stack_cache_prefork(void)
{
    gl_lock(&unwind_lock);
}

void gl_stack_cache_postfork_parent(void)
{
    gl_unlock(&unwind_lock);
}

void gl_stack_cache_postfork_child(void)
{
    gl_lock_init(&unwind_lock, GL_LOCK_UNWIND, 0);
}

static void cache_init(void)
{
    if (!bind_generic())
        return;
    unw_accessors_t *local = U.get_accessors(*U.local_as);
    if (local == NULL || local->find_proc_info == NULL || pthread_key_create(&cache_key, free_tcache) != 0)
        return;
    unw_accessors_t acc = *local; /* put_unwind_info, get_dyn_info_list_addr */
    local_find_proc_info = local->find_proc_info;
    acc.find_proc_info = acc_find_proc_info;
    acc.access_mem = acc_mem;
    acc.access_reg = acc_reg;
    acc.access_fpreg = acc_fpreg;
    acc.resume = acc_resume;
    acc.get_proc_name = NULL;
    unw_word_t list = 0;
    if (local->get_dyn_info_list_addr == NULL ||
        local->get_dyn_info_list_addr(*U.local_as, &list, NULL) < 0 || list == 0)
        return;
    dyn_list = (uintptr_t)list;
    cache_as = U.create_addr_space(&acc, 0);
    if (cache_as == NULL)
        return;
    /* Debian's libunwind is built without --enable-per-thread-cache:
     * asking for UNW_CACHE_PER_THREAD gets the one global cache of per-IP
     * rules, under its lock, and libunwind masks all signals around every
     * step's look-up in it (two sigprocmask system calls a frame, most of
     * a recording walk's ~5 us a frame on the bench VM; RECORD_COST above).
     * unwind_lock serializes our walks as well, so that a libunwind built
     * with per-thread caches, where that policy would not lock, stays
     * safe: only misses walk, and no other user has this address space. */
    U.set_caching_policy(cache_as, UNW_CACHE_PER_THREAD);
    cache_ready = true;
}

static struct tcache *tcache_get(void)
{
    if (my_cache != NULL)
        return my_cache;
    pthread_once(&cache_once, cache_init);
    if (!cache_ready)
        return NULL;
    void *p = mmap(NULL, sizeof(struct tcache), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct tcache *tc = p;
    pthread_attr_t attr;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) {
        munmap(p, sizeof *tc);
        return NULL;
    }
    int rc = pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        munmap(p, sizeof *tc);
        return NULL;
    }
    tc->credit = INITIAL_CREDIT;
    tc->credit_gen = atomic_load_explicit(&load_gen, memory_order_acquire);
    tc->stack_lo = (uintptr_t)lo;
    tc->stack_hi = (uintptr_t)lo + size;
    pthread_setspecific(cache_key, tc);
    my_cache = tc;
    return tc;
}

static inline unsigned way_of(uintptr_t sp, uintptr_t bp, int size)
{
    uint64_t h = (sp ^ (bp * 0x9e3779b97f4a7c15ull) ^ (uint64_t)size) * 0xff51afd7ed558ccdull;
    return (unsigned)(h >> (64 - SET_BITS)) * ASSOC; /* the set's first entry */
}

/* Every register and stack word the walk read still holds what it read:
 * the walk would read the same inputs again, so find the same frames. */
GL_NO_SANITIZE static bool still_valid(const struct entry *e, const ucontext_t *uc)
{
    for (unsigned i = 0; i < e->nregs; i++)
        if ((uintptr_t)uc->uc_mcontext.gregs[greg_of[e->reg[i]]] != e->regval[i])
            return false;
    for (unsigned i = 0; i < e->nreads; i++) {
        uintptr_t v;
        __builtin_memcpy(&v, (const void *)e->reads[i].addr, sizeof v);
        if (v != e->reads[i].val)
            return false;
    }
    return true;
}

/* A test build only (-DGL_STACK_CACHE_BREAK_VALIDATION, docs/performance.md
 * "Stack cache"): trust any entry whose key matches, to see the check mode
 * catch the stale stacks that follow. */
#ifdef GL_STACK_CACHE_BREAK_VALIDATION
#define validation_broken() true
#else
#define validation_broken() false
#endif

/* The walk proper; the caller holds tc->busy. */
__attribute__((noinline)) static int walk_or_replay(struct tcache *tc, void **buf, int size,
                                                    struct gl_walk_stop stop, enum gl_stack_walk_kind *kind)
{
    ucontext_t uc;
    gl_stack_regs(uc.uc_mcontext.gregs);
    uintptr_t sp = (uintptr_t)uc.uc_mcontext.gregs[REG_RSP];
    uintptr_t bp = (uintptr_t)uc.uc_mcontext.gregs[REG_RBP];
    if (sp < tc->stack_lo || sp >= tc->stack_hi)
        return -1; /* a signal stack: not the stack whose bounds we know */
    uint64_t gen = atomic_load_explicit(&load_gen, memory_order_acquire);
    bool dyn = dyn_info_registered();
    unsigned w = way_of(sp, bp, size);
    if (tc->credit_gen != gen) {
        /* A dlclose made every entry stale: the table is refilled at once,
         * as a new thread's is, not one recording in RECORD_COST captures. */
        tc->credit_gen = gen;
        if (tc->credit < INITIAL_CREDIT)
            tc->credit = INITIAL_CREDIT;
    }
    tc->clock++;
    if (tc->credit < CREDIT_MAX)
        tc->credit++;
    if (gl_config.stack_cache == GL_STACK_CACHE_ON && !dyn) {
        for (unsigned k = w; k < w + ASSOC; k++) {
            struct entry *e = &tc->e[k];
            if (e->gen == gen && e->sp == sp && e->bp == bp && e->size == size && e->stop.lo == stop.lo &&
                e->stop.hi == stop.hi && (validation_broken() || still_valid(e, &uc))) {
                memcpy(buf, e->pcs, (size_t)e->n * sizeof *buf);
                e->used = tc->clock;
                *kind = GL_WALK_HIT;
                return e->n;
            }
        }
    }
    if (gl_config.stack_cache == GL_STACK_CACHE_ON) {
        if (tc->credit < RECORD_COST) {
            *kind = GL_WALK_PLAIN;
            return -1;
        }
        tc->credit -= RECORD_COST;
    }
    /* Replace the set's oldest entry (an empty one is oldest). */
    struct entry *e = &tc->e[w];
    for (unsigned k = w + 1; k < w + ASSOC; k++)
        if (tc->e[k].used < e->used)
            e = &tc->e[k];
    e->gen = 0;
    e->nregs = e->nreads = 0;
    tc->cacheable = !dyn && gl_config.stack_cache == GL_STACK_CACHE_ON;
    tc->failed = false;
    tc->uc = &uc;
    tc->walk_lo = sp;
    tc->cur = e;
    unw_cursor_t cursor;
    int n = 0;
    /* Not cancelled holding unwind_lock: libunwind's look-ups may reach a
     * cancellation point (base/internal.h). */
    gl_nocancel_begin();
    gl_lock(&unwind_lock);
    if (U.init_remote(&cursor, cache_as, tc) < 0) {
        gl_unlock(&unwind_lock);
        gl_nocancel_end();
        return -1;
    }
    /* unw_backtrace's loop (its slow path; its fast path finds the same
     * frames), stopped as soon as `size` frames are found, or at `stop`:
     * the words the frames beyond it would have read are neither read nor
     * checked again at each replay. */
    while (n < size && U.step(&cursor) > 0) {
        unw_word_t ip;
        if (U.get_reg(&cursor, UNW_REG_IP, &ip) < 0)
            break;
        buf[n++] = (void *)(uintptr_t)ip;
        if (ip - stop.lo < stop.hi - stop.lo)
            break;
    }
    gl_unlock(&unwind_lock);
    gl_nocancel_end();
    if (tc->failed)
        return -1;
    if (!tc->cacheable) {
        *kind = GL_WALK_UNCACHED;
        return n;
    }
    memcpy(e->pcs, buf, (size_t)n * sizeof *buf);
    e->sp = sp;
    e->bp = bp;
    e->size = size;
    e->stop = stop;
    e->n = n;
    e->used = tc->clock;
    e->gen = gen;
    *kind = GL_WALK_MISS;
    return n;
}

__attribute__((noinline)) int gl_stack_cache_walk(void **buf, int size, struct gl_walk_stop stop,
                                                  enum gl_stack_walk_kind *kind)
{
    if (size <= 0 || size > MAX_FRAMES)
        return -1;
    struct tcache *tc = tcache_get();
    /* busy: a signal handler's capture inside ours (hit or walk) would
     * rewrite the entries under it; it walks the old way instead. */
    if (tc == NULL || tc->busy)
        return -1;
    tc->busy = true;
    atomic_signal_fence(memory_order_seq_cst);
    int n = walk_or_replay(tc, buf, size, stop, kind);
    atomic_signal_fence(memory_order_seq_cst);
    tc->busy = false;
    return n;
}

void gl_stack_cache_flush(void)
{
    atomic_fetch_add_explicit(&load_gen, 1, memory_order_release);
    if (cache_ready)
        U.flush_cache(cache_as, 0, 0);
}

#else /* not x86_64, or TSan (see stacks.c): the old walk only */

int gl_stack_cache_walk(void **buf, int size, struct gl_walk_stop stop, enum gl_stack_walk_kind *kind)
{
    (void)buf, (void)size, (void)stop, (void)kind;
    return -1;
}

void gl_stack_cache_flush(void)
{
}

void gl_stack_cache_prefork(void)
{
}

void gl_stack_cache_postfork_parent(void)
{
}

void gl_stack_cache_postfork_child(void)
{
}

#endif
