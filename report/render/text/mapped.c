/* MAPPED FROM OTHER PROCESSES OR APIS: memory this process did not allocate
 * but still maps or holds imported (IPC handles, pool pointers, VMM handles,
 * external memory). */
#include "render/text/mapped.h"

#include "analysis/analyze.h"
#include "model/reason.h"
#include "render/report.h"
#include "render/text/groups.h"
#include "render/text/textout.h"

/* How a mapping of memory this process did not allocate ends, by the API
 * that made it: an IPC handle is closed, an imported pool pointer or a buffer
 * or array mapped from external memory freed, an imported VMM handle's
 * mapping unmapped and the handle itself released, an imported external
 * memory object destroyed. */
static const char *mapping_end(unsigned api)
{
    switch (api) {
    case GL_API_CUDA_MEM_POOL_IMPORT_POINTER:
    case GL_API_CU_MEM_POOL_IMPORT_POINTER:
    case GL_API_CUDA_EXTERNAL_MEMORY_GET_MAPPED_BUFFER:
    case GL_API_CU_EXTERNAL_MEMORY_GET_MAPPED_BUFFER:
    case GL_API_CUDA_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY:
    case GL_API_CU_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY:
        return "freed";
    case GL_API_CU_MEM_MAP:
        return "unmapped";
    case GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE:
        return "released";
    case GL_API_CUDA_IMPORT_EXTERNAL_MEMORY:
    case GL_API_CU_IMPORT_EXTERNAL_MEMORY:
        return "destroyed";
    default:
        return "closed";
    }
}

static bool is_import(unsigned api)
{
    return api == GL_API_CUDA_IMPORT_EXTERNAL_MEMORY || api == GL_API_CU_IMPORT_EXTERNAL_MEMORY ||
           api == GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE;
}

/* Imported VMM handles: the import says nothing of their size (the exporter
 * knows it; vmm_import.h), so the group has no bytes to show. */
static bool unsized_handles(const struct leak_group *g)
{
    return g->api == GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE && g->bytes == 0;
}

static void handles_what(struct report_ctx *r, const struct leak_group *g)
{
    FILE *f = r->out;
    put_color(r, TC_RED);
    put_count(f, g->count, "imported handle");
    put_color_end(r);
    fputs(" (size known only to the exporter)", f);
    text_group_where(r, g);
}

/* A group of mappings: what this process still had mapped or imported of
 * memory it did not allocate -- IPC handles never closed, imported pool
 * pointers never freed, imported VMM handles never unmapped, external memory
 * never destroyed and its buffers and arrays never freed. */
static void mapped_head(struct report_ctx *r, const struct leak_group *g)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    if (unsized_handles(g))
        handles_what(r, g);
    else
        text_group_what(r, g, TC_RED, is_import(g->api) ? "import" : "mapping");
    if (p->reason == GL_REASON_EXIT)
        fprintf(f, "never %s at exit\n", mapping_end(g->api));
    else
        fprintf(f, "%s at the snapshot (%s)\n", is_import(g->api) ? "imported" : "mapped",
                reason_phrase(p->reason));
    text_group_when(r, g, is_import(g->api) ? "imported" : "mapped");
}

void text_mapped(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    if (a->mapped.total == 0)
        return;
    put_title(r, "MAPPED FROM OTHER PROCESSES OR APIS");
    fputs("Memory other processes exported (CUDA IPC handles, pool pointers, VMM\n"
          "handles) or other APIs allocated (external memory: Vulkan, Direct3D,\n"
          "DMA-BUF) that this one still maps or holds imported: it keeps that memory\n"
          "alive.  Not allocated through CUDA here, so not in this process's usage or\n"
          "peak:\n", f);
    for (size_t i = 0; i < a->mapped.n; i++) {
        fputc('\n', f);
        mapped_head(r, &a->mapped.g[i]);
    }
    text_hidden_line(f, &a->mapped);
}
