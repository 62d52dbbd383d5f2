/* gpuleak detach (the script's cmd_detach), with its messages. */
#include "detach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach_checks.h"
#include "attach_status.h"
#include "gdb.h"
#include "launcher.h"
#include "proc.h"
#include "usage.h"
#include "strbuf.h"

void split_status(const char *line, char **rc, char **snap)
{
    const char *space = strchr(line, ' ');
    *rc = space ? str_printf("%.*s", (int)(space - line), line) : str_printf("%s", line);
    *snap = str_printf("%s", space ? space + 1 : "");
}

char *sharedlibrary_cmd(const char *lib_path)
{
    const char *base = strrchr(lib_path, '/') ? strrchr(lib_path, '/') + 1 : lib_path;
    struct strbuf b = {0};
    sb_adds(&b, "sharedlibrary ");
    for (; *base; base++) {
        if (*base == '.')
            sb_addc(&b, '\\');
        sb_addc(&b, *base);
    }
    return sb_take(&b);
}

/* The PID argument after the options (-h alone is one). */
static const char *detach_pid(int argc, char **argv)
{
    if (argc > 0)
        operand_or_die("detach", argv[0]);
    one_pid_or_die("detach", argc, 0);
    return argv[0];
}

/* gdb's call: no dlopen and no thread made, only a flag set that
 * gpuleak's writer thread acts on (restores the slots, writes the
 * snapshot, then the status file), so a thread gdb stopped inside fork or
 * malloc, holding their locks, cannot make the call wait.  gdb itself
 * calls the process's malloc for the string argument: the thread leaves
 * the allocator first here too (gdb_safe_cmds).  The answer, or NULL when
 * gdb printed none (*why then says gdb's error). */
static char *call_detach(const char *pid, const char *work, char **why)
{
    char *lib = find_lib();
    char *status = str_printf("%s/status", work);
    char *status_lit = c_literal(status);
    char *steps[] = {sharedlibrary_cmd(lib),
                     str_printf("set $gl_rc = ((int (*)(const char *)) gpuleak_detach_start)(%s)", status_lit),
                     "printf \"GPULEAK_RC=%d\\n\", $gl_rc", NULL};
    char *text = gdb_call_safely(pid, work, steps);
    bool loaded;
    char *rc = gdb_answer(text ? text : "", &loaded);
    *why = rc == NULL ? gdb_why(text ? text : "") : NULL;
    free(text);
    free(steps[0]);
    free(steps[1]);
    free(status_lit);
    free(status);
    free(lib);
    return rc;
}

int cmd_detach(int argc, char **argv)
{
    const char *pid = detach_pid(argc, argv);
    struct proc_status st;
    attach_checks("detach", pid, &st);
    /* The writer thread tells an attach in place (a fork child of an
     * attached process has one too, and no record of its own). */
    char *writer = writer_tid(pid);
    if (writer == NULL)
        die("detach: %s", attach_message("6", pid));
    free(writer);
    preloaded_check("detach", pid);
    free(find_lib()); /* its refusal before any directory is made */
    char *work = status_dir("detach", pid, &st);
    char *why = NULL, *rc = call_detach(pid, work, &why), *snap = NULL;
    if (rc != NULL && strcmp(rc, "0") == 0) {
        char *status = str_printf("%s/status", work);
        char *line = wait_status(status, pid);
        free(status);
        free(rc);
        split_status(line, &rc, &snap);
        free(line);
        if (*rc == '\0') {
            free(rc);
            free(snap);
            remove_tree(work);
            if (!process_running(pid))
                die("detach: process %s ended during the detach", pid);
            die("detach: process %s: the detach started but did not end within 60 s", pid);
        }
    }
    remove_tree(work);
    free(work);
    if (rc == NULL || strcmp(rc, "0") != 0) {
        /* Each refusal's words made before the rest is freed: LeakSanitizer
         * counts what exit leaves. */
        bool ended = !process_running(pid), minus_one = rc != NULL && strcmp(rc, "-1") == 0;
        char *answer = rc != NULL ? attach_message(rc, pid) : NULL;
        free(rc);
        free(snap);
        if (ended)
            die("detach: process %s ended during the detach", pid);
        if (minus_one)
            die("detach: process %s: the library could not start its detach thread", pid);
        if (answer == NULL)
            die("detach: process %s: gdb could not call into it%s%s", pid, *why ? ": " : "", why);
        die("detach: %s", answer);
    }
    char *record = attach_record_path(pid);
    unlink(record);
    free(record);
    if (*snap != '\0')
        printf("%s\n", snap);
    fflush(stdout);
    fprintf(stderr, "%s: detached from process %s\n", launcher()->prog, pid);
    free(snap);
    free(rc);
    proc_status_free(&st);
    return 0;
}
