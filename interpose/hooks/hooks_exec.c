/* The exec family, interposed: an exec replaces the image and runs no exit
 * handler nor destructor, so the image's last snapshot is written first
 * (reason exec, lifecycle.c gl_snapshot_before_exec), and the launcher's
 * mark names it.  A failed exec returns -1 with its errno, and the process
 * goes on owing its final snapshot.
 *
 * Each entry point is hooked: glibc's execv, execvp, execvpe, execl,
 * execle, execlp and fexecve reach execve by a call inside libc, past the
 * PLT.  posix_spawn, system and popen exec in a new process (a vfork-like
 * child, not this image): nothing to write.  A raw execve system call is
 * out of reach, as exit_group is. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/libc_dl.h"
#include "base/self.h"
#include "control/lifecycle.h"

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

/* The next definition of name after ours (libc's), looked up once; NULL
 * when there is none or it is ours. */
static void *next_exec(void *_Atomic *slot, const char *name)
{
    void *fn = atomic_load_explicit(slot, memory_order_acquire);
    if (fn == NULL) {
        fn = gl_libc_dlsym(RTLD_NEXT, name);
        atomic_store_explicit(slot, fn, memory_order_release);
    }
    return fn == NULL || gl_is_own_address((uintptr_t)fn) ? NULL : fn;
}

/* The exec returned (it failed): the process goes on; errno is the exec's. */
static int exec_returned(int rc)
{
    int saved = errno;
    gl_exec_failed();
    errno = saved;
    return rc;
}

static int no_function(void)
{
    errno = ENOSYS;
    return -1;
}

GL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    static void *_Atomic real;
    execve_fn fn = (execve_fn)next_exec(&real, "execve");
    if (fn == NULL)
        return no_function();
    gl_snapshot_before_exec();
    return exec_returned(fn(path, argv, envp));
}

GL_EXPORT int execv(const char *path, char *const argv[])
{
    static void *_Atomic real;
    execv_fn fn = (execv_fn)next_exec(&real, "execv");
    if (fn == NULL)
        return no_function();
    gl_snapshot_before_exec();
    return exec_returned(fn(path, argv));
}

GL_EXPORT int execvp(const char *file, char *const argv[])
{
    static void *_Atomic real;
    execv_fn fn = (execv_fn)next_exec(&real, "execvp");
    if (fn == NULL)
        return no_function();
    gl_snapshot_before_exec();
    return exec_returned(fn(file, argv));
}

GL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    static void *_Atomic real;
    execvpe_fn fn = (execvpe_fn)next_exec(&real, "execvpe");
    if (fn == NULL)
        return no_function();
    gl_snapshot_before_exec();
    return exec_returned(fn(file, argv, envp));
}

GL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    static void *_Atomic real;
    fexecve_fn fn = (fexecve_fn)next_exec(&real, "fexecve");
    if (fn == NULL)
        return no_function();
    gl_snapshot_before_exec();
    return exec_returned(fn(fd, argv, envp));
}

GL_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    static void *_Atomic real;
    execveat_fn fn = (execveat_fn)next_exec(&real, "execveat");
    if (fn == NULL)
        return no_function();
    gl_snapshot_before_exec();
    return exec_returned(fn(dirfd, path, argv, envp, flags));
}

/* The arguments of an execl-style call after arg0, up to its NULL, counted
 * on a copy of the list (it is walked twice, as glibc's execl does). */
static size_t count_args(va_list ap)
{
    va_list counting;
    va_copy(counting, ap);
    size_t n = 1;
    while (va_arg(counting, char *) != NULL)
        n++;
    va_end(counting);
    return n;
}

static void collect_args(char **argv, const char *arg0, size_t n, va_list ap)
{
    argv[0] = (char *)arg0;
    for (size_t i = 1; i <= n; i++)
        argv[i] = va_arg(ap, char *); /* the last is the NULL */
}

/* Which vector call an execl-style call becomes. */
enum exec_list_kind { EXEC_LIST_PATH, EXEC_LIST_SEARCH, EXEC_LIST_ENV };

/* execl, execlp and execle: the list made a vector on the stack, then the
 * vector call, hooked above, which writes the snapshot.  For execle the
 * environment follows the list's NULL. */
static int exec_list(enum exec_list_kind kind, const char *path, const char *arg0, va_list ap)
{
    size_t n = count_args(ap);
    char *argv[n + 1];
    collect_args(argv, arg0, n, ap);
    switch (kind) {
    case EXEC_LIST_SEARCH:
        return execvp(path, argv);
    case EXEC_LIST_ENV:
        return execve(path, argv, va_arg(ap, char *const *));
    case EXEC_LIST_PATH:
        break;
    }
    return execv(path, argv);
}

GL_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list(EXEC_LIST_PATH, path, arg, ap);
    va_end(ap);
    return rc;
}

GL_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list(EXEC_LIST_SEARCH, file, arg, ap);
    va_end(ap);
    return rc;
}

GL_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list(EXEC_LIST_ENV, path, arg, ap);
    va_end(ap);
    return rc;
}
