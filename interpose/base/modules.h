/* The map of loaded objects, written into every snapshot so that stacks can
 * be symbolized later, on another machine: path, load bias, address range and
 * GNU build-id (so the reporter can tell a rebuilt or moved file). */
#ifndef GL_MODULES_H
#define GL_MODULES_H

#include <stddef.h>
#include <stdint.h>

#define GL_BUILD_ID_MAX 64

struct gl_module {
    uint64_t bias, start, end;
    uint32_t build_id_len;
    uint8_t build_id[GL_BUILD_ID_MAX];
    char *path; /* malloc'd */
};

struct gl_module_list {
    struct gl_module *items;
    size_t count, cap;
};

/* Collects the current map; returns 0, or -1 if memory ran out. */
int gl_modules_collect(struct gl_module_list *out);
void gl_modules_free(struct gl_module_list *list);

/* dl_iterate_phdr, serialized against fork (see modules.c): libgpuleak's
 * only way to walk the loader's list of objects. */
struct dl_phdr_info;
int gl_loader_walk(int (*callback)(struct dl_phdr_info *, size_t, void *), void *data);
/* The fork handlers: no walk of ours is in progress while fork copies the
 * process, so the child never inherits the loader's lock held by us. */
void gl_loader_walk_prefork(void);
void gl_loader_walk_postfork_parent(void);
void gl_loader_walk_postfork_child(void);

/* Address range of the object containing `addr` (used to find our own). */
int gl_module_range_of(uintptr_t addr, uintptr_t *start, uintptr_t *end);

#endif
