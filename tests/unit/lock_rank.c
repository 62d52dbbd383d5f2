/* Unit test of the lock-order check (interpose/base/lock.c, built here with
 * -DGL_LOCK_CHECK whatever the build): `lock_rank ok` takes the real classes
 * of base/lock_rank.h in their order, every rule's allowed case, and prints
 * "ok"; each other case breaks one rule and must abort with the one line
 * that names both locks (tests/t_unit_lock_rank.sh says which). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/lock.h"

GL_TLS int gl_busy; /* base/self.c's, which this program does not link */
GL_TLS _Atomic int gl_busy_deferred;
void gl_busy_deferred_run(void) {}

static struct gl_lock snap = GL_LOCK_INIT(SNAP);
static struct gl_lock walk = GL_LOCK_INIT_RECURSIVE(WALK);
static struct gl_lock writer = GL_LOCK_INIT(WRITER);
static struct gl_lock registry = GL_LOCK_INIT(REGISTRY);
static struct gl_lock lane_new = GL_LOCK_INIT_KEY(LANE, 5);
static struct gl_lock lane_old = GL_LOCK_INIT_KEY(LANE, 6);
static struct gl_lock lane_fallback = GL_LOCK_INIT_KEY(LANE, UINTPTR_MAX);
static struct gl_lock device = GL_LOCK_INIT(DEVICE);
static struct gl_lock shard = GL_LOCK_INIT(SHARD);
static struct gl_lock stacks = GL_LOCK_INIT(STACKS);
static struct gl_lock vmm = GL_LOCK_INIT(VMM);

static int in_order(void)
{
    /* the whole nesting, outermost first, as a snapshot's copy takes it */
    gl_lock(&snap);
    gl_lock(&walk);
    gl_lock(&walk); /* recursive: again while it is the last taken */
    gl_unlock(&walk);
    gl_lock(&writer);
    gl_lock(&registry);
    gl_lock(&lane_new); /* lanes in ascending key, as the list holds them */
    gl_lock(&lane_old);
    gl_lock(&lane_fallback);
    gl_lock(&device);
    gl_lock(&shard);
    gl_lock(&stacks);
    /* released in any order, as gl_exclusive_leave does */
    gl_unlock(&lane_new);
    gl_unlock(&stacks);
    gl_unlock(&lane_old);
    gl_unlock(&shard);
    gl_unlock(&lane_fallback);
    gl_unlock(&device);
    gl_unlock(&registry);
    gl_unlock(&writer);
    gl_unlock(&walk);
    gl_unlock(&snap);
    /* a trylock never waits: out of rank order is allowed, and what comes
     * after is checked against the highest held */
    gl_lock(&shard);
    if (!gl_trylock(&writer))
        return 1;
    gl_lock(&vmm);
    gl_unlock(&vmm);
    gl_unlock(&writer);
    gl_unlock(&shard);
    /* a lock free again may be taken after one ranked above it was */
    gl_lock(&device);
    gl_unlock(&device);
    /* fork: the child re-makes what the prepare handler took, and then
     * holds nothing */
    gl_lock(&walk);
    gl_lock(&writer);
    gl_lock_init(&writer, GL_LOCK_WRITER, 0);
    gl_lock_init(&walk, GL_LOCK_WALK, 0);
    gl_lock_check_none_held(", not re-made by fork's child handlers");
    if (gl_busy != 2) /* counted by gl_lock, reset by the child handler */
        return 1;
    puts("ok");
    return 0;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (strcmp(c, "ok") == 0)
        return in_order();
    if (strcmp(c, "inverted") == 0) { /* a device lock inside a shard's */
        gl_lock(&shard);
        gl_lock(&device);
    } else if (strcmp(c, "lanes-descending") == 0) {
        gl_lock(&lane_old);
        gl_lock(&lane_new);
    } else if (strcmp(c, "two-leaves") == 0) {
        gl_lock(&vmm);
        gl_lock(&stacks);
    } else if (strcmp(c, "again-not-last") == 0) { /* recursive, but not the last taken */
        gl_lock(&walk);
        gl_lock(&writer);
        gl_lock(&walk);
    } else if (strcmp(c, "again-not-recursive") == 0) {
        gl_lock(&writer);
        gl_lock(&writer);
    } else if (strcmp(c, "fork-not-remade") == 0) {
        gl_lock(&walk);
        gl_lock(&writer);
        gl_lock_init(&writer, GL_LOCK_WRITER, 0);
        gl_lock_check_none_held(", not re-made by fork's child handlers");
    } else {
        fprintf(stderr, "usage: lock_rank ok|inverted|lanes-descending|two-leaves|again-not-last|"
                        "again-not-recursive|fork-not-remade\n");
        return 2;
    }
    puts("not caught");
    return 0;
}
