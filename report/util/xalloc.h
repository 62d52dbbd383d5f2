/* Allocation that cannot fail: the reporter is a command-line tool, and the
 * only sensible answer to running out of memory is one line and exit 1. */
#ifndef GPULEAK_XALLOC_H
#define GPULEAK_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n); /* n bytes, then a terminator */
/* A full array of *cap elements of size bytes grown: *cap doubles (to first
 * when 0) and p is reallocated to it. */
void *xgrow(void *p, size_t *cap, size_t first, size_t size);

#endif
