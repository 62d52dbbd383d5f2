/* UTF-8 validation: strings from a snapshot are arbitrary bytes. */
#ifndef GPULEAK_UTIL_UTF8_H
#define GPULEAK_UTIL_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is invalid
 * (overlong, surrogate, truncated, beyond U+10FFFF).  left > 0. */
size_t utf8_len(const unsigned char *s, size_t left);

#endif
