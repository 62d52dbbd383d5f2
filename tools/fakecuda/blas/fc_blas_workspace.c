/* The cuBLAS stand-in's default workspace.  NVIDIA's cuBLAS gives a
 * handle a default workspace pool unless the caller sets one
 * (cublasSetWorkspace), and from CUDA 12.2 allocates it stream-ordered
 * (cudaMallocAsync) outside the program's allocator.  Which of its calls
 * need it depends on the kernels the card's heuristics pick, which cannot
 * be known without the card; the policy here (tools/fakecuda/README.md):
 * the first call that launches work on a (handle, stream) with no
 * workspace of the caller's allocates that stream's default workspace,
 * the whole of it, with this library's own runtime, on that stream; it is
 * freed by cublasDestroy.  PyTorch sets its own workspace before every
 * call, so under PyTorch nothing is allocated here. */
#include "fc_blas_handle.h"
#include "fc_blas_workspace.h"
#include "fc_lib.h"

#include <stdlib.h>
#include <string.h>

/* CUBLAS_WORKSPACE_CONFIG=":SIZE:COUNT[:SIZE:COUNT...]" (SIZE in KiB), as
 * cuBLAS documents it; 0 if absent or malformed. */
static size_t config_size(const char *s)
{
    size_t total = 0;
    if (!s || !*s)
        return 0;
    while (*s) {
        char *end;
        if (*s++ != ':')
            return 0;
        unsigned long long kib = strtoull(s, &end, 10);
        if (end == s || *end != ':')
            return 0;
        s = end + 1;
        unsigned long long count = strtoull(s, &end, 10);
        if (end == s)
            return 0;
        s = end;
        total += (size_t)(kib * 1024 * count);
    }
    return total;
}

size_t fc_blas_default_ws_size(int cc_major)
{
    size_t configured = config_size(getenv("CUBLAS_WORKSPACE_CONFIG"));
    if (configured)
        return configured;
    return cc_major >= 9 ? (size_t)32 << 20 : ((size_t)4096 * 2 + 16 * 8) << 10;
}

void fc_blas_default_ws_free(struct cublasContext *h)
{
    while (h->default_ws) {
        struct fc_blas_default_ws *w = h->default_ws;
        h->default_ws = w->next;
        cudaFree(w->ptr);
        free(w);
    }
}

/* Under the live-handle lock (fc_blas_with_live_handle). */
static void first_use(struct cublasContext *h, void *arg)
{
    cublasStatus_t *status = arg;
    if (h->user_ws_set)
        return;
    for (struct fc_blas_default_ws *w = h->default_ws; w; w = w->next)
        if (w->stream == h->stream)
            return;
    struct fc_blas_default_ws *w = calloc(1, sizeof *w);
    if (!w || cudaMallocAsync(&w->ptr, fc_blas_default_ws_size(h->cc_major), h->stream) != cudaSuccess) {
        free(w);
        *status = CUBLAS_STATUS_ALLOC_FAILED;
        return;
    }
    w->stream = h->stream;
    w->next = h->default_ws;
    h->default_ws = w;
}

int fc_blas_stub(const char *name, int *said, void *first)
{
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    fc_lib_stub_log(name, said);
    fc_blas_with_live_handle(first, first_use, &status);
    return (int)status;
}
