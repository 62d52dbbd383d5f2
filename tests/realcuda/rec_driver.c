/* A recording libcuda.so.1: stands in for NVIDIA's driver under NVIDIA's
 * real runtime (libcudart.so.13, libcudart_static.a) to learn how that
 * runtime reaches the driver, without a GPU.
 *
 * It exports only cuGetProcAddress_v2 (the one name the real runtime
 * dlsyms), logs every request it answers -- which entry point was asked
 * (the dlsym'd export or the cuGetProcAddress it handed out), symbol,
 * version, flags, whether symbolStatus was given -- and hands out a distinct
 * stub for each symbol, which logs its calls.  The stubs are hidden, like a
 * driver's internal functions, so an interposer cannot match them by name.
 * cuGetExportTable fails, which stops the runtime before any allocation:
 * without NVIDIA's private tables it cannot go on.
 *
 * REC_LOG names the log file (appended to; stderr when unset). */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;

static void logf_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_line(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    if (log_fd < 0) {
        const char *path = getenv("REC_LOG");
        log_fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : 2;
        if (log_fd < 0)
            log_fd = 2;
    }
    if (write(log_fd, buf, (size_t)n) < 0) {
        /* nothing to do: a lost log line shows as a test difference */
    }
}

/* One stub per symbol handed out, in order of first request. */
#define MAX_STUBS 600
/* Static storage, not the heap: the runtime dlcloses the driver when it
 * gives up, which would leave heap copies unreachable (LeakSanitizer). */
static char stub_name[MAX_STUBS][128];
static int stub_count;

static CUresult stub_call(int i)
{
    pthread_mutex_lock(&mu);
    logf_line("call %s\n", i < stub_count ? stub_name[i] : "?");
    pthread_mutex_unlock(&mu);
    /* Unknown work: claim it is unsupported, so nothing reads outputs we
     * never wrote. */
    return CUDA_ERROR_NOT_SUPPORTED;
}

#define ST(n) static CUresult stub_##n(void) { return stub_call(n - 1000); }
#define ST10(p) ST(p##0) ST(p##1) ST(p##2) ST(p##3) ST(p##4) ST(p##5) ST(p##6) ST(p##7) ST(p##8) ST(p##9)
#define ST100(p) ST10(p##0) ST10(p##1) ST10(p##2) ST10(p##3) ST10(p##4) \
                 ST10(p##5) ST10(p##6) ST10(p##7) ST10(p##8) ST10(p##9)
ST100(10) ST100(11) ST100(12) ST100(13) ST100(14) ST100(15)
#undef ST
#define ST(n) (void *)stub_##n,
static void *const stubs[MAX_STUBS] = {ST100(10) ST100(11) ST100(12) ST100(13) ST100(14) ST100(15)};

/* The entry points with real answers: what the runtime must learn before it
 * asks for the export tables. */
static CUresult rec_cuInit(unsigned int flags)
{
    logf_line("call cuInit %u\n", flags);
    return CUDA_SUCCESS;
}

static CUresult rec_cuDriverGetVersion(int *v)
{
    logf_line("call cuDriverGetVersion\n");
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    *v = 13000;
    return CUDA_SUCCESS;
}

static CUresult rec_cuGetExportTable(const void **table, const CUuuid *id)
{
    (void)id;
    logf_line("call cuGetExportTable\n");
    if (table)
        *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult answer(const char *entry, const char *symbol, void **pfn, int version, cuuint64_t flags,
                       int has_status, CUdriverProcAddressQueryResult *status);

static CUresult rec_fetched_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                               CUdriverProcAddressQueryResult *status)
{
    return answer("fetched", symbol, pfn, version, flags, status != NULL, status);
}

static CUresult rec_fetched_v1(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    return answer("fetched_v1", symbol, pfn, version, flags, 0, NULL);
}

static CUresult answer(const char *entry, const char *symbol, void **pfn, int version, cuuint64_t flags,
                       int has_status, CUdriverProcAddressQueryResult *status)
{
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mu);
    /* Loaded into the global scope or not (RTLD_GLOBAL): the main program's
     * handle searches only that scope (RTLD_DEFAULT would also search ours). */
    static int scope_logged;
    if (!scope_logged) {
        scope_logged = 1;
        void *global = dlopen(NULL, RTLD_NOW);
        logf_line("scope %s\n", global && dlsym(global, "rec_driver_scope_probe") ? "global" : "local");
        if (global)
            dlclose(global);
    }
    logf_line("gpa %s %s %d %llu %s\n", entry, symbol, version, (unsigned long long)flags,
              has_status ? "status" : "null");
    void *fn = NULL;
    if (!strcmp(symbol, "cuGetProcAddress"))
        fn = version >= 12000 ? (void *)rec_fetched_v2 : (void *)rec_fetched_v1;
    else if (!strcmp(symbol, "cuInit"))
        fn = (void *)rec_cuInit;
    else if (!strcmp(symbol, "cuDriverGetVersion"))
        fn = (void *)rec_cuDriverGetVersion;
    else if (!strcmp(symbol, "cuGetExportTable"))
        fn = (void *)rec_cuGetExportTable;
    else if (!symbol[0])
        fn = NULL; /* the runtime's first request: an empty name */
    else {
        int i;
        for (i = 0; i < stub_count; i++)
            if (!strcmp(stub_name[i], symbol))
                break;
        if (i == stub_count && stub_count < MAX_STUBS && strlen(symbol) < sizeof stub_name[i]) {
            strcpy(stub_name[i], symbol);
            stub_count++;
        }
        fn = i < stub_count ? stubs[i] : NULL;
    }
    pthread_mutex_unlock(&mu);
    *pfn = fn;
    if (status)
        *status = fn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return fn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* Found through the main program's handle only when we were loaded into the
 * global scope (an interposer may define cuGetProcAddress_v2 there too). */
EXPORT int rec_driver_scope_probe;

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *status)
{
    return answer("dlsym", symbol, pfn, version, flags, status != NULL, status);
}
