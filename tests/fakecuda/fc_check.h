/* Tiny assertion helpers for the fakecuda self-tests. */
#ifndef FC_CHECK_H
#define FC_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* EQ(actual, expected): both as long long, printed on mismatch. */
#define EQ(a, b)                                                                           \
    do {                                                                                   \
        long long a_ = (long long)(a), b_ = (long long)(b);                                \
        if (a_ != b_) {                                                                    \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, \
                    #a, a_, #b, b_);                                                       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define MiB ((size_t)1 << 20)

#endif
