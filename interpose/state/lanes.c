#include "state/lanes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/lock.h"

/* Lock order (base/lock_rank.h): writer_mutex, then registry_lock, then
 * lanes in list order; a thread in its own lane takes device and table locks
 * only (account.c, track.c), never another lane or the registry. */
static struct gl_lock writer_mutex = GL_LOCK_INIT(WRITER);
static struct gl_lock registry_lock = GL_LOCK_INIT(REGISTRY);
static atomic_bool writer_waiting;

/* Shared by threads that could not get a lane of their own. */
static struct gl_lane fallback_lane = {
    .lock = GL_LOCK_INIT_KEY(LANE, UINTPTR_MAX), .key = UINTPTR_MAX, .in_use = true};
static struct gl_lane *lanes = &fallback_lane; /* newest first */
/* The next lane's key, under registry_lock: each new lane's is below every
 * other's, and it goes first, so the list is in ascending key order, the
 * order the exclusive section takes the lanes in. */
static uintptr_t next_key = UINTPTR_MAX - 1;

static GL_TLS struct gl_lane *my_lane;
/* Set when the thread's lane was retired at thread exit: a hook that runs
 * later in the exit (another key's destructor freeing memory) shares the
 * fallback lane.  A new lane could not be retired: its destructor would not
 * run if the thread had no destructor round left, and the lane would stay
 * taken for good, one per such thread. */
static GL_TLS bool retired;
static pthread_key_t retire_key;
static pthread_once_t retire_key_once = PTHREAD_ONCE_INIT;

/* A thread exits: its local accounting goes back to the devices and the lane
 * to the registry for the next thread. */
static void lane_retire(void *p)
{
    struct gl_lane *l = p;
    if (my_lane == l)
        my_lane = NULL;
    retired = true;
    gl_lock(&l->lock);
    gl_acct_flush(&l->acct);
    gl_stack_tally_flush(&l->tally);
    gl_unlock(&l->lock);
    gl_lock(&registry_lock);
    l->in_use = false;
    gl_unlock(&registry_lock);
}

static void retire_key_init(void) { pthread_key_create(&retire_key, lane_retire); }

static struct gl_lane *lane_register(void)
{
    struct gl_lane *l;
    gl_lock(&registry_lock);
    for (l = lanes; l != NULL && l->in_use; l = l->next)
        ;
    if (l == NULL && (l = aligned_alloc(64, sizeof *l)) != NULL) {
        memset(l, 0, sizeof *l);
        l->key = next_key--;
        gl_lock_init(&l->lock, GL_LOCK_LANE, l->key);
        l->next = lanes;
        lanes = l;
    }
    if (l != NULL)
        l->in_use = true;
    gl_unlock(&registry_lock);
    if (l == NULL)
        return NULL;
    pthread_once(&retire_key_once, retire_key_init);
    if (pthread_setspecific(retire_key, l) != 0) {
        /* Without the destructor the lane would never come back: give it
         * back now and share the fallback instead. */
        gl_lock(&registry_lock);
        l->in_use = false;
        gl_unlock(&registry_lock);
        return NULL;
    }
    return l;
}

struct gl_lane *gl_lane_enter(void)
{
    struct gl_lane *l = my_lane;
    if (l == NULL && retired) {
        l = &fallback_lane;
    } else if (l == NULL) {
        l = lane_register();
        if (l != NULL)
            my_lane = l;
        else
            l = &fallback_lane;
    }
    /* A writer is waiting for every lane: let it have this one first. */
    if (atomic_load_explicit(&writer_waiting, memory_order_relaxed)) {
        gl_lock(&writer_mutex);
        gl_unlock(&writer_mutex);
    }
    gl_lock(&l->lock);
    return l;
}

void gl_lane_leave(struct gl_lane *lane) { gl_unlock(&lane->lock); }

struct gl_lane *gl_lane_current(void) { return my_lane != NULL ? my_lane : &fallback_lane; }

void gl_exclusive_enter(void)
{
    gl_lock(&writer_mutex);
    atomic_store(&writer_waiting, true);
    gl_lock(&registry_lock);
    for (struct gl_lane *l = lanes; l != NULL; l = l->next)
        gl_lock(&l->lock);
}

void gl_exclusive_leave(void)
{
    for (struct gl_lane *l = lanes; l != NULL; l = l->next)
        gl_unlock(&l->lock);
    gl_unlock(&registry_lock);
    atomic_store(&writer_waiting, false);
    gl_unlock(&writer_mutex);
}

void gl_lanes_each(void (*fn)(struct gl_lane_acct *))
{
    for (struct gl_lane *l = lanes; l != NULL; l = l->next)
        fn(&l->acct);
}

void gl_lanes_each_lane(void (*fn)(struct gl_lane *, void *), void *arg)
{
    for (struct gl_lane *l = lanes; l != NULL; l = l->next)
        fn(l, arg);
}

void gl_writer_lock(void) { gl_lock(&writer_mutex); }
void gl_writer_unlock(void) { gl_unlock(&writer_mutex); }

void gl_lanes_visit(void (*fn)(struct gl_lane *, void *), void *arg)
{
    /* Lanes are only ever added at the head and never freed: the list from
     * the head read now is stable.  One lane at a time, never nested. */
    gl_lock(&registry_lock);
    struct gl_lane *first = lanes;
    gl_unlock(&registry_lock);
    for (struct gl_lane *l = first; l != NULL; l = l->next) {
        gl_lock(&l->lock);
        fn(l, arg);
        gl_unlock(&l->lock);
    }
}

void gl_lanes_flush_tallies(void)
{
    for (struct gl_lane *l = lanes; l != NULL; l = l->next)
        gl_stack_tally_flush(&l->tally);
}

/* The counts go to the stacks before the fork, so that parent and child
 * both have them and no lane carries the parent's into the child. */
void gl_lanes_prefork(void)
{
    gl_exclusive_enter();
    gl_lanes_flush_tallies();
}

void gl_lanes_postfork_parent(void) { gl_exclusive_leave(); }

void gl_lanes_postfork_child(void)
{
    /* Only the forking thread exists: its lane stays its own; the others'
     * threads are gone.  Their accounting was the parent's (the child's
     * devices start empty), so it is cleared, not flushed. */
    gl_lock_init(&writer_mutex, GL_LOCK_WRITER, 0);
    gl_lock_init(&registry_lock, GL_LOCK_REGISTRY, 0);
    atomic_store(&writer_waiting, false);
    for (struct gl_lane *l = lanes; l != NULL; l = l->next) {
        gl_lock_init(&l->lock, GL_LOCK_LANE, l->key);
        memset(&l->acct, 0, sizeof l->acct);
        l->in_use = l == my_lane || l == &fallback_lane;
    }
}
