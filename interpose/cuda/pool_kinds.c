#include "cuda/pool_kinds.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/ut.h"
#include "snapshot_format.h"

struct managed_pool {
    uint64_t pool; /* key */
    UT_hash_handle hh;
};

static struct gl_lock lock = GL_LOCK_INIT(POOL_KINDS);
static struct managed_pool *managed;
/* While 0 (nearly always: managed pools are new in CUDA 13), a pool
 * allocation takes no lock to learn its kind. */
static _Atomic size_t nmanaged;

void gl_pool_kinds_created(uint64_t pool, int is_managed)
{
    /* A new pool may reuse a destroyed one's handle: its old entry goes. */
    gl_pool_kinds_destroyed(pool);
    if (!is_managed)
        return;
    struct managed_pool *m = calloc(1, sizeof *m);
    if (m == NULL)
        return; /* its allocations are then counted as pool memory */
    m->pool = pool;
    gl_lock(&lock);
    gl_ut_oom = false;
    HASH_ADD(hh, managed, pool, sizeof m->pool, m);
    if (gl_ut_oom)
        free(m);
    else
        nmanaged++;
    gl_unlock(&lock);
}

void gl_pool_kinds_destroyed(uint64_t pool)
{
    if (nmanaged == 0)
        return;
    gl_lock(&lock);
    struct managed_pool *m;
    HASH_FIND(hh, managed, &pool, sizeof pool, m);
    if (m != NULL) {
        HASH_DEL(managed, m);
        free(m);
        nmanaged--;
    }
    gl_unlock(&lock);
}

uint16_t gl_pool_kind(uint64_t pool)
{
    if (pool == 0 || nmanaged == 0)
        return GL_KIND_POOL;
    gl_lock(&lock);
    struct managed_pool *m;
    HASH_FIND(hh, managed, &pool, sizeof pool, m);
    gl_unlock(&lock);
    return m != NULL ? GL_KIND_MANAGED : GL_KIND_POOL;
}

void gl_pool_kinds_postfork_child(void)
{
    /* Pools are per process: the parent's are not the child's. */
    gl_lock_init(&lock, GL_LOCK_POOL_KINDS, 0);
    struct managed_pool *m, *t;
    HASH_ITER(hh, managed, m, t) { HASH_DEL(managed, m); free(m); }
    nmanaged = 0;
}
