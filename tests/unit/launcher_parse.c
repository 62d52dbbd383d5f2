/* Unit test of the launcher's option checks (tools/launcher/parse.c,
 * env.c): every value and message below was recorded from the bash
 * launcher (tools/gpuleak before its port), whose messages `gpuleak run`
 * keeps byte for byte after "gpuleak run: --flag VALUE: ":
 *   1. integers as strtol reads them (blanks, a sign, leading zeros, at
 *      most 18 digits) in a range; --depth, --keep;
 *   2. durations (ms, s, m, h, bare seconds; 12 digits at most); --interval
 *      from 100ms to 30 days, or 0;
 *   3. signals by name (any case, SIG or not, RTMIN+N) or number, none;
 *      KILL and STOP, and the crash signals, refused with their reasons;
 *   4. output patterns: known conversions, the length limit, the
 *      directory that must exist, a symlink or a socket refused, a device
 *      or a stream accepted (a closed descriptor refused), a directory
 *      getting default names;
 *   5. the rank a process's environment gives %r. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "env.h"
#include "launcher.h"
#include "launcher_check.h"
#include "parse.h"

/* check(value) is NULL (want NULL) or exactly want. */
static void expect_reason(char *(*check)(const char *), const char *value, const char *want, int line)
{
    char *got = check(value);
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0)) {
        fprintf(stderr, "%s:%d: '%s': got '%s', want '%s'\n", __FILE__, line, value, got ? got : "(accepted)",
                want ? want : "(accepted)");
        failures++;
    }
    free(got);
}
#define REASON(check, value, want) expect_reason(check, value, want, __LINE__)

static void test_integers(void)
{
    CHECK(is_long_in("12", 0, 256));
    CHECK(is_long_in(" \t+012", 0, 256));
    CHECK(is_long_in("-0", 0, 256));
    CHECK(is_long_in("000", 0, 0));
    CHECK(!is_long_in("-1", 0, 256));
    CHECK(!is_long_in("257", 0, 256));
    CHECK(!is_long_in("12 ", 0, 256));
    CHECK(!is_long_in("", 0, 256));
    CHECK(!is_long_in("+", 0, 256));
    CHECK(!is_long_in("0x10", 0, 256));
    CHECK(is_long_in("0000000000000000000000001", 0, 1));
    CHECK(!is_long_in("1234567890123456789", 0, 9223372036854775807LL));
    const char *depth = "expected 0 to 256 frames", *keep = "expected 0 (keep all) or 2 to 10000";
    REASON(check_depth, "0", NULL);
    REASON(check_depth, "256", NULL);
    REASON(check_depth, " 12", NULL);
    REASON(check_depth, "999", depth);
    REASON(check_depth, "-1", depth);
    REASON(check_depth, "abc", depth);
    REASON(check_keep, "0", NULL);
    REASON(check_keep, "2", NULL);
    REASON(check_keep, "10000", NULL);
    REASON(check_keep, "1", keep);
    REASON(check_keep, "+1", keep);
    REASON(check_keep, "+10001", keep);
}

static void test_durations(void)
{
    long long ms = -1;
    CHECK(duration_ms("90", &ms) && ms == 90000);
    CHECK(duration_ms("90s", &ms) && ms == 90000);
    CHECK(duration_ms("250ms", &ms) && ms == 250);
    CHECK(duration_ms("10m", &ms) && ms == 600000);
    CHECK(duration_ms("2h", &ms) && ms == 7200000);
    CHECK(duration_ms("007s", &ms) && ms == 7000);
    CHECK(duration_ms("999999999999ms", &ms) && ms == 999999999999LL);
    CHECK(!duration_ms("1000000000000ms", &ms));
    CHECK(!duration_ms("5x", &ms));
    CHECK(!duration_ms("1d", &ms));
    CHECK(!duration_ms("", &ms));
    CHECK(!duration_ms("s", &ms));
    CHECK(!duration_ms(" 5s", &ms));
    CHECK(!duration_ms("-5s", &ms));
    const char *bad = "not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h), or 0 for off";
    REASON(check_interval, "0", NULL);
    REASON(check_interval, "100ms", NULL);
    REASON(check_interval, "2592000", NULL);
    REASON(check_interval, "720h", NULL);
    REASON(check_interval, "2592001", bad);
    REASON(check_interval, "721h", bad);
    REASON(check_interval, "31d", bad);
    REASON(check_interval, "50ms", bad);
    REASON(check_interval, "5x", bad);
    REASON(check_interval, "0s", bad);
    REASON(check_interval, "00", bad);
}

static void test_signals(void)
{
    const char *name = "not a signal name (USR1, USR2, HUP, PWR, WINCH, URG, RTMIN+N) or number, or none";
    const char *crash = "a crash signal cannot ask for snapshots";
    static const char *const good[] = {"USR1", "usr2", "SIGHUP", "sigpwr", "WINCH", "URG", "none", "NONE",
                                       "0",    "10",   " 12",    "64",     "rtmin+3", "RTMIN+30", "SIGRTMIN+0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        REASON(check_signal, good[i], NULL);
    REASON(check_signal, "", "empty");
    REASON(check_signal, "FOO", name);
    REASON(check_signal, "65", name);
    REASON(check_signal, "RTMIN+31", name);
    REASON(check_signal, "SIGSIGUSR1", name);
    REASON(check_signal, "TERM", name);
    REASON(check_signal, "KILL", "SIGKILL cannot be caught");
    REASON(check_signal, "sigkill", "SIGKILL cannot be caught");
    REASON(check_signal, "9", "SIGKILL cannot be caught");
    REASON(check_signal, "19", "SIGSTOP cannot be caught");
    REASON(check_signal, "SIGSEGV", crash);
    REASON(check_signal, "bus", crash);
    REASON(check_signal, "4", crash);
    REASON(check_signal, "8", crash);
    REASON(check_signal, "ABRT", crash);
}

static char *check_output_run(const char *v)
{
    return check_output(v, false);
}

static char *check_output_attach(const char *v)
{
    return check_output(v, true);
}

/* A socket bound at path. */
static void make_socket(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    close(fd);
}

static void test_output_patterns(void)
{
    const char *conv = "unknown conversion '%x' (known: %p %h %r %n %t %%)";
    char dir[] = "/tmp/gl-launcher-parse.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    CHECK(mkdir("sub", 0700) == 0);
    CHECK(symlink("sub", "link") == 0);
    make_socket("sock");
    char *long_name = calloc(1, 1025);
    memset(long_name, 'a', 1024);
    REASON(check_output_run, "", "empty");
    REASON(check_output_run, long_name, "longer than 1023 bytes");
    long_name[1023] = '\0';
    REASON(check_output_run, long_name, NULL);
    REASON(check_output_run, "a%x", conv);
    REASON(check_output_run, "a%p%x%n", conv);
    REASON(check_output_run, "a%", "unknown conversion '%' (known: %p %h %r %n %t %%)");
    REASON(check_output_run, "a%%.%p.%h.%r.%n.%t", NULL);
    REASON(check_output_run, "nodir/x.snap", "no directory nodir");
    REASON(check_output_run, "nodir/", "no directory nodir");
    REASON(check_output_run, "sub/x.%p.snap", NULL);
    REASON(check_output_run, "sub", NULL);
    REASON(check_output_run, "sub/", NULL);
    REASON(check_output_run, "%p/x", NULL);
    REASON(check_output_run, "/x.snap", NULL);
    REASON(check_output_run, "link",
           "is a symbolic link, not followed (name the file itself; a stream is /dev/stdout, /dev/stderr or "
           "/dev/fd/N)");
    REASON(check_output_run, "sock", "is a socket, which cannot be opened");
    REASON(check_output_run, "sock%n", NULL);
    REASON(check_output_run, "/dev/null", NULL);
    REASON(check_output_run, "/dev/stderr", NULL);
    int fd = open("/dev/null", O_RDONLY);
    char *stream = calloc(1, 64);
    snprintf(stream, 64, "/dev/fd/%d", fd);
    REASON(check_output_run, stream, NULL);
    close(fd);
    char *closed = calloc(1, 64);
    snprintf(closed, 64, "descriptor %d is not open", fd);
    REASON(check_output_run, stream, closed);
    REASON(check_output_attach, stream, NULL);
    CHECK(unlink("sock") == 0 && unlink("link") == 0 && rmdir("sub") == 0);
    CHECK(chdir("/") == 0 && rmdir(dir) == 0);
    free(long_name);
    free(stream);
    free(closed);
}

static void test_targets(void)
{
    CHECK(target_of("/dev/stdout").kind == TARGET_STREAM && target_of("/dev/stdout").fd == 1);
    CHECK(target_of("/dev/stderr").fd == 2);
    CHECK(target_of("/proc/self/fd/007").kind == TARGET_STREAM && target_of("/proc/self/fd/007").fd == 7);
    CHECK(target_of("/dev/fd/1234567890").kind == TARGET_FILE);
    CHECK(target_of("/dev/null").kind == TARGET_IN_PLACE);
    CHECK(target_of("/").kind == TARGET_NOT_A_FILE);
    CHECK(target_of("/nonexistent/x").kind == TARGET_FILE);
}

static void expect_rank(const char *value, const char *want, int line)
{
    char *got = rank_value(value);
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0)) {
        fprintf(stderr, "%s:%d: rank '%s': got %s, want %s\n", __FILE__, line, value, got ? got : "none",
                want ? want : "none");
        failures++;
    }
    free(got);
}

static void test_ranks(void)
{
    expect_rank("3", "3", __LINE__);
    expect_rank(" +007", "7", __LINE__);
    expect_rank("-0", "0", __LINE__);
    expect_rank("2147483647", "2147483647", __LINE__);
    expect_rank("2147483648", NULL, __LINE__);
    expect_rank("-1", NULL, __LINE__);
    expect_rank("", NULL, __LINE__);
    expect_rank("+", NULL, __LINE__);
    expect_rank("1 ", NULL, __LINE__);
    setenv("RANK", "x", 1);
    setenv("PMI_RANK", "5", 1);
    setenv("LOCAL_RANK", "6", 1);
    char *r = env_rank();
    CHECK(r != NULL && strcmp(r, "5") == 0);
    free(r);
    unsetenv("PMI_RANK");
    unsetenv("LOCAL_RANK");
    CHECK(env_rank() == NULL);
}

int main(void)
{
    launcher_init("gpuleak");
    test_integers();
    test_durations();
    test_signals();
    test_output_patterns();
    test_targets();
    test_ranks();
    return checks_end("launcher_parse");
}
