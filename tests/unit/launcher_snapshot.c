/* Unit test of what `gpuleak snapshot` reads of a running process
 * (tools/launcher/snapshot.c, snapshot_out.c, proc.c), every expectation
 * recorded from the bash launcher's functions before the port:
 *   1. GPULEAK_SIGNAL read as the library reads it (signal_number): the
 *      default, names in any case, numbers of at most 3 digits, RTMIN+N,
 *      the refused signals as 0, anything else as SIGUSR1;
 *   2. signals named as kill -l names them;
 *   3. one component of an output pattern with the process's %p, %r, %h
 *      put in, %n and %t (and an unknown host) as wildcards, the rest
 *      literal, an unknown conversion kept;
 *   4. a signal mask line of a status file;
 *   5. the files of a pattern at its depth, and the first new one. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#include "launcher_check.h"
#include "proc.h"
#include "snapshot.h"
#include "snapshot_out.h"

static void test_signal_numbers(void)
{
    static const struct {
        const char *value;
        int sig;
    } cases[] = {
        {"", 10},         {"USR1", 10},     {"usr2", 12},        {"SIGHUP", 1},       {"none", 0},  {"NONE", 0},
        {"0", 0},         {"00", 10},       {"10", 10},          {"012", 12},         {"0012", 10}, {"64", 64},
        {"65", 10},       {"KILL", 0},      {"9", 0},            {"SIGSEGV", 0},      {"6", 0},     {"rtmin+3", 37},
        {"RTMIN+30", 64}, {"RTMIN+31", 10}, {"RTMIN+0003", 10},  {"sigrtmin+2", 36},  {"FOO", 10},  {"SIGNONE", 10},
        {" 12", 10},      {"TERM", 10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = signal_number(cases[i].value);
        if (got != cases[i].sig) {
            fprintf(stderr, "%s:%d: GPULEAK_SIGNAL='%s': got %d, want %d\n", __FILE__, __LINE__, cases[i].value,
                    got, cases[i].sig);
            failures++;
        }
    }
}

static void test_signal_names(void)
{
    static const struct {
        int sig;
        const char *name;
    } cases[] = {
        {1, "HUP"},        {7, "BUS"},        {10, "USR1"},      {12, "USR2"},      {23, "URG"},  {28, "WINCH"},
        {29, "IO"},        {30, "PWR"},       {34, "RTMIN"},     {35, "RTMIN+1"},   {49, "RTMIN+15"},
        {50, "RTMAX-14"},  {63, "RTMAX-1"},   {64, "RTMAX"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR("signal name", signal_name(cases[i].sig), cases[i].name);
}

static void expect_component(const char *comp, const char *host, const char *glob, const char *lit, bool wild,
                             int line)
{
    char *g, *l;
    bool w = expand_component(comp, "42", "3", host, &g, &l);
    if (w != wild) {
        fprintf(stderr, "%s:%d: '%s': wildcard %d, want %d\n", __FILE__, line, comp, w, wild);
        failures++;
    }
    expect_str(comp, g, glob, __FILE__, line);
    expect_str(comp, l, lit, __FILE__, line);
}

static void test_components(void)
{
    expect_component("gpuleak.%p.%n.snap", "", "gpuleak.42.[0-9]*.snap", "gpuleak.42..snap", true, __LINE__);
    expect_component("gpuleak.%p.%n.snap", "node1", "gpuleak.42.[0-9]*.snap", "gpuleak.42..snap", true, __LINE__);
    expect_component("r%r-%h-%t%%%x%", "", "r3-*-[0-9]*%%x%", "r3--%%x%", true, __LINE__);
    expect_component("r%r-%h-%t%%%x%", "node1", "r3-node1-[0-9]*%%x%", "r3-node1-%%x%", true, __LINE__);
    expect_component("a*b?[c]\\d.%p", "", "a\\*b\\?\\[c]\\\\d.42", "a*b?[c]\\d.42", false, __LINE__);
    expect_component("final.%h.snap", "node1", "final.node1.snap", "final.node1.snap", false, __LINE__);
}

static void test_sigmask(const char *dir)
{
    char *path = malloc(strlen(dir) + 16);
    sprintf(path, "%s/status", dir);
    FILE *f = fopen(path, "w");
    fputs("Name:\tx\nState:\tS (sleeping)\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000001000\n"
          "SigCgt:\t8000000000000200\n",
          f);
    fclose(f);
    CHECK(in_sigmask(path, "SigIgn", 13));
    CHECK(!in_sigmask(path, "SigIgn", 10));
    CHECK(in_sigmask(path, "SigCgt", 10));
    CHECK(in_sigmask(path, "SigCgt", 64));
    CHECK(!in_sigmask(path, "SigCgt", 12));
    CHECK(!in_sigmask(path, "SigBlk", 10));
    CHECK(!in_sigmask(path, "SigPnd", 10));
    CHECK(!in_sigmask("/nonexistent/status", "SigCgt", 10));
    unlink(path);
    free(path);
}

static void touch(const char *path, time_t mtime)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    struct timespec t[2] = {{mtime, 0}, {mtime, 0}};
    utimensat(AT_FDCWD, path, t, 0);
}

static void test_files(const char *dir)
{
    CHECK(chdir(dir) == 0);
    CHECK(mkdir("d", 0700) == 0 && mkdir("d/42", 0700) == 0 && mkdir("d/7", 0700) == 0);
    touch("d/42/s.1.snap", 1000);
    touch("d/42/s.2.snap", 3000);
    touch("d/42/s.3.snap", 2000);
    touch("d/7/s.1.snap", 500);
    touch("d/s.1.snap", 100);
    CHECK(symlink("s.1.snap", "d/42/s.9.snap") == 0);
    char *root = malloc(strlen(dir) + 4);
    sprintf(root, "%s/d", dir);
    char *glob = malloc(strlen(dir) + 32);
    sprintf(glob, "%s/d/42/s.[0-9]*.snap", dir);
    struct out_search s = {root, 2, glob, NULL};
    struct file_list all = output_files(&s);
    CHECK(all.n == 3);
    struct file_list before = {all.names, 1};
    char *first = first_new_file(&all, &before);
    char *want = malloc(strlen(dir) + 32);
    sprintf(want, "%s/d/42/s.3.snap", dir);
    CHECK(first != NULL && strcmp(first, want) == 0);
    free(first);
    struct file_list none = {0};
    first = first_new_file(&none, &before);
    CHECK(first == NULL);
    file_list_free(&all);
    free(root);
    free(glob);
    free(want);
    CHECK(system("rm -rf d") == 0);
}

int main(void)
{
    launcher_init("gpuleak");
    test_signal_numbers();
    test_signal_names();
    test_components();
    char dir[] = "/tmp/gl-launcher-snapshot.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_sigmask(dir);
    test_files(dir);
    CHECK(chdir("/") == 0 && rmdir(dir) == 0);
    return checks_end("launcher_snapshot");
}
