/* What every library stand-in (cuBLAS, cuBLASLt, cuDNN: tools/fakecuda/blas/,
 * tools/fakecuda/cudnn/) shares: what it does for every exported name it
 * does not implement (the stubs module.mk generates, gen-stubs.sh --lib,
 * are `int name(void *first)` whatever the real prototype; those
 * libraries' default is success: their kernels compute nothing, as the
 * runtime's do), and its answer to XGetProperty.  Must not include
 * NVIDIA's headers: the generated stubs include it. */
#ifndef FC_LIB_H
#define FC_LIB_H

/* Returns 0 (CUBLAS_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS); with
 * FAKECUDA_STUB_LOG=1 in the environment first says once on stderr
 * "fakecuda: NAME: stub (success, computes nothing)", to find out what a
 * program calls.  `first` is unused here (see gen-stubs.sh). */
int fc_lib_stub(const char *name, int *said, void *first);

/* The line above, if FAKECUDA_STUB_LOG=1 and *said was 0. */
void fc_lib_stub_log(const char *name, int *said);

/* libraryPropertyType's values (library_types.h), which this header may
 * not include. */
enum { FC_LIB_MAJOR_VERSION = 0, FC_LIB_MINOR_VERSION = 1, FC_LIB_PATCH_LEVEL = 2 };

/* XGetProperty(type, value) of a library at version major.minor.patch:
 * 0 with *value set, or -1 (a null value, an unknown type), which the
 * caller maps to its API's bad-parameter status. */
int fc_lib_property(int type, int major, int minor, int patch, int *value);

#endif
