/* Where CPython keeps what a stack walk needs, per version (see
 * pyframes_layout.c and tools/pyoffsets/). */
#ifndef GL_PYFRAMES_LAYOUT_H
#define GL_PYFRAMES_LAYOUT_H

#include <stddef.h>

struct gl_py_layout {
    int major, minor;
    /* Thread state -> innermost frame: either directly at tstate_frame, or
     * through the cframe (3.11, 3.12) when tstate_cframe is non-zero. */
    size_t tstate_frame, tstate_cframe, cframe_current;
    /* Frame: previous (outer) frame, code object, instruction pointer (3.11+:
     * a _Py_CODEUNIT pointer; 3.10: int f_lasti in code units), owner byte
     * (3.11+; frames owned by the C stack are shims, skipped). */
    size_t frame_previous, frame_code, frame_instr, frame_owner;
    int lasti_units;
    int owner_cstack;
    /* Code object: start of the bytecode (3.11+), names. */
    size_t code_adaptive, code_qualname, code_filename, code_name;
    /* str objects: header sizes and fields. */
    size_t ascii_size, compact_size, unicode_state, unicode_length;
};

extern const struct gl_py_layout gl_py_layouts[];
extern const size_t gl_py_layout_count;

#endif
