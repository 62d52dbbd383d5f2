/* Which object answers each kind of dlsym/dlvsym lookup, printed one per
 * line as "what object" (object: the file name of the library whose code
 * the result points into, or NULL).  Under gpuleak an explicit lookup of an
 * intercepted name answers with libgpuleak's hook, and everything else --
 * other names, RTLD_NEXT, RTLD_DEFAULT, dlvsym, a name that does not exist
 * -- with what glibc alone would give.  Used by scripts/check-aarch64.sh to
 * check the architecture's trampolines (dlsym_trampoline.S). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void show(const char *what, void *p)
{
    Dl_info i;
    const char *name = "NULL";
    if (p != NULL && dladdr(p, &i) != 0 && i.dli_fname != NULL)
        name = strrchr(i.dli_fname, '/') ? strrchr(i.dli_fname, '/') + 1 : i.dli_fname;
    printf("%s %s\n", what, name);
}

int main(void)
{
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (rt == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    show("handle:cudaMalloc", dlsym(rt, "cudaMalloc"));
    show("handle:cudaGetDeviceCount", dlsym(rt, "cudaGetDeviceCount"));
    show("handle:missing", dlsym(rt, "no_such_symbol"));
    show("next:malloc", dlsym(RTLD_NEXT, "malloc"));
    show("default:printf", dlsym(RTLD_DEFAULT, "printf"));
    void *dl = dlopen("libdl.so.2", RTLD_NOW);
    show("vsym:dlopen", dl ? dlvsym(RTLD_DEFAULT, "dlopen", "GLIBC_2.34") : NULL);
    int (*count)(int *) = NULL;
    void *f = dlsym(rt, "cudaGetDeviceCount");
    memcpy(&count, &f, sizeof f);
    int n = -1;
    if (count != NULL && count(&n) == 0)
        printf("devices %d\n", n);
    return 0;
}
