/* JSON output primitives.  Strings from the snapshot are arbitrary bytes
 * (paths, argv), so escaping must produce valid UTF-8 JSON whatever they
 * hold: valid UTF-8 sequences pass through, each byte of an invalid one
 * becomes U+FFFD, control characters and DEL are \u-escaped. */
#include "render/json/json.h"
#include "util/utf8.h"

#include <inttypes.h>
#include <string.h>

/* The writers emit tens of megabytes for big snapshots: the hot paths use
 * the unlocked stdio calls and format integers by hand (several times
 * faster than fprintf). */
static void put_indent(FILE *f, int depth)
{
    static const char spaces[] = "                                                                ";
    size_t n = 2 * (size_t)depth;
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        fwrite_unlocked(spaces, 1, k, f);
        n -= k;
    }
}

size_t json_fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

void json_init(struct json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = true;
    j->after_key = false;
    j->compact = false;
}

void json_init_compact(struct json *j, FILE *f)
{
    json_init(j, f);
    j->compact = true;
}

/* Separator and indentation before a value or key at the current level. */
static void sep(struct json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (!j->first[j->depth])
            fputc_unlocked(',', j->f);
        if (!j->compact) {
            fputc_unlocked('\n', j->f);
            put_indent(j->f, j->depth);
        }
    }
    j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
    sep(j);
    fputc_unlocked(c, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
    bool empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty && !j->compact) {
        fputc_unlocked('\n', j->f);
        put_indent(j->f, j->depth);
    }
    fputc_unlocked(c, j->f);
    if (j->depth == 0 && !j->compact)
        fputc_unlocked('\n', j->f);
}

void json_obj(struct json *j) { open_(j, '{'); }
void json_end_obj(struct json *j) { close_(j, '}'); }
void json_arr(struct json *j) { open_(j, '['); }
void json_end_arr(struct json *j) { close_(j, ']'); }

void json_key(struct json *j, const char *key)
{
    sep(j);
    fputc_unlocked('"', j->f);
    json_escape(j->f, key, strlen(key), j->compact);
    fwrite_unlocked("\": ", 1, j->compact ? 2 : 3, j->f);
    j->after_key = true;
}

void json_escape(FILE *f, const char *str, size_t len, bool script_safe)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        /* copy runs of plain printable ASCII in one call */
        size_t run = i;
        while (run < len && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' &&
               s[run] != '\\' && !(script_safe && (s[run] == '<' || s[run] == '>' || s[run] == '&')))
            run++;
        if (run > i) {
            fwrite_unlocked(s + i, 1, run - i, f);
            i = run;
            continue;
        }
        unsigned char c = s[i];
        switch (c) {
        case '"': fputs("\\\"", f); i++; continue;
        case '\\': fputs("\\\\", f); i++; continue;
        case '\n': fputs("\\n", f); i++; continue;
        case '\r': fputs("\\r", f); i++; continue;
        case '\t': fputs("\\t", f); i++; continue;
        case '\b': fputs("\\b", f); i++; continue;
        case '\f': fputs("\\f", f); i++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
            fprintf(f, "\\u%04x", c);
            i++;
            continue;
        }
        size_t n = utf8_len(s + i, len - i);
        if (n == 0) {
            fputs("\\ufffd", f);
            i++;
            continue;
        }
        /* line and paragraph separators end a JavaScript string literal */
        if (script_safe && n == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
            fputs(s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", f);
            i += 3;
            continue;
        }
        fwrite_unlocked(s + i, 1, n, f);
        i += n;
    }
}

void json_strn(struct json *j, const char *s, size_t len)
{
    sep(j);
    fputc_unlocked('"', j->f);
    json_escape(j->f, s, len, j->compact);
    fputc_unlocked('"', j->f);
}

void json_str(struct json *j, const char *s)
{
    if (!s)
        json_null(j);
    else
        json_strn(j, s, __builtin_strlen(s));
}

void json_u64(struct json *j, uint64_t v)
{
    char buf[24];
    sep(j);
    fwrite_unlocked(buf, 1, json_fmt_u64(buf, v), j->f);
}

void json_i64(struct json *j, int64_t v)
{
    sep(j);
    if (v < 0) {
        fputc_unlocked('-', j->f);
        v = -(v + 1); /* no overflow for INT64_MIN */
        char buf[24];
        fwrite_unlocked(buf, 1, json_fmt_u64(buf, (uint64_t)v + 1), j->f);
        return;
    }
    char buf[24];
    fwrite_unlocked(buf, 1, json_fmt_u64(buf, (uint64_t)v), j->f);
}

void json_u64_inline(struct json *j, const uint64_t *v, size_t n)
{
    json_u64_inline_known(j, v, NULL, n);
}

void json_u64_inline_known(struct json *j, const uint64_t *v, const bool *known, size_t n)
{
    sep(j);
    fputc_unlocked('[', j->f);
    char buf[26];
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        if (i) {
            buf[0] = ',';
            buf[1] = ' ';
            k = j->compact ? 1 : 2;
        }
        if (known == NULL || known[i]) {
            k += json_fmt_u64(buf + k, v[i]);
        } else {
            memcpy(buf + k, "null", 4);
            k += 4;
        }
        fwrite_unlocked(buf, 1, k, j->f);
    }
    fputc_unlocked(']', j->f);
}

void json_bool_inline(struct json *j, const bool *v, size_t n)
{
    sep(j);
    fputc_unlocked('[', j->f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(j->compact ? "," : ", ", j->f);
        fputs(v[i] ? "true" : "false", j->f);
    }
    fputc_unlocked(']', j->f);
}

void json_double(struct json *j, double v)
{
    sep(j);
    if (v != v || v > 1e300 || v < -1e300)
        v = 0; /* JSON has no NaN or infinity */
    fprintf(j->f, "%.6g", v);
}

void json_bool(struct json *j, bool v)
{
    sep(j);
    fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
    sep(j);
    fputs("null", j->f);
}
