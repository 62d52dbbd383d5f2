/* Common declarations of the fuzz harnesses (tests/fuzz/fuzz_*.c).  Each
 * harness defines LLVMFuzzerTestOneInput; it is linked either with libFuzzer
 * (clang -fsanitize=fuzzer: `make fuzz`) or with replay_main.c (any compiler:
 * the replay test runs the seed corpus and every regression input). */
#ifndef GL_FUZZ_H
#define GL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test does not hold: report and abort, so that
 * libFuzzer keeps the input as a crash. */
#define FUZZ_CHECK(cond, ...)                                              \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "fuzz property failed: %s: ", #cond);          \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            abort();                                                       \
        }                                                                  \
    } while (0)

/* The input as a NUL-terminated string (a copy, for free()), for the
 * harnesses of text parsers; NULL when it is over 64 KiB (not worth the
 * time) or out of memory: the harness then returns 0. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return NULL;
    char *text = malloc(size + 1);
    if (text == NULL)
        return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif
