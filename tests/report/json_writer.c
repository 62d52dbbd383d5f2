/* Unit test of the reporter's one JSON writer (report/render/json/json.c),
 * linked with nothing above it but util/utf8.o: the pretty layout of
 * --json, the compact script-safe layout the HTML page embeds in a <script>
 * element, string escaping of arbitrary bytes, and deep nesting.  Prints
 * one line per failed check; exit 1 if any. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/json/json.h"

static int failed;

static void expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        printf("FAIL %s:\n  got  [%s]\n  want [%s]\n", what, got, want);
        failed = 1;
    }
}

/* One document, written pretty or compact. */
static char *sample(bool compact)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json j;
    if (compact)
        json_init_compact(&j, f);
    else
        json_init(&j, f);
    static const uint64_t v[] = {1, 22, 333};
    static const bool b[] = {true, false};
    json_obj(&j);
    json_key(&j, "n"); json_u64(&j, 18446744073709551615u);
    json_key(&j, "i"); json_i64(&j, INT64_MIN);
    json_key(&j, "s"); json_str(&j, "a\"b\\c\n");
    json_key(&j, "null"); json_str(&j, NULL);
    json_key(&j, "empty"); json_arr(&j); json_end_arr(&j);
    json_key(&j, "v"); json_u64_inline(&j, v, 3);
    json_key(&j, "b"); json_bool_inline(&j, b, 2);
    json_key(&j, "d"); json_double(&j, 0.25);
    json_key(&j, "o");
    json_obj(&j);
    json_key(&j, "t"); json_bool(&j, true);
    json_key(&j, "z"); json_null(&j);
    json_end_obj(&j);
    json_end_obj(&j);
    fclose(f);
    return buf;
}

/* The string escaping of s in compact (script-safe) mode. */
static char *escaped(const char *s, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json j;
    json_init_compact(&j, f);
    json_strn(&j, s, n);
    fclose(f);
    return buf;
}

int main(void)
{
    char *p = sample(false), *c = sample(true);
    expect("pretty", p,
           "{\n"
           "  \"n\": 18446744073709551615,\n"
           "  \"i\": -9223372036854775808,\n"
           "  \"s\": \"a\\\"b\\\\c\\n\",\n"
           "  \"null\": null,\n"
           "  \"empty\": [],\n"
           "  \"v\": [1, 22, 333],\n"
           "  \"b\": [true, false],\n"
           "  \"d\": 0.25,\n"
           "  \"o\": {\n"
           "    \"t\": true,\n"
           "    \"z\": null\n"
           "  }\n"
           "}\n");
    expect("compact", c,
           "{\"n\":18446744073709551615,\"i\":-9223372036854775808,\"s\":\"a\\\"b\\\\c\\n\","
           "\"null\":null,\"empty\":[],\"v\":[1,22,333],\"b\":[true,false],\"d\":0.25,"
           "\"o\":{\"t\":true,\"z\":null}}");
    free(p);
    free(c);

    /* script-safe: no "</script>", "<!--" or line separators inside the data */
    static const char tag[] = "</script><!--&>";
    char *e = escaped(tag, sizeof tag - 1);
    expect("script-safe", e, "\"\\u003c/script\\u003e\\u003c!--\\u0026\\u003e\"");
    free(e);
    static const char seps[] = "a\xe2\x80\xa8" "b\xe2\x80\xa9";
    e = escaped(seps, sizeof seps - 1);
    expect("line separators", e, "\"a\\u2028b\\u2029\"");
    free(e);
    /* bytes that are not UTF-8 become U+FFFD; valid sequences pass; controls escaped */
    static const char bytes[] = "\xff\xc0\xaf\xe2\x82\xac\x01\x7f";
    e = escaped(bytes, sizeof bytes - 1);
    expect("bytes", e, "\"\\ufffd\\ufffd\\ufffd\xe2\x82\xac\\u0001\\u007f\"");
    free(e);

    /* nesting deeper than a stack's frames (the page's flame graphs) */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json j;
    json_init_compact(&j, f);
    enum { DEPTH = 2100 };
    for (int i = 0; i < DEPTH; i++) {
        json_arr(&j);
        json_u64(&j, 7);
    }
    for (int i = 0; i < DEPTH; i++)
        json_end_arr(&j);
    fclose(f);
    size_t opens = 0, closes = 0, commas = 0;
    for (size_t i = 0; i < len; i++) {
        opens += buf[i] == '[';
        closes += buf[i] == ']';
        commas += buf[i] == ',';
    }
    if (opens != DEPTH || closes != DEPTH || commas != DEPTH - 1 || strncmp(buf, "[7,[7,", 6) != 0) {
        printf("FAIL nesting: %zu [, %zu ], %zu commas\n", opens, closes, commas);
        failed = 1;
    }
    free(buf);
    if (!failed)
        puts("json writer: all checks passed");
    return failed;
}
