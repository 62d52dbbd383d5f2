/* Two copies of libgpuleak in one process (tests/t_attach_twocopies.sh):
 * attach_twocopies LIB COPY SNAPDIR loads COPY (libgpuleak under another
 * file name, as a program that preloads a renamed copy has it), then LIB,
 * as gdb does for `gpuleak attach` (RTLD_NOW, not global), and asks LIB to
 * attach.  LIB must refuse as preloaded (2) and change nothing: cudaMalloc
 * still works, LIB's slots count stays -1 (not attached).  Then COPY, the
 * first loaded, is asked: it finds LIB the same way and refuses too.
 * Prints "lib N", "slots N", "copy N", "malloc N". */
#include <dlfcn.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

typedef int (*begin_fn)(const char *);
typedef long (*slots_fn)(void);

static int begin_in(void *h, const char *config)
{
    begin_fn begin = h ? (begin_fn)dlsym(h, "gpuleak_attach_begin") : NULL;
    return begin ? begin(config) : -100;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    void *copy = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (copy == NULL || lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    char config[4200];
    snprintf(config, sizeof config, "GPULEAK_OUTPUT=%s\n", argv[3]);
    printf("lib %d\n", begin_in(lib, config));
    slots_fn slots = (slots_fn)dlsym(lib, "gpuleak_attach_slots");
    printf("slots %ld\n", slots ? slots() : -100);
    printf("copy %d\n", begin_in(copy, config));
    void *p = NULL;
    printf("malloc %d\n", (int)cudaMalloc(&p, 4096));
    return 0;
}
