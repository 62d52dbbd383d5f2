/* The attach and detach themselves (attach.c), for the library's own calls:
 * the exported gpuleak_attach_* names (gpuleak.h) are only entry points, since
 * a call to an exported name from inside the library may bind to another
 * copy of it preloaded under another file name. */
#ifndef GL_HOOKS_ATTACH_H
#define GL_HOOKS_ATTACH_H

/* gpuleak_attach_begin, gpuleak_attach_end, gpuleak_attach_slots: the same
 * answers (GPULEAK_ATTACH_*, gpuleak.h). */
int gl_attach_begin(const char *config);
int gl_attach_end(void);
long gl_attach_slots(void);

/* fn (NULL: none) runs first at each of the writer's ticks while attached:
 * attach_async.c's poll for a detach asked without a lock.  Any thread, no
 * lock: an atomic store. */
void gl_attach_on_tick(void (*fn)(void));

#endif
