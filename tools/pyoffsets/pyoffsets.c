/* Prints the CPython struct offsets that interpose/capture/pyframes.c needs, as one
 * row of its layout table.  Build it against each CPython version's headers
 * (tools/pyoffsets/gen.sh) when adding support for a new version; it is not
 * part of the normal build. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030B0000
#include <internal/pycore_frame.h>
#endif
#include <internal/pycore_pystate.h>
#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#endif

int main(void)
{
    printf("    {0x%02x, 0x%02x, ", PY_MAJOR_VERSION, PY_MINOR_VERSION);
#if PY_VERSION_HEX >= 0x030D0000
    /* 3.13: tstate->current_frame, frame->f_executable, frame->instr_ptr */
    printf(".tstate_frame = %zu, .tstate_cframe = 0, .cframe_current = 0, ",
           offsetof(PyThreadState, current_frame));
    printf(".frame_previous = %zu, .frame_code = %zu, .frame_instr = %zu, .frame_owner = %zu, ",
           offsetof(_PyInterpreterFrame, previous), offsetof(_PyInterpreterFrame, f_executable),
           offsetof(_PyInterpreterFrame, instr_ptr), offsetof(_PyInterpreterFrame, owner));
    printf(".lasti_units = 0, .owner_cstack = 3, ");
#elif PY_VERSION_HEX >= 0x030B0000
    /* 3.11, 3.12: tstate->cframe->current_frame, frame->f_code, prev_instr */
    printf(".tstate_frame = 0, .tstate_cframe = %zu, .cframe_current = %zu, ",
           offsetof(PyThreadState, cframe), offsetof(_PyCFrame, current_frame));
    printf(".frame_previous = %zu, .frame_code = %zu, .frame_instr = %zu, .frame_owner = %zu, ",
           offsetof(_PyInterpreterFrame, previous), offsetof(_PyInterpreterFrame, f_code),
           offsetof(_PyInterpreterFrame, prev_instr), offsetof(_PyInterpreterFrame, owner));
    printf(".lasti_units = 0, .owner_cstack = %d, ", PY_VERSION_HEX >= 0x030C0000 ? 3 : -1);
#else
    /* 3.10: tstate->frame (PyFrameObject), f_back, f_code, f_lasti */
    printf(".tstate_frame = %zu, .tstate_cframe = 0, .cframe_current = 0, ", offsetof(PyThreadState, frame));
    printf(".frame_previous = %zu, .frame_code = %zu, .frame_instr = %zu, .frame_owner = 0, ",
           offsetof(PyFrameObject, f_back), offsetof(PyFrameObject, f_code), offsetof(PyFrameObject, f_lasti));
    printf(".lasti_units = 1, .owner_cstack = -1, ");
#endif
#if PY_VERSION_HEX >= 0x030B0000
    printf(".code_adaptive = %zu, .code_qualname = %zu, ", offsetof(PyCodeObject, co_code_adaptive),
           offsetof(PyCodeObject, co_qualname));
#else
    printf(".code_adaptive = 0, .code_qualname = 0, ");
#endif
    printf(".code_filename = %zu, .code_name = %zu, ", offsetof(PyCodeObject, co_filename),
           offsetof(PyCodeObject, co_name));
    printf(".ascii_size = %zu, .compact_size = %zu, .unicode_state = %zu, .unicode_length = %zu},\n",
           sizeof(PyASCIIObject), sizeof(PyCompactUnicodeObject), offsetof(PyASCIIObject, state),
           offsetof(PyASCIIObject, length));
    return 0;
}
