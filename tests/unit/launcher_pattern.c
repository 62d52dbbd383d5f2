/* Unit test of what `gpuleak run` says at its end (tools/launcher/
 * shquote.c, pattern.c, run_end.c, passthru.c), against what the bash
 * launcher printed (recorded with bash 5.2 before the port):
 *   1. names quoted as printf '%q' quotes them, to paste;
 *   2. output patterns as globs (%r the launcher's own rank), as regular
 *      expressions with their conversions' roles, and one process's series
 *      as a glob, quoted and raw; a directory gets the default names;
 *   3. processes in sort -V order;
 *   4. the reporter's hint about comparing processes, said as typed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "launcher_check.h"
#include "passthru.h"
#include "pattern.h"
#include "run_end.h"
#include "shquote.h"

static void test_quoting(void)
{
    static const char *const cases[][2] = {
        {"gpuleak.123.1.snap", "gpuleak.123.1.snap"},
        {"my dir/gpuleak.1.2.snap", "my\\ dir/gpuleak.1.2.snap"},
        {"it's", "it\\'s"},
        {"~home", "\\~home"},
        {"a~b", "a~b"},
        {"a=~", "a=\\~"},
        {"a:~", "a:\\~"},
        {"#x", "\\#x"},
        {"x#y", "x#y"},
        {"tab\there", "$'tab\\there'"},
        {"nl\n", "$'nl\\n'"},
        {"x\ny\001\177", "$'x\\ny\\001\\177'"},
        {"\a\b\033\f\r\v", "$'\\a\\b\\E\\f\\r\\v'"},
        {"\xc3\xa9.snap", "\xc3\xa9.snap"},
        {"/tmp/a b/c*d", "/tmp/a\\ b/c\\*d"},
        {"a,b", "a\\,b"},
        {"", "''"},
        {"%+-./:=@_", "%+-./:=@_"},
        {"!\"$&'()*;<>?[\\]^`{|}", "\\!\\\"\\$\\&\\'\\(\\)\\*\\;\\<\\>\\?\\[\\\\\\]\\^\\`\\{\\|\\}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(cases[i][0], shell_quote(cases[i][0]), cases[i][1]);
}

static void test_globs(void)
{
    EXPECT_STR("default", output_glob("gpuleak.%p.%n.snap", NULL), "gpuleak.*.*.snap");
    EXPECT_STR("rank", output_glob("out/r%r.%h.%t.snap", "3"), "out/r3.*.*.snap");
    EXPECT_STR("no rank", output_glob("out/r%r.snap", NULL), "out/r*.snap");
    EXPECT_STR("escapes", output_glob("a[1]*?\\%%x%", NULL), "a\\[1\\]\\*\\?\\\\%x%");
    EXPECT_STR("dir/", output_glob("snaps/", NULL), "snaps/gpuleak.*.*.snap");
    EXPECT_STR("dir", output_glob("/", NULL), "/gpuleak.*.*.snap");
    char roles[64];
    EXPECT_STR("regex", pattern_regex("run.%r/%h-%p.%n.%t+x%%%q", roles),
               "^run\\.([0-9]+)/([A-Za-z0-9._-]+)-([0-9]+)\\.([0-9]+)\\.([0-9]+)\\+x%q$");
    EXPECT_STR("roles", strdup(roles), "rhpnt");
    char *quoted, *raw;
    if (!series_glob("my dir/g.%p.%n.snap", "my dir/g.42.7.snap", &quoted, &raw)) {
        fprintf(stderr, "%s:%d: series_glob refused\n", __FILE__, __LINE__);
        failures++;
    } else {
        EXPECT_STR("series quoted", quoted, "my\\ dir/g.42.*.snap");
        EXPECT_STR("series raw", raw, "my dir/g.42.*.snap");
    }
    if (series_glob("r%r.%p.%t.%n", "r2.42.17000.3", &quoted, &raw)) {
        EXPECT_STR("series rank", quoted, "r2.42.*.*");
        EXPECT_STR("series rank raw", raw, "r2.42.*.*");
    } else {
        fprintf(stderr, "%s:%d: series_glob refused\n", __FILE__, __LINE__);
        failures++;
    }
    int refused = !series_glob("g.%p.%n.snap", "other.1.2.snap", &quoted, &raw);
    free(quoted);
    free(raw);
    refused &= !series_glob("g*.%p.%n.snap", "g*.1.2.snap", &quoted, &raw);
    free(quoted);
    free(raw);
    refused &= !series_glob("g%x.%p.%n.snap", "gx.1.2.snap", &quoted, &raw);
    free(quoted);
    free(raw);
    if (!refused) {
        fprintf(stderr, "%s:%d: series_glob spelled what it cannot\n", __FILE__, __LINE__);
        failures++;
    }
}

static void test_version_order(void)
{
    static const char *const ordered[] = {"0.9", "0.10", "1.2", "1.10", "2", "10", "100", "a", "host.9", "host.10", "-"};
    size_t n = sizeof ordered / sizeof ordered[0];
    for (size_t i = 0; i + 1 < n; i++)
        if (version_cmp(ordered[i], ordered[i + 1]) >= 0 || version_cmp(ordered[i + 1], ordered[i]) <= 0) {
            fprintf(stderr, "%s:%d: '%s' not before '%s'\n", __FILE__, __LINE__, ordered[i], ordered[i + 1]);
            failures++;
        }
    if (version_cmp("007", "7") != 0 || version_cmp("", "") != 0) {
        fprintf(stderr, "%s:%d: equal keys differ\n", __FILE__, __LINE__);
        failures++;
    }
}

static void test_hints(void)
{
    const char *tail = "gpuleak-report: diff: a.snap and b.snap are of different processes; growth is measured "
                       "between snapshots of one process: compare processes with";
    char line[512];
    char want[512];
    snprintf(line, sizeof line, "%s 'merge'", tail);
    snprintf(want, sizeof want, "%s 'gpuleak merge'", tail);
    EXPECT_STR("merge", hint_as_typed(line, "gpuleak merge", "H"), want);
    snprintf(line, sizeof line, "%s 'merge', or two runs of one program stack by stack with 'diff --across-runs'",
             tail);
    snprintf(want, sizeof want,
             "%s 'gpuleak merge', or two runs of one program stack by stack with 'gpuleak diff --across-runs'",
             tail);
    EXPECT_STR("across", hint_as_typed(line, "gpuleak merge", "H"), want);
    snprintf(line, sizeof line, "%s '--html OUT.html merge'", tail);
    snprintf(want, sizeof want, "%s 'gpuleak html OUT.html merge SNAP...'", tail);
    EXPECT_STR("html", hint_as_typed(line, "M", "gpuleak html OUT.html merge SNAP..."), want);
    snprintf(line, sizeof line, "%s 'merge' and more", tail);
    EXPECT_STR("not at the end", hint_as_typed(line, "M", "H"), line);
    EXPECT_STR("another program", hint_as_typed(strchr(tail, ' ') + 1, "M", "H"), strchr(tail, ' ') + 1);
}

int main(void)
{
    launcher_init("gpuleak");
    test_quoting();
    test_globs();
    test_version_order();
    test_hints();
    return checks_end("launcher_pattern");
}
