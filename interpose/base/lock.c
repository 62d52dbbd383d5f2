/* The lock-order check of sanitizer builds (-DGL_LOCK_CHECK): jemalloc's
 * witness for libgpuleak's locks (base/lock_rank.h).  Each thread keeps the
 * locks it holds in a list threaded through the locks themselves (a lock's
 * links are written only by the thread that holds it), kept in rank order:
 * a lock may be taken only when its rank is above the last one's, so the last
 * is the highest and the check is one comparison.  On a lock taken out of
 * order it writes one line naming both and aborts, before waiting for it: a
 * wrong order shows up in the first test that takes it, not as a hang in one
 * run in a thousand.
 *
 * No lock and no allocation here: the list is initial-exec TLS and the
 * locks' own fields, the report is written with write(2).  Signal handlers
 * of ours take no lock (docs/reliability.md), so only the thread itself
 * changes its list. */
#include "base/lock.h"

#ifdef GL_LOCK_CHECK

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name;
    int rank;
    enum gl_lock_rule rule;
} classes[GL_LOCK_CLASSES] = {
#define GL_LOCK_ROW(cls, rank, rule, name, file, protects, takers, nesting)                                         \
    [GL_LOCK_##cls] = {name, rank, GL_LOCK_RULE_##rule},
    GL_LOCK_LIST(GL_LOCK_ROW)
#undef GL_LOCK_ROW
};

/* The lock this thread took last of those it holds (the highest rank). */
static GL_TLS struct gl_lock *held_top;

static size_t put_str(char *buf, size_t at, size_t size, const char *s)
{
    while (*s != '\0' && at + 1 < size)
        buf[at++] = *s++;
    return at;
}

static size_t put_num(char *buf, size_t at, size_t size, uintmax_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0 && at + 1 < size)
        buf[at++] = tmp[--n];
    return at;
}

/* "name (rank N)", or "name (rank N, key K)" for an ORDERED class. */
static size_t put_lock(char *buf, size_t at, size_t size, const struct gl_lock *l)
{
    at = put_str(buf, at, size, classes[l->cls].name);
    at = put_str(buf, at, size, " (rank ");
    at = put_num(buf, at, size, (uintmax_t)classes[l->cls].rank);
    if (classes[l->cls].rule == GL_LOCK_RULE_ORDERED) {
        at = put_str(buf, at, size, ", key ");
        at = put_num(buf, at, size, (uintmax_t)l->key);
    }
    return put_str(buf, at, size, ")");
}

__attribute__((noreturn)) static void report(const struct gl_lock *taking, const struct gl_lock *holding,
                                             const char *what)
{
    char line[256];
    size_t n = put_str(line, 0, sizeof line, "gpuleak: lock order violation: ");
    if (taking != NULL) {
        n = put_str(line, n, sizeof line, "taking ");
        n = put_lock(line, n, sizeof line, taking);
        n = put_str(line, n, sizeof line, " while holding ");
    }
    n = put_lock(line, n, sizeof line, holding);
    n = put_str(line, n, sizeof line, what);
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
    abort();
}

/* Whether l may be taken after top, the last lock this thread took. */
static bool in_order(const struct gl_lock *top, const struct gl_lock *l)
{
    int r_top = classes[top->cls].rank, r = classes[l->cls].rank;
    if (r != r_top)
        return r > r_top;
    return l->cls == top->cls && classes[l->cls].rule == GL_LOCK_RULE_ORDERED && l->key > top->key;
}

void gl_lock_check_take(struct gl_lock *l)
{
    struct gl_lock *top = held_top;
    if (top == l && classes[l->cls].rule == GL_LOCK_RULE_RECURSIVE)
        return; /* again, by its holder: no wait */
    if (top != NULL && !in_order(top, l))
        report(l, top, "");
}

/* Puts l, held once, between above (NULL: l becomes the top) and below in
 * this thread's list.  l's own links are set before the fence, the link
 * from above that makes it reachable from the top after, so a signal
 * handler walking down from the top in between sees l whole or not at all. */
static void link_held(struct gl_lock *l, struct gl_lock *above, struct gl_lock *below)
{
    l->depth = 1;
    l->below = below;
    l->above = above;
    if (below != NULL)
        below->above = l;
    atomic_signal_fence(memory_order_seq_cst);
    if (above != NULL)
        above->below = l;
    else
        held_top = l;
}

/* l was just acquired.  Its depth is not 0 only if this thread already held
 * it (a recursive lock taken again): anyone else's hold ended with depth 0
 * before the mutex let this thread in. */
void gl_lock_note_held(struct gl_lock *l)
{
    if (l->depth > 0) {
        l->depth++;
        return;
    }
    link_held(l, NULL, held_top);
}

/* A trylock does not wait, so it cannot close a circle: it is recorded
 * without the check, in its rank's place, so the list stays in order and
 * what is taken after it is checked against it. */
void gl_lock_note_tried(struct gl_lock *l)
{
    struct gl_lock *above = NULL, *below = held_top;
    if (l->depth > 0) { /* a recursive lock this thread holds */
        l->depth++;
        return;
    }
    while (below != NULL && !in_order(below, l)) {
        above = below;
        below = below->below;
    }
    link_held(l, above, below);
}

static void unlink_held(struct gl_lock *l)
{
    if (l->above != NULL)
        l->above->below = l->below;
    else
        held_top = l->below;
    if (l->below != NULL)
        l->below->above = l->above;
    l->above = l->below = NULL;
    l->depth = 0;
}

void gl_lock_note_released(struct gl_lock *l)
{
    if (l->depth > 1) {
        l->depth--;
        return;
    }
    unlink_held(l);
}

void gl_lock_check_init(struct gl_lock *l, enum gl_lock_class c, uintptr_t key)
{
    /* Re-made in a forked child while this thread held it (fork's prepare
     * handler): it is not held any more.  Looked for by address: in the
     * child its fields may be another (parent's) thread's. */
    for (struct gl_lock *h = held_top; h != NULL; h = h->below)
        if (h == l) {
            unlink_held(l);
            break;
        }
    l->cls = (uint16_t)c;
    l->key = key;
    l->depth = 0;
    l->above = l->below = NULL;
}

void gl_lock_check_none_held(const char *what)
{
    if (held_top != NULL)
        report(NULL, held_top, what);
}

#endif
