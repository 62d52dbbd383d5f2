/* fakecuda's cuDNN stand-in at the C level (tests/t_fakecuda_cudnn.sh):
 * the calls PyTorch's cudnn-frontend makes for a convolution, in its
 * order (FAKECUDNN_TRACE=1 recorded them), with the answers it reads;
 * versions, handles, streams, legacy descriptors and sizes. */
#include <cudnn.h>
#include <stdbool.h>

#include "fc_check.h"

#define OK(call) EQ((call), CUDNN_STATUS_SUCCESS)

static cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type)
{
    cudnnBackendDescriptor_t d = NULL;
    OK(cudnnBackendCreateDescriptor(type, &d));
    CHECK(d != NULL);
    return d;
}

static void set_i64(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, int64_t n, const int64_t *v)
{
    OK(cudnnBackendSetAttribute(d, name, CUDNN_TYPE_INT64, n, v));
}

static void set_desc(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendDescriptor_t v)
{
    OK(cudnnBackendSetAttribute(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v));
}

static cudnnBackendDescriptor_t tensor(int64_t uid, const int64_t dims[4])
{
    cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    int64_t strides[4] = { dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1 }, align = 16;
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
    set_i64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, 4, dims);
    set_i64(t, CUDNN_ATTR_TENSOR_STRIDES, 4, strides);
    set_i64(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, 1, &uid);
    set_i64(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 1, &align);
    OK(cudnnBackendFinalize(t));
    return t;
}

/* A forward convolution graph, as the frontend builds it. */
static cudnnBackendDescriptor_t conv_graph(cudnnHandle_t h, cudnnBackendDescriptor_t parts[5])
{
    static const int64_t xd[4] = { 8, 3, 32, 32 }, wd[4] = { 16, 3, 3, 3 }, yd[4] = { 8, 16, 32, 32 };
    parts[0] = tensor('x', xd);
    parts[1] = tensor('w', wd);
    parts[2] = tensor('y', yd);
    cudnnBackendDescriptor_t conv = parts[3] = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    int64_t two = 2, one[2] = { 1, 1 };
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    set_i64(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 1, &two);
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    set_i64(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 2, one);
    set_i64(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, 2, one);
    set_i64(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, 2, one);
    set_i64(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, one);
    OK(cudnnBackendFinalize(conv));
    cudnnBackendDescriptor_t op = parts[4] = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    float alpha = 1, beta = 0;
    set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, parts[0]);
    set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, parts[1]);
    set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, parts[2]);
    set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv);
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
    OK(cudnnBackendFinalize(op));
    cudnnBackendDescriptor_t graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set_desc(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, op);
    OK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(cudnnBackendFinalize(graph));
    return graph;
}

/* Heuristics, engine configuration, plan, variant pack, execute; the
 * plan's workspace is workspace (FAKECUDNN_WORKSPACE_BYTES). */
static void frontend_sequence(int64_t workspace)
{
    cudnnHandle_t h;
    OK(cudnnCreate(&h));
    cudnnBackendDescriptor_t parts[5];
    cudnnBackendDescriptor_t graph = conv_graph(h, parts);
    int64_t n = -1, v = -1;
    OK(cudnnBackendGetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n, &v));
    EQ(n, 1);
    EQ(v, 1);

    cudnnBackendDescriptor_t heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_INSTANT;
    set_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
    OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    OK(cudnnBackendFinalize(heur));
    /* The count first, then the caller's own configurations filled. */
    OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL));
    EQ(n, 1);
    cudnnBackendDescriptor_t cfg = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg));
    EQ(n, 1);
    /* The graph and heuristics may go before the configuration is used. */
    OK(cudnnBackendDestroyDescriptor(heur));
    OK(cudnnBackendDestroyDescriptor(graph));

    cudnnBackendDescriptor_t engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    OK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine));
    EQ(n, 1);
    OK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &v));
    EQ(n, 1);
    EQ(v, 0);
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    OK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes));
    EQ(n, 0);
    cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
    OK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &n, behavior));
    EQ(n, 0);
    cudnnBackendDescriptor_t knob = make(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    OK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &knob));
    EQ(n, 0);
    OK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &v));
    EQ(v, workspace);
    /* A wrong type is refused. */
    EQ(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT32, 1, &n, &v),
       CUDNN_STATUS_BAD_PARAM);

    cudnnBackendDescriptor_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg);
    OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(cudnnBackendFinalize(plan));
    EQ(cudnnBackendFinalize(plan), CUDNN_STATUS_BAD_PARAM);
    OK(cudnnBackendDestroyDescriptor(cfg));
    OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &v));
    EQ(v, workspace);
    char json[128];
    OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                (int64_t)sizeof json, &n, json));
    EQ(n, (long long)strlen(json) + 1);
    CHECK(json[0] == '{');

    cudnnBackendDescriptor_t pack = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    static char buf[3][64];
    void *ptrs[3] = { buf[0], buf[1], buf[2] }, *ws = workspace ? buf : NULL;
    int64_t uids[3] = { 'x', 'w', 'y' };
    OK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    set_i64(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, 3, uids);
    OK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    OK(cudnnBackendFinalize(pack));
    OK(cudnnBackendExecute(h, plan, pack));
    EQ(cudnnBackendExecute(NULL, plan, pack), CUDNN_STATUS_BAD_PARAM);

    for (int i = 0; i < 5; i++) OK(cudnnBackendDestroyDescriptor(parts[i]));
    OK(cudnnBackendDestroyDescriptor(engine));
    OK(cudnnBackendDestroyDescriptor(knob));
    OK(cudnnBackendDestroyDescriptor(plan));
    OK(cudnnBackendDestroyDescriptor(pack));
    OK(cudnnDestroy(h));
}

static void backend(void)
{
    const char *w = getenv("FAKECUDNN_WORKSPACE_BYTES");
    frontend_sequence(w ? atoll(w) : 0);
}

/* What set is what get answers, element by element; counts; types. */
static void attributes(void)
{
    cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int64_t dims[3] = { 2, 8, 256 }, got[3] = { 0 }, n = 0;
    set_i64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, 3, dims);
    OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &n, NULL));
    EQ(n, 3);
    OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &n, got));
    EQ(n, 3);
    EQ(got[0], 2);
    EQ(got[1], 8);
    EQ(got[2], 0); /* only the 2 asked for */
    bool is_virtual = true, v = false;
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual));
    OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &n, &v));
    CHECK(v);
    /* A type newer than this header (CUDNN_TYPE_RESHAPE_MODE, 31) is an enum. */
    cudnnBackendDescriptor_t r = make(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    int mode = 1;
    OK(cudnnBackendSetAttribute(r, (cudnnBackendAttributeName_t)3101, (cudnnBackendAttributeType_t)31, 1, &mode));
    EQ(cudnnBackendSetAttribute(r, CUDNN_ATTR_TENSOR_UNIQUE_ID, (cudnnBackendAttributeType_t)999, 1, &mode),
       CUDNN_STATUS_BAD_PARAM);
    OK(cudnnBackendFinalize(t));
    EQ(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, dims), CUDNN_STATUS_BAD_PARAM);
    OK(cudnnBackendDestroyDescriptor(t));
    OK(cudnnBackendDestroyDescriptor(r));
    EQ(cudnnBackendDestroyDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    EQ(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)99, &t), CUDNN_STATUS_BAD_PARAM);
    /* A plan of no configuration is refused. */
    cudnnBackendDescriptor_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    EQ(cudnnBackendFinalize(plan), CUDNN_STATUS_BAD_PARAM);
    OK(cudnnBackendDestroyDescriptor(plan));
}

static void versions(void)
{
    EQ(cudnnGetVersion(), 91900);
    EQ(cudnnGetCudartVersion(), 13010);
    EQ(cudnnGetMaxDeviceVersion(), 1210);
    int v = -1;
    OK(cudnnGetProperty(MAJOR_VERSION, &v));
    EQ(v, 9);
    OK(cudnnGetProperty(MINOR_VERSION, &v));
    EQ(v, 19);
    OK(cudnnGetProperty(PATCH_LEVEL, &v));
    EQ(v, 0);
    CHECK(strcmp(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM") == 0);
    CHECK(strcmp(cudnnGetErrorString((cudnnStatus_t)6000), "CUDNN_UNKNOWN_STATUS") == 0);
    char msg[8] = "x";
    cudnnGetLastErrorString(msg, sizeof msg);
    EQ(msg[0], 0);
}

static void handles_and_legacy(void)
{
    cudnnHandle_t h;
    OK(cudnnCreate(&h));
    cudaStream_t s = (cudaStream_t)0x1234, got = NULL;
    OK(cudnnSetStream(h, s));
    OK(cudnnGetStream(h, &got));
    CHECK(got == s);
    size_t bytes = 0;
    OK(cudnnDropoutGetStatesSize(h, &bytes));
    EQ(bytes, 132 * 2048 * 64);
    EQ(cudnnDropoutGetStatesSize(NULL, &bytes), CUDNN_STATUS_BAD_PARAM);

    cudnnTensorDescriptor_t t;
    OK(cudnnCreateTensorDescriptor(&t));
    int dims[4] = { 8, 16, 32, 32 }, strides[4] = { 16384, 1024, 32, 1 }, d2[4], s2[4], nb = 0;
    cudnnDataType_t type;
    OK(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_HALF, 4, dims, strides));
    OK(cudnnGetTensorNdDescriptor(t, 4, &type, &nb, d2, s2));
    EQ(type, CUDNN_DATA_HALF);
    EQ(nb, 4);
    CHECK(memcmp(d2, dims, sizeof dims) == 0 && memcmp(s2, strides, sizeof strides) == 0);
    OK(cudnnGetTensorSizeInBytes(t, &bytes));
    EQ(bytes, 8 * 16384 * 2);
    OK(cudnnDropoutGetReserveSpaceSize(t, &bytes));
    EQ(bytes, 8 * 16384);
    OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                                                            CUDNN_BATCHNORM_OPS_BN, NULL, t, &bytes));
    EQ(bytes, 0);

    cudnnFilterDescriptor_t f;
    OK(cudnnCreateFilterDescriptor(&f));
    int fd[4] = { 16, 3, 3, 3 }, fd2[4];
    cudnnTensorFormat_t fmt;
    OK(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 4, fd));
    OK(cudnnGetFilterNdDescriptor(f, 4, &type, &fmt, &nb, fd2));
    EQ(fmt, CUDNN_TENSOR_NHWC);
    CHECK(memcmp(fd, fd2, sizeof fd) == 0);

    cudnnConvolutionFwdAlgoPerf_t perf[4];
    int returned = 0;
    OK(cudnnGetConvolutionForwardAlgorithm_v7(h, t, f, NULL, t, 4, &returned, perf));
    EQ(returned, 1);
    EQ(perf[0].algo, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
    EQ(perf[0].memory, 0);
    OK(cudnnGetConvolutionForwardWorkspaceSize(h, t, f, NULL, t, perf[0].algo, &bytes));
    EQ(bytes, 0);

    /* RNNs are not modelled: refused, the size untouched. */
    cudnnRNNDescriptor_t rnn;
    OK(cudnnCreateRNNDescriptor(&rnn));
    bytes = 12345;
    EQ(cudnnGetRNNWeightSpaceSize(h, rnn, &bytes), CUDNN_STATUS_NOT_SUPPORTED);
    EQ(bytes, 12345);
    OK(cudnnDestroyRNNDescriptor(rnn));

    OK(cudnnDestroyFilterDescriptor(f));
    OK(cudnnDestroyTensorDescriptor(t));
    OK(cudnnDestroy(h));
    EQ(cudnnSetStream(NULL, s), CUDNN_STATUS_BAD_PARAM);
}

int main(int argc, char **argv)
{
    static const struct fc_scenario tests[] = {
        { "backend", backend },
        { "attributes", attributes },
        { "versions", versions },
        { "legacy", handles_and_legacy },
    };
    return FC_RUN_SCENARIO(argc, argv, tests);
}
