/* fakecuda's cuBLASLt stand-in (libcublasLt.so.13): its handle, which the
 * cuBLAS stand-in's handle begins with (NVIDIA: "any valid cublasHandle_t
 * can be used in place of cublasLtHandle_t with a simple cast", and
 * PyTorch does so). */
#ifndef FC_BLASLT_H
#define FC_BLASLT_H

#include <cublasLt.h>
#include <stdint.h>

/* A heap object per handle; nothing of it lives on the device. */
struct cublasLtContext {
    uint32_t magic; /* FC_BLASLT_MAGIC while alive */
};
#define FC_BLASLT_MAGIC 0x744c4246u /* "FBLt" */

#endif
