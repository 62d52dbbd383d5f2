/* The 64-bit finalizer of MurmurHash3 (fmix64): every input bit reaches
 * every output bit, so a key's low bits pick an open-addressed table's slot
 * well.  Shared by the tables that mix a whole key this way. */
#ifndef GPULEAK_HASH_H
#define GPULEAK_HASH_H

#include <stdint.h>

static inline uint64_t hash_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

#endif
