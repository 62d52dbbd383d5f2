/* A miniature "training job" written the way CUDA programs are: weights that
 * live for the whole run, activations allocated and freed every step, and two
 * planted leaks for gpuleak to find:
 *   - init_lookup_table() allocates a table once and never frees it;
 *   - record_batch_stats() allocates a small buffer every step on a stream
 *     and forgets the matching cudaFreeAsync.
 * Run it under the interposer with `make demo`. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define STEPS 8
#define MiB (1024u * 1024u)

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t rc_ = (call);                                                \
        if (rc_ != cudaSuccess) {                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorString(rc_));                                    \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

struct model {
    float *weights;
    size_t weight_bytes;
};

static struct model load_model(size_t params)
{
    struct model m = {NULL, params * sizeof(float)};
    CHECK(cudaMalloc((void **)&m.weights, m.weight_bytes));
    CHECK(cudaMemset(m.weights, 0, m.weight_bytes));
    return m;
}

static void free_model(struct model *m) { CHECK(cudaFree(m->weights)); }

static int *init_lookup_table(void)
{
    int *table;
    CHECK(cudaMalloc((void **)&table, 2 * MiB)); /* leaked: nobody frees it */
    return table;
}

static void forward_step(const struct model *m, cudaStream_t stream)
{
    float *activations;
    CHECK(cudaMallocAsync((void **)&activations, 4 * MiB, stream));
    CHECK(cudaMemcpyAsync(activations, m->weights, 1024, cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaFreeAsync(activations, stream));
}

static void record_batch_stats(int step, cudaStream_t stream)
{
    double *stats;
    CHECK(cudaMallocAsync((void **)&stats, 64 * 1024, stream)); /* leaked every step */
    CHECK(cudaMemsetAsync(stats, step, 64 * 1024, stream));
}

int main(void)
{
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    struct model m = load_model(1u << 20);
    int *table = init_lookup_table();
    (void)table;
    for (int step = 0; step < STEPS; step++) {
        forward_step(&m, stream);
        record_batch_stats(step, stream);
    }
    CHECK(cudaStreamSynchronize(stream));
    free_model(&m);
    CHECK(cudaStreamDestroy(stream));
    size_t free_bytes, total_bytes;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    printf("demo_train: %d steps done, %zu of %zu bytes free on device\n", STEPS, free_bytes,
           total_bytes);
    return 0;
}
