/* The cuBLASLt stand-in's descriptors: matrix layouts, matmul and matrix
 * transform descriptors, matmul preferences, emulation descriptors.  Each
 * is a C struct inside NVIDIA's opaque type (cublasLt*Init fills storage
 * the caller owns; cublasLt*Create allocates the opaque type on the heap),
 * its attributes read back what was set, or the header's default. */
#include "fc_blaslt_attr.h"
#include "fc_blaslt_desc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ROW(ID, T, F) { ID, sizeof(((T *)0)->F), offsetof(T, F) }
#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

/* Every cublasLt*Init_internal's start: storage of opaque bytes at least,
 * zeroed (the defaults the caller then sets are the header's). */
static cublasStatus_t desc_clear(void *desc, size_t size, size_t opaque)
{
    if (!desc)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < opaque)
        return CUBLAS_STATUS_ALLOC_FAILED;
    memset(desc, 0, opaque);
    return CUBLAS_STATUS_SUCCESS;
}

/* Every cublasLt*Create's allocation of the opaque type (size bytes),
 * stored in *out only when it succeeds; the caller then Inits *out. */
static cublasStatus_t desc_new(void **out, size_t size)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    void *d = malloc(size);
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *out = d;
    return CUBLAS_STATUS_SUCCESS;
}

/* Every descriptor kind's Destroy (Create allocated it on the heap; an
 * Init'ed one is the caller's storage, never destroyed) and its attribute
 * get/set through its table. */
#define DESC_ACCESSORS(Kind, AttrType, table)                                                              \
    cublasStatus_t cublasLt##Kind##Destroy(cublasLt##Kind##_t desc)                                        \
    {                                                                                                      \
        free(desc);                                                                                        \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    }                                                                                                      \
    cublasStatus_t cublasLt##Kind##SetAttribute(cublasLt##Kind##_t desc, AttrType attr, const void *buf,   \
                                                size_t sizeInBytes)                                        \
    {                                                                                                      \
        return fc_attr_set(table, NROWS(table), desc, attr, buf, sizeInBytes);                             \
    }                                                                                                      \
    cublasStatus_t cublasLt##Kind##GetAttribute(cublasLt##Kind##_t desc, AttrType attr, void *buf,         \
                                                size_t sizeInBytes, size_t *sizeWritten)                   \
    {                                                                                                      \
        return fc_attr_get(table, NROWS(table), desc, attr, buf, sizeInBytes, sizeWritten);                \
    }

/* ---- matrix layout ---- */
struct fc_layout {
    uint32_t type;
    int32_t order, batch_count;
    uint32_t batch_mode;
    uint64_t rows, cols;
    int64_t ld, strided_batch_offset, plane_offset;
};
_Static_assert(sizeof(struct fc_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");
static const struct fc_attr layout_attrs[] = {
    ROW(CUBLASLT_MATRIX_LAYOUT_TYPE, struct fc_layout, type),
    ROW(CUBLASLT_MATRIX_LAYOUT_ORDER, struct fc_layout, order),
    ROW(CUBLASLT_MATRIX_LAYOUT_ROWS, struct fc_layout, rows),
    ROW(CUBLASLT_MATRIX_LAYOUT_COLS, struct fc_layout, cols),
    ROW(CUBLASLT_MATRIX_LAYOUT_LD, struct fc_layout, ld),
    ROW(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, struct fc_layout, batch_count),
    ROW(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, struct fc_layout, strided_batch_offset),
    ROW(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, struct fc_layout, plane_offset),
    ROW(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, struct fc_layout, batch_mode),
};

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size,
                                                 cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld)
{
    struct fc_layout *l = (struct fc_layout *)matLayout;
    cublasStatus_t st = desc_clear(matLayout, size, sizeof(cublasLtMatrixLayoutOpaque_t));
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    l->type = (uint32_t)type;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    l->order = CUBLASLT_ORDER_COL;
    l->batch_count = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    cublasStatus_t st = desc_new((void **)matLayout, sizeof **matLayout);
    if (st == CUBLAS_STATUS_SUCCESS)
        cublasLtMatrixLayoutInit_internal(*matLayout, sizeof **matLayout, type, rows, cols, ld);
    return st;
}

DESC_ACCESSORS(MatrixLayout, cublasLtMatrixLayoutAttribute_t, layout_attrs)

/* ---- matmul descriptor ---- */
struct fc_matmul_desc {
    int32_t compute_type, scale_type, pointer_mode, transa, transb, transc, fill_mode;
    uint32_t epilogue;
    int32_t sm_count_target, aux_data_type, bias_data_type;
    int32_t a_scale_mode, b_scale_mode, c_scale_mode, d_scale_mode, aux_scale_mode, d_out_scale_mode;
    int8_t fast_accum;
    const void *bias, *a_scale, *b_scale, *c_scale, *d_scale;
    void *aux, *amax_d, *aux_scale, *aux_amax, *d_out_scale;
    int64_t bias_batch_stride, aux_ld, aux_batch_stride, alpha_vector_batch_stride;
    cublasLtEmulationDesc_t emulation;
};
_Static_assert(sizeof(struct fc_matmul_desc) <= sizeof(cublasLtMatmulDescOpaque_t), "matmul desc fits");
#define MD(ID, F) ROW(CUBLASLT_MATMUL_DESC_##ID, struct fc_matmul_desc, F)
static const struct fc_attr matmul_attrs[] = {
    MD(COMPUTE_TYPE, compute_type), MD(SCALE_TYPE, scale_type), MD(POINTER_MODE, pointer_mode),
    MD(TRANSA, transa), MD(TRANSB, transb), MD(TRANSC, transc), MD(FILL_MODE, fill_mode),
    MD(EPILOGUE, epilogue), MD(BIAS_POINTER, bias), MD(BIAS_BATCH_STRIDE, bias_batch_stride),
    MD(EPILOGUE_AUX_POINTER, aux), MD(EPILOGUE_AUX_LD, aux_ld), MD(EPILOGUE_AUX_BATCH_STRIDE, aux_batch_stride),
    MD(ALPHA_VECTOR_BATCH_STRIDE, alpha_vector_batch_stride), MD(SM_COUNT_TARGET, sm_count_target),
    MD(A_SCALE_POINTER, a_scale), MD(B_SCALE_POINTER, b_scale), MD(C_SCALE_POINTER, c_scale),
    MD(D_SCALE_POINTER, d_scale), MD(AMAX_D_POINTER, amax_d), MD(EPILOGUE_AUX_DATA_TYPE, aux_data_type),
    MD(EPILOGUE_AUX_SCALE_POINTER, aux_scale), MD(EPILOGUE_AUX_AMAX_POINTER, aux_amax),
    MD(FAST_ACCUM, fast_accum), MD(BIAS_DATA_TYPE, bias_data_type),
    MD(A_SCALE_MODE, a_scale_mode), MD(B_SCALE_MODE, b_scale_mode), MD(C_SCALE_MODE, c_scale_mode),
    MD(D_SCALE_MODE, d_scale_mode), MD(EPILOGUE_AUX_SCALE_MODE, aux_scale_mode),
    MD(D_OUT_SCALE_POINTER, d_out_scale), MD(D_OUT_SCALE_MODE, d_out_scale_mode),
    MD(EMULATION_DESCRIPTOR, emulation),
};

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                               cublasComputeType_t computeType, cudaDataType_t scaleType)
{
    struct fc_matmul_desc *d = (struct fc_matmul_desc *)matmulDesc;
    cublasStatus_t st = desc_clear(matmulDesc, size, sizeof(cublasLtMatmulDescOpaque_t));
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    d->compute_type = computeType;
    d->scale_type = scaleType;
    d->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    d->transa = d->transb = d->transc = CUBLAS_OP_N;
    d->fill_mode = CUBLAS_FILL_MODE_FULL;
    d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    d->aux_data_type = d->bias_data_type = -1; /* "same as" D / the default, per the header */
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType)
{
    cublasStatus_t st = desc_new((void **)matmulDesc, sizeof **matmulDesc);
    if (st == CUBLAS_STATUS_SUCCESS)
        cublasLtMatmulDescInit_internal(*matmulDesc, sizeof **matmulDesc, computeType, scaleType);
    return st;
}

DESC_ACCESSORS(MatmulDesc, cublasLtMatmulDescAttributes_t, matmul_attrs)

/* ---- matrix transform descriptor ---- */
struct fc_transform_desc {
    int32_t scale_type, pointer_mode, transa, transb;
};
_Static_assert(sizeof(struct fc_transform_desc) <= sizeof(cublasLtMatrixTransformDescOpaque_t), "fits");
static const struct fc_attr transform_attrs[] = {
    ROW(CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, struct fc_transform_desc, scale_type),
    ROW(CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, struct fc_transform_desc, pointer_mode),
    ROW(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, struct fc_transform_desc, transa),
    ROW(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, struct fc_transform_desc, transb),
};

cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t transformDesc, size_t size,
                                                        cudaDataType scaleType)
{
    cublasStatus_t st = desc_clear(transformDesc, size, sizeof(cublasLtMatrixTransformDescOpaque_t));
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    ((struct fc_transform_desc *)transformDesc)->scale_type = scaleType;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *transformDesc, cudaDataType scaleType)
{
    cublasStatus_t st = desc_new((void **)transformDesc, sizeof **transformDesc);
    if (st == CUBLAS_STATUS_SUCCESS)
        cublasLtMatrixTransformDescInit_internal(*transformDesc, sizeof **transformDesc, scaleType);
    return st;
}

DESC_ACCESSORS(MatrixTransformDesc, cublasLtMatrixTransformDescAttributes_t, transform_attrs)

/* ---- matmul preference ---- */
struct fc_preference {
    uint32_t search_mode, reduction_mask, align_a, align_b, align_c, align_d;
    float max_waves;
    uint64_t max_workspace, impl_mask;
};
_Static_assert(sizeof(struct fc_preference) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "preference fits");
#define PR(ID, F) ROW(CUBLASLT_MATMUL_PREF_##ID, struct fc_preference, F)
static const struct fc_attr preference_attrs[] = {
    PR(SEARCH_MODE, search_mode), PR(MAX_WORKSPACE_BYTES, max_workspace),
    PR(REDUCTION_SCHEME_MASK, reduction_mask), PR(MIN_ALIGNMENT_A_BYTES, align_a),
    PR(MIN_ALIGNMENT_B_BYTES, align_b), PR(MIN_ALIGNMENT_C_BYTES, align_c),
    PR(MIN_ALIGNMENT_D_BYTES, align_d), PR(MAX_WAVES_COUNT, max_waves), PR(IMPL_MASK, impl_mask),
};

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size)
{
    struct fc_preference *p = (struct fc_preference *)pref;
    cublasStatus_t st = desc_clear(pref, size, sizeof(cublasLtMatmulPreferenceOpaque_t));
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    p->search_mode = CUBLASLT_SEARCH_BEST_FIT;
    p->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    p->align_a = p->align_b = p->align_c = p->align_d = 256;
    p->impl_mask = UINT64_MAX;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    cublasStatus_t st = desc_new((void **)pref, sizeof **pref);
    if (st == CUBLAS_STATUS_SUCCESS)
        cublasLtMatmulPreferenceInit_internal(*pref, sizeof **pref);
    return st;
}

DESC_ACCESSORS(MatmulPreference, cublasLtMatmulPreferenceAttributes_t, preference_attrs)

uint64_t fc_preference_max_workspace(cublasLtMatmulPreference_t pref)
{
    return pref ? ((const struct fc_preference *)pref)->max_workspace : 0;
}

/* ---- emulation descriptor ---- */
struct fc_emulation_desc {
    int32_t strategy, special_values, mantissa_control, max_mantissa_bits, mantissa_bit_offset;
    int32_t *mantissa_bit_count;
};
_Static_assert(sizeof(struct fc_emulation_desc) <= sizeof(cublasLtEmulationDescOpaque_t), "emulation desc fits");
#define EM(ID, F) ROW(CUBLASLT_EMULATION_DESC_##ID, struct fc_emulation_desc, F)
static const struct fc_attr emulation_attrs[] = {
    EM(STRATEGY, strategy), EM(SPECIAL_VALUES_SUPPORT, special_values),
    EM(FIXEDPOINT_MANTISSA_CONTROL, mantissa_control), EM(FIXEDPOINT_MAX_MANTISSA_BIT_COUNT, max_mantissa_bits),
    EM(FIXEDPOINT_MANTISSA_BIT_OFFSET, mantissa_bit_offset),
    EM(FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER, mantissa_bit_count),
};

cublasStatus_t cublasLtEmulationDescInit_internal(cublasLtEmulationDesc_t emulationDesc, size_t size)
{
    cublasStatus_t st = desc_clear(emulationDesc, size, sizeof(cublasLtEmulationDescOpaque_t));
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    ((struct fc_emulation_desc *)emulationDesc)->special_values = 0xFFFF;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtEmulationDescCreate(cublasLtEmulationDesc_t *emulationDesc)
{
    cublasStatus_t st = desc_new((void **)emulationDesc, sizeof **emulationDesc);
    if (st == CUBLAS_STATUS_SUCCESS)
        cublasLtEmulationDescInit_internal(*emulationDesc, sizeof **emulationDesc);
    return st;
}

DESC_ACCESSORS(EmulationDesc, cublasLtEmulationDescAttributes_t, emulation_attrs)
