/* Replays NVIDIA's runtime's recorded driver requests
 * (tools/fakecuda/real_runtime_requests.txt) exactly as it makes them:
 * dlopen("libcuda.so.1", RTLD_NOW), one dlsym of cuGetProcAddress_v2, each
 * request at its version and flags with symbolStatus NULL, through the
 * dlsym'd pointer or the one fetched as cuGetProcAddress@12000 as recorded.
 * For each request it prints what came back and where it lies (dladdr):
 *   order symbol version flags rc object exported-name-or--
 * so tests/t_real_runtime.sh can check, under LD_PRELOAD=libgpuleak.so,
 * which entry points are handed gpuleak's wrappers, and of which ABI. */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay_requests real_runtime_requests.txt\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    gpa_fn dlsymd = h ? (gpa_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
    if (!dlsymd) {
        fprintf(stderr, "replay_requests: no driver: %s\n", dlerror());
        return 1;
    }
    gpa_fn fetched = NULL;
    char line[512];
    while (fgets(line, sizeof line, in)) {
        int order, version;
        unsigned long long flags;
        char entry[32], name[256], status[16];
        if (line[0] == '#')
            continue;
        if (sscanf(line, "%d %31s %255s %d %llu %15s", &order, entry, name, &version, &flags, status) != 6) {
            fprintf(stderr, "replay_requests: bad line: %s", line);
            return 2;
        }
        const char *symbol = strcmp(name, "\"\"") ? name : "";
        gpa_fn gpa = strcmp(entry, "fetched") ? dlsymd : fetched;
        void *fn = NULL;
        CUresult rc = gpa ? gpa(symbol, &fn, version, flags, NULL) : CUDA_ERROR_NOT_INITIALIZED;
        if (rc == CUDA_SUCCESS && !strcmp(symbol, "cuGetProcAddress") && version >= 12000)
            fetched = (gpa_fn)fn;
        Dl_info info;
        const char *obj = "-", *sym = "-";
        if (rc == CUDA_SUCCESS && fn && dladdr(fn, &info)) {
            obj = info.dli_fname ? base(info.dli_fname) : "-";
            if (info.dli_sname && info.dli_saddr == fn)
                sym = info.dli_sname;
        }
        printf("%d %s %d %llu %d %s %s\n", order, name, version, flags, (int)rc, obj, sym);
    }
    fclose(in);
    return 0;
}
