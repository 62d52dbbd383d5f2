/* Module and library loading, with known outcomes on device 0 (fakecuda
 * takes a load's image size rounded up to 2 MiB; tools/fakecuda/
 * fc_driver_module.c):
 *   - a PTX module loaded and never unloaded: 2 MiB, loaded
 *   - a 3 MiB fatbin loaded then unloaded: nothing
 *   - a module loaded from a file (this program) and never unloaded: 2 MiB,
 *     loaded
 *   - a library loaded through the runtime (cudaLibraryLoadData, which
 *     reaches cuLibraryLoadData) and never unloaded: 2 MiB, loaded
 *   - a library loaded from a file and unloaded: nothing
 *   - a module loaded into a context of the program's own, which it then
 *     destroys: unloaded with it, no teardown leak
 *   - a device allocation of 1 MiB left behind, the one leak
 * and between the loads, a free-memory check that the driver's figure
 * dropped by what gpuleak must measure.
 *
 * `module_load real` (scripts/gpu-check.sh "module", on a GPU, with
 * CUDA_MODULE_LOADING=EAGER): the PTX module and the runtime's library only,
 * the module in a context of its own, and the leak; it prints what the
 * driver's free memory dropped by across each of the two loads kept, which
 * is what gpuleak must record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "fatbin_image.h"

#define NOINLINE __attribute__((noinline))
#define MiB ((size_t)1024 * 1024)

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry noop()\n{\n\tret;\n}\n";

static size_t free_now(void)
{
    size_t free_bytes, total;
    check(cuMemGetInfo(&free_bytes, &total), "cuMemGetInfo");
    return free_bytes;
}

NOINLINE static CUmodule load_ptx(void)
{
    CUmodule m;
    check(cuModuleLoadData(&m, ptx), "cuModuleLoadData"); /* MOD-SITE */
    return m;
}

NOINLINE static void load_and_unload_fatbin(void)
{
    unsigned char *image = fatbin_image(3 * MiB);
    size_t before = free_now();
    CUmodule m;
    check(cuModuleLoadFatBinary(&m, image), "cuModuleLoadFatBinary");
    if (before - free_now() != 4 * MiB) {
        fprintf(stderr, "a 3 MiB fatbin took %zu bytes\n", before - free_now());
        exit(1);
    }
    check(cuModuleUnload(m), "cuModuleUnload");
    free(image);
}

NOINLINE static CUmodule load_file(const char *path)
{
    CUmodule m;
    check(cuModuleLoad(&m, path), "cuModuleLoad"); /* FILE-SITE */
    return m;
}

NOINLINE static cudaLibrary_t load_library(void)
{
    cudaLibrary_t lib;
    if (cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess) { /* LIB-SITE */
        fprintf(stderr, "cudaLibraryLoadData failed\n");
        exit(1);
    }
    return lib;
}

NOINLINE static void library_from_file(const char *path)
{
    CUlibrary lib;
    check(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0), "cuLibraryLoadFromFile");
    check(cuLibraryUnload(lib), "cuLibraryUnload");
}

NOINLINE static void module_in_own_context(void)
{
    CUcontext ctx, prev;
    check(cuCtxGetCurrent(&prev), "cuCtxGetCurrent");
    check(cuCtxCreate(&ctx, NULL, 0, 0), "cuCtxCreate");
    CUmodule m;
    check(cuModuleLoadData(&m, ptx), "cuModuleLoadData");
    check(cuCtxDestroy(ctx), "cuCtxDestroy");
    check(cuCtxSetCurrent(prev), "cuCtxSetCurrent");
}

NOINLINE static void leak(void)
{
    void *p;
    if (cudaMalloc(&p, MiB) != cudaSuccess) { /* LEAK-SITE */
        fprintf(stderr, "cudaMalloc failed\n");
        exit(1);
    }
}

static int real_driver(void)
{
    size_t before = free_now();
    load_ptx();
    printf("module %zu\n", before - free_now());
    before = free_now();
    load_library();
    printf("library %zu\n", before - free_now());
    module_in_own_context();
    leak();
    return 0;
}

int main(int argc, char **argv)
{
    if (cudaFree(NULL) != cudaSuccess) /* the runtime's primary context, current */
        return 1;
    if (argc > 1 && strcmp(argv[1], "real") == 0)
        return real_driver();
    size_t before = free_now();
    load_ptx();
    if (before - free_now() != 2 * MiB) {
        fprintf(stderr, "a PTX module took %zu bytes\n", before - free_now());
        return 1;
    }
    load_and_unload_fatbin();
    load_file(argv[0]);
    load_library();
    library_from_file(argv[0]);
    module_in_own_context();
    leak();
    printf("loaded: %zu bytes\n", before - free_now());
    return 0;
}
