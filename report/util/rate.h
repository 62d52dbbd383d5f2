/* Growth as a rate in bytes per hour (issue 45, item 8): what a server's
 * memory that creeps up over days is measured in. */
#ifndef GPULEAK_RATE_H
#define GPULEAK_RATE_H

#include <stdint.h>

#define RATE_NS_PER_HOUR 3600000000000ull

/* bytes * one hour / elapsed_ns, rounded down, UINT64_MAX when it does not
 * fit; 0 when elapsed_ns is 0 (no time passed).  Callers show 0 as no rate:
 * under one byte an hour is no growth a server's owner needs told. */
uint64_t rate_per_hour(uint64_t bytes, uint64_t elapsed_ns);

#endif
