/* The cuBLASLt stand-in's algorithms: one algorithm (id 0) for every
 * problem.  The heuristic's answer asks for the whole workspace the
 * preference allows (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES): a real
 * heuristic may return that much and no more, and which size it picks
 * depends on the card, so a caller that allocates what the heuristic asks
 * for is planned at its most (tools/fakecuda/README.md). */
#include "fc_blaslt.h"

#include <stddef.h>
#include <string.h>

/* What a cublasLtMatmulAlgo_t holds here. */
struct fc_algo {
    int32_t id, splitk;
    uint32_t tile, reduction, swizzle, custom, stages;
    uint16_t inner_shape, cluster_shape;
    uint64_t workspace; /* what the heuristic said this algorithm needs */
};
_Static_assert(sizeof(struct fc_algo) <= sizeof(cublasLtMatmulAlgo_t), "algo fits");

#define CF(ID, F) { CUBLASLT_ALGO_CONFIG_##ID, sizeof(((struct fc_algo *)0)->F), offsetof(struct fc_algo, F) }
static const struct fc_attr config_attrs[] = {
    CF(ID, id), CF(TILE_ID, tile), CF(SPLITK_NUM, splitk), CF(REDUCTION_SCHEME, reduction),
    CF(CTA_SWIZZLING, swizzle), CF(CUSTOM_OPTION, custom), CF(STAGES_ID, stages),
    CF(INNER_SHAPE_ID, inner_shape), CF(CLUSTER_SHAPE_ID, cluster_shape),
};

/* Kept in the caller's cublasLtMatmulAlgo_t by memcpy (it is plain data
 * the caller copies around). */
static void algo_init(cublasLtMatmulAlgo_t *algo, int id, uint64_t workspace)
{
    struct fc_algo a = { .id = id, .splitk = 1, .workspace = workspace };
    memset(algo, 0, sizeof *algo);
    memcpy(algo, &a, sizeof a);
}

cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType, cudaDataType_t Atype, cudaDataType_t Btype,
                                        cudaDataType_t Ctype, cudaDataType_t Dtype, int requestedAlgoCount,
                                        int algoIdsArray[], int *returnAlgoCount)
{
    (void)computeType, (void)scaleType, (void)Atype, (void)Btype, (void)Ctype, (void)Dtype;
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount < 1 || !algoIdsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    algoIdsArray[0] = 0;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                      cudaDataType_t scaleType, cudaDataType_t Atype, cudaDataType_t Btype,
                                      cudaDataType_t Ctype, cudaDataType_t Dtype, int algoId,
                                      cublasLtMatmulAlgo_t *algo)
{
    (void)computeType, (void)scaleType, (void)Atype, (void)Btype, (void)Ctype, (void)Dtype;
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo || algoId != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    algo_init(algo, algoId, 0);
    return CUBLAS_STATUS_SUCCESS;
}

static void result_fill(cublasLtMatmulHeuristicResult_t *r, const cublasLtMatmulAlgo_t *algo)
{
    cublasLtMatmulAlgo_t copy = *algo; /* algo may point into r */
    struct fc_algo a;
    memcpy(&a, &copy, sizeof a);
    memset(r, 0, sizeof *r);
    r->algo = copy;
    r->workspaceSize = a.workspace;
    r->state = CUBLAS_STATUS_SUCCESS;
    r->wavesCount = 1.0f;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int *returnAlgoCount)
{
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!operationDesc || !Adesc || !Bdesc || !Cdesc || !Ddesc || requestedAlgoCount < 1 ||
        !heuristicResultsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulAlgo_t algo;
    algo_init(&algo, 0, fc_preference_max_workspace(preference));
    result_fill(&heuristicResultsArray[0], &algo);
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                       cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                       cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                       const cublasLtMatmulAlgo_t *algo, cublasLtMatmulHeuristicResult_t *result)
{
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!operationDesc || !Adesc || !Bdesc || !Cdesc || !Ddesc || !algo || !result)
        return CUBLAS_STATUS_INVALID_VALUE;
    result_fill(result, algo);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr, const void *buf,
                                                    size_t sizeInBytes)
{
    if (!algo)
        return CUBLAS_STATUS_INVALID_VALUE;
    return fc_attr_set(config_attrs, sizeof config_attrs / sizeof config_attrs[0], algo, attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                    size_t sizeInBytes, size_t *sizeWritten)
{
    if (!algo)
        return CUBLAS_STATUS_INVALID_VALUE;
    return fc_attr_get(config_attrs, sizeof config_attrs / sizeof config_attrs[0], algo, attr, buf, sizeInBytes,
                       sizeWritten);
}
