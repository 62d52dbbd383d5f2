/* The cuBLASLt stand-in's algorithms: one algorithm (id 0) for every
 * problem.  The heuristic's answer asks for the whole workspace the
 * preference allows (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES): a real
 * heuristic may return that much and no more, and which size it picks
 * depends on the card, so a caller that allocates what the heuristic asks
 * for is planned at its most (tools/fakecuda/README.md). */
#include "fc_blaslt_attr.h"
#include "fc_blaslt_desc.h"

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

/* The one algorithm's capabilities: what a plain GEMM kernel supports
 * (strided batches, out of place, host and device pointer modes, every
 * epilogue), nothing tunable (no split-K, reduction schemes, swizzling,
 * custom options; one undefined tile and stage), 16-byte alignment. */
struct fc_algo_caps {
    int32_t splitk, strided_batch, out_of_place, uplo, custom_option_max, custom_memory_order, ld_negative,
        pointer_array_batch, emulation;
    uint32_t reduction_mask, swizzling, pointer_mode_mask, epilogue_mask, align_a, align_b, align_c, align_d;
    uint32_t tiles[1], stages[1];
    uint64_t numerical_impl;
};
static const struct fc_algo_caps caps = {
    .strided_batch = 1, .out_of_place = 1,
    .pointer_mode_mask = CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE,
    .epilogue_mask = UINT32_MAX, .align_a = 16, .align_b = 16, .align_c = 16, .align_d = 16,
    .tiles = { CUBLASLT_MATMUL_TILE_UNDEFINED }, .stages = { CUBLASLT_MATMUL_STAGES_UNDEFINED },
};
#define CAP(ID, F) { CUBLASLT_ALGO_CAP_##ID, sizeof(((struct fc_algo_caps *)0)->F), offsetof(struct fc_algo_caps, F) }
static const struct fc_attr cap_attrs[] = {
    CAP(SPLITK_SUPPORT, splitk), CAP(REDUCTION_SCHEME_MASK, reduction_mask), CAP(CTA_SWIZZLING_SUPPORT, swizzling),
    CAP(STRIDED_BATCH_SUPPORT, strided_batch), CAP(OUT_OF_PLACE_RESULT_SUPPORT, out_of_place),
    CAP(UPLO_SUPPORT, uplo), CAP(TILE_IDS, tiles), CAP(CUSTOM_OPTION_MAX, custom_option_max),
    CAP(CUSTOM_MEMORY_ORDER, custom_memory_order), CAP(POINTER_MODE_MASK, pointer_mode_mask),
    CAP(EPILOGUE_MASK, epilogue_mask), CAP(STAGES_IDS, stages), CAP(LD_NEGATIVE, ld_negative),
    CAP(NUMERICAL_IMPL_FLAGS, numerical_impl), CAP(MIN_ALIGNMENT_A_BYTES, align_a),
    CAP(MIN_ALIGNMENT_B_BYTES, align_b), CAP(MIN_ALIGNMENT_C_BYTES, align_c), CAP(MIN_ALIGNMENT_D_BYTES, align_d),
    CAP(POINTER_ARRAY_BATCH_SUPPORT, pointer_array_batch), CAP(FLOATING_POINT_EMULATION_SUPPORT, emulation),
};

cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                 cublasLtMatmulAlgoCapAttributes_t attr, void *buf,
                                                 size_t sizeInBytes, size_t *sizeWritten)
{
    if (!algo)
        return CUBLAS_STATUS_INVALID_VALUE;
    /* The id arrays take any buffer they fit in (the header's example
     * passes a larger array and counts sizeWritten / 4). */
    if ((attr == CUBLASLT_ALGO_CAP_TILE_IDS || attr == CUBLASLT_ALGO_CAP_STAGES_IDS) &&
        sizeInBytes > sizeof(uint32_t))
        sizeInBytes = sizeof(uint32_t);
    return fc_attr_get(cap_attrs, sizeof cap_attrs / sizeof cap_attrs[0], &caps, attr, buf, sizeInBytes,
                       sizeWritten);
}
