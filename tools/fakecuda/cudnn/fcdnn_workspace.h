/* The one workspace policy of fakecuda's cuDNN (fcdnn_workspace.c). */
#ifndef FCDNN_WORKSPACE_H
#define FCDNN_WORKSPACE_H

#include <stdint.h>
#include <cudnn.h>

/* Bytes an execution plan of an operation graph with these n operations
 * asks its caller for. */
int64_t fcdnn_graph_workspace(const cudnnBackendDescriptor_t *ops, int64_t n);

#endif
