/* dlclose_host: loads the CUDA runtime with dlopen(RTLD_LOCAL) (as a Python
 * extension would), allocates through the functions dlsym hands out (the
 * hooks, under gpuleak), unloads it, loads other libraries so that the next
 * load lands elsewhere, and does it again: the hooks must follow the
 * runtime to its new address.  Leaks 1 MiB in the last round (LEAK-SITE).
 * Prints one line per round; exit 3. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

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
        struct link_map *lm = NULL;
        unsigned long base = dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 ? (unsigned long)lm->l_addr : 0;
        if (getenv("DLCLOSE_HOST_VERBOSE") != NULL)
            fprintf(stderr, "runtime at %#lx\n", base);
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
        /* Take the address range the runtime had, so that it loads
         * elsewhere next time and its old code is gone for good. */
        if (base != 0)
            if (mmap((void *)base, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED && getenv("DLCLOSE_HOST_VERBOSE"))
                perror("mmap");
        if (nf < 8 && round < 4)
            fillers[nf++] = dlopen(filler_libs[round], RTLD_NOW | RTLD_LOCAL);
    }
    (void)fillers;
    return 3;
}
