/* What every subcommand of the gpuleak launcher shares: its own name and
 * directory, and where its library, reporter and helpers are, found
 * relative to the launcher's binary as in the build tree and in an
 * installed prefix (bin/gpuleak beside bin/gpuleak-report, ../lib/,
 * ../libexec/gpuleak/). */
#ifndef GL_LAUNCHER_H
#define GL_LAUNCHER_H

#include <stdnoreturn.h>

struct launcher {
    const char *argv0; /* as typed: how the end lines name the launcher */
    const char *prog;  /* its last component, the prefix of every message */
    char *exe;         /* the binary, links resolved */
    char *here;        /* its directory */
};

/* Fills the launcher's names from argv[0] and /proc/self/exe. */
void launcher_init(const char *argv0);
const struct launcher *launcher(void);

/* "PROG: " then the message on stderr, one line, and exit 2. */
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new string of printf's output (exits on no memory). */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* libgpuleak.so: $GPULEAK_LIB, else ../lib/libgpuleak.so or
 * ../lib/gpuleak/libgpuleak.so resolved; dies naming the directory. */
char *find_lib(void);

/* NAME searched in $PATH as `command -v` does (an empty entry is the
 * current directory), or NULL. */
char *search_path(const char *name);

/* gpuleak-report beside the launcher, else the one on PATH; dies. */
char *report_bin(void);

/* The helper ../libexec/gpuleak/REL, executable, or dies naming it as
 * "WHAT: cannot find PATH (install gpuleak completely)". */
char *libexec_tool(const char *what, const char *rel);

/* execv(path, argv), or dies saying why. */
noreturn void exec_or_die(const char *path, char *const argv[]);

/* The command the end lines name to call the launcher again: argv[0]
 * quoted when it has a '/', else the bare name. */
char *self_cmd(void);

/* The current directory as the shell knows it (bash's $PWD): the inherited
 * $PWD when it is absolute and is this directory, else the physical path;
 * `fallback` when even that cannot be had. */
char *shell_pwd(const char *fallback);

/* The first line of the file at path, without its newline ("" for an
 * empty file), or NULL when it cannot be opened. */
char *file_first_line(const char *path);

#endif
