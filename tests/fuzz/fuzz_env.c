/* Fuzz target: the GPULEAK_* environment parsing of libgpuleak
 * (interpose/base/config.c: gl_config_load, gl_parse_long, gl_parse_signal,
 * gl_parse_duration_ms, gl_parse_bytes; the
 * rank variables in interpose/control/outfile.c).  The input is split at NUL bytes
 * into values for each variable.  Properties: no crash, no undefined
 * behaviour; every setting ends up within its documented range (a bad value
 * means the default), whatever the text. */
#include <signal.h>
#include <string.h>

#include "base/config.h"
#include "control/outfile.h"
#include "fuzz.h"

static const char *const vars[] = {
    "GPULEAK_DEPTH",  "GPULEAK_MAX_ENTRIES", "GPULEAK_OUTPUT", "GPULEAK_DISABLE",
    "GPULEAK_PYTHON", "GPULEAK_SIGNAL",      "RANK",           "LOCAL_RANK",
    /* appended, so that the corpus keeps its meaning for the ones above */
    "GPULEAK_OOM_SNAPSHOT", "GPULEAK_OOM_INTERVAL", "GPULEAK_FREE_STACKS",
    "GPULEAK_MODE", "GPULEAK_SAMPLE_BYTES", "GPULEAK_SAMPLE_SEED",
};
#define NVARS (sizeof vars / sizeof vars[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    const char *vals[NVARS] = {0};
    size_t off = 0;
    for (size_t i = 0; i < NVARS && off <= size; i++) {
        vals[i] = buf + off;
        off += strlen(buf + off) + 1;
    }
    /* putenv with buffers of our own, rewritten in place: setenv would keep
     * every value ever set (glibc never frees them) and grow without bound
     * over a long campaign.  A missing value is an empty one. */
    static char envbuf[NVARS][8300];
    static int registered;
    for (size_t i = 0; i < NVARS; i++) {
        snprintf(envbuf[i], sizeof envbuf[i], "%s=%s", vars[i], vals[i] ? vals[i] : "");
        if (!registered)
            putenv(envbuf[i]);
    }
    registered = 1;
    /* Start from the defaults each time, as a fresh process would. */
    gl_config.depth = GL_DEFAULT_DEPTH;
    gl_config.max_entries = GL_DEFAULT_MAX_ENTRIES;
    strcpy(gl_config.output, GL_DEFAULT_OUTPUT);
    gl_config.oom_interval_ms = GL_DEFAULT_OOM_INTERVAL_MS;
    gl_config.mode = GL_MODE_FULL;
    gl_config.sample_bytes = GL_DEFAULT_SAMPLE_BYTES;
    gl_config_load();
    FUZZ_CHECK(gl_config.mode == GL_MODE_FULL || gl_config.mode == GL_MODE_LIGHT, "mode %d", (int)gl_config.mode);
    FUZZ_CHECK(gl_config.sample_bytes >= 1 && gl_config.sample_bytes <= GL_MAX_SAMPLE_BYTES, "sample bytes %llu",
               (unsigned long long)gl_config.sample_bytes);
    FUZZ_CHECK(gl_config.oom_interval_ms <= GL_MAX_OOM_INTERVAL_MS, "oom interval %llu",
               (unsigned long long)gl_config.oom_interval_ms);
    const char *conv = gl_output_unknown_conversion(gl_config.output);
    FUZZ_CHECK(conv == NULL || (conv >= gl_config.output && *conv == '%'), "unknown conversion %p", (const void *)conv);
    FUZZ_CHECK(gl_config.depth >= 0 && gl_config.depth <= GL_MAX_DEPTH, "depth %d", gl_config.depth);
    FUZZ_CHECK(gl_config.max_entries >= 0 && gl_config.max_entries <= GL_MAX_MAX_ENTRIES, "max_entries %ld",
               gl_config.max_entries);
    size_t olen = strnlen(gl_config.output, sizeof gl_config.output);
    FUZZ_CHECK(olen > 0 && olen < sizeof gl_config.output, "output length %zu", olen);

    int sig = gl_parse_signal(vals[5]);
    FUZZ_CHECK(sig >= -1 && sig <= SIGRTMAX, "signal %d", sig);
    const char *why = sig > 0 ? gl_signal_unusable(sig) : NULL;
    FUZZ_CHECK(why == NULL || strlen(why) > 0, "unusable signal %d", sig);
    bool b;
    for (size_t i = 0; i < NVARS; i++)
        if (vals[i] != NULL && gl_parse_bool(vals[i], &b)) /* only the words, "false" the longest */
            FUZZ_CHECK(strlen(vals[i]) >= 1 && strlen(vals[i]) <= 5, "bool from '%.20s'", vals[i]);

    long v;
    for (size_t i = 0; i < NVARS; i++) {
        if (gl_parse_long(vals[i], -5, 300, &v))
            FUZZ_CHECK(v >= -5 && v <= 300, "parse_long %ld", v);
    }
    uint64_t bytes;
    for (size_t i = 0; i < NVARS; i++)
        if (gl_parse_bytes(vals[i], 1, GL_MAX_SAMPLE_BYTES, &bytes))
            FUZZ_CHECK(bytes >= 1 && bytes <= GL_MAX_SAMPLE_BYTES, "bytes %llu", (unsigned long long)bytes);
    uint64_t ms;
    for (size_t i = 0; i < NVARS; i++) {
        if (gl_parse_duration_ms(vals[i], 100, 30ull * 24 * 3600 * 1000, &ms))
            FUZZ_CHECK(ms >= 100 && ms <= 30ull * 24 * 3600 * 1000, "duration %llu", (unsigned long long)ms);
    }
    uint32_t rank = gl_rank();
    FUZZ_CHECK(rank <= 0x7fffffffu, "rank %u", rank);
    free(buf);
    return 0;
}
