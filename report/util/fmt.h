/* Numbers in words for people: digit grouping and binary units. */
#ifndef GPULEAK_UTIL_FMT_H
#define GPULEAK_UTIL_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "1,048,576" */
void fmt_commas(char *buf, size_t len, uint64_t v);
/* "1.0 MiB"; "" below 1024 (the exact count says it all) */
void fmt_human(char *buf, size_t len, uint64_t v);

#endif
