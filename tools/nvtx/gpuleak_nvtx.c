/* An NVTX injection library: NVTX ranges become gpuleak annotations, so a
 * program's nvtxRangePushA("forward") ... nvtxRangePop() (PyTorch's
 * torch.cuda.nvtx.range_push/pop and emit_nvtx among them) is the phase
 * "forward" in gpuleak-report's PHASES with no code change.
 *
 * NVTX v3 is header-only: the first NVTX call in a process reads
 * NVTX_INJECTION64_PATH, dlopens that library and calls its
 * InitializeInjectionNvtx2 with a function that hands out NVTX's tables of
 * function pointers; this one fills the core module's range slots.  `gpuleak
 * run` sets the variable to this library when the user has not set it (an
 * nsys or another tool's injection is left alone).
 *
 * A push annotates "X" and a pop "X (end)": the names live in a per-thread
 * stack (NVTX ranges nest per thread).  gpuleak_annotate is found in the
 * preloaded libgpuleak.so at initialization; without it the library does
 * nothing.  Return values follow NVTX: a push returns the depth of the new
 * range (0-based), a pop the depth it left (or -1 on an empty stack). */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH 64   /* deeper ranges are counted, not annotated */
#define NAME_MAX_LEN 200

static int (*annotate)(const char *label);

struct range_stack {
    int depth; /* may exceed DEPTH */
    char names[DEPTH][NAME_MAX_LEN + 1];
};
static __thread struct range_stack ranges;

static int push(const char *message)
{
    int d = ranges.depth++;
    if (d < DEPTH) {
        snprintf(ranges.names[d], sizeof ranges.names[d], "%s", message ? message : "(unnamed)");
        annotate(ranges.names[d]);
    }
    return d;
}

static int pop(void)
{
    if (ranges.depth == 0)
        return -1;
    int d = --ranges.depth;
    if (d < DEPTH) {
        char label[NAME_MAX_LEN + sizeof " (end)"];
        snprintf(label, sizeof label, "%s (end)", ranges.names[d]);
        annotate(label);
    }
    return d;
}

static int NVTX_API range_push_a(const char *message) { return push(message); }

static int NVTX_API range_push_ex(const nvtxEventAttributes_t *attr)
{
    const char *m = attr && attr->messageType == NVTX_MESSAGE_TYPE_ASCII ? attr->message.ascii : NULL;
    return push(m);
}

static int NVTX_API range_pop(void) { return pop(); }

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table);

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    annotate = (int (*)(const char *))dlsym(RTLD_DEFAULT, "gpuleak_annotate");
    if (!annotate || !get_table)
        return 0; /* not under gpuleak: NVTX goes on without us */
    const NvtxExportTableCallbacks *cb = get_table(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable ||
        !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table)
        return 0;
    if (size > NVTX_CBID_CORE_RangePushEx && table[NVTX_CBID_CORE_RangePushEx])
        *table[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)range_push_ex;
    if (size > NVTX_CBID_CORE_RangePushA && table[NVTX_CBID_CORE_RangePushA])
        *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)range_push_a;
    if (size > NVTX_CBID_CORE_RangePop && table[NVTX_CBID_CORE_RangePop])
        *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)range_pop;
    return 1;
}
