/* The one JSON writer: streaming, commas and nesting handled here so the
 * emitters only name keys and values.  Pretty-printed (2-space indent) for
 * --json; compact and script-safe for the document the HTML page embeds in a
 * <script> element ('<', '>', '&', U+2028 and U+2029 escaped, so neither
 * "</script>" nor "<!--" can appear inside it). */
#ifndef GPULEAK_JSON_H
#define GPULEAK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 4096 /* the page's flame graphs nest two levels per frame */

struct json {
    FILE *f;
    int depth;
    bool first[JSON_MAX_DEPTH]; /* nothing written yet at this level */
    bool after_key;
    bool compact; /* no whitespace; script-safe strings */
};

/* Pretty-printed, a newline after the top-level value. */
void json_init(struct json *j, FILE *f);
/* Compact and script-safe, nothing after the top-level value. */
void json_init_compact(struct json *j, FILE *f);
void json_obj(struct json *j);
void json_end_obj(struct json *j);
void json_arr(struct json *j);
void json_end_arr(struct json *j);
void json_key(struct json *j, const char *key);
/* Strings: len bytes; invalid UTF-8 becomes U+FFFD, controls \uXXXX. */
void json_strn(struct json *j, const char *s, size_t len);
void json_str(struct json *j, const char *s); /* NULL -> null */
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
/* A whole array of integers on one line: for long raw series. */
void json_u64_inline(struct json *j, const uint64_t *v, size_t n);
/* The same for booleans. */
void json_bool_inline(struct json *j, const bool *v, size_t n);
/* json_u64_inline's array, null where known[i] is false (a value not
 * known, never 0); known NULL: every value is known. */
void json_u64_inline_known(struct json *j, const uint64_t *v, const bool *known, size_t n);
/* A ratio or fraction (%.6g; never NaN or infinity). */
void json_double(struct json *j, double v);
/* Decimal digits of v into buf (no terminator); returns their number. */
size_t json_fmt_u64(char *buf, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Writes the string escaping of s (without quotes) to f; script_safe: also
 * '<', '>', '&', U+2028 and U+2029 as \u escapes. */
void json_escape(FILE *f, const char *s, size_t len, bool script_safe);

#endif
