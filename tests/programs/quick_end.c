/* A process that ends without exit(): no atexit handler, no destructor
 * (tests/t_check_quick_end.sh).  Each mode leaks 8 MiB from leak_8mib and
 * then:
 *
 *   _exit          _exit(0)
 *   _Exit          _Exit(0)
 *   fork-_exit     the parent allocates and frees 4 KiB, then forks; the
 *                  child leaks and _exit(0)s; the parent waits for it and
 *                  returns 0 from main (its own snapshot is clean)
 *   exit-group     the exit_group system call, past libc (status 0)
 *   sigkill        raise(SIGKILL)
 *   quick_exit     registers an at_quick_exit handler that frees a 1 MiB
 *                  buffer and prints "at_quick_exit ran", then
 *                  quick_exit(7): the handler runs, the status is 7 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void leak_8mib(void)
{
    void *p = NULL;
    if (cudaMalloc(&p, 8u << 20) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(2);
    }
}

static int fork_child_exits(void)
{
    void *p = NULL;
    if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess)
        return 2;
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        leak_8mib();
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 2;
    return 0;
}

static void *freed_at_quick_exit;

static void free_at_quick_exit(void)
{
    cudaFree(freed_at_quick_exit);
    printf("at_quick_exit ran\n");
    fflush(stdout);
}

static void quick_exit_after_handler(void)
{
    if (cudaMalloc(&freed_at_quick_exit, 1u << 20) != cudaSuccess || at_quick_exit(free_at_quick_exit) != 0)
        exit(2);
    quick_exit(7);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    if (!strcmp(how, "fork-_exit"))
        return fork_child_exits();
    leak_8mib();
    if (!strcmp(how, "_exit"))
        _exit(0);
    if (!strcmp(how, "_Exit"))
        _Exit(0);
    if (!strcmp(how, "exit-group"))
        syscall(SYS_exit_group, 0);
    if (!strcmp(how, "sigkill"))
        raise(SIGKILL);
    if (!strcmp(how, "quick_exit"))
        quick_exit_after_handler();
    fprintf(stderr, "usage: quick_end _exit|_Exit|fork-_exit|exit-group|sigkill|quick_exit\n");
    return 2;
}
