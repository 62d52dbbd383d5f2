/* Unit test of the entry-point ABI rules (resolve/entry_abi.c): for a query
 * of (name, cudaVersion, flags), as cuGetProcAddress and
 * cudaGetDriverEntryPoint(ByVersion) receive it, the driver function the
 * query selects, by its exported name, and the hook handed back for it.
 * The rows state the selection (docs/interception.md's
 * "cuGetProcAddress(_v2)", and the table of what NVIDIA's runtime asks
 * for); whether the selected function is hooked is resolve/hook_list.h's
 * fact (t_cuda_coverage checks that list), so the hook each row expects is
 * derived from it: hooking an old ABI edits no row here.  What is not
 * derived: every hooked driver name must be handed out by some query
 * (check_reachable).
 *
 * Links: build/obj/interpose/resolve/entry_abi.o only (libc; the hook names
 * come from resolve/hook_list.h as text).  No hooks, no driver, no fakecuda. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "resolve/entry_abi.h"
#include "resolve/hook_list.h"

#define PTDS CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
/* The runtime's queries pass their own flag through the same rules. */
_Static_assert((unsigned long long)cudaEnablePerThreadDefaultStream == PTDS,
               "cudaEnablePerThreadDefaultStream is the driver's per-thread flag");

static const struct {
    const char *symbol;
    int version;
    unsigned long long flags;
    const char *abi; /* the selected function's exported name; NULL: no driver name */
} rows[] = {
    /* _v2 from 3020 (cuda.h's #define cuMemAlloc cuMemAlloc_v2) */
    {"cuMemAlloc", 3020, 0, "cuMemAlloc_v2"},
    {"cuMemAlloc", 13000, 0, "cuMemAlloc_v2"},
    {"cuMemAlloc", 3010, 0, "cuMemAlloc"}, /* the v1 ABI (32-bit sizes) */
    {"cuMemAlloc", 2000, 0, "cuMemAlloc"},
    {"cuMemAlloc", 3020, PTDS, "cuMemAlloc_v2"}, /* no _ptsz variant */
    {"cuMemAlloc_v2", 0, 0, "cuMemAlloc_v2"},    /* asked by its ABI name */
    {"cuMemFree", 3020, 0, "cuMemFree_v2"},
    {"cuMemFree", 3000, 0, "cuMemFree"},
    {"cuMemAllocPitch", 3020, 0, "cuMemAllocPitch_v2"},
    {"cuMemAllocHost", 3020, 0, "cuMemAllocHost_v2"},
    {"cuMemAllocHost", 2000, 0, "cuMemAllocHost"},
    {"cuMemHostRegister", 6050, 0, "cuMemHostRegister_v2"},
    {"cuMemHostRegister", 6000, 0, "cuMemHostRegister"},
    {"cuArrayCreate", 3020, 0, "cuArrayCreate_v2"},
    {"cuArray3DCreate", 3020, 0, "cuArray3DCreate_v2"},
    {"cuArray3DCreate", 3010, 0, "cuArray3DCreate"},
    {"cuCtxDestroy", 4000, 0, "cuCtxDestroy_v2"},
    {"cuCtxDestroy", 3020, 0, "cuCtxDestroy"}, /* the pre-4.0 ABI, hooked itself */
    /* The primary-context calls: the v1 ABI has hooks of its own.  CUDA 13's
     * runtime asks for cuDevicePrimaryCtxReset@7000 (its cudaDeviceReset);
     * it was passed through unwrapped once, so a static runtime's reset
     * dropped nothing. */
    {"cuDevicePrimaryCtxReset", 7000, 0, "cuDevicePrimaryCtxReset"},
    {"cuDevicePrimaryCtxReset", 10020, 0, "cuDevicePrimaryCtxReset"},
    {"cuDevicePrimaryCtxReset", 11000, 0, "cuDevicePrimaryCtxReset_v2"},
    {"cuDevicePrimaryCtxReset", 13000, PTDS, "cuDevicePrimaryCtxReset_v2"},
    {"cuDevicePrimaryCtxReset", 6050, 0, "cuDevicePrimaryCtxReset"}, /* before 7000 the driver has none */
    {"cuDevicePrimaryCtxRelease", 7000, 0, "cuDevicePrimaryCtxRelease"},
    {"cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2"},
    {"cuDevicePrimaryCtxRelease", 6000, 0, "cuDevicePrimaryCtxRelease"},
    {"cuDevicePrimaryCtxRetain", 7000, 0, "cuDevicePrimaryCtxRetain"},
    {"cuIpcOpenMemHandle", 4010, 0, "cuIpcOpenMemHandle"}, /* the pre-11.0 ABI, hooked itself */
    {"cuIpcOpenMemHandle", 11000, 0, "cuIpcOpenMemHandle_v2"},
    {"cuIpcCloseMemHandle", 4010, 0, "cuIpcCloseMemHandle"},
    /* cuGetProcAddress: the 4-argument ABI below 12000 */
    {"cuGetProcAddress", 11030, 0, "cuGetProcAddress"},
    {"cuGetProcAddress", 2000, 0, "cuGetProcAddress"},
    {"cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2"},
    {"cuGetProcAddress", 13000, PTDS, "cuGetProcAddress_v2"},
    /* graphs: cuGraphInstantiate has 5 arguments before 12000, in two ABIs */
    {"cuGraphInstantiate", 10000, 0, "cuGraphInstantiate"},
    {"cuGraphInstantiate", 11000, 0, "cuGraphInstantiate_v2"},
    {"cuGraphInstantiate", 11990, PTDS, "cuGraphInstantiate_v2"}, /* no _ptsz variant */
    {"cuGraphInstantiate", 12000, 0, "cuGraphInstantiateWithFlags"},
    {"cuGraphAddNode", 12000, 0, "cuGraphAddNode"}, /* before 12020 the driver has none */
    {"cuGraphAddNode", 12020, 0, "cuGraphAddNode"},
    {"cuGraphAddNode", 12030, 0, "cuGraphAddNode_v2"},
    {"cuGraphAddMemAllocNode", 11040, 0, "cuGraphAddMemAllocNode"},
    /* per-thread default stream: the flag picks _ptsz where there is one */
    {"cuMemAllocAsync", 11020, 0, "cuMemAllocAsync"},
    {"cuMemAllocAsync", 11020, PTDS, "cuMemAllocAsync_ptsz"},
    {"cuMemFreeAsync", 11020, PTDS, "cuMemFreeAsync_ptsz"},
    {"cuMemAllocFromPoolAsync", 11020, PTDS, "cuMemAllocFromPoolAsync_ptsz"},
    {"cuGraphLaunch", 10000, PTDS, "cuGraphLaunch_ptsz"},
    {"cuGraphLaunch", 10000, 0, "cuGraphLaunch"},
    {"cuGraphInstantiateWithParams", 12000, PTDS, "cuGraphInstantiateWithParams_ptsz"},
    {"cuMemAllocAsync", 11020, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuMemAllocAsync"},
    {"cuMemAllocManaged", 6000, PTDS, "cuMemAllocManaged"}, /* no _ptsz variant */
    /* capture begins (graph.h): each ABI with its own _ptsz variant */
    {"cuStreamBeginCapture", 10000, 0, "cuStreamBeginCapture"},
    {"cuStreamBeginCapture", 10000, PTDS, "cuStreamBeginCapture_ptsz"},
    {"cuStreamBeginCapture", 10010, 0, "cuStreamBeginCapture_v2"},
    {"cuStreamBeginCapture", 13000, PTDS, "cuStreamBeginCapture_v2_ptsz"},
    {"cuStreamBeginCapture", 9020, 0, "cuStreamBeginCapture"}, /* likewise, before 10000 */
    {"cuStreamBeginCaptureToGraph", 12030, 0, "cuStreamBeginCaptureToGraph"},
    {"cuStreamBeginCaptureToGraph", 12030, PTDS, "cuStreamBeginCaptureToGraph_ptsz"},
    /* unversioned names */
    {"cuMemAllocManaged", 6000, 0, "cuMemAllocManaged"},
    {"cuMemHostAlloc", 2020, 0, "cuMemHostAlloc"},
    {"cuMemFreeHost", 2000, 0, "cuMemFreeHost"},
    {"cuCtxDetach", 2000, 0, "cuCtxDetach"},
    {"cuMemPoolImportPointer", 11020, 0, "cuMemPoolImportPointer"},
    {"cuMemCreate", 10020, 0, "cuMemCreate"},
    {"cuModuleLoad", 2000, 0, "cuModuleLoad"},          /* one ABI since 2.0 */
    {"cuLibraryLoadData", 12000, 0, "cuLibraryLoadData"},
    {"cuGreenCtxCreate", 12040, 0, "cuGreenCtxCreate"}, /* cudaTypedefs.h: _v12040 */
    {"cuCtxFromGreenCtx", 12040, 0, "cuCtxFromGreenCtx"},
    {"cuGreenCtxDestroy", 12040, 0, "cuGreenCtxDestroy"},
    {"cuDevSmResourceSplitByCount", 12040, 0, "cuDevSmResourceSplitByCount"}, /* allocates nothing */
    /* names of one ABI: their own function, hooked or not */
    {"cuModuleGetFunction", 2000, 0, "cuModuleGetFunction"},
    {"cuMemPoolTrimTo", 11020, 0, "cuMemPoolTrimTo"},
    {"cuDeviceGetDefaultMemPool", 11020, 0, "cuDeviceGetDefaultMemPool"}, /* called by us, not hooked */
    {"cuInit", 2000, 0, "cuInit"},
    {"cuMemAllocAsync_ptsz_v9", 11020, 0, "cuMemAllocAsync_ptsz_v9"},
    {"", 12000, 0, NULL},
    {"c", 12000, 0, NULL},
    {"malloc", 12000, 0, NULL},
    {NULL, 12000, 0, NULL},
};

/* Every hooked name, as text, as entry_abi.c has it: a row's expected
 * hook is its selected function's name when this list has it. */
static const char *const hooks[] = {
#define NAME(n) #n,
    GL_ALL_HOOKS(NAME)
#undef NAME
};

static const char *hooked(const char *abi)
{
    for (size_t i = 0; abi != NULL && i < sizeof hooks / sizeof hooks[0]; i++)
        if (strcmp(hooks[i], abi) == 0)
            return hooks[i];
    return NULL;
}

/* Every hooked driver name is what some query hands back: its own name
 * asked for directly, or, for an ABI version (NAME_vN), a per-thread
 * variant (NAME_ptsz, NAME_vN_ptsz) or both, a query of the base name at
 * some CUDA version (with the flag, for _ptsz): the newest for most, an
 * older one for an old ABI's variant (cuStreamBeginCapture_ptsz, before
 * 10010).  A versioned hook without its entry_abi.c row (or ptsz entry)
 * would be reached by direct calls and dlsym only: every runtime, which
 * asks by base name, would get the driver's function unwrapped. */
static const char *const driver_hooks[] = {
#define NAME(n) #n,
    GL_DRIVER_HOOKS(NAME)
#undef NAME
};

/* Strips suffix ("_ptsz" or "_vN") from the end of base; false if absent. */
static bool strip_suffix(char *base, bool version)
{
    char *suffix = strrchr(base, '_');
    if (suffix == NULL || suffix == base)
        return false;
    bool match = version ? suffix[1] == 'v' && suffix[2] != '\0' && strspn(suffix + 2, "0123456789") == strlen(suffix + 2)
                         : strcmp(suffix, "_ptsz") == 0;
    if (match)
        *suffix = '\0';
    return match;
}

/* The base name a query asks for to get hook into base, with its flags. */
static bool query_base(const char *name, char *base, size_t size, unsigned long long *flags)
{
    if (strlen(name) >= size)
        return false;
    strcpy(base, name);
    bool ptsz = strip_suffix(base, false);
    strip_suffix(base, true);
    *flags = ptsz ? PTDS : 0;
    return true;
}

/* Whether a query of base with flags hands back hook at some CUDA version
 * (they are multiples of 10); else what the newest query gets. */
static const char *query_reaching(const char *base, unsigned long long flags, const char *hook)
{
    const char *newest = gl_entry_abi_hook_name(base, 99999, flags);
    for (int v = 1000; v <= 13000; v += 10) {
        const char *got = gl_entry_abi_hook_name(base, v, flags);
        if (got != NULL && strcmp(got, hook) == 0)
            return got;
    }
    return newest;
}

static int check_reachable(void)
{
    int failed = 0;
    for (size_t i = 0; i < sizeof driver_hooks / sizeof driver_hooks[0]; i++) {
        char base[128];
        unsigned long long flags;
        if (!query_base(driver_hooks[i], base, sizeof base, &flags))
            continue;
        const char *got = query_reaching(base, flags, driver_hooks[i]);
        if (got == NULL || strcmp(got, driver_hooks[i]) != 0) {
            fprintf(stderr, "FAIL: %s is hooked, but a query of %s%s gets %s: no row for it in resolve/entry_abi.c\n",
                    driver_hooks[i], base, flags ? " (per-thread)" : "", got ? got : "(passed through)");
            failed++;
        }
    }
    return failed;
}

static const char *or_none(const char *s, const char *none)
{
    return s != NULL ? s : none;
}

static bool same(const char *a, const char *b)
{
    return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* A row: the selection as stated, and the hook handed back as hook_list.h
 * makes it (the selected function's own hook, or none). */
static int check_row(const char *symbol, int version, unsigned long long flags, const char *abi)
{
    char got[128];
    const char *selected = gl_entry_abi_select(symbol, version, flags, got, sizeof got) ? got : NULL;
    const char *hook = gl_entry_abi_hook_name(symbol, version, flags);
    int failed = 0;
    if (!same(selected, abi)) {
        fprintf(stderr, "FAIL: %s@%d flags %#llx selects %s, expected %s\n", or_none(symbol, "(null)"), version, flags,
                or_none(selected, "(none)"), or_none(abi, "(none)"));
        failed++;
    }
    if (!same(hook, hooked(selected))) {
        fprintf(stderr, "FAIL: %s@%d flags %#llx -> hook %s, but hook_list.h makes %s's %s\n", or_none(symbol, "(null)"),
                version, flags, or_none(hook, "(passed through)"), or_none(selected, "(none)"),
                hooked(selected) ? "own hook" : "pass-through");
        failed++;
    }
    return failed;
}

/* The selection of symbol at version with flags into abi ("" for none). */
static void select_abi(const char *symbol, int version, unsigned long long flags, char *abi, size_t size)
{
    if (!gl_entry_abi_select(symbol, version, flags, abi, size))
        abi[0] = '\0';
}

/* One ABI of the toolkit's list: a base name's oldest ABI is its own
 * function; each later one is selected from its version on, and the one
 * before it up to there.  prev: the base's previous ABI line, if any. */
static int check_toolkit_abi(const char *base, int version, const char *prev_base, int prev_version)
{
    char abi[128], before[128], older[128];
    select_abi(base, version, 0, abi, sizeof abi);
    if (strcmp(base, prev_base) != 0) {
        if (strcmp(abi, base) == 0)
            return 0;
        fprintf(stderr, "FAIL: %s@%d is %s's oldest ABI in cudaTypedefs.h, but selects %s\n", base, version, base, abi);
        return 1;
    }
    select_abi(base, prev_version, 0, older, sizeof older);
    select_abi(base, version - 10, 0, before, sizeof before);
    if (strcmp(abi, older) == 0) {
        fprintf(stderr, "FAIL: cudaTypedefs.h has an ABI of %s from %d, but entry_abi.c selects %s there as at %d: "
                "its row is missing\n", base, version, abi, prev_version);
        return 1;
    }
    if (strcmp(before, older) != 0) {
        fprintf(stderr, "FAIL: %s@%d selects %s, but its ABI of %d (%s) lasts up to %d in cudaTypedefs.h\n", base,
                version - 10, before, prev_version, older, version);
        return 1;
    }
    return 0;
}

/* A per-thread variant of the toolkit's list: the flag selects a _ptsz
 * function from its version on. */
static int check_toolkit_ptsz(const char *base, int version)
{
    char abi[128];
    select_abi(base, version, PTDS, abi, sizeof abi);
    size_t n = strlen(abi);
    if (n > 5 && strcmp(abi + n - 5, "_ptsz") == 0)
        return 0;
    fprintf(stderr, "FAIL: cudaTypedefs.h has a _ptsz variant of %s from %d, but the per-thread query selects %s: "
            "not in entry_abi.c's ptsz list\n", base, version, abi);
    return 1;
}

/* The toolkit's ABIs of every hooked or documented driver name, as
 * t_unit_procaddr_rules.sh lists them from cudaTypedefs.h's
 * PFN_<name>_v<version>[_ptsz] (lines "abi NAME VERSION", a name's in
 * ascending order, or "ptsz NAME VERSION"): entry_abi.c knows them all
 * before any is hooked, so hooking an old ABI adds no row there. */
static int check_toolkit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    char kind[8], base[128], prev_base[128] = "";
    int version, prev_version = 0, failed = 0, lines = 0;
    while (fscanf(f, "%7s %127s %d", kind, base, &version) == 3) {
        lines++;
        if (strcmp(kind, "ptsz") == 0) {
            failed += check_toolkit_ptsz(base, version);
            continue;
        }
        failed += check_toolkit_abi(base, version, prev_base, prev_version);
        strcpy(prev_base, base);
        prev_version = version;
    }
    fclose(f);
    if (lines == 0) {
        fprintf(stderr, "FAIL: no ABIs in %s\n", path);
        failed++;
    }
    return failed;
}

/* argv[1], if given: the toolkit's ABIs (check_toolkit). */
int main(int argc, char **argv)
{
    int failed = check_reachable();
    if (argc > 1)
        failed += check_toolkit(argv[1]);
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++)
        failed += check_row(rows[i].symbol, rows[i].version, rows[i].flags, rows[i].abi);
    if (failed) {
        fprintf(stderr, "%d failures (%zu rows)\n", failed, n);
        return 1;
    }
    printf("%zu rows ok\n", n);
    return 0;
}
