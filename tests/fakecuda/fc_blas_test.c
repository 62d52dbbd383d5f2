/* fakecuda's cuBLAS and cuBLASLt stand-ins (tools/fakecuda/blas/): the
 * answers a caller reads, and the device memory the default workspace
 * takes (tests/t_fakecuda_blas.sh runs each scenario). */
#define _GNU_SOURCE /* dladdr */
#include "fc_check.h"

#include <dlfcn.h>
#include <pthread.h>

#include <cublas.h> /* the legacy API; cublas_api.h (the _v2 names) comes with it */
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

static size_t used(void)
{
    size_t free_b, total;
    EQ(cudaMemGetInfo(&free_b, &total), cudaSuccess);
    return total - free_b;
}

/* One SGEMM through the handle: the stand-in computes nothing, so the
 * matrices may be any device memory. */
static cublasStatus_t sgemm(cublasHandle_t h, float *m)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, m, 4, m, 4, &zero, m, 4);
}

static void handle(void)
{
    cublasHandle_t h;
    int v = 0;
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    CHECK(h != NULL);
    EQ(cublasGetVersion_v2(h, &v), CUBLAS_STATUS_SUCCESS);
    EQ(v, 130100);
    EQ(cublasGetProperty(MAJOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
    EQ(v, 13);
    EQ(cublasGetProperty(MINOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
    EQ(v, 1);
    EQ(cublasGetCudartVersion(), 13000);
    EQ(cublasLtGetVersion(), 130100);
    EQ(strcmp(cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED"), 0);

    /* What is set reads back; the defaults are NVIDIA's. */
    cudaStream_t s, got = (cudaStream_t)1;
    EQ(cudaStreamCreate(&s), cudaSuccess);
    EQ(cublasGetStream_v2(h, &got), CUBLAS_STATUS_SUCCESS);
    CHECK(got == NULL);
    EQ(cublasSetStream_v2(h, s), CUBLAS_STATUS_SUCCESS);
    EQ(cublasGetStream_v2(h, &got), CUBLAS_STATUS_SUCCESS);
    CHECK(got == s);
    cublasPointerMode_t pm;
    EQ(cublasGetPointerMode_v2(h, &pm), CUBLAS_STATUS_SUCCESS);
    EQ(pm, CUBLAS_POINTER_MODE_HOST);
    EQ(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    EQ(cublasGetPointerMode_v2(h, &pm), CUBLAS_STATUS_SUCCESS);
    EQ(pm, CUBLAS_POINTER_MODE_DEVICE);
    cublasMath_t mm;
    EQ(cublasGetMathMode(h, &mm), CUBLAS_STATUS_SUCCESS);
    EQ(mm, CUBLAS_DEFAULT_MATH);
    EQ(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
    EQ(cublasGetMathMode(h, &mm), CUBLAS_STATUS_SUCCESS);
    EQ(mm, CUBLAS_TF32_TENSOR_OP_MATH);
    EQ(cublasSetSmCountTarget(h, 66), CUBLAS_STATUS_SUCCESS);
    EQ(cublasGetSmCountTarget(h, &v), CUBLAS_STATUS_SUCCESS);
    EQ(v, 66);
    EQ(cublasGetMathMode(h, NULL), CUBLAS_STATUS_INVALID_VALUE);
    EQ(cublasGetMathMode(NULL, &mm), CUBLAS_STATUS_NOT_INITIALIZED);
    /* The workspace must be 256-byte aligned. */
    EQ(cublasSetWorkspace_v2(h, (void *)(uintptr_t)0x1010, 4096), CUBLAS_STATUS_INVALID_VALUE);

    EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
    EQ(cublasDestroy_v2(h), CUBLAS_STATUS_NOT_INITIALIZED); /* a handle destroyed is no handle */
    EQ(cudaStreamDestroy(s), cudaSuccess);
}

/* A cuBLAS handle is a cuBLASLt handle (PyTorch casts one to the other);
 * the descriptors' attributes round-trip; the heuristic gives one
 * algorithm that asks for the preference's whole workspace. */
static void heuristic(void)
{
    cublasHandle_t h;
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    cublasLtHandle_t lt = (cublasLtHandle_t)h;

    cublasLtMatmulDesc_t op;
    EQ(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    int32_t t = CUBLAS_OP_T, tget = -1;
    size_t written = 0;
    EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tget, sizeof tget, &written),
       CUBLAS_STATUS_SUCCESS);
    EQ(tget, CUBLAS_OP_T);
    EQ(written, 4);
    EQ(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tget, sizeof tget, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(tget, CUBLAS_OP_N);
    EQ(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &tget, sizeof tget, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(tget, CUBLAS_COMPUTE_32F);
    EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, 8), CUBLAS_STATUS_INVALID_VALUE);
    EQ(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, NULL, 0, &written),
       CUBLAS_STATUS_SUCCESS);
    EQ(written, sizeof(void *));
    uint32_t epi = CUBLASLT_EPILOGUE_BIAS, epiget = 0;
    EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epiget, sizeof epiget, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(epiget, CUBLASLT_EPILOGUE_BIAS);

    cublasLtMatrixLayout_t a, b, c;
    EQ(cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, 64, 32, 64), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtMatrixLayoutCreate(&b, CUDA_R_32F, 32, 16, 32), CUBLAS_STATUS_SUCCESS);
    cublasLtMatrixLayoutOpaque_t c_storage; /* cublasLtMatrixLayoutInit: the caller's memory */
    c = &c_storage;
    EQ(cublasLtMatrixLayoutInit(c, CUDA_R_32F, 64, 16, 64), CUBLAS_STATUS_SUCCESS);
    uint64_t rows = 0;
    int32_t batch = 0;
    int64_t stride = 4096;
    EQ(cublasLtMatrixLayoutGetAttribute(a, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(rows, 64);
    EQ(cublasLtMatrixLayoutGetAttribute(c, CUBLASLT_MATRIX_LAYOUT_COLS, &rows, sizeof rows, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(rows, 16);
    EQ(cublasLtMatrixLayoutGetAttribute(a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(batch, 1);
    EQ(cublasLtMatrixLayoutSetAttribute(a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
       CUBLAS_STATUS_SUCCESS);
    stride = 0;
    EQ(cublasLtMatrixLayoutGetAttribute(a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride,
                                        NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(stride, 4096);

    cublasLtMatmulPreference_t pref;
    EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
    uint64_t max_ws = 0;
    EQ(cublasLtMatmulPreferenceGetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof max_ws,
                                            NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(max_ws, 0); /* the header's default: no workspace */
    max_ws = 4 * MiB;
    EQ(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof max_ws),
       CUBLAS_STATUS_SUCCESS);

    cublasLtMatmulHeuristicResult_t r[4];
    int n = -1;
    memset(r, 0xff, sizeof r);
    EQ(cublasLtMatmulAlgoGetHeuristic(lt, op, a, b, c, c, pref, 4, r, &n), CUBLAS_STATUS_SUCCESS);
    EQ(n, 1);
    EQ(r[0].state, CUBLAS_STATUS_SUCCESS);
    EQ(r[0].workspaceSize, 4 * MiB);
    EQ(cublasLtMatmulAlgoGetHeuristic(lt, op, a, b, c, c, pref, 0, r, &n), CUBLAS_STATUS_INVALID_VALUE);
    EQ(cublasLtMatmulAlgoGetHeuristic(NULL, op, a, b, c, c, pref, 1, r, &n), CUBLAS_STATUS_NOT_INITIALIZED);
    int32_t id = -1;
    EQ(cublasLtMatmulAlgoConfigGetAttribute(&r[0].algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(id, 0);
    /* Capabilities: one tile (undefined), strided batches. */
    uint32_t tiles[8];
    EQ(cublasLtMatmulAlgoCapGetAttribute(&r[0].algo, CUBLASLT_ALGO_CAP_TILE_IDS, NULL, 0, &written),
       CUBLAS_STATUS_SUCCESS);
    EQ(written, 4);
    EQ(cublasLtMatmulAlgoCapGetAttribute(&r[0].algo, CUBLASLT_ALGO_CAP_TILE_IDS, tiles, sizeof tiles, &written),
       CUBLAS_STATUS_SUCCESS);
    EQ(written, 4);
    EQ(tiles[0], CUBLASLT_MATMUL_TILE_UNDEFINED);
    EQ(cublasLtMatmulAlgoCapGetAttribute(&r[0].algo, CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT, &id, sizeof id, NULL),
       CUBLAS_STATUS_SUCCESS);
    EQ(id, 1);
    cublasLtMatmulHeuristicResult_t check;
    EQ(cublasLtMatmulAlgoCheck(lt, op, a, b, c, c, &r[0].algo, &check), CUBLAS_STATUS_SUCCESS);
    EQ(check.workspaceSize, 4 * MiB);
    /* cublasLtMatmul computes nothing and says so by success. */
    const float one = 1.0f;
    EQ(cublasLtMatmul(lt, op, &one, NULL, a, NULL, b, &one, NULL, c, NULL, c, &r[0].algo, NULL, 0, NULL),
       CUBLAS_STATUS_SUCCESS);

    EQ(cublasLtMatmulPreferenceDestroy(pref), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtMatrixLayoutDestroy(a), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtMatrixLayoutDestroy(b), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtMatmulDescDestroy(op), CUBLAS_STATUS_SUCCESS);
    EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);

    cublasLtHandle_t own;
    EQ(cublasLtCreate(&own), CUBLAS_STATUS_SUCCESS);
    EQ(cublasLtDestroy(own), CUBLAS_STATUS_SUCCESS);
}

/* The default workspace: none at creation; 32 MiB (an sm90 device) at the
 * first work on each stream without a workspace of the caller's; none
 * while the caller's is set; all back at cublasDestroy. */
static void workspace(void)
{
    float *m;
    EQ(cudaMalloc((void **)&m, 4096), cudaSuccess);
    size_t base = used();
    cublasHandle_t h;
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base + 32 * MiB);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base + 32 * MiB);

    cudaStream_t s;
    EQ(cudaStreamCreate(&s), cudaSuccess);
    EQ(cublasSetStream_v2(h, s), CUBLAS_STATUS_SUCCESS);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base + 64 * MiB);

    /* A workspace of the caller's: nothing more, on a new stream either. */
    cudaStream_t s2;
    void *ws;
    EQ(cudaStreamCreate(&s2), cudaSuccess);
    EQ(cudaMalloc(&ws, 4 * MiB), cudaSuccess);
    EQ(cublasSetStream_v2(h, s2), CUBLAS_STATUS_SUCCESS);
    EQ(cublasSetWorkspace_v2(h, ws, 4 * MiB), CUBLAS_STATUS_SUCCESS);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base + 68 * MiB);
    /* cublasSetStream drops it: the default again. */
    EQ(cublasSetStream_v2(h, s2), CUBLAS_STATUS_SUCCESS);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base + 100 * MiB);

    EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
    EQ(cudaDeviceSynchronize(), cudaSuccess); /* the pool gives back what it holds unused */
    EQ(used(), base + 4 * MiB);
    EQ(cudaFree(ws), cudaSuccess);
    EQ(cudaStreamDestroy(s), cudaSuccess);
    EQ(cudaStreamDestroy(s2), cudaSuccess);
    EQ(cudaFree(m), cudaSuccess);
}

/* CUBLAS_WORKSPACE_CONFIG=:4096:2:16:8 (set by the test): 8 MiB + 128 KiB,
 * which fakecuda's allocator rounds to 2 MiB granules (10 MiB). */
static void workspace_config(void)
{
    float *m;
    EQ(cudaMalloc((void **)&m, 4096), cudaSuccess);
    size_t base = used();
    cublasHandle_t h;
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base + 10 * MiB);
    EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
}

/* On a device too small for the workspace the call fails as NVIDIA's does,
 * and nothing is held (run with a 16 MiB device). */
static void workspace_oom(void)
{
    float *m;
    EQ(cudaMalloc((void **)&m, 4096), cudaSuccess);
    size_t base = used();
    cublasHandle_t h;
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    EQ(sgemm(h, m), CUBLAS_STATUS_ALLOC_FAILED);
    EQ(used(), base);
    EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
}

/* The legacy API: cublasAlloc takes device memory, cublasFree gives it
 * back; functions returning a value return 0. */
static void legacy(void)
{
    void *p = NULL;
    EQ(cublasInit(), CUBLAS_STATUS_SUCCESS);
    EQ(cudaFree(0), cudaSuccess);
    size_t base = used();
    EQ(cublasAlloc(1024, 4, &p), CUBLAS_STATUS_SUCCESS);
    CHECK(p != NULL);
    EQ(used(), base + 4096);
    EQ(cublasAlloc(0, 4, &p), CUBLAS_STATUS_INVALID_VALUE);
    CHECK(cublasSdot(1024, p, 1, p, 1) == 0.0f);
    CHECK(cublasDnrm2(512, p, 1) == 0.0);
    EQ(cublasFree(p), CUBLAS_STATUS_SUCCESS);
    EQ(used(), base);
    int v = 0;
    EQ(cublasGetVersion(&v), CUBLAS_STATUS_SUCCESS);
    EQ(v, 130100);
    EQ(cublasShutdown(), CUBLAS_STATUS_SUCCESS);
}

/* Copies are no kernels: they copy, strided as asked. */
static void copies(void)
{
    int host[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, back[8] = { 0 }, dev_view[8] = { 0 };
    int *d;
    EQ(cudaMalloc((void **)&d, sizeof host), cudaSuccess);
    EQ(cudaMemset(d, 0, sizeof host), cudaSuccess);
    /* Every other host element into the first 4 device ints. */
    EQ(cublasSetVector(4, sizeof(int), host, 2, d, 1), CUBLAS_STATUS_SUCCESS);
    EQ(cudaMemcpy(dev_view, d, sizeof dev_view, cudaMemcpyDeviceToHost), cudaSuccess);
    EQ(dev_view[0] * 1000 + dev_view[1] * 100 + dev_view[2] * 10 + dev_view[3], 1357);
    EQ(dev_view[4], 0);
    /* Back, spread to every other host element. */
    EQ(cublasGetVector(4, sizeof(int), d, 1, back, 2), CUBLAS_STATUS_SUCCESS);
    EQ(back[0] * 1000 + back[2] * 100 + back[4] * 10 + back[6], 1357);
    EQ(back[1], 0);
    /* A 2x2 matrix of a 4-row host array (lda 4) into a packed one (ldb 2). */
    EQ(cublasSetMatrix(2, 2, sizeof(int), host, 4, d, 2), CUBLAS_STATUS_SUCCESS);
    EQ(cudaMemcpy(dev_view, d, sizeof dev_view, cudaMemcpyDeviceToHost), cudaSuccess);
    EQ(dev_view[0] * 1000 + dev_view[1] * 100 + dev_view[2] * 10 + dev_view[3], 1256);
    memset(back, 0, sizeof back);
    EQ(cublasGetMatrixAsync(2, 2, sizeof(int), d, 2, back, 4, NULL), CUBLAS_STATUS_SUCCESS);
    EQ(back[0] * 1000 + back[1] * 100 + back[4] * 10 + back[5], 1256);
    EQ(cublasSetMatrix(4, 1, sizeof(int), host, 2, d, 4), CUBLAS_STATUS_INVALID_VALUE); /* lda < rows */
    EQ(cublasSetVector(4, sizeof(int), host, 0, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    EQ(cudaFree(d), cudaSuccess);
}

/* No device: cublasCreate fails as NVIDIA's does (run with
 * FAKECUDA_DEVICES=0). */
static void no_device(void)
{
    cublasHandle_t h = NULL;
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(h == NULL);
}

/* Handles of several threads at once (PyTorch: one per thread), each on
 * a stream of its own: a 32 MiB default workspace each, all given back. */
static void *thread_handle(void *arg)
{
    float *m = arg;
    cublasHandle_t h;
    cudaStream_t s;
    EQ(cudaStreamCreate(&s), cudaSuccess);
    for (int i = 0; i < 50; i++) {
        EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
        EQ(cublasSetStream_v2(h, s), CUBLAS_STATUS_SUCCESS);
        EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
        EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
        EQ(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
    }
    EQ(cudaStreamDestroy(s), cudaSuccess);
    return NULL;
}

static void threads(void)
{
    float *m;
    pthread_t t[4];
    EQ(cudaMalloc((void **)&m, 4096), cudaSuccess);
    size_t base = used();
    for (int i = 0; i < 4; i++)
        EQ(pthread_create(&t[i], NULL, thread_handle, m), 0);
    for (int i = 0; i < 4; i++)
        EQ(pthread_join(t[i], NULL), 0);
    EQ(cudaDeviceSynchronize(), cudaSuccess);
    EQ(used(), base);
    EQ(cudaFree(m), cudaSuccess);
}

/* A handle left alive at exit with its default workspace (the library's
 * own cudaMallocAsync, under gpuleak: tests/t_fakecuda_blas.sh). */
static void leave_workspace(void)
{
    float *m;
    cublasHandle_t h;
    EQ(cudaMalloc((void **)&m, 4096), cudaSuccess);
    EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    EQ(sgemm(h, m), CUBLAS_STATUS_SUCCESS);
    EQ(cudaFree(m), cudaSuccess);
}

/* Which libraries answered (fakecuda-run must win over a DT_RPATH). */
static void info(void)
{
    Dl_info a, b;
    CHECK(dladdr((void *)cublasCreate_v2, &a) && dladdr((void *)cublasLtCreate, &b));
    printf("libcublas=%s libcublasLt=%s\n", a.dli_fname, b.dli_fname);
}

int main(int argc, char **argv)
{
    static const struct fc_scenario tests[] = {
        { "handle", handle }, { "heuristic", heuristic }, { "workspace", workspace },
        { "workspace_config", workspace_config }, { "workspace_oom", workspace_oom },
        { "legacy", legacy }, { "no_device", no_device }, { "info", info },
        { "copies", copies }, { "leave_workspace", leave_workspace },
        { "threads", threads },
    };
    return FC_RUN_SCENARIO(argc, argv, tests);
}
