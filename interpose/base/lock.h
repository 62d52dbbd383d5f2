/* libgpuleak's mutexes: each one names its class in base/lock_rank.h, the one
 * list of every lock with its rank.  Every lock of ours is taken through
 * gl_lock / gl_unlock, which count it in gl_busy (base/internal.h).
 *
 * With -DGL_LOCK_CHECK (sanitizer builds, the Makefile) a lock is a
 * pthread mutex that also carries its class and key, and every lock taken
 * is checked against the ones this thread holds (base/lock.c): out of rank
 * order, it aborts with one line naming both.  TSan sees pthread mutexes,
 * so it checks every lock's users too.
 *
 * Without it (release builds), a lock is a futex word (base/futex_lock.c,
 * Drepper's "Futexes are tricky", mutex 2): 0 free, 1 held, 2 held with
 * waiters.  Uncontended, taking and releasing it is one atomic instruction
 * each, inline, where glibc's pthread_mutex_lock and unlock are a call and
 * ~31 and ~26 instructions (they dispatch on the mutex's type, count
 * users, check elision): issue 46 counted four lock pairs in every
 * hooked allocation and free.  The one recursive class (WALK) keeps its
 * holder and depth in the lock. */
#ifndef GL_LOCK_H
#define GL_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/futex_lock.h"
#include "base/internal.h"
#include "base/lock_rank.h"

enum gl_lock_class {
#define GL_LOCK_ENUM(cls, rank, rule, name, file, protects, takers, nesting) GL_LOCK_##cls,
    GL_LOCK_LIST(GL_LOCK_ENUM)
#undef GL_LOCK_ENUM
        GL_LOCK_CLASSES
};

enum gl_lock_rule { GL_LOCK_RULE_ONE, GL_LOCK_RULE_ORDERED, GL_LOCK_RULE_RECURSIVE };

struct gl_lock {
#ifdef GL_LOCK_CHECK
    pthread_mutex_t m;
    uint16_t cls;      /* enum gl_lock_class */
    uint32_t depth;    /* times its holder took it (recursive), 0 when free */
    uintptr_t key;     /* order among its class (ORDERED) */
    /* The holder's list of held locks, through the locks; written only by
     * the thread that holds it. */
    struct gl_lock *below, *above;
#else
    _Atomic uint32_t state; /* 0 free, 1 held, 2 held and a thread may wait */
    uint32_t recursive;     /* its class's rule is RECURSIVE: owner, depth */
    _Atomic uintptr_t owner; /* recursive: the holder (gl_lock_self), 0 when free */
    uint32_t depth;          /* recursive: times the holder took it */
#endif
};

/* Static initializers: the class is named where the lock is declared. */
#ifdef GL_LOCK_CHECK
#define GL_LOCK_INIT_KEY(cls_, key_) {.m = PTHREAD_MUTEX_INITIALIZER, .cls = GL_LOCK_##cls_, .key = (key_)}
#define GL_LOCK_INIT(cls_) {.m = PTHREAD_MUTEX_INITIALIZER, .cls = GL_LOCK_##cls_}
#define GL_LOCK_INIT_RECURSIVE(cls_) {.m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .cls = GL_LOCK_##cls_}
#else
#define GL_LOCK_INIT_KEY(cls_, key_) {.state = 0}
#define GL_LOCK_INIT(cls_) {.state = 0}
#define GL_LOCK_INIT_RECURSIVE(cls_) {.recursive = 1}
#endif

#ifdef GL_LOCK_CHECK
/* base/lock.c.  take: aborts if l is out of order after the locks held
 * (a recursive lock may be taken again while it is the last taken).  note_*: l is now
 * held (after a wait, or a successful trylock: not checked, it did not wait)
 * or released.  init: l is (re)made free; in a forked child, a lock the
 * prepare handler took is dropped from the list.  none_held: aborts naming
 * the first lock this thread still holds (after fork's child handlers, every
 * lock the prepare handler took must have been re-made). */
void gl_lock_check_take(struct gl_lock *l);
void gl_lock_note_held(struct gl_lock *l);
void gl_lock_note_tried(struct gl_lock *l);
void gl_lock_note_released(struct gl_lock *l);
void gl_lock_check_init(struct gl_lock *l, enum gl_lock_class c, uintptr_t key);
void gl_lock_check_none_held(const char *what);
#else
static inline void gl_lock_check_none_held(const char *what) { (void)what; }
#endif

static inline enum gl_lock_rule gl_lock_rule_of(enum gl_lock_class c)
{
    switch (c) {
#define GL_LOCK_RULE_CASE(cls, rank, rule, name, file, protects, takers, nesting)                                   \
    case GL_LOCK_##cls:                                                                                         \
        return GL_LOCK_RULE_##rule;
        GL_LOCK_LIST(GL_LOCK_RULE_CASE)
#undef GL_LOCK_RULE_CASE
    default:
        return GL_LOCK_RULE_ONE;
    }
}

#ifndef GL_LOCK_CHECK
static inline bool futex_try(struct gl_lock *l)
{
    uint32_t free_state = 0;
    return atomic_compare_exchange_strong_explicit(&l->state, &free_state, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

static inline void futex_take(struct gl_lock *l)
{
    if (__builtin_expect(!futex_try(l), 0))
        gl_futex_lock_wait(l);
}

static inline void futex_release(struct gl_lock *l)
{
    if (__builtin_expect(atomic_exchange_explicit(&l->state, 0, memory_order_release) == 2, 0))
        gl_futex_lock_wake(l);
}
#endif

/* (Re-)initializes l as a lock of class c (a recursive mutex if the class's
 * rule says so): a lock made at run time (a lane), or one re-made in a
 * forked child, whose holder, if any, did not survive fork. */
static inline void gl_lock_init(struct gl_lock *l, enum gl_lock_class c, uintptr_t key)
{
#ifdef GL_LOCK_CHECK
    gl_lock_check_init(l, c, key);
    if (gl_lock_rule_of(c) == GL_LOCK_RULE_RECURSIVE) {
        pthread_mutexattr_t attr;
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&l->m, &attr);
        pthread_mutexattr_destroy(&attr);
    } else {
        pthread_mutex_init(&l->m, NULL);
    }
#else
    (void)key;
    atomic_store_explicit(&l->state, 0, memory_order_relaxed);
    l->recursive = gl_lock_rule_of(c) == GL_LOCK_RULE_RECURSIVE;
    atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
    l->depth = 0;
#endif
}

static inline void gl_lock(struct gl_lock *l)
{
    gl_busy_enter();
#ifdef GL_LOCK_CHECK
    gl_lock_check_take(l); /* before waiting: a wrong order aborts, never hangs */
    pthread_mutex_lock(&l->m);
    gl_lock_note_held(l);
#else
    if (__builtin_expect(l->recursive != 0, 0)) {
        uintptr_t me = gl_lock_self();
        if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
            l->depth++;
            return;
        }
        futex_take(l);
        atomic_store_explicit(&l->owner, me, memory_order_relaxed);
        l->depth = 1;
        return;
    }
    futex_take(l);
#endif
}

/* Never waits: true if l is now held.  Nothing uses it today; the check
 * knows it (base/lock.c). */
static inline bool gl_trylock(struct gl_lock *l)
{
    gl_busy_enter();
#ifdef GL_LOCK_CHECK
    if (pthread_mutex_trylock(&l->m) != 0) {
        gl_busy_leave();
        return false;
    }
    gl_lock_note_tried(l);
#else
    uintptr_t me = l->recursive ? gl_lock_self() : 0;
    if (me != 0 && atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
        l->depth++;
        return true;
    }
    if (!futex_try(l)) {
        gl_busy_leave();
        return false;
    }
    if (me != 0) {
        atomic_store_explicit(&l->owner, me, memory_order_relaxed);
        l->depth = 1;
    }
#endif
    return true;
}

static inline void gl_unlock(struct gl_lock *l)
{
#ifdef GL_LOCK_CHECK
    gl_lock_note_released(l); /* before unlocking: its links are the holder's */
    pthread_mutex_unlock(&l->m);
#else
    if (__builtin_expect(l->recursive != 0, 0)) {
        if (--l->depth != 0) {
            gl_busy_leave();
            return;
        }
        atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
    }
    futex_release(l);
#endif
    gl_busy_leave();
}

#endif
