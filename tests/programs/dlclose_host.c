/* dlclose_host: loads the CUDA runtime with dlopen(RTLD_LOCAL) (as a Python
 * extension would), allocates through the functions dlsym hands out (the
 * hooks, under gpuleak), unloads it, loads other libraries so that the next
 * load lands elsewhere, and does it again: the hooks must follow the
 * runtime to its new address.  Leaks 1 MiB in the last round (LEAK-SITE).
 * Prints one line per round; exit 3. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    void *fillers[8] = {0};
    int nf = 0;
    static const char *const filler_libs[] = {"libm.so.6", "libz.so.1", "liblzma.so.5", "libgcc_s.so.1"};
    for (int round = 0; round < 4; round++) {
        void *h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        malloc_fn m = (malloc_fn)dlsym(h, "cudaMalloc");
        free_fn f = (free_fn)dlsym(h, "cudaFree");
        void *p = NULL;
        if (m == NULL || f == NULL || m(&p, 1 << 20) != 0 || f(p) != 0)
            return 1;
        if (round == 3 && m(&p, 1 << 20) != 0) /* LEAK-SITE: dlclose_host */
            return 1;
        printf("round %d ok\n", round);
        if (round == 3)
            break;
        dlclose(h);
        if (dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD) != NULL)
            printf("runtime still loaded after dlclose\n");
        /* Take the address range the runtime had. */
        if (nf < 8 && round < 4)
            fillers[nf++] = dlopen(filler_libs[round], RTLD_NOW | RTLD_LOCAL);
    }
    (void)fillers;
    return 3;
}
