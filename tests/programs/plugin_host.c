/* Loads a plugin the way Python loads extension modules: dlopen with
 * RTLD_LOCAL, so the plugin's libcudart is invisible to the global scope and
 * to dlsym(RTLD_NEXT, ...).  Then runs its run_kinds(mode). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: plugin_host PLUGIN.so MODE\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*run)(const char *) = (int (*)(const char *))dlsym(h, "run_kinds");
    if (run == NULL) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 1;
    }
    return run(argv[2]);
}
