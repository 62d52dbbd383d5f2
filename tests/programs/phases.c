/* Memory by phase (tests/t_report_phases.sh): "load", then two epochs of
 * "forward", "backward" and "step", then "eval" and "teardown", with sizes
 * the test asserts exactly.  Epochs, "eval" and "teardown" are markers
 * (gpuleak_annotate with no "(end)"); the others are bracketed.  "step"
 * keeps 1 MiB each epoch (the planted leak, marked below). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

int gpuleak_annotate(const char *label) __attribute__((weak));

#define MiB (1024 * 1024)

static void mark(const char *label)
{
    if (gpuleak_annotate)
        gpuleak_annotate(label);
}

/* a macro, not a function: each allocating function below is the
 * innermost frame of its stack, which the categories match on */
#define ALLOC(size)                                                                                \
    do {                                                                                           \
        void *p_;                                                                                  \
        if (cudaMalloc(&p_, (size)) != cudaSuccess)                                                \
            exit(1);                                                                               \
        return p_;                                                                                 \
    } while (0)

static void release(void *p)
{
    if (cudaFree(p) != cudaSuccess)
        exit(1);
}

/* the categories file of the test names these */
__attribute__((noinline)) static void *load_weights(void) { ALLOC(64 * MiB); }
__attribute__((noinline)) static void *forward_activation(void) { ALLOC(8 * MiB); }
__attribute__((noinline)) static void *backward_grads(void) { ALLOC(16 * MiB); }
/* a built-in category: NCCL's functions are nccl* */
void *ncclFakeBuffer(void);
__attribute__((noinline)) void *ncclFakeBuffer(void) { ALLOC(2 * MiB); }
/* no rule: "other" */
__attribute__((noinline)) static void *step_workspace(void) { ALLOC(4 * MiB); }
__attribute__((noinline)) static void *step_keep(void) { ALLOC(1 * MiB); } /* PHASES-LEAK */
__attribute__((noinline)) static void *eval_batch(void) { ALLOC(12 * MiB); }

int main(void)
{
    mark("load");
    void *weights = load_weights();
    void *comm = ncclFakeBuffer();
    mark("load (end)");
    for (int epoch = 1; epoch <= 2; epoch++) {
        char label[32];
        snprintf(label, sizeof label, "epoch %d", epoch);
        mark(label);
        mark("forward");
        void *act[3];
        for (int i = 0; i < 3; i++)
            act[i] = forward_activation();
        mark("forward (end)");
        mark("backward");
        void *grads = backward_grads();
        for (int i = 0; i < 3; i++)
            release(act[i]);
        release(grads);
        mark("backward (end)");
        mark("step");
        void *ws = step_workspace();
        release(ws);
        (void)step_keep(); /* kept for ever: the leak */
        mark("step (end)");
    }
    mark("eval");
    release(eval_batch());
    mark("teardown");
    release(weights);
    release(comm);
    return 0;
}
