/* Unit test of gpuleak check's option checks (tools/launcher/check_opts.c),
 * every expectation recorded from the bash launcher before the port:
 *   1. --wait: 1 to 5 digits, up to 3 decimals, at most 86400;
 *   2. --error-exitcode: 1 to 255 in at most 3 digits;
 *   3. --json=FILE: a file in a writable directory, a device in place, an
 *      open stream; no directory, link, trailing '/', closed descriptor. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_opts.h"
#include "launcher.h"
#include "launcher_check.h"

static void test_wait(void)
{
    static const char *const good[] = {"0", "60", "0.5", "86400", "00000.000"};
    static const char *const bad[] = {"86400.001", "86401", "99999", "123456", "1.",
                                      ".5",        "1.2345", " 1",   "+1",     ""};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        EXPECT_STR(good[i], check_wait(good[i]), NULL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT_STR(bad[i], check_wait(bad[i]), "expected seconds, 0 to 86400 (e.g. 60, 0.5)");
}

static void test_exitcode(void)
{
    CHECK(valid_exitcode("1"));
    CHECK(valid_exitcode("255"));
    CHECK(valid_exitcode("009"));
    CHECK(!valid_exitcode("0"));
    CHECK(!valid_exitcode("256"));
    CHECK(!valid_exitcode("0009"));
    CHECK(!valid_exitcode("abc"));
    CHECK(!valid_exitcode(""));
}

static void test_json_file(void)
{
    char dir[] = "/tmp/launcher_check_opts.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *link = str_printf("%s/link", dir), *file = str_printf("%s/out.json", dir);
    CHECK(symlink("x", link) == 0);
    EXPECT_STR("file", check_json_file(file), NULL);
    EXPECT_STR("dev", check_json_file("/dev/null"), NULL);
    EXPECT_STR("stderr", check_json_file("/dev/stderr"), NULL);
    EXPECT_STR("empty", check_json_file(""), "not a file name");
    EXPECT_STR("slash", check_json_file("x/"), "not a file name");
    EXPECT_STR("dir", check_json_file(dir), "not a file name");
    EXPECT_STR("link", check_json_file(link),
               "is a symbolic link, not followed (name the file itself; a stream is /dev/stdout, /dev/stderr or "
               "/dev/fd/N)");
    EXPECT_STR("no dir", check_json_file("/nonexist/x"), "cannot write in /nonexist");
    EXPECT_STR("closed", check_json_file("/dev/fd/77"), "descriptor 77 is not open");
    unlink(link);
    rmdir(dir);
    free(link);
    free(file);
}

int main(void)
{
    launcher_init("gpuleak");
    test_wait();
    test_exitcode();
    test_json_file();
    return checks_end("launcher_check_opts");
}
