/* Fuzz target: the output-name pattern (GPULEAK_OUTPUT) of libgpuleak
 * (interpose/control/outfile.c: gl_outfile_setup, gl_outfile_expand).  The first 8
 * bytes of the input are the snapshot number and buffer size, the rest is
 * the pattern.  Properties: no crash, no undefined behaviour; an expansion
 * that succeeds fits its buffer, has a usable file name (not empty, "." or
 * ".."), and has exactly the directories of the resolved pattern: a
 * conversion never adds a '/' nor turns a component into "." or "..", so
 * nothing a %-conversion expands to can lead outside the directory. */
#include <string.h>

#include "base/config.h"
#include "control/outfile.h"
#include "fuzz.h"

static size_t count_slashes(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '/';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 || size > 2 * GL_PATH_MAX)
        return 0;
    uint32_t n, bufsize;
    memcpy(&n, data, 4);
    memcpy(&bufsize, data + 4, 4);
    bufsize = 1 + bufsize % (GL_PATH_MAX + 64);
    size_t plen = size - 8;
    char *pattern = malloc(plen + 1);
    memcpy(pattern, data + 8, plen);
    pattern[plen] = '\0';
    gl_outfile_setup(pattern);
    const char *resolved = gl_outfile_pattern();
    FUZZ_CHECK(strlen(resolved) < GL_PATH_MAX, "resolved pattern too long");

    char *buf = malloc(bufsize);
    if (gl_outfile_expand(n, buf, bufsize)) {
        size_t len = strnlen(buf, bufsize);
        FUZZ_CHECK(len < bufsize, "expansion not terminated within %u bytes", bufsize);
        const char *slash = strrchr(buf, '/');
        const char *base = slash ? slash + 1 : buf;
        FUZZ_CHECK(*base && strcmp(base, ".") && strcmp(base, ".."), "file name '%s'", base);
        FUZZ_CHECK(count_slashes(buf) == count_slashes(resolved), "'%s' from '%s' changed the directories", buf,
                   resolved);
        /* Component by component: one holding a conversion never becomes
         * "." or ".." (a literal one is the user's choice). */
        const char *a = resolved, *b = buf;
        while (*a) {
            size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
            if (memchr(a, '%', na) != NULL)
                FUZZ_CHECK(!(nb == 1 && b[0] == '.') && !(nb == 2 && b[0] == '.' && b[1] == '.'),
                           "component '%.*s' expanded to '%.*s'", (int)na, a, (int)nb, b);
            a += na + (a[na] == '/');
            b += nb + (b[nb] == '/');
        }
    }
    free(buf);
    free(pattern);
    return 0;
}
