/* For the cuBLAS stand-in's generated stubs, which cannot include NVIDIA's
 * headers (each stub is `int name(void *first)`, gen-stubs.sh --lib). */
#ifndef FC_BLAS_STUB_H
#define FC_BLAS_STUB_H

/* fc_blas_workspace.c: the stub of every cuBLAS function not implemented:
 * success, computing nothing; if `first` is a live handle with no
 * workspace of the caller's set, the first call on its stream allocates
 * that stream's default workspace, as NVIDIA's cuBLAS does
 * (cudaMallocAsync on the stream); CUBLAS_STATUS_ALLOC_FAILED if that
 * fails.  FAKECUDA_STUB_LOG=1: fc_lib.h. */
int fc_blas_stub(const char *name, int *said, void *first);

#endif
