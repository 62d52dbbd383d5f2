#include "stacks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define UNW_LOCAL_ONLY /* this process's stacks only: libunwind's _UL* functions */
#include <libunwind.h>

#include "internal.h"
#include "pyframes.h"

__thread bool gl_ut_oom __attribute__((tls_model("initial-exec")));

/* Frames of ours that can sit above the hook: the hook itself plus the
 * recording helpers.  Over-capturing by this much lets us keep `depth` user
 * frames after dropping ours. */
#define OWN_FRAMES_MAX 8

static pthread_mutex_t stacks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gl_stack *stacks_by_pcs; /* uthash head */
static struct gl_stack *stacks_newest;
static uint32_t stacks_count;

/* Replaces the interpreter's own native frames (the C code that runs Python)
 * with the Python frames they were running: native frames of the code called
 * from Python come first, then the Python stack, innermost first, then
 * whatever native frames lie beyond the interpreter (an embedding program's
 * main).  See docs/python-frames.md. */
static void merge_python(struct gl_capture *cap)
{
    uintptr_t py[GL_MAX_DEPTH];
    size_t npy = gl_py_capture(py, GL_MAX_DEPTH);
    if (npy == 0)
        return;
    uint32_t first = cap->depth, last = 0;
    for (uint32_t i = 0; i < cap->depth; i++) {
        if (gl_py_is_interpreter_pc(cap->pcs[i])) {
            if (first == cap->depth)
                first = i;
            last = i + 1;
        }
    }
    if (first == cap->depth)
        last = cap->depth; /* the walk stopped before the interpreter */
    uintptr_t tail[GL_MAX_DEPTH];
    uint32_t ntail = cap->depth - last;
    memcpy(tail, cap->pcs + last, ntail * sizeof *tail);
    uint32_t n = first;
    for (size_t i = 0; i < npy && n < GL_MAX_DEPTH; i++)
        cap->pcs[n++] = py[i];
    for (uint32_t i = 0; i < ntail && n < GL_MAX_DEPTH; i++)
        cap->pcs[n++] = tail[i];
    cap->depth = n;
}

#if defined(__SANITIZE_THREAD__)
/* TSan builds only: unw_backtrace keeps a per-thread trace cache that libunwind
 * frees in the last round of thread-specific-data destructors, after TSan's
 * runtime has finalized the thread, and the lock it takes there crashes TSan
 * (docs/reliability.md).  Walking with unw_step keeps no per-thread state, so
 * the TSan phase can run the tests whose threads exit.  Always inlined: the
 * context is the caller's, as with unw_backtrace. */
static inline __attribute__((always_inline)) int walk_stack(void **buf, int size)
{
    unw_context_t uc;
    unw_cursor_t cursor;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0)
        return 0;
    int n = 0;
    unw_word_t ip;
    while (n < size && unw_get_reg(&cursor, UNW_REG_IP, &ip) == 0 && ip != 0) {
        buf[n++] = (void *)(uintptr_t)ip;
        if (unw_step(&cursor) <= 0)
            break;
    }
    return n;
}
#else
#define walk_stack unw_backtrace
#endif

/* How many frames to unwind beyond the `depth` the user wants, for our own:
 * the most ever seen plus one (OWN_FRAMES_MAX until the first capture), so
 * that unwinding does not pay for frames it then drops. */
static _Atomic int own_frames_max;

void gl_stack_capture(struct gl_capture *cap)
{
    void *raw[GL_MAX_DEPTH + OWN_FRAMES_MAX];
    int want = gl_config.depth;
    cap->depth = 0;
    if (want <= 0)
        return;
    int extra = atomic_load_explicit(&own_frames_max, memory_order_relaxed);
    /* libunwind may hold the loader's lock (dl_iterate_phdr) and its own
     * while it walks: a fatal signal here must not send the writer, which
     * walks the loader's list too, to wait for them (gl_busy). */
    gl_busy_enter();
    int n = walk_stack(raw, want + (extra ? extra : OWN_FRAMES_MAX));
    gl_busy_leave();
    int skip = 0;
    while (skip < n && gl_is_own_address((uintptr_t)raw[skip]))
        skip++;
    if (skip + 1 > extra && skip < OWN_FRAMES_MAX)
        atomic_store_explicit(&own_frames_max, skip + 1, memory_order_relaxed);
    int keep = n - skip;
    if (keep > want)
        keep = want;
    if (keep < 0)
        keep = 0;
    for (int i = 0; i < keep; i++)
        cap->pcs[i] = (uintptr_t)raw[skip + i];
    cap->depth = (uint32_t)keep;
    if (gl_config.python)
        merge_python(cap);
}

/* Most allocations come from stacks seen before: a small per-thread table
 * of recently interned stacks answers those without the lock.  Interned
 * stacks are immutable and never freed, so a cached pointer stays valid. */
#define RECENT_SLOTS 256
static GL_TLS struct gl_stack **recent;
static GL_TLS bool recent_failed;

/* Freed when its thread exits (a job that keeps starting threads must not
 * grow by a table per thread; found by the ASan phase). */
static pthread_key_t recent_key;
static pthread_once_t recent_key_once = PTHREAD_ONCE_INIT;
static void recent_free(void *p)
{
    free(p);
    recent = NULL;
}
static void recent_key_init(void) { pthread_key_create(&recent_key, recent_free); }

/* The slot of a stack in the per-thread table: a few words of it mixed,
 * not the full hash (which is only needed when the table misses).  The
 * innermost frames tell call sites apart; the depth and the outermost frame
 * separate the same site reached by different paths often enough. */
static unsigned recent_index(const struct gl_capture *cap)
{
    uint64_t h = cap->depth * 0x9e3779b97f4a7c15u;
    h = (h ^ cap->pcs[0]) * 0xff51afd7ed558ccdu;
    if (cap->depth > 1)
        h = (h ^ cap->pcs[1]) * 0xc4ceb9fe1a85ec53u;
    h = (h ^ cap->pcs[cap->depth - 1]) * 0xff51afd7ed558ccdu;
    return (unsigned)(h >> 40);
}

static struct gl_stack **recent_slot(unsigned hash)
{
    if (recent == NULL) {
        if (recent_failed)
            return NULL;
        recent = calloc(RECENT_SLOTS, sizeof *recent); /* one per thread */
        if (recent == NULL) {
            recent_failed = true;
            return NULL;
        }
        pthread_once(&recent_key_once, recent_key_init);
        pthread_setspecific(recent_key, recent);
    }
    return &recent[hash % RECENT_SLOTS];
}

struct gl_stack *gl_stack_intern(const struct gl_capture *cap)
{
    if (cap->depth == 0)
        return NULL;
    size_t keylen = cap->depth * sizeof(uintptr_t);
    struct gl_stack *s;
    struct gl_stack **slot = recent_slot(recent_index(cap));
    if (slot != NULL && (s = *slot) != NULL && s->depth == cap->depth && memcmp(s->pcs, cap->pcs, keylen) == 0)
        return s;

    unsigned hash;
    HASH_VALUE(cap->pcs, keylen, hash);
    gl_mutex_lock(&stacks_lock);
    HASH_FIND_BYHASHVALUE(hh, stacks_by_pcs, cap->pcs, keylen, hash, s);
    if (s == NULL) {
        s = malloc(sizeof *s + keylen);
        if (s != NULL) {
            memcpy(s->pcs, cap->pcs, keylen);
            atomic_init(&s->allocs, 0);
            atomic_init(&s->frees, 0);
            atomic_init(&s->bytes, 0);
            atomic_init(&s->api, 0);
            atomic_init(&s->kind, 0);
            s->depth = cap->depth;
            s->id = stacks_count + 1;
            gl_ut_oom = false;
            HASH_ADD_KEYPTR_BYHASHVALUE(hh, stacks_by_pcs, s->pcs, keylen, hash, s);
            if (gl_ut_oom) {
                free(s);
                s = NULL;
            } else {
                s->older = stacks_newest;
                stacks_newest = s;
                stacks_count++;
            }
        }
    }
    gl_mutex_unlock(&stacks_lock);
    if (slot != NULL && s != NULL)
        *slot = s;
    return s;
}

struct gl_stack *gl_stacks_newest(uint32_t *count)
{
    gl_mutex_lock(&stacks_lock);
    struct gl_stack *s = stacks_newest;
    *count = stacks_count;
    gl_mutex_unlock(&stacks_lock);
    return s;
}

void gl_stacks_lock(void) { gl_mutex_lock(&stacks_lock); }
void gl_stacks_unlock(void) { gl_mutex_unlock(&stacks_lock); }
void gl_stacks_reinit_lock(void) { pthread_mutex_init(&stacks_lock, NULL); }
