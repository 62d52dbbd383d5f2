/* The one grammar of a size in bytes, for every option that takes one
 * (gpuleak-report --min-bytes, and through it gpuleak check's); the pytest
 * plugin's markers (tools/pytest_gpuleak.py, parse_size) implement the same
 * grammar, and tests/t_sizes.sh runs one table of cases through both:
 *
 *   SIZE   = BLANK* DIGITS [ "." DIGITS ] BLANK* [ UNIT ] BLANK*
 *   UNIT   = B | K | KB | KiB | M | MB | MiB | G | GB | GiB | T | TB | TiB
 *
 * any case, every unit a power of 1024 (the report prints binary units, so
 * 100M is what it shows as 100.0 MiB).  A fraction needs a unit from K up
 * and at most 6 digits; it is rounded down to whole bytes ("1.5K" is 1536).
 * Anything else, or more than 2^64 - 1 bytes, is refused.  Header-only so
 * that the interposer can use it without linking the reporter. */
#ifndef GL_SIZE_PARSE_H
#define GL_SIZE_PARSE_H

#include <stdint.h>

#define GL_SIZE_EXAMPLES "4096, 512k, 1.5M, 1 MiB, 2G"

static inline const char *gl_size_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The shift of the unit at *s (0 for none or B), advancing *s past it;
 * -1 for an unknown unit. */
static inline int gl_size_unit(const char **s)
{
    const char *p = *s;
    static const char units[] = "KMGT";
    int shift = 0;
    char c = (char)(*p & ~0x20);
    for (int i = 0; units[i] != '\0' && *p != '\0'; i++)
        if (c == units[i])
            shift = 10 * (i + 1);
    if (shift != 0) {
        p++;
        if ((*p | 0x20) == 'i' && (p[1] | 0x20) == 'b')
            p += 2;
        else if ((*p | 0x20) == 'b')
            p++;
    } else if ((*p | 0x20) == 'b') {
        p++;
    } else if (*p != '\0' && *p != ' ' && *p != '\t') {
        return -1;
    }
    *s = p;
    return shift;
}

/* 0 and the bytes in *out, or -1 (*out untouched). */
static inline int gl_parse_size(const char *s, uint64_t *out)
{
    if (s == NULL)
        return -1;
    const char *p = gl_size_blanks(s);
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t whole = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    uint64_t frac = 0, scale = 1; /* the fraction as frac / scale */
    int fdigits = -1;             /* -1: no fraction */
    if (*p == '.') {
        p++;
        for (fdigits = 0; *p >= '0' && *p <= '9'; p++, fdigits++) {
            if (fdigits == 6)
                return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
            scale *= 10;
        }
        if (fdigits == 0)
            return -1;
    }
    p = gl_size_blanks(p);
    int shift = gl_size_unit(&p);
    if (shift < 0 || *gl_size_blanks(p) != '\0' || (fdigits >= 0 && shift == 0))
        return -1;
    if (shift > 0 && whole > (UINT64_MAX >> shift))
        return -1;
    /* frac < scale <= 10^6 and the unit <= 2^40: no overflow below */
    uint64_t part = (frac << shift) / scale, v = whole << shift;
    if (v > UINT64_MAX - part)
        return -1;
    *out = v + part;
    return 0;
}

#endif
