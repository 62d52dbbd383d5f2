/* gpuleak snapshot (the script's cmd_snapshot). */
#include "snapshot.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#include "parse.h"
#include "proc.h"
#include "usage.h"
#include "snapshot_out.h"

static bool all_digits(const char *s, size_t max)
{
    size_t n = strspn(s, "0123456789");
    return n > 0 && s[n] == '\0' && n <= max;
}

static int signal_named(const char *name)
{
    int sig = listed_signal(name);
    if (sig != 0)
        return sig;
    if (strncmp(name, "RTMIN+", 6) == 0 && all_digits(name + 6, 3) && SIGRTMIN + atoi(name + 6) <= SIGRTMAX)
        return SIGRTMIN + atoi(name + 6);
    return SIGUSR1;
}

int signal_number(const char *value)
{
    if (*value == '\0')
        return SIGUSR1;
    char *name = str_printf("%s", value);
    for (char *p = name; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    int sig;
    if (strcmp(name, "NONE") == 0 || strcmp(value, "0") == 0)
        sig = 0;
    else if (all_digits(value, 3) && atoi(value) >= 1 && atoi(value) <= SIGRTMAX)
        sig = atoi(value);
    else
        sig = signal_named(strncmp(name, "SIG", 3) == 0 ? name + 3 : name);
    free(name);
    if (sig == SIGKILL || sig == SIGSTOP || sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
        sig == SIGABRT)
        return 0;
    return sig;
}

char *signal_name(int sig)
{
    int mid = (SIGRTMIN + SIGRTMAX) / 2; /* bash names the upper half from RTMAX */
    if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
        if (sig == SIGRTMIN)
            return str_printf("RTMIN");
        if (sig == SIGRTMAX)
            return str_printf("RTMAX");
        return sig <= mid ? str_printf("RTMIN+%d", sig - SIGRTMIN) : str_printf("RTMAX-%d", SIGRTMAX - sig);
    }
    const char *abbrev = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;
    if (abbrev != NULL && strcmp(abbrev, "POLL") == 0)
        abbrev = "IO";
    return str_printf("%s", abbrev ? abbrev : "");
}

/* Dies when the signal would kill the process (not caught, or ignored
 * and so useless) or go to the program's own handler (gpuleak's thread
 * then blocks it, interpose/control/trigger.c). */
static void check_signal_safe(const char *pid, const char *tid, int sig)
{
    char *name = signal_name(sig);
    char *status = str_printf("/proc/%s/status", pid);
    char *task_status = str_printf("/proc/%s/task/%s/status", pid, tid);
    const char *choose = "not sent (choose another signal with GPULEAK_SIGNAL)";
    if (in_sigmask(status, "SigIgn", sig))
        die("snapshot: process %s ignores SIG%s, so it cannot ask for a snapshot; %s", pid, name, choose);
    if (!in_sigmask(status, "SigCgt", sig))
        die("snapshot: process %s no longer catches SIG%s (the program reset it), so the signal would kill it; %s",
            pid, name, choose);
    if (in_sigmask(task_status, "SigBlk", sig))
        die("snapshot: process %s handles SIG%s itself, so snapshots on it are off; %s", pid, name, choose);
    free(name);
    free(status);
    free(task_status);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool thread_alive(const char *pid, const char *tid)
{
    char *path = str_printf("/proc/%s/task/%s", pid, tid);
    struct stat st;
    bool alive = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    free(path);
    return alive;
}

/* Waits for the first file of s not in before; prints its name. */
static int wait_new_file(const char *pid, const char *tid, const struct out_search *s,
                         const struct file_list *before, long timeout)
{
    double start = now_s();
    while (now_s() - start < (double)timeout + 1) {
        /* Read before looking: once the writer is gone the process has
         * exited, and every file it wrote is already in place. */
        bool alive = thread_alive(pid, tid);
        struct file_list after = output_files(s);
        char *f = first_new_file(&after, before);
        file_list_free(&after);
        if (f != NULL) {
            char *real = realpath(f, NULL);
            printf("%s\n", real ? real : f);
            free(real);
            free(f);
            return 0;
        }
        if (!alive)
            die("snapshot: process %s exited before writing a snapshot", pid);
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    die("snapshot: no new snapshot from process %s after %lds", pid, timeout);
}

/* The options; the PID operand's index. */
static int parse_snapshot(int argc, char **argv, const char **timeout)
{
    int i = 0;
    while (i < argc) {
        if (strcmp(argv[i], "--timeout") == 0) {
            if (i + 1 >= argc)
                die("--timeout needs seconds");
            *timeout = argv[i + 1];
            i += 2;
        } else {
            operand_or_die("snapshot", argv[i]);
            break;
        }
    }
    one_pid_or_die("snapshot", argc, i);
    if (!all_digits(argv[i], SIZE_MAX))
        die("snapshot: '%s' is not a process id", argv[i]);
    if (!all_digits(*timeout, SIZE_MAX))
        die("snapshot: --timeout wants whole seconds");
    return i;
}

/* The signal the process asks for snapshots with, checked safe to send. */
static int snapshot_signal(const char *pid, const char *tid)
{
    char *value = target_env(pid, "GPULEAK_SIGNAL");
    int sig = signal_number(value ? value : "");
    free(value);
    if (sig == 0)
        die("snapshot: process %s has snapshots on signal turned off (GPULEAK_SIGNAL)", pid);
    check_signal_safe(pid, tid, sig);
    return sig;
}

int cmd_snapshot(int argc, char **argv)
{
    const char *timeout = "30";
    int op = parse_snapshot(argc, argv, &timeout);
    char *pid = tracked_pid("snapshot", argv[op]);
    /* The library starts its snapshot writer at the program's first CUDA
     * call; the request goes to that thread alone. */
    char *tid = writer_tid(pid);
    if (tid == NULL)
        die("snapshot: process %s has not started tracking yet (no CUDA call so far, or snapshots on signal are "
            "off)",
            pid);
    int sig = snapshot_signal(pid, tid);
    /* A stream's name means the target's descriptor, not ours: asked before
     * the pattern is looked up as a path here. */
    char *in_place = NULL;
    struct out_search s = {0};
    if (!output_in_place(pid, NULL, &in_place)) {
        s = locate_output(pid, tid);
        if (!output_in_place(pid, &s, &in_place))
            in_place = NULL;
    }
    struct stat st;
    if (in_place == NULL && s.exact != NULL && stat(s.exact, &st) == 0)
        die("snapshot: %s exists, and process %s never replaces a file (put %%n in GPULEAK_OUTPUT); not sent",
            s.exact, pid);
    struct file_list before = {0};
    if (in_place == NULL)
        before = output_files(&s);
    if (syscall(SYS_tgkill, (pid_t)atoi(pid), (pid_t)atoi(tid), sig) != 0)
        die("snapshot: cannot signal process %s: %s", pid, strerror(errno));
    /* Written in place, the snapshot makes no file to wait for or name (a
     * FIFO's reader has it): said at once, status 3. */
    if (in_place != NULL) {
        fprintf(stderr, "%s: snapshot: requested from process %s, which writes its snapshots in place to %s: no "
                        "file to name\n",
                launcher()->prog, pid, in_place);
        exit(3);
    }
    int rc = wait_new_file(pid, tid, &s, &before, strtol(timeout, NULL, 10));
    file_list_free(&before);
    out_search_free(&s);
    free(tid);
    free(pid);
    return rc;
}
