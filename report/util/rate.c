/* Bytes per hour (rate.h). */
#include "util/rate.h"

uint64_t rate_per_hour(uint64_t bytes, uint64_t elapsed_ns)
{
    if (elapsed_ns == 0)
        return 0;
    /* bytes * 3.6e12 needs up to 106 bits: exact in 128, rounded down once */
    unsigned __int128 r = (unsigned __int128)bytes * RATE_NS_PER_HOUR / elapsed_ns;
    return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}
