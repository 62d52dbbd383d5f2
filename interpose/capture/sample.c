/* Byte sampling of stack captures (sample.h). */
#include "capture/sample.h"

#include <math.h>
#include <stdatomic.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/self.h"

/* Per thread: the bytes left before the next sampled one (a draw's floor:
 * an allocation of s bytes is sampled when fewer than s are left, which is
 * exactly when the continuous draw is below s), and the generator's state
 * (0 until the thread's first allocation seeds it). */
static GL_TLS uint64_t bytes_left;
static GL_TLS uint64_t rng_state;
/* Threads in the order of their first allocation: with GPULEAK_SAMPLE_SEED,
 * thread k's stream is the seed's k-th, so a program whose threads allocate
 * in a fixed order samples the same allocations every run. */
static _Atomic uint64_t threads_seeded;

/* splitmix64: turns any seed (even 0 or a small counter) into a well-mixed
 * nonzero state for xorshift64*. */
static uint64_t mix_seed(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x != 0 ? x : 0x9e3779b97f4a7c15ull;
}

/* xorshift64*: statistically good enough for choosing samples, a few
 * instructions, and reproducible from its seed. */
static uint64_t next_random(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* A distance in bytes from the exponential distribution of mean R: -R ln U
 * with U uniform in (0, 1], floored; at most 2^62. */
static uint64_t draw_distance(void)
{
    double u = (double)((next_random() >> 11) + 1) * 0x1.0p-53;
    double d = -log(u) * (double)gl_config.sample_bytes;
    return d >= 0x1.0p62 ? (1ull << 62) : (uint64_t)d;
}

static void seed_thread(void)
{
    uint64_t k = atomic_fetch_add_explicit(&threads_seeded, 1, memory_order_relaxed);
    uint64_t seed = gl_config.sample_seed_set
                        ? gl_config.sample_seed + k
                        : gl_mono_ns() ^ ((uint64_t)(uintptr_t)&bytes_left << 16) ^ (k << 48);
    rng_state = mix_seed(seed);
    bytes_left = draw_distance();
}

bool gl_sample_take(uint64_t size)
{
    if (rng_state == 0)
        seed_thread();
    if (bytes_left >= size) {
        bytes_left -= size;
        return false;
    }
    bytes_left = draw_distance();
    return true;
}
