/* Two plugins, each with its own runtime, loaded RTLD_LOCAL (like two Python
 * extension modules built against different CUDA versions).  Runtime state
 * is per runtime: an out-of-memory error in the second plugin's runtime is
 * that runtime's last error, not the first's.  Prints what each call
 * returned. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*alloc_fn)(unsigned long);
typedef int (*error_fn)(void);

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    void *a = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *b = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    alloc_fn alloc_a = (alloc_fn)dlsym(a, "plugin_alloc");
    alloc_fn alloc_b = (alloc_fn)dlsym(b, "plugin_alloc");
    error_fn last_a = (error_fn)dlsym(a, "plugin_last_error");
    error_fn last_b = (error_fn)dlsym(b, "plugin_last_error");
    printf("a alloc: %d\n", alloc_a(2000));
    printf("b oom: %d\n", alloc_b(1ul << 50));
    printf("a last error: %d\n", last_a());
    printf("b last error: %d\n", last_b());
    printf("b alloc: %d\n", alloc_b(1000));
    return 0;
}
