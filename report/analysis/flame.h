/* Flame graph trees: the bytes of many stacks merged into one tree of
 * frames, outermost at the root (analysis/flame.c).  Pure: built from the
 * analysis and the stack database, written by render/html/flames.c. */
#ifndef GPULEAK_ANALYSIS_FLAME_H
#define GPULEAK_ANALYSIS_FLAME_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct stackdb;

/* A node's name: a frame id of the stack database when >= 0, otherwise
 * -(i + 1) for the tree's i-th pseudo name (roots, "device_0:device", "[no
 * stack]"), which are not frames. */
struct flame_node {
    int64_t name;
    uint32_t parent;
    uint32_t child, sib; /* first child, next sibling; 0 = none (node 0 is the root) */
    uint64_t value;      /* bytes of every stack through this node */
};

struct flame_tree {
    struct flame_node *n; /* n[0] is the root */
    size_t nn, cap;
    uint32_t *slots; /* open addressing on (parent, name) -> node + 1 */
    size_t nslots;
    char **pseudo;
    size_t npseudo;
};

/* The leaks tree (root "leaks", then "device_N:KIND" or "host:KIND", then the
 * leak groups' stacks) and the peak tree (root "peak", then "device_N" or
 * "host", then the stacks that made up each device's peak).  0 on success;
 * -1 when out of memory, with the tree freed. */
int flame_leaks(struct flame_tree *t, const struct analysis *a, const struct stackdb *db);
int flame_peak(struct flame_tree *t, const struct analysis *a, const struct stackdb *db);
/* The pseudo name a negative node name stands for. */
const char *flame_pseudo(const struct flame_tree *t, int64_t name);
void flame_free(struct flame_tree *t);

#endif
