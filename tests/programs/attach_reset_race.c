/* A detach drops gpuleak's state while hooks handed out during the attach
 * keep running (tests/t_attach_reset_race.sh; docs/attach.md "Detach"):
 *   attach_reset_race LIBGPULEAK OUTPUT-PATTERN
 * dlopens the library as gdb does and attaches in-process; while attached
 * it fetches cudaMalloc with dlsym (its slot holds the hook then, so the
 * pointer is the hook, and stays it after the detach).  4 threads call
 * that pointer and cudaFree without pause while the main thread detaches
 * and attaches again 20 times, so that the detach's drop runs with calls
 * in flight through the hook.  The threads stop and are joined; 3 MiB is
 * allocated attached, the process detached, the 3 MiB freed, and a last
 * attach and detach run with nothing in flight.  Prints the counts. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include <cuda_runtime_api.h>

#define THREADS 4
#define CYCLES 20

typedef cudaError_t (*malloc_fn)(void **, size_t);

static _Atomic(malloc_fn) handed;
static atomic_bool stop;
static atomic_long calls, failed;

static void *worker(void *arg)
{
    while (!atomic_load(&stop)) {
        void *p = NULL;
        if (atomic_load(&handed)(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess)
            atomic_fetch_add(&failed, 1);
        atomic_fetch_add(&calls, 1);
    }
    return arg;
}

static void sleep_ms(long ms)
{
    struct timespec t = {0, ms * 1000 * 1000};
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (h == NULL)
        return 1;
    int (*begin)(const char *) = (int (*)(const char *))dlsym(h, "gpuleak_attach_begin");
    int (*end)(void) = (int (*)(void))dlsym(h, "gpuleak_attach_end");
    if (begin == NULL || end == NULL)
        return 1;
    char config[1200];
    snprintf(config, sizeof config, "GPULEAK_OUTPUT=%s\nGPULEAK_DEPTH=16\n", argv[2]);
    int begins = 0, ends = 0;
    begins += begin(config) == 0;
    atomic_store(&handed, (malloc_fn)dlsym(RTLD_DEFAULT, "cudaMalloc"));
    malloc_fn direct = cudaMalloc;
    printf("handed out the hook %d\n", atomic_load(&handed) != direct);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int c = 0; c < CYCLES; c++) {
        long seen = atomic_load(&calls);
        while (atomic_load(&calls) < seen + 200) /* calls in flight at the drop */
            sleep_ms(1);
        ends += end() == 0;
        sleep_ms(2);
        begins += begin(config) == 0;
    }
    atomic_store(&stop, true);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    void *kept = NULL; /* made attached, freed detached: the next attach must not list it */
    int kept_ok = cudaMalloc(&kept, 3 << 20) == cudaSuccess;
    ends += end() == 0;
    kept_ok &= cudaFree(kept) == cudaSuccess;
    begins += begin(config) == 0; /* nothing in flight: an empty start */
    ends += end() == 0;
    printf("kept and freed %d\n", kept_ok);
    printf("attaches %d detaches %d\n", begins, ends);
    printf("calls %s failed %ld\n", atomic_load(&calls) > CYCLES * 200 ? "enough" : "too few", atomic_load(&failed));
    return 0;
}
