/* Unit test of snapshot file naming and safe creation (control/outfile.c),
 * in process, with its file-system calls replaced through gl_outfile_io
 * (outfile.h) to make each one fail in turn:
 *   1. pattern expansion: %p %n %h %r %t %% and an unknown conversion, a
 *      relative pattern resolved against the working directory (a '%' in it
 *      stays literal), a directory pattern, names that expand to nothing;
 *   2. the next free %n when names are taken (a file, a dangling symlink),
 *      no %n, and giving up after 1000 taken numbers;
 *   3. atomic creation: a hidden temporary with mode 0600 (umask 0), renamed
 *      to the final name only at commit, never over an existing file or a
 *      planted symlink; another name picked when the first was taken; a
 *      directory reached through another user's symlink refused;
 *   3b. targets written in place (common/output_target.h): a FIFO with a
 *      reader gets the bytes and stays a FIFO, one without a reader is
 *      refused at once (ENXIO), a device node (root only: mknod) stays one,
 *      /dev/fd/N writes to that descriptor (a pipe with no reader: EPIPE,
 *      and the program not killed by SIGPIPE), a directory is refused; nothing
 *      is left beside them;
 *   4. every failure -- opening the directory or the temporary, ENOSPC and
 *      short writes, a write of nothing, EIO at close (the late NFS error),
 *      fstat, the rename, the link fallback -- returns its errno and leaves
 *      neither a temporary nor a final file, and no descriptor open.
 * The real file system is used underneath (a fresh directory under $TMPDIR
 * or /tmp); the end-to-end tests (t_full_disk, t_hostile_output,
 * t_output_files, t_output_race) still cover the library as a whole.
 *
 * Links (tests/module.mk): control/outfile.o, base/config.o, base/log.o:
 * outfile.c's layer and base below it; no state, cuda or hooks objects, no
 * fakecuda. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "control/outfile.h"
#include "fail_check.h"

static int failures;

#define EQ(got, want, what)                                                                      \
    do {                                                                                         \
        long long got_ = (long long)(got), want_ = (long long)(want);                            \
        CHECK_COUNT(failures, got_ == want_, "%s: %lld, expected %lld", (what), got_, want_);     \
    } while (0)
#define TRUE(cond, what) EQ(!!(cond), 1, what)
#define STREQ(got, want, what)                                                                    \
    do {                                                                                          \
        const char *got_ = (got), *want_ = (want);                                                \
        CHECK_COUNT(failures, strcmp(got_, want_) == 0, "%s: \"%s\", expected \"%s\"",            \
                    (what), got_, want_);                                                         \
    } while (0)

/* ---- the replaced I/O ---------------------------------------------------- */

enum op { OP_OPEN, OP_OPENAT, OP_WRITE, OP_FSTAT, OP_FSTATAT, OP_LSTAT, OP_RENAMEAT2, OP_LINKAT,
          OP_UNLINKAT, OP_CLOSE, OP_COUNT };

static struct gl_outfile_io real_io;
static int calls[OP_COUNT];
/* The next call of `op` fails with `err` (after doing the real call for
 * close, as the kernel closes the descriptor even when it reports an error). */
static struct {
    int op; /* -1: none */
    int err;
} fault = {-1, 0};
static enum { W_REAL, W_SHORT_THEN_ENOSPC, W_ZERO, W_EINTR_ONCE } write_mode;
/* lstat reports this path as a symlink owned by uid 4242 (someone else). */
static const char *planted_link;
/* fstatat reports every path as existing. */
static bool all_taken;
/* renameat2 always fails with this (EINVAL, ENOSYS: no RENAME_NOREPLACE). */
static int rename_err;

static bool fail_now(int op)
{
    calls[op]++;
    if (fault.op != op)
        return false;
    fault.op = -1;
    errno = fault.err;
    return true;
}

static int f_open(const char *p, int fl, mode_t m) { return fail_now(OP_OPEN) ? -1 : real_io.open(p, fl, m); }
static int f_openat(int d, const char *p, int fl, mode_t m)
{
    return fail_now(OP_OPENAT) ? -1 : real_io.openat(d, p, fl, m);
}
static ssize_t f_write(int fd, const void *b, size_t n)
{
    if (fail_now(OP_WRITE))
        return -1;
    switch (write_mode) {
    case W_SHORT_THEN_ENOSPC:
        if (calls[OP_WRITE] == 1)
            return real_io.write(fd, b, n / 2);
        errno = ENOSPC;
        return -1;
    case W_ZERO:
        return 0;
    case W_EINTR_ONCE:
        if (calls[OP_WRITE] == 1) {
            errno = EINTR;
            return -1;
        }
        break;
    case W_REAL:
        break;
    }
    return real_io.write(fd, b, n);
}
static int f_fstat(int fd, struct stat *st) { return fail_now(OP_FSTAT) ? -1 : real_io.fstat(fd, st); }
static int f_fstatat(int d, const char *p, struct stat *st, int fl)
{
    if (fail_now(OP_FSTATAT))
        return -1;
    if (all_taken) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFREG | 0600;
        return 0;
    }
    return real_io.fstatat(d, p, st, fl);
}
static int f_lstat(const char *p, struct stat *st)
{
    if (fail_now(OP_LSTAT))
        return -1;
    if (planted_link != NULL && strcmp(p, planted_link) == 0) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFLNK | 0777;
        st->st_uid = 4242;
        return 0;
    }
    return real_io.lstat(p, st);
}
static int f_renameat2(int od, const char *o, int nd, const char *n, unsigned fl)
{
    if (fail_now(OP_RENAMEAT2))
        return -1;
    if (rename_err != 0) {
        errno = rename_err;
        return -1;
    }
    return real_io.renameat2(od, o, nd, n, fl);
}
static int f_linkat(int od, const char *o, int nd, const char *n, int fl)
{
    return fail_now(OP_LINKAT) ? -1 : real_io.linkat(od, o, nd, n, fl);
}
static int f_unlinkat(int d, const char *p, int fl) { return fail_now(OP_UNLINKAT) ? -1 : real_io.unlinkat(d, p, fl); }
static int f_close(int fd)
{
    calls[OP_CLOSE]++;
    int rc = real_io.close(fd);
    if (fault.op == OP_CLOSE) {
        fault.op = -1;
        errno = fault.err;
        return -1;
    }
    return rc;
}

static void reset_io(void)
{
    memset(calls, 0, sizeof calls);
    fault.op = -1;
    write_mode = W_REAL;
    planted_link = NULL;
    all_taken = false;
    rename_err = 0;
}

/* ---- the directory ------------------------------------------------------- */

static char top[4096]; /* the test's own directory */

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

/* The names in dir, sorted, joined by ' ' ("" when empty). */
static const char *listing(const char *dir)
{
    static char buf[4096];
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
            if (buf[0] != '\0')
                strcat(buf, " ");
            strncat(buf, names[i]->d_name, sizeof buf - strlen(buf) - 2);
        }
        free(names[i]);
    }
    free(n >= 0 ? names : NULL);
    return n < 0 ? "(no directory)" : buf;
}

static const char *contents(const char *path)
{
    static char buf[256];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return fd < 0 ? "(none)" : buf;
}

static void make_dir(const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", top, name);
    if (mkdir(path, 0700) != 0) {
        perror(path);
        exit(1);
    }
}

static void touch_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || write(fd, "old", 3) != 3) {
        perror(path);
        exit(1);
    }
    close(fd);
}

/* ---- 1. expansion -------------------------------------------------------- */

/* outfile.c's rule for a host name in a file name, written out again. */
static void sanitized_host(char *out, size_t size)
{
    if (gethostname(out, size - 1) != 0)
        strcpy(out, "unknown");
    out[size - 1] = '\0';
    if (out[0] == '\0')
        strcpy(out, "unknown");
    if (out[0] == '.')
        out[0] = '_';
    for (char *s = out; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_' || *s == '.'))
            *s = '_';
}

static void test_expand(void)
{
    char got[4096], want_a[8192], want_b[8192], host[256];
    sanitized_host(host, sizeof host);
    if (chdir(top) != 0)
        exit(1);

    /* Relative: resolved against the working directory, every conversion. */
    setenv("RANK", "3", 1);
    gl_outfile_setup("s.%p.%n.%h.%r.%t.%%.%q.%");
    snprintf(want_a, sizeof want_a, "%s/s.%%p.%%n.%%h.%%r.%%t.%%%%.%%q.%%", top);
    STREQ(gl_outfile_pattern(), want_a, "resolved pattern");
    TRUE(gl_outfile_numbered(), "%n: numbered");
    long long t0 = (long long)time(NULL);
    TRUE(gl_outfile_expand(7, got, sizeof got), "expand");
    long long t1 = (long long)time(NULL);
    snprintf(want_a, sizeof want_a, "%s/s.%d.7.%s.3.%lld.%%.%%q.%%", top, (int)getpid(), host, t0);
    snprintf(want_b, sizeof want_b, "%s/s.%d.7.%s.3.%lld.%%.%%q.%%", top, (int)getpid(), host, t1);
    if (strcmp(got, want_a) != 0)
        STREQ(got, want_b, "expanded");
    /* The first rank variable set wins; none: 0.  A launcher's global
     * rank beats LOCAL_RANK, which job scripts often export next to it
     * (LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK) and which repeats on every
     * node; and PMIX_RANK/PMI_RANK beat SLURM_PROCID, which an mpirun
     * inside an sbatch script inherits as 0 for every rank. */
    setenv("LOCAL_RANK", "5", 1);
    unsetenv("RANK");
    gl_outfile_setup("/r%r");
    TRUE(gl_outfile_expand(0, got, sizeof got), "expand %r");
    STREQ(got, "/r5", "LOCAL_RANK");
    /* Set from the weakest up, global[i] = i + 1: each one set wins. */
    static const char *const global[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (int i = 3; i >= 0; i--) {
        char value[16], want[16];
        snprintf(value, sizeof value, "%d", i + 1);
        setenv(global[i], value, 1);
        snprintf(want, sizeof want, "/r%d", i + 1);
        TRUE(gl_outfile_expand(0, got, sizeof got), "expand %r");
        STREQ(got, want, global[i]);
    }
    for (int i = 0; i < 4; i++)
        unsetenv(global[i]);
    unsetenv("LOCAL_RANK");
    TRUE(gl_outfile_expand(0, got, sizeof got), "expand %r");
    STREQ(got, "/r0", "no rank");

    /* Absolute: as given. */
    gl_outfile_setup("/abs/dir/x.%n.snap");
    STREQ(gl_outfile_pattern(), "/abs/dir/x.%n.snap", "absolute pattern");
    TRUE(gl_outfile_expand(12, got, sizeof got), "expand absolute");
    STREQ(got, "/abs/dir/x.12.snap", "absolute expanded");
    /* Too long for the buffer; a name that is no file name. */
    EQ(gl_outfile_expand(12, got, 10), 0, "does not fit");
    gl_outfile_setup("/no/such/dir/..");
    EQ(gl_outfile_expand(0, got, sizeof got), 0, "'..' is no file name");
    gl_outfile_setup("/no/such/dir/%%%q");
    TRUE(gl_outfile_expand(0, got, sizeof got), "'%%q' is one");
    STREQ(got, "/no/such/dir/%%q", "literal percent and unknown conversion");
    gl_outfile_setup("x.%%n");
    EQ(gl_outfile_numbered(), 0, "%%n is not numbered");

    /* A directory pattern: default names in it, with or without '/'. */
    make_dir("out");
    gl_outfile_setup("out");
    snprintf(want_a, sizeof want_a, "%s/out/gpuleak.%%p.%%n.snap", top);
    STREQ(gl_outfile_pattern(), want_a, "existing directory");
    gl_outfile_setup("later/");
    snprintf(want_a, sizeof want_a, "%s/later/gpuleak.%%p.%%n.snap", top);
    STREQ(gl_outfile_pattern(), want_a, "pattern ending in '/'");

    /* A '%' in the working directory is literal text. */
    make_dir("a%n%p");
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/a%%n%%p", top);
    if (chdir(sub) != 0)
        exit(1);
    gl_outfile_setup("f");
    EQ(gl_outfile_numbered(), 0, "a '%n' in the directory is not numbered");
    TRUE(gl_outfile_expand(9, got, sizeof got), "expand in a%n%p");
    snprintf(want_a, sizeof want_a, "%s/a%%n%%p/f", top);
    STREQ(got, want_a, "directory's '%' kept");
    if (chdir(top) != 0)
        exit(1);
}

/* ---- 2. the next free number --------------------------------------------- */

static void test_next_name(void)
{
    char dir[4200], path[4300], got[4096];
    make_dir("next");
    snprintf(dir, sizeof dir, "%s/next", top);
    snprintf(path, sizeof path, "%s/s.%%n.snap", dir);
    gl_outfile_setup(path);
    snprintf(path, sizeof path, "%s/s.0.snap", dir);
    touch_file(path);
    snprintf(path, sizeof path, "%s/s.1.snap", dir);
    touch_file(path);
    snprintf(path, sizeof path, "%s/s.2.snap", dir);
    if (symlink("/nonexistent/target", path) != 0) /* dangling: taken all the same */
        exit(1);
    uint64_t counter = 0, index = 99;
    TRUE(gl_outfile_next_name(&counter, got, sizeof got, &index), "next name");
    snprintf(path, sizeof path, "%s/s.3.snap", dir);
    STREQ(got, path, "first free number");
    EQ(index, 3, "its number");
    EQ(counter, 4, "counter past it");
    TRUE(gl_outfile_next_name(&counter, got, sizeof got, &index), "next name again");
    EQ(index, 4, "the one after");

    /* Without %n the one name, taken or not (commit refuses a taken one). */
    snprintf(path, sizeof path, "%s/s.0.snap", dir);
    gl_outfile_setup(path);
    counter = 5;
    TRUE(gl_outfile_next_name(&counter, got, sizeof got, &index), "fixed name");
    STREQ(got, path, "fixed name, taken");
    EQ(index, 5, "fixed name's number");

    /* 1000 numbers taken: no name. */
    snprintf(path, sizeof path, "%s/s.%%n.snap", dir);
    gl_outfile_setup(path);
    reset_io();
    all_taken = true;
    counter = 0;
    EQ(gl_outfile_next_name(&counter, got, sizeof got, &index), 0, "every number taken");
    EQ(counter, 1000, "1000 tries");
    EQ(calls[OP_FSTATAT], 1000, "each looked at once");
    reset_io();
}

/* ---- 3 and 4. creation and its failures ---------------------------------- */

static char fdir[4200]; /* the directory of the files below */

static void final_path(char *buf, size_t size, const char *name) { snprintf(buf, size, "%s/%s", fdir, name); }

/* Writes "snapshot" to final name `name` through the whole sequence; the
 * result of each step in *opened, *wrote (an errno), the commit's return. */
static bool create(const char *name, bool *opened, int *wrote, gl_outfile_rename_fn fn, void *ctx)
{
    char path[4300];
    struct gl_outfile of;
    final_path(path, sizeof path, name);
    *opened = gl_outfile_open(&of, path);
    *wrote = -1;
    if (!*opened)
        return false;
    *wrote = gl_outfile_write(of.fd, "snapshot", 8);
    if (*wrote != 0) {
        gl_outfile_abort(&of);
        return false;
    }
    return gl_outfile_commit(&of, fn, ctx);
}

/* A rename_fn: the name "other.snap" in the same directory. */
static int renames;
static bool to_other(void *ctx, int fd, char *path, size_t size)
{
    (void)ctx;
    renames++;
    struct stat st;
    TRUE(fstat(fd, &st) == 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY, "the temporary, open for writing");
    snprintf(path, size, "%s/other.snap", fdir);
    return true;
}

/* One failure: the error it returns, and nothing left behind. */
static void expect_failure(const char *what, int op, int err, int expect_errno, bool open_fails, bool write_fails)
{
    char dir_before[4096];
    snprintf(dir_before, sizeof dir_before, "%s", listing(fdir));
    int fds = open_fds();
    reset_io();
    fault.op = op;
    fault.err = err;
    bool opened;
    int wrote;
    errno = 0;
    bool ok = create("f.snap", &opened, &wrote, NULL, NULL);
    int e = errno;
    EQ(ok, 0, what);
    EQ(opened, !open_fails, what);
    if (open_fails)
        EQ(e, expect_errno, what);
    else if (write_fails)
        EQ(wrote, expect_errno, what);
    else
        EQ(e, expect_errno, what);
    STREQ(listing(fdir), dir_before, what); /* no temporary, no final file */
    EQ(open_fds(), fds, what);
    reset_io();
}

static void test_create(void)
{
    char path[4300], other[4300];
    bool opened;
    int wrote;
    make_dir("files");
    snprintf(fdir, sizeof fdir, "%s/files", top);
    umask(0); /* the mode is outfile's own, not the umask's */

    /* The temporary: hidden, 0600, alone until the commit. */
    final_path(path, sizeof path, "a.snap");
    struct gl_outfile of;
    int fds = open_fds();
    TRUE(gl_outfile_open(&of, path), "open");
    TRUE(strncmp(of.tmp_name, ".gpuleak.tmp.", 13) == 0, "a hidden temporary name");
    STREQ(listing(fdir), of.tmp_name, "only the temporary exists");
    struct stat st;
    TRUE(fstat(of.fd, &st) == 0, "fstat");
    EQ(st.st_mode & 07777, 0600, "mode 0600");
    EQ(gl_outfile_write(of.fd, "snapshot", 8), 0, "write");
    STREQ(listing(fdir), of.tmp_name, "no final name before the commit");
    TRUE(gl_outfile_commit(&of, NULL, NULL), "commit");
    STREQ(listing(fdir), "a.snap", "renamed; no temporary left");
    STREQ(contents(path), "snapshot", "contents");
    TRUE(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "final mode 0600");
    EQ(open_fds(), fds, "descriptors closed");

    /* Never over an existing file, nor through a planted symlink. */
    errno = 0;
    EQ(create("a.snap", &opened, &wrote, NULL, NULL), 0, "taken name refused");
    EQ(errno, EEXIST, "taken: EEXIST");
    STREQ(contents(path), "snapshot", "existing file untouched");
    final_path(path, sizeof path, "victim");
    touch_file(path);
    final_path(other, sizeof other, "link.snap");
    if (symlink(path, other) != 0)
        exit(1);
    errno = 0;
    EQ(create("link.snap", &opened, &wrote, NULL, NULL), 0, "planted symlink refused");
    EQ(opened, 0, "symlink: refused before any temporary is made");
    EQ(errno, ELOOP, "symlink: ELOOP");
    STREQ(contents(path), "old", "symlink's target untouched");
    STREQ(listing(fdir), "a.snap link.snap victim", "nothing else left");

    /* A taken name with a rename_fn: another name, picked once. */
    renames = 0;
    TRUE(create("a.snap", &opened, &wrote, to_other, NULL), "renamed on a taken name");
    EQ(renames, 1, "rename_fn called once");
    final_path(other, sizeof other, "other.snap");
    STREQ(contents(other), "snapshot", "written under the other name");
    STREQ(listing(fdir), "a.snap link.snap other.snap victim", "no temporary left");

    /* No RENAME_NOREPLACE (EINVAL): link + unlink instead. */
    reset_io();
    rename_err = EINVAL;
    TRUE(create("linked.snap", &opened, &wrote, NULL, NULL), "link fallback");
    EQ(calls[OP_LINKAT], 1, "linked");
    final_path(path, sizeof path, "linked.snap");
    STREQ(contents(path), "snapshot", "linked contents");
    STREQ(listing(fdir), "a.snap link.snap linked.snap other.snap victim", "temporary unlinked");
    reset_io();

    /* A short write then ENOSPC, EINTR: the loop's cases. */
    write_mode = W_EINTR_ONCE;
    TRUE(create("eintr.snap", &opened, &wrote, NULL, NULL), "EINTR retried");
    final_path(path, sizeof path, "eintr.snap");
    STREQ(contents(path), "snapshot", "complete after EINTR");
    reset_io();

    /* Directories: another user's symlink on the way is refused, ours is
     * followed. */
    final_path(path, sizeof path, "sub");
    make_dir("files/sub");
    final_path(other, sizeof other, "mine");
    if (symlink(path, other) != 0)
        exit(1);
    final_path(path, sizeof path, "mine/x.snap");
    struct gl_outfile of2;
    TRUE(gl_outfile_open(&of2, path), "our own symlink followed");
    gl_outfile_abort(&of2);
    final_path(path, sizeof path, "sub");
    STREQ(listing(path), "", "aborted: nothing left");
    planted_link = other;
    final_path(path, sizeof path, "mine/x.snap");
    errno = 0;
    fds = open_fds();
    EQ(gl_outfile_open(&of2, path), 0, "another user's symlink refused");
    EQ(errno, ELOOP, "refused: ELOOP");
    EQ(open_fds(), fds, "refused: no descriptor");
    final_path(path, sizeof path, "sub");
    STREQ(listing(path), "", "refused: nothing created");
    reset_io();

    /* Every failure: its errno, nothing left, nothing open. */
    expect_failure("directory open fails", OP_OPEN, EACCES, EACCES, true, false);
    expect_failure("temporary open fails", OP_OPENAT, EROFS, EROFS, true, false);
    expect_failure("write fails: ENOSPC", OP_WRITE, ENOSPC, ENOSPC, false, true);
    expect_failure("write fails: EIO", OP_WRITE, EIO, EIO, false, true);
    expect_failure("fstat fails", OP_FSTAT, EIO, EIO, false, false);
    expect_failure("close reports EIO", OP_CLOSE, EIO, EIO, false, false);
    expect_failure("rename fails", OP_RENAMEAT2, EIO, EIO, false, false);
    expect_failure("rename across devices", OP_RENAMEAT2, EXDEV, EXDEV, false, false);
    expect_failure("rename: no space for the name", OP_RENAMEAT2, ENOSPC, ENOSPC, false, false);
    /* the link fallback fails too */
    {
        char before[4096];
        snprintf(before, sizeof before, "%s", listing(fdir));
        reset_io();
        rename_err = ENOSYS;
        final_path(path, sizeof path, "f.snap");
        struct gl_outfile of3;
        TRUE(gl_outfile_open(&of3, path) && gl_outfile_write(of3.fd, "x", 1) == 0, "open for the link case");
        fault.op = OP_LINKAT;
        fault.err = EPERM;
        errno = 0;
        EQ(gl_outfile_commit(&of3, NULL, NULL), 0, "link fallback fails");
        EQ(errno, EPERM, "link fallback: EPERM");
        STREQ(listing(fdir), before, "link fallback: nothing left");
        reset_io();
    }
    /* A short write, then ENOSPC: the error, not a partial file. */
    {
        char before[4096];
        snprintf(before, sizeof before, "%s", listing(fdir));
        reset_io();
        write_mode = W_SHORT_THEN_ENOSPC;
        EQ(create("f.snap", &opened, &wrote, NULL, NULL), 0, "short write then ENOSPC");
        EQ(wrote, ENOSPC, "short write: ENOSPC");
        EQ(calls[OP_WRITE], 2, "the rest was tried");
        STREQ(listing(fdir), before, "short write: nothing left");
        write_mode = W_ZERO;
        EQ(create("f.snap", &opened, &wrote, NULL, NULL), 0, "a write of nothing");
        EQ(wrote, EIO, "nothing written: EIO");
        STREQ(listing(fdir), before, "write of nothing: nothing left");
        reset_io();
    }
}

/* Writes "snapshot" to name (in fdir) through the library; the errno of a
 * failure, 0 on success. */
static int write_target(const char *path)
{
    struct gl_outfile of;
    if (!gl_outfile_open(&of, path))
        return errno;
    int rc = gl_outfile_write(of.fd, "snapshot", 8);
    if (rc != 0) {
        gl_outfile_abort(&of);
        return rc;
    }
    return gl_outfile_commit(&of, NULL, NULL) ? 0 : errno;
}

static void test_in_place(void)
{
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/inplace", top);
    if (mkdir(dir, 0700) != 0)
        exit(1);
    int fds = open_fds();
    struct stat st;

    snprintf(path, sizeof path, "%s/fifo", dir);
    if (mkfifo(path, 0600) != 0)
        exit(1);
    EQ(write_target(path), ENXIO, "a FIFO without a reader: refused at once");
    int rd = open(path, O_RDONLY | O_NONBLOCK);
    EQ(write_target(path), 0, "a FIFO with a reader");
    char buf[16] = {0};
    EQ(read(rd, buf, sizeof buf), 8, "the reader got the bytes");
    STREQ(buf, "snapshot", "what the reader got");
    close(rd);
    TRUE(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "still a FIFO");

    int pipefd[2];
    if (pipe(pipefd) != 0)
        exit(1);
    snprintf(path, sizeof path, "/dev/fd/%d", pipefd[1]);
    EQ(write_target(path), 0, "/dev/fd/N");
    memset(buf, 0, sizeof buf);
    EQ(read(pipefd[0], buf, sizeof buf), 8, "the descriptor got the bytes");
    STREQ(buf, "snapshot", "what the descriptor got");
    close(pipefd[0]);
    close(pipefd[1]);
    /* A pipe whose reader is gone: EPIPE, and the SIGPIPE that came with it
     * (default action: death) neither delivered nor left pending. */
    if (pipe(pipefd) != 0)
        exit(1);
    close(pipefd[0]);
    snprintf(path, sizeof path, "/dev/fd/%d", pipefd[1]);
    EQ(write_target(path), EPIPE, "a pipe without its reader: EPIPE");
    sigset_t pending;
    TRUE(sigpending(&pending) == 0 && !sigismember(&pending, SIGPIPE), "no SIGPIPE left pending");
    close(pipefd[1]);
    snprintf(path, sizeof path, "/proc/self/fd/%d", 999);
    EQ(write_target(path), EBADF, "a descriptor not open");

    EQ(write_target(dir), EISDIR, "a directory");

    snprintf(path, sizeof path, "%s/null", dir);
    if (geteuid() == 0 && mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        EQ(write_target(path), 0, "a device node (null)");
        TRUE(lstat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
             "still the device node");
        STREQ(listing(dir), "fifo null", "nothing left beside them");
    } else {
        printf("outfile: device node case skipped (not root, or mknod refused)\n");
        STREQ(listing(dir), "fifo", "nothing left beside them");
    }
    EQ(open_fds(), fds, "descriptors closed");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    real_io = gl_outfile_io;
    gl_outfile_io = (struct gl_outfile_io){
        .open = f_open, .openat = f_openat, .write = f_write, .fstat = f_fstat, .fstatat = f_fstatat,
        .lstat = f_lstat, .renameat2 = f_renameat2, .linkat = f_linkat, .unlinkat = f_unlinkat,
        .close = f_close,
    };
    const char *tmp = getenv("TMPDIR");
    snprintf(top, sizeof top, "%s/gl-outfile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(top) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_expand();
    test_next_name();
    test_create();
    test_in_place();
    if (chdir("/") == 0)
        nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("outfile ok\n");
    return 0;
}
