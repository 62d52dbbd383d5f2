/* The backend (graph) API that cudnn-frontend, and so PyTorch's
 * convolutions and cuDNN attention, build on: descriptors keep every
 * attribute set on them and answer gets with it; what cuDNN computes
 * (heuristics' results, the engine count, workspace sizes, notes) is
 * answered here: one engine per graph (global index 0, no knobs, no
 * notes), whose workspace is fcdnn_graph_workspace()'s.  Execution
 * computes nothing. */
#include "fcdnn_core.h"
#include "fcdnn_workspace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One attribute as set: count elements of elsize bytes.  Descriptor
 * arrays (CUDNN_TYPE_BACKEND_DESCRIPTOR) hold the caller's pointers, or,
 * when owned, descriptors this one made and destroys with itself. */
struct fcdnn_attr {
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t count;
    size_t elsize;
    int owned;
    void *data;
};

struct fcdnn_desc {
    uint32_t magic;
    cudnnBackendDescriptorType_t type;
    int finalized;
    /* What a plan of this (graph, engine, engine config, plan) asks for;
     * set at finalize from the descriptor it was made of. */
    int64_t workspace;
    struct fcdnn_attr *attrs;
    size_t nattrs;
};
#define FCDNN_DESC_MAGIC 0x66646264u /* "fdbd" */

/* Past the last attribute type of cudnn_graph.h: newer enum types. */
#define FCDNN_NEWER_TYPES_END 64

/* Bytes of one element of an attribute of type t; 0 for a type this
 * cuDNN does not know. */
static size_t element_size(cudnnBackendAttributeType_t t)
{
    switch (t) {
    case CUDNN_TYPE_HANDLE: return sizeof(cudnnHandle_t);
    case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
    case CUDNN_TYPE_INT64: return sizeof(int64_t);
    case CUDNN_TYPE_FLOAT: return sizeof(float);
    case CUDNN_TYPE_DOUBLE: return sizeof(double);
    case CUDNN_TYPE_VOID_PTR: return sizeof(void *);
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(cudnnBackendDescriptor_t);
    case CUDNN_TYPE_INT32: return sizeof(int32_t);
    case CUDNN_TYPE_CHAR: return sizeof(char);
    case CUDNN_TYPE_FRACTION: return sizeof(cudnnFraction_t);
    /* The rest are enums. */
    case CUDNN_TYPE_DATA_TYPE: case CUDNN_TYPE_CONVOLUTION_MODE: case CUDNN_TYPE_HEUR_MODE:
    case CUDNN_TYPE_KNOB_TYPE: case CUDNN_TYPE_NAN_PROPOGATION: case CUDNN_TYPE_NUMERICAL_NOTE:
    case CUDNN_TYPE_LAYOUT_TYPE: case CUDNN_TYPE_ATTRIB_NAME: case CUDNN_TYPE_POINTWISE_MODE:
    case CUDNN_TYPE_GENSTATS_MODE: case CUDNN_TYPE_BN_FINALIZE_STATS_MODE:
    case CUDNN_TYPE_REDUCTION_OPERATOR_TYPE: case CUDNN_TYPE_BEHAVIOR_NOTE:
    case CUDNN_TYPE_TENSOR_REORDERING_MODE: case CUDNN_TYPE_RESAMPLE_MODE: case CUDNN_TYPE_PADDING_MODE:
    case CUDNN_TYPE_SIGNAL_MODE: case CUDNN_TYPE_NORM_MODE: case CUDNN_TYPE_NORM_FWD_PHASE:
    case CUDNN_TYPE_RNG_DISTRIBUTION: case CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE:
        return sizeof(cudnnDataType_t);
    }
    /* Types newer than this toolkit's header (PyTorch 2.14's frontend is
     * built against cuDNN 9.24: CUDNN_TYPE_RESHAPE_MODE, 31): every type
     * added in cuDNN 9 so far is an enum. */
    if ((int)t > CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE && (int)t < FCDNN_NEWER_TYPES_END) return sizeof(cudnnDataType_t);
    return 0;
}

static void trace_attr(const char *what, cudnnBackendDescriptorType_t type, cudnnBackendAttributeName_t name)
{
    if (!fcdnn_tracing()) return;
    char detail[64];
    snprintf(detail, sizeof detail, "desc %d attr %d", (int)type, (int)name);
    fcdnn_trace(what, detail);
}

static struct fcdnn_desc *fcdnn_desc_of(cudnnBackendDescriptor_t d)
{
    struct fcdnn_desc *desc = d;
    return desc && desc->magic == FCDNN_DESC_MAGIC ? desc : NULL;
}

static const struct fcdnn_attr *fcdnn_attr_find(const struct fcdnn_desc *d, cudnnBackendAttributeName_t name)
{
    for (size_t i = 0; i < d->nattrs; i++)
        if (d->attrs[i].name == name) return &d->attrs[i];
    return NULL;
}

static struct fcdnn_desc *fcdnn_attr_desc(const struct fcdnn_desc *d, cudnnBackendAttributeName_t name)
{
    const struct fcdnn_attr *a = fcdnn_attr_find(d, name);
    if (!a || a->type != CUDNN_TYPE_BACKEND_DESCRIPTOR || a->count < 1) return NULL;
    return fcdnn_desc_of(((cudnnBackendDescriptor_t *)a->data)[0]);
}

static struct fcdnn_desc *desc_new(cudnnBackendDescriptorType_t type)
{
    struct fcdnn_desc *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->magic = FCDNN_DESC_MAGIC;
    d->type = type;
    return d;
}

static void desc_free(struct fcdnn_desc *d);

static void attr_clear(struct fcdnn_attr *a)
{
    if (a->owned)
        for (int64_t i = 0; i < a->count; i++) desc_free(((struct fcdnn_desc **)a->data)[i]);
    free(a->data);
    a->data = NULL;
    a->count = 0;
}

static void desc_clear(struct fcdnn_desc *d)
{
    for (size_t i = 0; i < d->nattrs; i++) attr_clear(&d->attrs[i]);
    free(d->attrs);
    d->attrs = NULL;
    d->nattrs = 0;
}

static void desc_free(struct fcdnn_desc *d)
{
    if (!d) return;
    desc_clear(d);
    d->magic = 0;
    free(d);
}

static struct fcdnn_desc *desc_clone(const struct fcdnn_desc *src);

/* Sets (or replaces) an attribute with a copy of count elements; with
 * owned, the elements are descriptors d takes over. */
static cudnnStatus_t attr_put(struct fcdnn_desc *d, cudnnBackendAttributeName_t name,
                              cudnnBackendAttributeType_t type, int64_t count, const void *elements, int owned)
{
    size_t elsize = element_size(type);
    if (!elsize || count < 0 || (count > 0 && !elements)) return CUDNN_STATUS_BAD_PARAM;
    void *copy = NULL;
    if (count > 0) {
        copy = malloc((size_t)count * elsize);
        if (!copy) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
        memcpy(copy, elements, (size_t)count * elsize);
    }
    struct fcdnn_attr *a = (struct fcdnn_attr *)fcdnn_attr_find(d, name);
    if (a) {
        attr_clear(a);
    } else {
        struct fcdnn_attr *grown = realloc(d->attrs, (d->nattrs + 1) * sizeof *grown);
        if (!grown) {
            free(copy);
            return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
        }
        d->attrs = grown;
        a = &d->attrs[d->nattrs++];
    }
    *a = (struct fcdnn_attr){ name, type, count, elsize, owned, copy };
    return CUDNN_STATUS_SUCCESS;
}

/* Makes the descriptor attribute name of d its own copy, so that what it
 * was made of may be destroyed by the caller (the frontend does). */
static cudnnStatus_t attr_own(struct fcdnn_desc *d, cudnnBackendAttributeName_t name)
{
    struct fcdnn_desc *ref = fcdnn_attr_desc(d, name);
    if (!ref) return CUDNN_STATUS_BAD_PARAM;
    struct fcdnn_desc *copy = desc_clone(ref);
    if (!copy) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    cudnnStatus_t st = attr_put(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &copy, 1);
    if (st != CUDNN_STATUS_SUCCESS) desc_free(copy);
    return st;
}

/* dst becomes a copy of src (type, attributes, finalized, workspace);
 * owned descriptors are copied too, the caller's are shared. */
static cudnnStatus_t desc_copy_into(struct fcdnn_desc *dst, const struct fcdnn_desc *src)
{
    if (dst == src) return CUDNN_STATUS_SUCCESS;
    desc_clear(dst);
    dst->type = src->type;
    dst->finalized = src->finalized;
    dst->workspace = src->workspace;
    for (size_t i = 0; i < src->nattrs; i++) {
        const struct fcdnn_attr *a = &src->attrs[i];
        cudnnStatus_t st = attr_put(dst, a->name, a->type, a->count, a->data, 0);
        if (st != CUDNN_STATUS_SUCCESS) return st;
        if (!a->owned) continue;
        struct fcdnn_attr *copied = &dst->attrs[dst->nattrs - 1];
        copied->owned = 1;
        struct fcdnn_desc **kids = copied->data;
        for (int64_t k = 0; k < a->count; k++) kids[k] = NULL;
        for (int64_t k = 0; k < a->count; k++) {
            kids[k] = desc_clone(((struct fcdnn_desc **)a->data)[k]);
            if (!kids[k]) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

static struct fcdnn_desc *desc_clone(const struct fcdnn_desc *src)
{
    struct fcdnn_desc *d = desc_new(src->type);
    if (d && desc_copy_into(d, src) != CUDNN_STATUS_SUCCESS) {
        desc_free(d);
        d = NULL;
    }
    return d;
}

/* ---- the API ---- */

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                           cudnnBackendDescriptor_t *descriptor)
{
    trace_attr("cudnnBackendCreateDescriptor", descriptorType, 0);
    if (!descriptor || (int)descriptorType < 0 || descriptorType > CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR)
        return CUDNN_STATUS_BAD_PARAM;
    struct fcdnn_desc *d = desc_new(descriptorType);
    if (!d) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    struct fcdnn_desc *d = fcdnn_desc_of(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    desc_free(d);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor)
{
    struct fcdnn_desc *d = fcdnn_desc_of(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    desc_clear(d);
    d->finalized = 0;
    d->workspace = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                       const void *arrayOfElements)
{
    struct fcdnn_desc *d = fcdnn_desc_of(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    trace_attr("cudnnBackendSetAttribute", d->type, attributeName);
    if (d->finalized) return CUDNN_STATUS_BAD_PARAM;
    return attr_put(d, attributeName, attributeType, elementCount, arrayOfElements, 0);
}

/* A graph's, engine's, configuration's or plan's workspace, from what it
 * is made of; each keeps its own copy of that (attr_own). */
static cudnnStatus_t finalize_chain(struct fcdnn_desc *d)
{
    cudnnBackendAttributeName_t from;
    switch (d->type) {
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: {
        const struct fcdnn_attr *ops = fcdnn_attr_find(d, CUDNN_ATTR_OPERATIONGRAPH_OPS);
        if (!ops || ops->type != CUDNN_TYPE_BACKEND_DESCRIPTOR || ops->count < 1) return CUDNN_STATUS_BAD_PARAM;
        d->workspace = fcdnn_graph_workspace(ops->data, ops->count);
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: from = CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH; break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: from = CUDNN_ATTR_ENGINE_OPERATION_GRAPH; break;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: from = CUDNN_ATTR_ENGINECFG_ENGINE; break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: from = CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG; break;
    default: return CUDNN_STATUS_SUCCESS;
    }
    struct fcdnn_desc *src = fcdnn_attr_desc(d, from);
    if (!src || !src->finalized) return CUDNN_STATUS_BAD_PARAM;
    d->workspace = src->workspace;
    return attr_own(d, from);
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    struct fcdnn_desc *d = fcdnn_desc_of(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    trace_attr("cudnnBackendFinalize", d->type, 0);
    if (d->finalized) return CUDNN_STATUS_BAD_PARAM;
    cudnnStatus_t st = finalize_chain(d);
    if (st == CUDNN_STATUS_SUCCESS) d->finalized = 1;
    return st;
}

/* Copies up to requested elements of count to out; *n gets count. */
static cudnnStatus_t answer(const void *elements, size_t elsize, int64_t count, int64_t requested,
                            int64_t *n, void *out)
{
    if (n) *n = count;
    if (out && requested > 0 && count > 0)
        memcpy(out, elements, (size_t)(requested < count ? requested : count) * elsize);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t answer_int64(int64_t v, cudnnBackendAttributeType_t type, int64_t requested, int64_t *n, void *out)
{
    if (type != CUDNN_TYPE_INT64) return CUDNN_STATUS_BAD_PARAM;
    return answer(&v, sizeof v, 1, requested, n, out);
}

/* The heuristics' one result: an engine configuration of the graph's
 * engine 0, with no knob choices, filled into the caller's descriptor. */
static cudnnStatus_t fill_heuristic_result(const struct fcdnn_desc *heur, struct fcdnn_desc *cfg)
{
    struct fcdnn_desc *graph = fcdnn_attr_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
    if (!graph || !cfg) return CUDNN_STATUS_BAD_PARAM;
    struct fcdnn_desc *engine = desc_new(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    if (!engine) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    struct fcdnn_desc *graph_copy = desc_clone(graph);
    int64_t index = 0;
    cudnnStatus_t st = graph_copy ? attr_put(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                             1, &graph_copy, 1)
                                  : CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    if (st != CUDNN_STATUS_SUCCESS) {
        desc_free(graph_copy);
        desc_free(engine);
        return st;
    }
    engine->workspace = heur->workspace;
    engine->finalized = 1;
    st = attr_put(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index, 0);
    desc_clear(cfg);
    cfg->type = CUDNN_BACKEND_ENGINECFG_DESCRIPTOR;
    if (st == CUDNN_STATUS_SUCCESS)
        st = attr_put(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engine, 1);
    if (st != CUDNN_STATUS_SUCCESS) {
        desc_free(engine);
        return st;
    }
    cfg->workspace = heur->workspace;
    cfg->finalized = 1;
    return CUDNN_STATUS_SUCCESS;
}

/* Gets of what cuDNN computes rather than stores; *handled = 0 when the
 * attribute is not one of them. */
static cudnnStatus_t get_computed(const struct fcdnn_desc *d, cudnnBackendAttributeName_t name,
                                  cudnnBackendAttributeType_t type, int64_t requested, int64_t *n, void *out,
                                  int *handled)
{
    *handled = 1;
    switch (name) {
    case CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT:
        return answer_int64(1, type, requested, n, out);
    case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE:
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
        return answer_int64(d->workspace, type, requested, n, out);
    case CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED:
        return answer_int64(0, type, requested, n, out);
    case CUDNN_ATTR_ENGINEHEUR_RESULTS:
        if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR) return CUDNN_STATUS_BAD_PARAM;
        if (n) *n = 1;
        if (!out || requested < 1) return CUDNN_STATUS_SUCCESS;
        return fill_heuristic_result(d, fcdnn_desc_of(((cudnnBackendDescriptor_t *)out)[0]));
    case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: {
        if (type != CUDNN_TYPE_CHAR) return CUDNN_STATUS_BAD_PARAM;
        char json[96];
        int len = snprintf(json, sizeof json, "{\"fakecudnn\": 1, \"engine\": 0, \"workspace\": %lld}",
                           (long long)d->workspace);
        return answer(json, 1, len + 1, requested, n, out);
    }
    default:
        *handled = 0;
        return CUDNN_STATUS_SUCCESS;
    }
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                       cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType, int64_t requestedElementCount,
                                       int64_t *elementCount, void *arrayOfElements)
{
    const struct fcdnn_desc *d = fcdnn_desc_of(descriptor);
    if (!d || requestedElementCount < 0) return CUDNN_STATUS_BAD_PARAM;
    trace_attr("cudnnBackendGetAttribute", d->type, attributeName);
    int handled;
    cudnnStatus_t st = get_computed(d, attributeName, attributeType, requestedElementCount, elementCount,
                                    arrayOfElements, &handled);
    if (handled) return st;
    const struct fcdnn_attr *a = fcdnn_attr_find(d, attributeName);
    if (!a) {
        /* Knobs, notes, layouts, intermediates...: this engine has none. */
        trace_attr("cudnnBackendGetAttribute (unset)", d->type, attributeName);
        if (elementCount) *elementCount = 0;
        return element_size(attributeType) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
    }
    if (a->type != attributeType) return CUDNN_STATUS_BAD_PARAM;
    if (attributeType != CUDNN_TYPE_BACKEND_DESCRIPTOR)
        return answer(a->data, a->elsize, a->count, requestedElementCount, elementCount, arrayOfElements);
    /* Descriptors are copied into the caller's, as cuDNN does. */
    if (elementCount) *elementCount = a->count;
    int64_t k = requestedElementCount < a->count ? requestedElementCount : a->count;
    for (int64_t i = 0; arrayOfElements && i < k; i++) {
        struct fcdnn_desc *dst = fcdnn_desc_of(((cudnnBackendDescriptor_t *)arrayOfElements)[i]);
        struct fcdnn_desc *src = fcdnn_desc_of(((cudnnBackendDescriptor_t *)a->data)[i]);
        if (!dst || !src) return CUDNN_STATUS_BAD_PARAM;
        st = desc_copy_into(dst, src);
        if (st != CUDNN_STATUS_SUCCESS) return st;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Kernels compute nothing: a finalized plan on a live handle "runs". */
cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                  cudnnBackendDescriptor_t variantPack)
{
    const struct fcdnn_desc *plan = fcdnn_desc_of(executionPlan);
    const struct fcdnn_desc *pack = fcdnn_desc_of(variantPack);
    fcdnn_trace("cudnnBackendExecute", NULL);
    if (!fcdnn_handle_ok(handle) || !plan || !pack || plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
        !plan->finalized || !pack->finalized)
        return CUDNN_STATUS_BAD_PARAM;
    /* A plan that needs a workspace is given one (cuDNN checks this too). */
    if (plan->workspace > 0) {
        const struct fcdnn_attr *ws = fcdnn_attr_find(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
        if (!ws || ws->count < 1 || !((void **)ws->data)[0]) return CUDNN_STATUS_BAD_PARAM;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                            cudnnBackendDescriptor_t variantPack, cudaGraph_t graph)
{
    (void)handle, (void)executionPlan, (void)variantPack, (void)graph;
    return CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                          cudnnBackendDescriptor_t variantPack, cudaGraph_t graph)
{
    (void)handle, (void)executionPlan, (void)variantPack, (void)graph;
    return CUDNN_STATUS_NOT_SUPPORTED;
}
