/* What `gpuleak attach` has gdb do, done by the program itself, so that the
 * library's side (slots written and put back, memory made before the
 * attach) is tested without ptrace and under the sanitizers
 * (tests/t_attach_inproc.sh):
 *   attach_inproc LIBGPULEAK OUTPUT-PATTERN PLUGIN LATE-PLUGIN
 * loads PLUGIN (a library that imports cudaMalloc), allocates 2 MiB, dlopens the library (RTLD_NOW, not global), calls
 * gpuleak_attach_begin, unloads PLUGIN (its slots, written by the attach,
 * are gone with it), loads LATE-PLUGIN and, once the attach has reached it
 * (its slot count grew), leaks 3000 bytes through it, leaks 1000 bytes,
 * frees the 2 MiB, calls
 * gpuleak_attach_end, leaks 5000 bytes; prints each answer, and whether
 * cudaMalloc's address as the program sees it (through its GOT) was the
 * hook while attached and the runtime's again after. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include <cuda_runtime_api.h>

typedef cudaError_t (*malloc_fn)(void **, size_t);

/* Read through the GOT at each call, never folded by the compiler. */
static malloc_fn seen_malloc(void)
{
    malloc_fn f = cudaMalloc;
    __asm__ volatile("" : "+r"(f));
    return f;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    void *plugin = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
    if (plugin == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    void *pre = NULL, *p = NULL;
    if (cudaMalloc(&pre, 2 << 20) != cudaSuccess)
        return 1;
    malloc_fn before = seen_malloc();
    void *h = dlopen(argv[1], RTLD_NOW);
    if (h == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    int (*begin)(const char *) = (int (*)(const char *))dlsym(h, "gpuleak_attach_begin");
    int (*end)(void) = (int (*)(void))dlsym(h, "gpuleak_attach_end");
    long (*slots)(void) = (long (*)(void))dlsym(h, "gpuleak_attach_slots");
    const char *(*last)(void) = (const char *(*)(void))dlsym(h, "gpuleak_attach_last_snapshot");
    if (begin == NULL || end == NULL || slots == NULL || last == NULL)
        return 1;
    char config[1200];
    snprintf(config, sizeof config, "GPULEAK_OUTPUT=%s\nGPULEAK_DEPTH=16\n", argv[2]);
    printf("begin %d\n", begin(config));
    printf("again %d\n", begin(config));
    printf("slots %s\n", slots() > 0 ? "some" : "none");
    printf("hooked %d\n", seen_malloc() != before);
    printf("unload %d\n", dlclose(plugin));
    void *still = dlopen(argv[3], RTLD_NOW | RTLD_NOLOAD);
    printf("gone %d\n", still == NULL);
    long slots_before = slots();
    void *late = dlopen(argv[4], RTLD_NOW | RTLD_LOCAL);
    int (*late_leak)(size_t) = late ? (int (*)(size_t))dlsym(late, "attach_plugin_leak") : NULL;
    if (late_leak == NULL)
        return 1;
    /* The writer's tick reaches it within 250 ms; 20 s on a loaded machine. */
    struct timespec ms = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 2000 && slots() == slots_before; i++)
        nanosleep(&ms, NULL);
    printf("late plugin reached %d\n", slots() > slots_before);
    printf("late leak %d\n", late_leak(3000));
    printf("leak %d\n", (int)cudaMalloc(&p, 1000)); /* LEAK-LINE: attached */
    printf("free-pre %d\n", (int)cudaFree(pre));
    printf("end %d\n", end());
    printf("end again %d\n", end());
    printf("slots %ld\n", slots());
    printf("restored %d\n", seen_malloc() == before);
    printf("leak %d\n", (int)cudaMalloc(&p, 5000)); /* LEAK-LINE: detached */
    printf("snapshot %s\n", last());
    return 0;
}
