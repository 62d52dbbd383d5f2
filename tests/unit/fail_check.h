/* The failure report the in-process unit tests share: CHECK_COUNT(count,
 * cond, fmt, ...) says "FAIL file:line: " and the printf-style message on
 * stderr when cond is false, and adds one to the int lvalue count (a
 * test's own failures, or snapbuild's sb_failures), so a test goes on to
 * its other checks and says how many failed at its end. */
#ifndef GL_TESTS_UNIT_FAIL_CHECK_H
#define GL_TESTS_UNIT_FAIL_CHECK_H

#include <stdio.h>

#define CHECK_COUNT(count, cond, ...)                                                                                  \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            (count)++;                                                                                                 \
        }                                                                                                              \
    } while (0)

#endif
