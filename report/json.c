/* JSON output primitives.  Strings from the snapshot are arbitrary bytes
 * (paths, argv), so escaping must produce valid UTF-8 JSON whatever they
 * hold: valid UTF-8 sequences pass through, each byte of an invalid one
 * becomes U+FFFD, control characters and DEL are \u-escaped. */
#include "json.h"

#include <inttypes.h>

void json_init(struct json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = true;
    j->after_key = false;
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
            fputc(',', j->f);
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
    sep(j);
    fputc(c, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
    bool empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
    if (j->depth == 0)
        fputc('\n', j->f);
}

void json_obj(struct json *j) { open_(j, '{'); }
void json_end_obj(struct json *j) { close_(j, '}'); }
void json_arr(struct json *j) { open_(j, '['); }
void json_end_arr(struct json *j) { close_(j, ']'); }

void json_key(struct json *j, const char *key)
{
    sep(j);
    fputc('"', j->f);
    json_escape(j->f, key, __builtin_strlen(key));
    fputs("\": ", j->f);
    j->after_key = true;
}

size_t utf8_len(const unsigned char *s, size_t left)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else
        return 0;
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates, beyond U+10FFFF */
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void json_escape(FILE *f, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
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
        if (c < 0x20 || c == 0x7f) {
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
        fwrite(s + i, 1, n, f);
        i += n;
    }
}

void json_strn(struct json *j, const char *s, size_t len)
{
    sep(j);
    fputc('"', j->f);
    json_escape(j->f, s, len);
    fputc('"', j->f);
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
    sep(j);
    fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
    sep(j);
    fprintf(j->f, "%" PRId64, v);
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
