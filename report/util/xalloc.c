#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *check(void *p)
{
    if (p == NULL) {
        fputs("gpuleak-report: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size)); }
char *xstrdup(const char *s) { return check(strdup(s)); }

char *xstrndup(const char *s, size_t n)
{
    char *r = check(malloc(n + 1));
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

void *xgrow(void *p, size_t *cap, size_t first, size_t size)
{
    *cap = *cap ? 2 * *cap : first;
    return xrealloc(p, *cap * size);
}
