/* The stack table (stack_table.h): every distinct stack once. */
#include "state/stack_table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/lock.h"
#include "snapshot_format.h"

static struct gl_lock stacks_lock = GL_LOCK_INIT(STACKS);
static struct gl_stack *stacks_by_pcs; /* uthash head */
static struct gl_stack *stacks_newest;
static uint32_t stacks_count;

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
    gl_lock(&stacks_lock);
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
    gl_unlock(&stacks_lock);
    if (slot != NULL && s != NULL)
        *slot = s;
    return s;
}

struct gl_stack *gl_stack_unsampled(void)
{
    static _Atomic(struct gl_stack *) unsampled;
    struct gl_stack *s = atomic_load_explicit(&unsampled, memory_order_acquire);
    if (s == NULL) {
        /* Interning is idempotent: threads that race here get the same one. */
        struct gl_capture cap = {.depth = 1, .pcs = {GL_UNSAMPLED_PC}};
        s = gl_stack_intern(&cap);
        atomic_store_explicit(&unsampled, s, memory_order_release);
    }
    return s;
}

struct gl_stack *gl_stacks_newest(uint32_t *count)
{
    gl_lock(&stacks_lock);
    struct gl_stack *s = stacks_newest;
    *count = stacks_count;
    gl_unlock(&stacks_lock);
    return s;
}

void gl_stacks_zero_counts(void)
{
    uint32_t left;
    for (struct gl_stack *s = gl_stacks_newest(&left); s != NULL && left > 0; s = s->older, left--) {
        atomic_store_explicit(&s->allocs, 0, memory_order_relaxed);
        atomic_store_explicit(&s->frees, 0, memory_order_relaxed);
        atomic_store_explicit(&s->bytes, 0, memory_order_relaxed);
    }
}

void gl_stacks_lock(void) { gl_lock(&stacks_lock); }
void gl_stacks_unlock(void) { gl_unlock(&stacks_lock); }
void gl_stacks_reinit_lock(void) { gl_lock_init(&stacks_lock, GL_LOCK_STACKS, 0); }
