/* uthash, configured so that running out of memory inside a hash operation
 * never exits the host program (uthash's default is exit(-1)): the element is
 * simply not added and gl_ut_oom is raised so the caller can tell. */
#ifndef GL_UT_H
#define GL_UT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* uthash's default (Jenkins) hashes 12 bytes per round with a long serial
 * dependency chain: ~250 ns for a 32-frame stack, the largest single cost of
 * interning on every allocation (docs/performance.md).  Our keys are words
 * (addresses, program counters, pointers), so hash a word at a time with a
 * multiply-xorshift per word and a final avalanche, which uthash needs since
 * it takes the low bits as the bucket. */
static inline unsigned gl_ut_hash(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t a = 0x9e3779b97f4a7c15u ^ len, b = 0xc2b2ae3d27d4eb4fu;
    /* Two independent lanes, so consecutive multiplies overlap. */
    while (len >= 16) {
        uint64_t w0, w1;
        memcpy(&w0, p, 8);
        memcpy(&w1, p + 8, 8);
        a = (a ^ w0) * 0xff51afd7ed558ccdu;
        b = (b ^ w1) * 0xc4ceb9fe1a85ec53u;
        a ^= a >> 32;
        b ^= b >> 29;
        p += 16;
        len -= 16;
    }
    if (len > 0) {
        uint64_t w0 = 0, w1 = 0;
        memcpy(&w0, p, len < 8 ? len : 8);
        if (len > 8)
            memcpy(&w1, p + 8, len - 8);
        a = (a ^ w0) * 0xff51afd7ed558ccdu;
        b = (b ^ w1) * 0xc4ceb9fe1a85ec53u;
    }
    uint64_t h = a ^ (b * 0x9e3779b97f4a7c15u);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return (unsigned)h;
}
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = gl_ut_hash((keyptr), (size_t)(keylen)))

extern __thread bool gl_ut_oom __attribute__((tls_model("initial-exec")));
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (gl_ut_oom = true)
#include <uthash.h>

#endif
