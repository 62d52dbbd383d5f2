/* Processes that exit at the same instant, for snapshot names shared across
 * processes (a GPULEAK_OUTPUT without %p).
 *   exit_together N
 * Forks N children; child i (1..N) leaks i * 4096 bytes, the parent 0 bytes
 * (it allocates and frees), so each snapshot says whose it is.  All wait on
 * one pipe; the parent closes it, and all exit together. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 1 || n > 1000) {
        fprintf(stderr, "usage: exit_together N (1..1000)\n");
        return 2;
    }
    void *p;
    if (cudaMalloc(&p, 512) != cudaSuccess || cudaFree(p) != cudaSuccess)
        return 1;
    int gate[2], ready[2];
    if (pipe(gate) != 0 || pipe(ready) != 0)
        return 1;
    for (int i = 1; i <= n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            close(gate[1]);
            close(ready[0]);
            if (cudaMalloc(&p, (size_t)i * 4096) != cudaSuccess)
                _exit(1);
            char c = 'r';
            if (write(ready[1], &c, 1) != 1)
                _exit(1);
            while (read(gate[0], &c, 1) < 0) /* EOF when the parent closes it */
                ;
            exit(0);
        }
    }
    close(ready[1]);
    char c;
    for (int i = 0; i < n; i++) /* every child has allocated */
        if (read(ready[0], &c, 1) != 1)
            return 1;
    close(gate[1]);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        int status;
        if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 1;
    }
    return failed;
}
