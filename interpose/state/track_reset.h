/* Emptying the live table and its companions (track_reset.c): at detach,
 * and in a fork's child. */
#ifndef GL_TRACK_RESET_H
#define GL_TRACK_RESET_H

/* Detach (docs/attach.md): tracking is off; every record, device counter,
 * call count, history event and out-of-memory entry is dropped, so that a
 * later attach starts from zero.  The memory that held them is kept for
 * reuse, emptied, not freed (holes in the program's heap slow it). */
void gl_track_reset(void);

/* fork: the parent holds every lock across fork(); the child then drops the
 * parent's records (the child owns no device memory) and starts afresh. */
void gl_track_prefork(void);
void gl_track_postfork_parent(void);
void gl_track_postfork_child(void);

#endif
