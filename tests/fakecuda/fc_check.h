/* Tiny assertion helpers for the fakecuda self-tests. */
#ifndef FC_CHECK_H
#define FC_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The self-tests' one dispatcher: main runs the scenario argv[1] names from
 * its table and prints "ok NAME"; usage or an unknown name exits 2. */
struct fc_scenario {
    const char *name;
    void (*fn)(void);
};

static inline int fc_run_scenario(int argc, char **argv, const struct fc_scenario *tests, size_t n)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[1], tests[i].name) == 0) {
            tests[i].fn();
            printf("ok %s\n", argv[1]);
            return 0;
        }
    fprintf(stderr, "unknown scenario %s\n", argv[1]);
    return 2;
}

#define FC_RUN_SCENARIO(argc, argv, tests) fc_run_scenario(argc, argv, tests, sizeof tests / sizeof tests[0])

#endif
