/* libgpuleak's mutexes: each one names its class in base/lock_rank.h, the one
 * list of every lock with its rank.  Every lock of ours is taken through
 * gl_lock / gl_unlock, which count it in gl_busy (base/internal.h). */
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
};

/* Static initializers: the class is named where the lock is declared. */
#define GL_LOCK_INIT_KEY(cls, key) {.m = PTHREAD_MUTEX_INITIALIZER}
#define GL_LOCK_INIT(cls) GL_LOCK_INIT_KEY(cls, 0)
#define GL_LOCK_INIT_RECURSIVE(cls) {.m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP}

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
    (void)key;
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
    pthread_mutex_lock(&l->m);
}

static inline void gl_unlock(struct gl_lock *l)
{
    pthread_mutex_unlock(&l->m);
    gl_busy_leave();
}

#endif
