/* The generated stubs' body (gen-stubs.sh): success, computing nothing. */
#ifndef FCDNN_STUB_H
#define FCDNN_STUB_H
/* Says once, under FAKECUDNN_TRACE=1, that NAME answered as a stub; returns
 * CUDNN_STATUS_SUCCESS (0).  `first` (the first argument, gen-stubs.sh
 * --lib) is unused. */
int fcdnn_stub(const char *name, int *said, void *first);
#endif
