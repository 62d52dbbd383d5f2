/* A real CUDA program for scripts/gpu-check.sh: kernels that touch the
 * memory they use, an explicitly created memory pool, stream-ordered
 * allocation, managed memory written by the GPU and read by the host, pinned
 * host memory, and two threads.  Every leak comes from its own named
 * function; everything else is freed, so the report must list exactly these
 * (and nothing the runtime allocated for itself while loading the module or
 * launching kernels):
 *
 *   device   cudaMalloc               2101248 x1  leak_kernel_device
 *   managed  cudaMallocManaged        3145728 x1  leak_managed_touched
 *   pool     cudaMallocFromPoolAsync  1049088 x1  leak_from_created_pool
 *   pool     cudaMallocAsync           524288 x1  leak_async
 *   host     cudaMallocHost            262144 x1  leak_pinned
 *   device   cudaMalloc               2 x 70000   leak_in_thread
 *
 * Needs a GPU (fakecuda launches no kernels).  Prints "ok" at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t rc_ = (call);                                                     \
        if (rc_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, \
                    (int)rc_, cudaGetErrorString(rc_));                               \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define NOINLINE __attribute__((noinline))

__global__ void fill(float *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v + (float)(i % 7);
}

static void launch_fill(float *p, size_t bytes, float v, cudaStream_t s)
{
    fill<<<64, 256, 0, s>>>(p, bytes / sizeof(float), v);
    CHECK(cudaGetLastError());
}

extern "C" {

NOINLINE void *leak_kernel_device(cudaStream_t s)
{
    void *p;
    CHECK(cudaMalloc(&p, 2 * 1024 * 1024 + 4096));
    launch_fill((float *)p, 2 * 1024 * 1024 + 4096, 1.0f, s);
    return p;
}

NOINLINE void leak_managed_touched(cudaStream_t s)
{
    float *p;
    CHECK(cudaMallocManaged((void **)&p, 3 * 1024 * 1024, cudaMemAttachGlobal));
    launch_fill(p, 3 * 1024 * 1024, 2.0f, s);
    CHECK(cudaStreamSynchronize(s));
    if (p[0] != 2.0f || p[13] != 2.0f + 6) {
        fprintf(stderr, "managed memory not written by the kernel: %f %f\n", p[0], p[13]);
        exit(1);
    }
}

NOINLINE void leak_from_created_pool(cudaMemPool_t pool, cudaStream_t s)
{
    void *p;
    CHECK(cudaMallocFromPoolAsync(&p, 1024 * 1024 + 512, pool, s));
    launch_fill((float *)p, 1024 * 1024 + 512, 3.0f, s);
}

NOINLINE void leak_async(cudaStream_t s)
{
    void *p;
    CHECK(cudaMallocAsync(&p, 512 * 1024, s));
    launch_fill((float *)p, 512 * 1024, 4.0f, s);
}

NOINLINE void leak_pinned(const void *dev, cudaStream_t s)
{
    void *h;
    CHECK(cudaMallocHost(&h, 256 * 1024));
    CHECK(cudaMemcpyAsync(h, dev, 256 * 1024, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    if (((float *)h)[1] != 2.0f) {
        fprintf(stderr, "pinned copy wrong: %f\n", ((float *)h)[1]);
        exit(1);
    }
}

NOINLINE void leak_in_thread(cudaStream_t s)
{
    void *p;
    CHECK(cudaMalloc(&p, 70000));
    CHECK(cudaMemsetAsync(p, 0, 70000, s));
}

} /* extern "C" */

/* Balanced work with every kind: none of it may show up. */
static void balanced(cudaMemPool_t pool, cudaStream_t s)
{
    for (int i = 0; i < 20; i++) {
        void *a, *b, *c, *m, *h;
        CHECK(cudaMalloc(&a, 1024 * 1024));
        CHECK(cudaMallocAsync(&b, 256 * 1024 + i, s));
        CHECK(cudaMallocFromPoolAsync(&c, 128 * 1024, pool, s));
        CHECK(cudaMallocManaged(&m, 64 * 1024, cudaMemAttachGlobal));
        CHECK(cudaMallocHost(&h, 4096));
        launch_fill((float *)a, 1024 * 1024, 5.0f, s);
        launch_fill((float *)b, 256 * 1024, 5.0f, s);
        launch_fill((float *)c, 128 * 1024, 5.0f, s);
        launch_fill((float *)m, 64 * 1024, 5.0f, s);
        CHECK(cudaFreeAsync(b, s));
        CHECK(cudaFreeAsync(c, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(a));
        CHECK(cudaFree(m));
        CHECK(cudaFreeHost(h));
    }
}

static void *worker(void *arg)
{
    (void)arg;
    cudaStream_t s;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 20; i++) {
        void *p;
        CHECK(cudaMalloc(&p, 500000));
        launch_fill((float *)p, 500000, 6.0f, s);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(p));
    }
    leak_in_thread(s);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(void)
{
    cudaStream_t s;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreate(&s));

    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));

    balanced(pool, s);
    void *dev = leak_kernel_device(s);
    leak_managed_touched(s);
    leak_from_created_pool(pool, s);
    leak_async(s);
    leak_pinned(dev, s);

    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);

    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceSynchronize());
    printf("ok\n");
    return 0;
}
