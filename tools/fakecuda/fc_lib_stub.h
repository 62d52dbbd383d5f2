/* What a library stand-in (cuBLAS, cuBLASLt, cuDNN: tools/fakecuda/blas/,
 * tools/fakecuda/cudnn/) does for every exported name it does not
 * implement: the stubs module.mk generates (gen-stubs.sh --lib) are
 * `int name(void *first)` whatever the real prototype.  Those libraries'
 * default is success: their kernels compute nothing, as the runtime's do. */
#ifndef FC_LIB_STUB_H
#define FC_LIB_STUB_H

/* Returns 0 (CUBLAS_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS); with
 * FAKECUDA_STUB_LOG=1 in the environment first says once on stderr
 * "fakecuda: NAME: stub (success, computes nothing)", to find out what a
 * program calls.  `first` is unused here (see gen-stubs.sh). */
int fc_lib_stub(const char *name, int *said, void *first);

/* The line above, if FAKECUDA_STUB_LOG=1 and *said was 0. */
void fc_lib_stub_log(const char *name, int *said);

#endif
