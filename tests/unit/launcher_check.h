/* What the launcher's unit tests (tests/unit/launcher_*.c) check with: a
 * count of failures, a condition, a string the test owns against the one
 * it wants, and the end that says the count.  Each check says its file
 * and line, so a test needs no words of its own for a failure. */
#ifndef GL_TESTS_UNIT_LAUNCHER_CHECK_H
#define GL_TESTS_UNIT_LAUNCHER_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);                                                 \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* got (freed here) is exactly want; both NULL is equal too.  file and line
 * are the caller's (EXPECT_STR). */
static inline void expect_str(const char *what, char *got, const char *want, const char *file, int line)
{
    if (got == NULL || want == NULL ? got != want : strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: %s: got '%s', want '%s'\n", file, line, what, got ? got : "(null)",
                want ? want : "(null)");
        failures++;
    }
    free(got);
}
#define EXPECT_STR(what, got, want) expect_str(what, got, want, __FILE__, __LINE__)

/* main's return: 1, after a line naming the test and its failures, when
 * any check failed. */
static inline int checks_end(const char *test)
{
    if (failures)
        fprintf(stderr, "%s: %d failures\n", test, failures);
    return failures != 0;
}

#endif
