/* A process whose image is replaced by exec after CUDA calls
 * (tests/t_check_exec.sh).  Modes:
 *
 *   execv-true     leaks 8 MiB from leak_before_exec, then execv("/bin/true")
 *   execlp-true    the same through execlp("true", ...) (glibc reaches
 *                  execve inside libc: the hook must be execlp's own)
 *   execl-true     the same through execl("/bin/true", ...)
 *   execle-env     the same through execle("/usr/bin/env", ...) with the
 *                  environment GL_EXECLE=passed, which env prints
 *   exec-self      leaks 8 MiB, then execv's itself as "after": that image
 *                  leaks 4 MiB from leak_after_exec and returns 0
 *   exec-self-kill the same, but that image raises SIGKILL after its leak
 *   exec-fail      leaks 8 MiB, execv's a program that does not exist,
 *                  checks that errno is ENOENT (else exits 4), frees the
 *                  8 MiB and returns 0: one image, no leak */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void *leak_before_exec(void)
{
    void *p = NULL;
    if (cudaMalloc(&p, 8u << 20) != cudaSuccess)
        exit(2);
    return p;
}

__attribute__((noinline)) static void leak_after_exec(void)
{
    void *p = NULL;
    if (cudaMalloc(&p, 4u << 20) != cudaSuccess)
        exit(2);
}

static int exec_fails(void)
{
    void *p = leak_before_exec();
    char *argv[] = {"gone", NULL};
    execv("/nonexistent/gpuleak-no-such-program", argv);
    if (errno != ENOENT)
        return 4;
    return cudaFree(p) == cudaSuccess ? 0 : 2;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    if (!strcmp(how, "after") || !strcmp(how, "after-kill")) {
        leak_after_exec();
        if (!strcmp(how, "after-kill"))
            raise(SIGKILL);
        return 0;
    }
    if (!strcmp(how, "exec-fail"))
        return exec_fails();
    leak_before_exec();
    if (!strcmp(how, "execv-true")) {
        char *args[] = {"true", NULL};
        execv("/bin/true", args);
    } else if (!strcmp(how, "execlp-true")) {
        execlp("true", "true", (char *)NULL);
    } else if (!strcmp(how, "execl-true")) {
        execl("/bin/true", "true", (char *)NULL);
    } else if (!strcmp(how, "execle-env")) {
        char *env[] = {"GL_EXECLE=passed", NULL};
        execle("/usr/bin/env", "env", (char *)NULL, env);
    } else if (!strcmp(how, "exec-self") || !strcmp(how, "exec-self-kill")) {
        char *args[] = {argv[0], strcmp(how, "exec-self") ? "after-kill" : "after", NULL};
        execv("/proc/self/exe", args);
    } else {
        fprintf(stderr, "usage: exec_image execv-true|execlp-true|execl-true|execle-env|exec-self|exec-self-kill|exec-fail\n");
        return 2;
    }
    perror("exec");
    return 3;
}
