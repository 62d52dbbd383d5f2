/* The one workspace policy of fakecuda's cuDNN (README, "cuDNN 9"): an
 * execution plan asks for FAKECUDNN_WORKSPACE_BYTES (plain decimal
 * bytes), 0 by default, whatever its graph.  Which engine NVIDIA's
 * heuristics would pick on a card, and so its workspace, cannot be known
 * without the card; 0 is what the implicit-GEMM convolution engines the
 * heuristics put first ask for, and a fixed figure lets a test see the
 * request go through the program's allocator. */
#include "fcdnn_workspace.h"

#include <stdlib.h>

int64_t fcdnn_graph_workspace(const cudnnBackendDescriptor_t *ops, int64_t n)
{
    (void)ops, (void)n;
    /* Read once; threads that race to read it first store the same answer. */
    static int64_t bytes = -1;
    int64_t b = __atomic_load_n(&bytes, __ATOMIC_RELAXED);
    if (b < 0) {
        const char *v = getenv("FAKECUDNN_WORKSPACE_BYTES");
        char *end = NULL;
        long long parsed = v && *v >= '0' && *v <= '9' ? strtoll(v, &end, 10) : 0;
        b = end && *end == '\0' && parsed > 0 ? parsed : 0;
        __atomic_store_n(&bytes, b, __ATOMIC_RELAXED);
    }
    return b;
}
