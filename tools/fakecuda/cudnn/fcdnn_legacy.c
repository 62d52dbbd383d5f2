/* The legacy (pre-graph) API PyTorch 2.14 still calls: descriptors that
 * keep what is set on them, workspace and reserve sizes by the policy of
 * fcdnn_workspace.c (README, "cuDNN 9"), algorithm queries that answer one
 * algorithm.  Operations compute nothing (the generated stubs). */
#include "fcdnn_core.h"

#include <stdlib.h>
#include <string.h>

#define FCDNN_LEGACY_MAGIC 0x66646c67u /* "fdlg" */
#define FCDNN_MAX_DIMS 8 /* CUDNN_DIM_MAX */

/* Every legacy descriptor starts with a magic, so that Destroy and Get
 * refuse what Create did not make. */
struct cudnnTensorStruct {
    uint32_t magic;
    cudnnDataType_t type;
    int nb_dims;
    int dims[FCDNN_MAX_DIMS];
    int strides[FCDNN_MAX_DIMS];
};
struct cudnnFilterStruct {
    uint32_t magic;
    cudnnDataType_t type;
    cudnnTensorFormat_t format;
    int nb_dims;
    int dims[FCDNN_MAX_DIMS];
};
/* Descriptors whose settings nothing here reads back. */
#define OPAQUE_DESCRIPTOR(s) struct s { uint32_t magic; };
OPAQUE_DESCRIPTOR(cudnnConvolutionStruct)
OPAQUE_DESCRIPTOR(cudnnActivationStruct)
OPAQUE_DESCRIPTOR(cudnnDropoutStruct)
OPAQUE_DESCRIPTOR(cudnnPoolingStruct)
OPAQUE_DESCRIPTOR(cudnnCTCLossStruct)
OPAQUE_DESCRIPTOR(cudnnRNNStruct)
OPAQUE_DESCRIPTOR(cudnnRNNDataStruct)
OPAQUE_DESCRIPTOR(cudnnSpatialTransformerStruct)
OPAQUE_DESCRIPTOR(cudnnLRNStruct)
OPAQUE_DESCRIPTOR(cudnnOpTensorStruct)
OPAQUE_DESCRIPTOR(cudnnReduceTensorStruct)
OPAQUE_DESCRIPTOR(cudnnTensorTransformStruct)

#define CREATE_DESTROY(kind, s)                                                   \
    cudnnStatus_t cudnnCreate##kind##Descriptor(cudnn##kind##Descriptor_t *desc)  \
    {                                                                             \
        if (!desc) return CUDNN_STATUS_BAD_PARAM;                                 \
        struct s *d = calloc(1, sizeof *d);                                       \
        if (!d) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;        \
        d->magic = FCDNN_LEGACY_MAGIC;                                            \
        *desc = d;                                                                \
        return CUDNN_STATUS_SUCCESS;                                              \
    }                                                                             \
    cudnnStatus_t cudnnDestroy##kind##Descriptor(cudnn##kind##Descriptor_t desc)  \
    {                                                                             \
        if (!desc) return CUDNN_STATUS_SUCCESS; /* as cuDNN: NULL is no error */  \
        if (desc->magic != FCDNN_LEGACY_MAGIC) return CUDNN_STATUS_BAD_PARAM;     \
        desc->magic = 0;                                                          \
        free(desc);                                                               \
        return CUDNN_STATUS_SUCCESS;                                              \
    }
CREATE_DESTROY(Tensor, cudnnTensorStruct)
CREATE_DESTROY(Filter, cudnnFilterStruct)
CREATE_DESTROY(Convolution, cudnnConvolutionStruct)
CREATE_DESTROY(Activation, cudnnActivationStruct)
CREATE_DESTROY(Dropout, cudnnDropoutStruct)
CREATE_DESTROY(Pooling, cudnnPoolingStruct)
CREATE_DESTROY(CTCLoss, cudnnCTCLossStruct)
CREATE_DESTROY(RNN, cudnnRNNStruct)
CREATE_DESTROY(RNNData, cudnnRNNDataStruct)
CREATE_DESTROY(SpatialTransformer, cudnnSpatialTransformerStruct)
CREATE_DESTROY(OpTensor, cudnnOpTensorStruct)
CREATE_DESTROY(ReduceTensor, cudnnReduceTensorStruct)
CREATE_DESTROY(TensorTransform, cudnnTensorTransformStruct)
CREATE_DESTROY(LRN, cudnnLRNStruct)

/* ---- tensors and filters: what is set is what Get answers ---- */

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                                         const int dimA[], const int strideA[])
{
    if (!tensorDesc || tensorDesc->magic != FCDNN_LEGACY_MAGIC || nbDims < 1 || nbDims > FCDNN_MAX_DIMS || !dimA ||
        !strideA)
        return CUDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < nbDims; i++)
        if (dimA[i] < 1 || strideA[i] < 1) return CUDNN_STATUS_BAD_PARAM;
    tensorDesc->type = dataType;
    tensorDesc->nb_dims = nbDims;
    memcpy(tensorDesc->dims, dimA, (size_t)nbDims * sizeof *dimA);
    memcpy(tensorDesc->strides, strideA, (size_t)nbDims * sizeof *strideA);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                         cudnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[])
{
    if (!tensorDesc || tensorDesc->magic != FCDNN_LEGACY_MAGIC || nbDimsRequested < 0) return CUDNN_STATUS_BAD_PARAM;
    if (dataType) *dataType = tensorDesc->type;
    if (nbDims) *nbDims = tensorDesc->nb_dims;
    int n = nbDimsRequested < tensorDesc->nb_dims ? nbDimsRequested : tensorDesc->nb_dims;
    for (int i = 0; i < n; i++) {
        if (dimA) dimA[i] = tensorDesc->dims[i];
        if (strideA) strideA[i] = tensorDesc->strides[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int nbDims, const int filterDimA[])
{
    if (!filterDesc || filterDesc->magic != FCDNN_LEGACY_MAGIC || nbDims < 1 || nbDims > FCDNN_MAX_DIMS ||
        !filterDimA)
        return CUDNN_STATUS_BAD_PARAM;
    filterDesc->type = dataType;
    filterDesc->format = format;
    filterDesc->nb_dims = nbDims;
    memcpy(filterDesc->dims, filterDimA, (size_t)nbDims * sizeof *filterDimA);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                         cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *nbDims,
                                         int filterDimA[])
{
    if (!filterDesc || filterDesc->magic != FCDNN_LEGACY_MAGIC || nbDimsRequested < 0) return CUDNN_STATUS_BAD_PARAM;
    if (dataType) *dataType = filterDesc->type;
    if (format) *format = filterDesc->format;
    if (nbDims) *nbDims = filterDesc->nb_dims;
    int n = nbDimsRequested < filterDesc->nb_dims ? nbDimsRequested : filterDesc->nb_dims;
    for (int i = 0; filterDimA && i < n; i++) filterDimA[i] = filterDesc->dims[i];
    return CUDNN_STATUS_SUCCESS;
}

/* ---- sizes (the policy: README, "cuDNN") ---- */

/* Dropout's random states: one 64-byte Philox state (curandStatePhilox4_32_10_t)
 * for each of 2048 threads on each of the H100's 132 SMs. */
#define FCDNN_DROPOUT_STATES_BYTES ((size_t)132 * 2048 * 64)

cudnnStatus_t cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *sizeInBytes)
{
    if (!fcdnn_handle_ok(handle) || !sizeInBytes) return CUDNN_STATUS_BAD_PARAM;
    *sizeInBytes = FCDNN_DROPOUT_STATES_BYTES;
    return CUDNN_STATUS_SUCCESS;
}

static size_t elem_bytes(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_BOOLEAN:
    case CUDNN_DATA_FP8_E4M3: case CUDNN_DATA_FP8_E5M2: return 1;
    default: return 4;
    }
}

/* Elements a tensor spans, from its dimensions (the product). */
static size_t tensor_elements(const struct cudnnTensorStruct *t)
{
    size_t n = 1;
    for (int i = 0; i < t->nb_dims; i++) n *= (size_t)t->dims[i];
    return n;
}

cudnnStatus_t cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size)
{
    if (!tensorDesc || tensorDesc->magic != FCDNN_LEGACY_MAGIC || !size) return CUDNN_STATUS_BAD_PARAM;
    /* The furthest element the strides reach, plus one. */
    size_t last = 0;
    for (int i = 0; i < tensorDesc->nb_dims; i++)
        last += (size_t)(tensorDesc->dims[i] - 1) * (size_t)tensorDesc->strides[i];
    *size = tensorDesc->nb_dims ? (last + 1) * elem_bytes(tensorDesc->type) : 0;
    return CUDNN_STATUS_SUCCESS;
}

/* Dropout's reserve: one byte per element, its mask. */
cudnnStatus_t cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc, size_t *sizeInBytes)
{
    if (!xdesc || xdesc->magic != FCDNN_LEGACY_MAGIC || !sizeInBytes) return CUDNN_STATUS_BAD_PARAM;
    *sizeInBytes = tensor_elements(xdesc);
    return CUDNN_STATUS_SUCCESS;
}

/* Workspaces of the legacy operations: none (the policy, README "cuDNN 9":
 * what an implicit-GEMM engine asks for). */
#define ZERO_SIZE(call, ...)                                                    \
    cudnnStatus_t call(__VA_ARGS__, size_t *sizeInBytes)                        \
    {                                                                           \
        if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM;                        \
        *sizeInBytes = 0;                                                       \
        return CUDNN_STATUS_SUCCESS;                                            \
    }
#define U __attribute__((unused))
ZERO_SIZE(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize, U cudnnHandle_t h, U cudnnBatchNormMode_t m,
          U cudnnBatchNormOps_t o, U const cudnnTensorDescriptor_t x, U const cudnnTensorDescriptor_t z,
          U const cudnnTensorDescriptor_t y, U const cudnnTensorDescriptor_t bn,
          U const cudnnActivationDescriptor_t a)
ZERO_SIZE(cudnnGetBatchNormalizationBackwardExWorkspaceSize, U cudnnHandle_t h, U cudnnBatchNormMode_t m,
          U cudnnBatchNormOps_t o, U const cudnnTensorDescriptor_t x, U const cudnnTensorDescriptor_t y,
          U const cudnnTensorDescriptor_t dy, U const cudnnTensorDescriptor_t dz, U const cudnnTensorDescriptor_t dx,
          U const cudnnTensorDescriptor_t dbn, U const cudnnActivationDescriptor_t a)
ZERO_SIZE(cudnnGetBatchNormalizationTrainingExReserveSpaceSize, U cudnnHandle_t h, U cudnnBatchNormMode_t m,
          U cudnnBatchNormOps_t o, U const cudnnActivationDescriptor_t a, U const cudnnTensorDescriptor_t x)
ZERO_SIZE(cudnnGetCTCLossWorkspaceSize, U cudnnHandle_t h, U const cudnnTensorDescriptor_t p,
          U const cudnnTensorDescriptor_t g, U const int *l, U const int *ll, U const int *il, U cudnnCTCLossAlgo_t a,
          U cudnnCTCLossDescriptor_t c)
ZERO_SIZE(cudnnGetCTCLossWorkspaceSize_v8, U cudnnHandle_t h, U cudnnCTCLossAlgo_t a, U cudnnCTCLossDescriptor_t c,
          U const cudnnTensorDescriptor_t p, U const cudnnTensorDescriptor_t g)
ZERO_SIZE(cudnnGetConvolutionForwardWorkspaceSize, U cudnnHandle_t h, U const cudnnTensorDescriptor_t x,
          U const cudnnFilterDescriptor_t w, U const cudnnConvolutionDescriptor_t c,
          U const cudnnTensorDescriptor_t y, U cudnnConvolutionFwdAlgo_t a)
ZERO_SIZE(cudnnGetConvolutionBackwardDataWorkspaceSize, U cudnnHandle_t h, U const cudnnFilterDescriptor_t w,
          U const cudnnTensorDescriptor_t dy, U const cudnnConvolutionDescriptor_t c,
          U const cudnnTensorDescriptor_t dx, U cudnnConvolutionBwdDataAlgo_t a)
ZERO_SIZE(cudnnGetConvolutionBackwardFilterWorkspaceSize, U cudnnHandle_t h, U const cudnnTensorDescriptor_t x,
          U const cudnnTensorDescriptor_t dy, U const cudnnConvolutionDescriptor_t c,
          U const cudnnFilterDescriptor_t dw, U cudnnConvolutionBwdFilterAlgo_t a)

/* ---- algorithm queries: one algorithm, no workspace, deterministic ---- */

#define ONE_ALGO(perf_t, algo_value)                                                   \
    do {                                                                               \
        if (!returnedAlgoCount || !perfResults || requestedAlgoCount < 1)              \
            return CUDNN_STATUS_BAD_PARAM;                                             \
        memset(perfResults, 0, sizeof(perf_t));                                        \
        perfResults[0].algo = (algo_value);                                            \
        perfResults[0].status = CUDNN_STATUS_SUCCESS;                                  \
        perfResults[0].determinism = CUDNN_DETERMINISTIC;                              \
        perfResults[0].mathType = CUDNN_DEFAULT_MATH;                                  \
        *returnedAlgoCount = 1;                                                        \
        return CUDNN_STATUS_SUCCESS;                                                   \
    } while (0)

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(U cudnnHandle_t handle, U const cudnnTensorDescriptor_t srcDesc,
                                                     U const cudnnFilterDescriptor_t filterDesc,
                                                     U const cudnnConvolutionDescriptor_t convDesc,
                                                     U const cudnnTensorDescriptor_t destDesc,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    ONE_ALGO(cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(U cudnnHandle_t handle, U const cudnnTensorDescriptor_t xDesc,
                                                     U const void *x, U const cudnnFilterDescriptor_t wDesc,
                                                     U const void *w, U const cudnnConvolutionDescriptor_t convDesc,
                                                     U const cudnnTensorDescriptor_t yDesc, U void *y,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t *perfResults, U void *workSpace,
                                                     U size_t workSpaceSizeInBytes)
{
    ONE_ALGO(cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(U cudnnHandle_t handle,
                                                          U const cudnnFilterDescriptor_t filterDesc,
                                                          U const cudnnTensorDescriptor_t diffDesc,
                                                          U const cudnnConvolutionDescriptor_t convDesc,
                                                          U const cudnnTensorDescriptor_t gradDesc,
                                                          const int requestedAlgoCount, int *returnedAlgoCount,
                                                          cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    ONE_ALGO(cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    U cudnnHandle_t handle, U const cudnnFilterDescriptor_t wDesc, U const void *w,
    U const cudnnTensorDescriptor_t dyDesc, U const void *dy, U const cudnnConvolutionDescriptor_t convDesc,
    U const cudnnTensorDescriptor_t dxDesc, U void *dx, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t *perfResults, U void *workSpace, U size_t workSpaceSizeInBytes)
{
    ONE_ALGO(cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(U cudnnHandle_t handle,
                                                            U const cudnnTensorDescriptor_t srcDesc,
                                                            U const cudnnTensorDescriptor_t diffDesc,
                                                            U const cudnnConvolutionDescriptor_t convDesc,
                                                            U const cudnnFilterDescriptor_t gradDesc,
                                                            const int requestedAlgoCount, int *returnedAlgoCount,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    ONE_ALGO(cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    U cudnnHandle_t handle, U const cudnnTensorDescriptor_t xDesc, U const void *x,
    U const cudnnTensorDescriptor_t dyDesc, U const void *y, U const cudnnConvolutionDescriptor_t convDesc,
    U const cudnnFilterDescriptor_t dwDesc, U void *dw, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t *perfResults, U void *workSpace, U size_t workSpaceSizeInBytes)
{
    ONE_ALGO(cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
}

/* ---- RNNs: not modelled ----
 * PyTorch lays its flat weight buffer out from these answers; a stub's
 * success would leave its sizes uninitialized (a GRU asked for 130,066 GiB),
 * so they say CUDNN_STATUS_NOT_SUPPORTED and PyTorch raises at once. */

cudnnStatus_t cudnnGetRNNWeightSpaceSize(U cudnnHandle_t handle, U cudnnRNNDescriptor_t rnnDesc,
                                         U size_t *weightSpaceSize)
{
    fcdnn_trace("cudnnGetRNNWeightSpaceSize", "(RNNs are not modelled)");
    return CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t cudnnGetRNNTempSpaceSizes(U cudnnHandle_t handle, U cudnnRNNDescriptor_t rnnDesc,
                                        U cudnnForwardMode_t fwdMode, U cudnnRNNDataDescriptor_t xDesc,
                                        U size_t *workSpaceSize, U size_t *reserveSpaceSize)
{
    fcdnn_trace("cudnnGetRNNTempSpaceSizes", "(RNNs are not modelled)");
    return CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t cudnnGetRNNWeightParams(U cudnnHandle_t handle, U cudnnRNNDescriptor_t rnnDesc, U int32_t pseudoLayer,
                                      U size_t weightSpaceSize, U const void *weightSpace, U int32_t linLayerID,
                                      U cudnnTensorDescriptor_t mDesc, U void **mAddr, U cudnnTensorDescriptor_t bDesc,
                                      U void **bAddr)
{
    fcdnn_trace("cudnnGetRNNWeightParams", "(RNNs are not modelled)");
    return CUDNN_STATUS_NOT_SUPPORTED;
}
