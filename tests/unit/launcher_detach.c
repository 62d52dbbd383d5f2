/* Unit test of what `gpuleak attach` and `detach` read and write around
 * gdb (tools/launcher/gdb.c, attach_checks.c, attach_status.c, attach.c,
 * detach.c), every
 * expectation recorded from the bash launcher's functions before the port:
 *   1. strings as C literals for gdb (c_literal);
 *   2. the safe-point commands, byte for byte as gdb_safe_point made them
 *      (the awk program's quoting included);
 *   3. gdb's log read: the last integer GPULEAK_RC=, a non-null
 *      GPULEAK_DLOPEN=0x, gdb's last error line (gdb_rc, gdb_why);
 *   4. the library's answers in words (attach_message);
 *   5. Yama's ptrace_scope as GPULEAK_YAMA_SCOPE_FILE gives it, and a
 *      process that is gone (ptrace_refusal);
 *   6. /proc/PID/status read word by word (proc_status), the status line
 *      "RC SNAPSHOT" split, the sharedlibrary regular expression;
 *   7. the directory of an attach's output pattern (output_dir);
 *   8. a zombie is not running (process_running). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"
#include "attach_checks.h"
#include "attach_status.h"
#include "detach.h"
#include "gdb.h"
#include "launcher.h"
#include "launcher_check.h"

static void test_c_literal(void)
{
    static const char *const cases[][2] = {
        {"a", "\"a\""},           {"a\"b", "\"a\\\"b\""}, {"a\\b", "\"a\\\\b\""}, {"x\ny", "\"x\\ny\""},
        {"t\tz", "\"t\tz\""},     {"", "\"\""},           {"\\\"", "\"\\\\\\\"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(cases[i][0], c_literal(cases[i][0]), cases[i][1]);
}

static void test_safe_cmds(void)
{
    static const char *const want[] = {
        "sharedlibrary /ld-linux",
        "sharedlibrary malloc",
        "pipe bt 200 | awk 'done { next } /<signal handler called>/ { next } /^#[0-9]+ / { level = substr($1,"
        " 2) + 0; s = $0; lib = \"\"; sub(/^#[0-9]+ +/, \"\", s); sub(/^0x[0-9a-f]+ in /, \"\", s); if (match(s, / "
        "from [^ ]+$/)) lib = substr(s, RSTART + 6); sub(/ \\(.*$/, \"\", s); sub(/@.*$/, \"\", s); if (!((lib == "
        "\"\" && s != \"??\") || lib ~ /\\/libc\\.so|\\/ld-linux|malloc/)) { done = 1; next } if (s ~ /^(__libc_|je_"
        "|tc_|mi_)?(malloc|free|calloc|realloc|reallocarray|memalign|aligned_alloc|posix_memalign|valloc|pval"
        "loc|cfree)$/ || s ~ /^(malloc_|_int_|__malloc_|tcache_|arena_|sysmalloc|operator new|operator delete"
        ")/ || s ~ /^(dlopen|dlmopen|dlclose|dlsym|dlvsym|dladdr|dladdr1|dlinfo|dl_iterate_phdr)$|^(_dl_|__dl"
        "|__libc_dl)/ || s ~ /^(fork|_Fork|__fork|__libc_fork|pthread_create)$/ || lib ~ /\\/ld-linux/) worst "
        "= level } END { if (worst != \"\") printf \"frame %d\\nfinish\\n\", worst }' >'/tmp/w/safe.gdb'",
        "source /tmp/w/safe.gdb",
    };
    char **cmds = gdb_safe_cmds("/tmp/w");
    for (size_t i = 0; i < 4; i++)
        EXPECT_STR("safe point command", cmds[i], want[i]);
    if (cmds[4] != NULL) {
        fprintf(stderr, "%s:%d: more than 4 safe point commands\n", __FILE__, __LINE__);
        failures++;
    }
    free(cmds);
}

static void test_gdb_log(void)
{
    static const struct {
        const char *log, *rc;
        bool loaded;
        const char *why;
    } cases[] = {
        {"GPULEAK_RC=0\n", "0", false, ""},
        {"GPULEAK_DLOPEN=0x7f12\nGPULEAK_RC=-1", "-1", true, ""},
        {"GPULEAK_DLOPEN=0x0\nGPULEAK_RC=Value can't be converted to integer.\n", NULL, false, ""},
        {"Reading symbols\nwarning: x\n[New Thread]\nNo symbol \"gpuleak_detach_start\" in current context.\n"
         "Using host\n\nDownloading\nGPULEAK_RC=3\nGPULEAK_RC=12x\n",
         NULL, false, "No symbol \"gpuleak_detach_start\" in current context."},
        {"ptrace: Operation not permitted.\nGPULEAK_RC=5\nGPULEAK_RC=7", "7", false, "ptrace: Operation not permitted."},
        {"GPULEAK_DLOPEN=0xA\nGPULEAK_RC= 1\n", NULL, false, ""},
        {"", NULL, false, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool loaded = !cases[i].loaded;
        EXPECT_STR(cases[i].log, gdb_answer(cases[i].log, &loaded), cases[i].rc);
        if (loaded != cases[i].loaded) {
            fprintf(stderr, "%s:%d: case %zu: loaded %d\n", __FILE__, __LINE__, i, loaded);
            failures++;
        }
        EXPECT_STR(cases[i].log, gdb_why(cases[i].log), cases[i].why);
    }
}

/* The loader's words an attach printed: the last GPULEAK_DLERROR line,
 * none when it is empty. */
static void test_dlerror(void)
{
    EXPECT_STR("dlerror", gdb_dlerror("x\nGPULEAK_DLERROR=a: cannot open\nGPULEAK_RC=-1\n"), "a: cannot open");
    EXPECT_STR("empty dlerror", gdb_dlerror("GPULEAK_DLOPEN=0x7f\nGPULEAK_DLERROR=\nGPULEAK_RC=0\n"), NULL);
    EXPECT_STR("no dlerror", gdb_dlerror("GPULEAK_RC=0\n"), NULL);
    EXPECT_STR("last dlerror", gdb_dlerror("GPULEAK_DLERROR=a\nGPULEAK_DLERROR=b"), "b");
}

static void test_attach_messages(void)
{
    static const char *const cases[][2] = {
        {"1", "process 42 is tracked already (gpuleak attach, or started under gpuleak run)"},
        {"2", "process 42 has libgpuleak preloaded (started under gpuleak run): use 'gpuleak snapshot 42'"},
        {"3", "another attach or detach of process 42 is running"},
        {"4", "the settings were refused"},
        {"5", "a slot of process 42 could not be written; nothing was changed"},
        {"6", "process 42 is not attached"},
        {"7", "process 42 has GPULEAK_DISABLE set in its environment"},
        {"8", "process 42 has another copy of libgpuleak loaded by an earlier attach (another installation, or "
              "another file name); attach with that one's gpuleak"},
        {"9", "unexpected answer '9' from the library in process 42"},
        {"01", "unexpected answer '01' from the library in process 42"},
        {"-2", "unexpected answer '-2' from the library in process 42"},
        {"x", "unexpected answer 'x' from the library in process 42"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(cases[i][0], attach_message(cases[i][0], "42"), cases[i][1]);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void test_yama(void)
{
    static const char *const one = "Yama ptrace_scope is 1: only a process's ancestors may trace it (run as root, "
                                   "give gdb CAP_SYS_PTRACE, or set /proc/sys/kernel/yama/ptrace_scope to 0)";
    static const char *const two = "Yama ptrace_scope is 2: only CAP_SYS_PTRACE may trace (run as root)";
    static const char *const three = "Yama ptrace_scope is 3: no process may be traced on this machine";
    const struct {
        const char *scope, *why;
    } cases[] = {
        {"0\n", NULL},  {"1\n", one},  {"2\n", two},    {"3\n", three}, {" 2 \n", two},
        {"x\n", NULL},  {"\n", NULL},   {"3x\n", NULL},  {"3", three},    {"1 2\n", NULL},
        {"\t1\t\n2\n", one},
    };
    char dir[] = "/tmp/launcher_detach.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    char *scope = str_printf("%s/scope", dir), *me = str_printf("%d", (int)getpid());
    setenv("GPULEAK_YAMA_SCOPE_FILE", scope, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(scope, cases[i].scope);
        EXPECT_STR(cases[i].scope, ptrace_refusal(me), cases[i].why);
    }
    unlink(scope);
    EXPECT_STR("no scope file", ptrace_refusal(me), NULL);
    EXPECT_STR("no process", ptrace_refusal("999999999"), "no process 999999999");
    unsetenv("GPULEAK_YAMA_SCOPE_FILE");
    rmdir(dir);
    free(scope);
    free(me);
}

static void test_proc_status(void)
{
    struct proc_status st;
    const char *text = "Name:\tpython3\nState:\tS (sleeping)\nTracerPid:\t0\nUid:\t1000\t1000\t1001\t1002\n"
                       "Gid:\t100\t100\t101\t102\nGroups:\t27 100  1000 \nVmPeak:\t  1 kB\n";
    if (!parse_proc_status(text, &st)) {
        fprintf(stderr, "%s:%d: status not read\n", __FILE__, __LINE__);
        failures++;
        return;
    }
    EXPECT_STR("state", st.state, "S");
    EXPECT_STR("tracer", st.tracer, "0");
    EXPECT_STR("fsuid", st.fsuid, "1002");
    EXPECT_STR("fsgid", st.fsgid, "102");
    EXPECT_STR("groups", st.groups, "27 100 1000");
    st = (struct proc_status){0};
    if (parse_proc_status("State:\tZ (zombie)\nTracerPid:\t77\nGroups:\n", &st)) {
        fprintf(stderr, "%s:%d: a status without Uid: read as whole\n", __FILE__, __LINE__);
        failures++;
    }
    EXPECT_STR("zombie's tracer", str_printf("%s %s %s", st.state, st.tracer, st.groups), "Z 77 ");
    proc_status_free(&st);
}

static void test_status_line(void)
{
    static const char *const cases[][3] = {
        {"0 /tmp/s/gpuleak.1.3.snap", "0", "/tmp/s/gpuleak.1.3.snap"},
        {"0", "0", ""},
        {"", "", ""},
        {"6 a b", "6", "a b"},
        {" x", "", "x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *rc, *snap;
        split_status(cases[i][0], &rc, &snap);
        EXPECT_STR("rc", rc, cases[i][1]);
        EXPECT_STR("snapshot", snap, cases[i][2]);
    }
    EXPECT_STR("sharedlibrary", sharedlibrary_cmd("/opt/x.y/lib/libgpuleak.so"), "sharedlibrary libgpuleak\\.so");
    EXPECT_STR("sharedlibrary", sharedlibrary_cmd("gl.so.1"), "sharedlibrary gl\\.so\\.1");
}

/* attach's output_dir, recorded from the script's. */
static void test_output_dir(void)
{
    static const char *const cases[][2] = {
        {"/a/b/", "/a/b"}, {"/a/b", "/a"},       {"/", "/"},     {"/x", "/"},   {"/tmp", "/tmp"},
        {"/tmp/", "/tmp"}, {"rel", "rel"}, {"/a/%p/x", "/a/%p"}, {"//x", "/"}, {"/tmp//", "/tmp/"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(cases[i][0], output_dir(cases[i][0]), cases[i][1]);
}

static void test_process_running(void)
{
    char *me = str_printf("%d", (int)getpid());
    if (!process_running(me)) {
        fprintf(stderr, "%s:%d: this process is not running\n", __FILE__, __LINE__);
        failures++;
    }
    free(me);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    char *kid = str_printf("%d", (int)child);
    /* Not reaped yet: a zombie, once it has exited. */
    for (int i = 0; i < 500 && process_running(kid); i++)
        usleep(10000);
    if (process_running(kid)) {
        fprintf(stderr, "%s:%d: a zombie is running\n", __FILE__, __LINE__);
        failures++;
    }
    waitpid(child, NULL, 0);
    if (process_running(kid)) {
        fprintf(stderr, "%s:%d: a reaped process is running\n", __FILE__, __LINE__);
        failures++;
    }
    free(kid);
}

int main(void)
{
    launcher_init("gpuleak");
    test_c_literal();
    test_safe_cmds();
    test_gdb_log();
    test_dlerror();
    test_attach_messages();
    test_yama();
    test_proc_status();
    test_status_line();
    test_output_dir();
    test_process_running();
    return checks_end("launcher_detach");
}
