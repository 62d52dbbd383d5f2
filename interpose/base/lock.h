/* libgpuleak's mutexes: each one names its class in base/lock_rank.h, the one
 * list of every lock with its rank.  Every lock of ours is taken through
 * gl_lock / gl_unlock, which count it in gl_busy (base/internal.h).
 *
 * With -DGL_LOCK_CHECK (sanitizer builds, the Makefile) each lock also
 * carries its class and key, and every lock taken is checked against the
 * ones this thread holds (base/lock.c): out of rank order, it aborts with one
 * line naming both.  Without it, a struct gl_lock is a pthread_mutex_t and
 * the check compiles out. */
#ifndef GL_LOCK_H
#define GL_LOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

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
    pthread_mutex_t m;
#ifdef GL_LOCK_CHECK
    uint16_t cls;      /* enum gl_lock_class */
    uint32_t depth;    /* times its holder took it (recursive), 0 when free */
    uintptr_t key;     /* order among its class (ORDERED) */
    /* The holder's list of held locks, through the locks; written only by
     * the thread that holds it. */
    struct gl_lock *below, *above;
#endif
};

#ifndef GL_LOCK_CHECK
_Static_assert(sizeof(struct gl_lock) == sizeof(pthread_mutex_t), "a release build's lock is a bare mutex");
#endif

/* Static initializers: the class is named where the lock is declared. */
#ifdef GL_LOCK_CHECK
#define GL_LOCK_INIT_KEY(cls_, key_) {.m = PTHREAD_MUTEX_INITIALIZER, .cls = GL_LOCK_##cls_, .key = (key_)}
#define GL_LOCK_INIT(cls_) {.m = PTHREAD_MUTEX_INITIALIZER, .cls = GL_LOCK_##cls_}
#define GL_LOCK_INIT_RECURSIVE(cls_) {.m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .cls = GL_LOCK_##cls_}
#else
#define GL_LOCK_INIT_KEY(cls_, key_) {.m = PTHREAD_MUTEX_INITIALIZER}
#define GL_LOCK_INIT(cls_) {.m = PTHREAD_MUTEX_INITIALIZER}
#define GL_LOCK_INIT_RECURSIVE(cls_) {.m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP}
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

/* (Re-)initializes l as a lock of class c (a recursive mutex if the class's
 * rule says so): a lock made at run time (a lane), or one re-made in a
 * forked child, whose holder, if any, did not survive fork. */
static inline void gl_lock_init(struct gl_lock *l, enum gl_lock_class c, uintptr_t key)
{
#ifdef GL_LOCK_CHECK
    gl_lock_check_init(l, c, key);
#else
    (void)key;
#endif
    if (gl_lock_rule_of(c) == GL_LOCK_RULE_RECURSIVE) {
        pthread_mutexattr_t attr;
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&l->m, &attr);
        pthread_mutexattr_destroy(&attr);
    } else {
        pthread_mutex_init(&l->m, NULL);
    }
}

static inline void gl_lock(struct gl_lock *l)
{
    gl_busy_enter();
#ifdef GL_LOCK_CHECK
    gl_lock_check_take(l); /* before waiting: a wrong order aborts, never hangs */
#endif
    pthread_mutex_lock(&l->m);
#ifdef GL_LOCK_CHECK
    gl_lock_note_held(l);
#endif
}

/* Never waits: true if l is now held.  Nothing uses it today; the check
 * knows it (base/lock.c). */
static inline bool gl_trylock(struct gl_lock *l)
{
    gl_busy_enter();
    if (pthread_mutex_trylock(&l->m) != 0) {
        gl_busy_leave();
        return false;
    }
#ifdef GL_LOCK_CHECK
    gl_lock_note_tried(l);
#endif
    return true;
}

static inline void gl_unlock(struct gl_lock *l)
{
#ifdef GL_LOCK_CHECK
    gl_lock_note_released(l); /* before unlocking: its links are the holder's */
#endif
    pthread_mutex_unlock(&l->m);
    gl_busy_leave();
}

#endif
