/* File names. */
#ifndef GPULEAK_UTIL_PATH_H
#define GPULEAK_UTIL_PATH_H

#include <string.h>

/* The last component of a path ("a/b/c.so" -> "c.so"); NULL stays NULL. */
static inline const char *path_base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

#endif
