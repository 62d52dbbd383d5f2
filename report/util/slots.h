/* Open-addressed hash indexes: a power-of-two array of uint32_t entries,
 * 0 for an empty slot, probed linearly.  What an entry is (an element's
 * index + 1, an id) and how it hashes are the table's own; growing one is
 * the same for all. */
#ifndef GPULEAK_SLOTS_H
#define GPULEAK_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* The hash of a nonzero entry, ctx: the table that owns it. */
typedef uint64_t (*slot_hash_fn)(const void *ctx, uint32_t entry);

/* Doubles *slots (to 1024 when *nslots is 0) and places every entry again
 * by its hash. */
void slots_grow(uint32_t **slots, size_t *nslots, slot_hash_fn hash, const void *ctx);

#endif
