/* Unit test of what `gpuleak check` reads from the reporter's verdict and
 * writes as JSON (tools/launcher/check_json.c), every expectation
 * recorded from the bash launcher's verdict_field and json_quote before
 * the port:
 *   1. a field: a number, a string unescaped ('\/', '\"', '\\' in that
 *      order), the first occurrence whose value is one, null as none;
 *   2. text quoted: '\' and '"' escaped, control bytes as \u00XX. */
#include <stdlib.h>
#include <string.h>

#include "check_json.h"
#include "launcher_check.h"

static void test_verdict_field(void)
{
    static const char *const cases[][3] = {
        {"{\"rank\":null,\"pid\":12}", "rank", NULL},
        {"{\"rank\":null,\"pid\":12}", "pid", "12"},
        {"{\"summary\":\"a\\\"b\\\\\\\\c\\/d\\\\/e\"}", "summary", "a\"b\\\\c/d\\/e"},
        {"{\"x\":\"\\\"rank\\\":3\",\"rank\":\"\"}", "rank", ""},
        {"{\"rank\":-1,\"rank\":7}", "rank", "7"},
        {"{\"summary\":\"tab\\u0009x\"}", "summary", "tab\\u0009x"},
        {"{\"s\":\"unterminated", "s", NULL},
        {"{\"double_frees\":3,\"summary\":\"x\"}", "double_frees", "3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(cases[i][0], verdict_field(cases[i][0], cases[i][1]), cases[i][2]);
}

static void test_json_quote(void)
{
    static const char *const cases[][2] = {
        {"a\"b\\c", "\"a\\\"b\\\\c\""},
        {"x\ty\001z\177", "\"x\\u0009y\\u0001z\\u007f\""},
        {"", "\"\""},
        {"\xc3\xa9", "\"\xc3\xa9\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct strbuf b = {0};
        json_quote(&b, cases[i][0]);
        EXPECT_STR(cases[i][0], sb_take(&b), cases[i][1]);
    }
}

int main(void)
{
    test_verdict_field();
    test_json_quote();
    return checks_end("launcher_check_json");
}
