/* A status code's NVIDIA name and description, looked up in a table: the
 * runtime's cudaGetErrorName/String (fc_rt_error.c), cuBLAS's
 * cublasGetStatusName/String (blas/fc_blas_status.c), cuDNN's
 * cudnnGetErrorString (cudnn/fcdnn_core.c).  Header-only: the runtime and
 * each stand-in link their own copy. */
#ifndef FC_STATUS_H
#define FC_STATUS_H

#include <stddef.h>

struct fc_status {
    int code;
    const char *name, *text; /* text NULL where the API has none */
};
/* A row whose name is its code's spelling: FC_STATUS(cudaSuccess, "no error"). */
#define FC_STATUS(code, text) { (int)(code), #code, text }
#define FC_STATUS_ROWS(table) (sizeof (table) / sizeof (table)[0])

/* The row of code in table[0..n), or NULL. */
static inline const struct fc_status *fc_status_find(const struct fc_status *table, size_t n, int code)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}

/* code's name, or unknown when the table has no row for it. */
static inline const char *fc_status_name(const struct fc_status *table, size_t n, int code, const char *unknown)
{
    const struct fc_status *row = fc_status_find(table, n, code);
    return row ? row->name : unknown;
}

/* code's description, or unknown. */
static inline const char *fc_status_text(const struct fc_status *table, size_t n, int code, const char *unknown)
{
    const struct fc_status *row = fc_status_find(table, n, code);
    return row && row->text ? row->text : unknown;
}

#endif
