/* snapfuzz FILE [MUTATIONS]: robustness driver for snap_parse, the reader's
 * fuzzing entry point.  Parses every proper prefix of FILE (each must be
 * rejected: a snapshot without its END record is truncated) and MUTATIONS
 * copies with random bytes changed (must not crash or leak; under ASAN any
 * bad access aborts).  Every error message must be one line ending in
 * "(at offset N)".  Exit 0 when all checks hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/snap_read.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int check_err(const char *err, size_t len)
{
    if (!*err || strchr(err, '\n') || !strstr(err, "(at offset ")) {
        fprintf(stderr, "bad error message for %zu bytes: '%s'\n", len, err);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    long muts = argc > 2 ? atol(argv[2]) : 20000;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    static uint8_t buf[1 << 22];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    struct snapshot s;
    char err[512];
    int bad = 0;
    if (snap_parse(buf, len, &s, err, sizeof err) != 0) {
        fprintf(stderr, "the file itself does not parse: %s\n", err);
        return 1;
    }
    snap_free(&s);
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exact size: ASAN sees overreads */
        memcpy(copy, buf, n);
        if (snap_parse(copy, n, &s, err, sizeof err) == 0) {
            fprintf(stderr, "prefix of %zu bytes accepted\n", n);
            snap_free(&s);
            bad = 1;
        } else {
            bad |= check_err(err, n);
        }
        free(copy);
    }
    long accepted = 0;
    for (long m = 0; m < muts; m++) {
        uint8_t *copy = malloc(len);
        memcpy(copy, buf, len);
        int k = 1 + (int)(next() % 4);
        for (int i = 0; i < k; i++) {
            size_t at = next() % len;
            switch (next() % 3) {
            case 0: copy[at] = (uint8_t)next(); break;
            case 1: copy[at] ^= (uint8_t)(1u << (next() % 8)); break;
            default: copy[at] = (next() & 1) ? 0xff : 0; break;
            }
        }
        if (snap_parse(copy, len, &s, err, sizeof err) == 0) {
            accepted++;
            snap_free(&s);
        } else {
            bad |= check_err(err, len);
        }
        free(copy);
    }
    printf("%zu prefixes rejected, %ld mutations (%ld still valid)\n", len, muts, accepted);
    return bad;
}
