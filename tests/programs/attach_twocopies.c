/* Two copies of libgpuleak in one process (tests/t_attach_twocopies.sh).
 *
 * attach_twocopies global LIB COPY SNAPDIR: COPY (libgpuleak under another
 * file name) is loaded RTLD_GLOBAL, in front of the program's lookups as a
 * preloaded renamed copy is; then LIB, as gdb loads it for `gpuleak
 * attach` (RTLD_NOW, not global), is asked to attach.  It must refuse as
 * preloaded (2) and change nothing.  Prints "lib N", "slots N",
 * "malloc N".
 *
 * attach_twocopies local LIB COPY SNAPDIR: both loaded as attaches load
 * them (two installations' libraries, one process).  COPY attaches (0);
 * LIB, loaded then, is refused as tracked already (1) while COPY is attached; COPY
 * detaches (0); LIB is still refused (8: another copy loaded), since two
 * copies' hooks would each take the other's for the real functions.
 * Prints "copy N", "lib N", "copy end N", "lib again N", "lib end N".
 *
 * attach_twocopies start LIB STATUS SNAPDIR, run with a renamed copy in
 * LD_PRELOAD: LIB is loaded and its gpuleak_attach_start (gdb's entry
 * point) is called; its thread's answer, written to STATUS, is printed:
 * "start N", "status LINE".  The thread must run LIB's attach, not the
 * preloaded copy's (a call to an exported name binds to the first
 * definition in the process). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

typedef int (*begin_fn)(const char *);
typedef int (*end_fn)(void);
typedef long (*slots_fn)(void);

static int begin_in(void *h, const char *config)
{
    begin_fn begin = (begin_fn)dlsym(h, "gpuleak_attach_begin");
    return begin ? begin(config) : -100;
}

static int end_in(void *h)
{
    end_fn end = (end_fn)dlsym(h, "gpuleak_attach_end");
    return end ? end() : -100;
}

static int global_copy(void *lib, const char *config)
{
    printf("lib %d\n", begin_in(lib, config));
    slots_fn slots = (slots_fn)dlsym(lib, "gpuleak_attach_slots");
    printf("slots %ld\n", slots ? slots() : -100);
    void *p = NULL;
    printf("malloc %d\n", (int)cudaMalloc(&p, 4096));
    return 0;
}

static int local_copies(const char *lib_path, void *copy, const char *config)
{
    printf("copy %d\n", begin_in(copy, config));
    void *lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL); /* as the next attach loads it */
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    printf("lib %d\n", begin_in(lib, config));
    printf("copy end %d\n", end_in(copy));
    printf("lib again %d\n", begin_in(lib, config));
    printf("lib end %d\n", end_in(lib));
    return 0;
}

/* gpuleak_attach_start in lib, then the line its thread writes to status. */
static int start_in(void *lib, const char *status, const char *config)
{
    typedef int (*start_fn)(const char *, const char *);
    start_fn start = (start_fn)dlsym(lib, "gpuleak_attach_start");
    printf("start %d\n", start ? start(config, status) : -100);
    char line[256] = "";
    for (int i = 0; i < 3000 && line[0] == '\0'; i++) {
        FILE *f = fopen(status, "r");
        if (f != NULL) {
            if (fgets(line, sizeof line, f) == NULL || strchr(line, '\n') == NULL)
                line[0] = '\0';
            fclose(f);
        }
        if (line[0] == '\0')
            usleep(10 * 1000);
    }
    printf("status %s", line[0] ? line : "none\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    bool global = strcmp(argv[1], "global") == 0;
    char config[4200];
    snprintf(config, sizeof config, "GPULEAK_OUTPUT=%s\n", argv[4]);
    if (strcmp(argv[1], "start") == 0) {
        void *lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        return lib ? start_in(lib, argv[3], config) : 1;
    }
    void *copy = dlopen(argv[3], RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (copy == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    if (!global)
        return local_copies(argv[2], copy, config);
    void *lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    return global_copy(lib, config);
}
