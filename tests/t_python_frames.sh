# Python frames: allocations made from Python through ctypes.CDLL (GIL
# released), ctypes.PyDLL (GIL held) and a C extension (with and without the
# GIL) are reported at the exact file, line and function of the Python code;
# the report groups by the Python part of the stack by default.
source "$ROOT/tests/lib.sh"
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13 PYTHONPATH=$TPROG/python
py=$ROOT/tests/programs/py_frames.py
line() { grep -n "LEAK-LINE: $1" "$py" | cut -d: -f1; }
GPULEAK_OUTPUT=paths.snap traced python3 "$py" paths
"$REPORT" --json paths.snap >paths.json
check_json paths.json <<PY
def py(frames, n):
    return [frame(f) for f in frames[:n]]
got = sorted((l["bytes"], l["count"], py(l["frames"], 2)) for l in leaks)
want = [
    (1000, 1, ["alloc py_frames.py:$(line alloc)", "inner py_frames.py:23"]),
    (2000, 1, ["alloc py_frames.py:$(line alloc)", "inner py_frames.py:23"]),
    (3000, 1, ["via_extension py_frames.py:$(line ext-nogil)", "paths py_frames.py:40"]),
    (4000, 1, ["via_extension py_frames.py:$(line ext-gil)", "paths py_frames.py:41"]),
]
eq(got, want, "python leaks")
PY
# --native shows the whole mixed stack: native frames of the C code called
# from Python first, then the Python frames.
"$REPORT" --json --native paths.snap >native.json
check_json native.json <<'PY'
l = [l for l in leaks if l["bytes"] == 3000][0]
names = [f["function"] for f in l["frames"]]
i = names.index("via_extension")
eq("alloc" in names[:i] or "alloc_nogil" in names[:i], True, "native extension frames before the Python ones: %r" % names)
PY
# GPULEAK_PYTHON=0: native frames only.
GPULEAK_PYTHON=0 GPULEAK_OUTPUT=off.snap traced python3 "$py" paths
"$REPORT" --json off.snap >off.json
check_json off.json <<'PY'
files = [f["file"] for l in leaks for f in l["frames"] if f["file"]]
eq([f for f in files if f.endswith(".py")], [], "Python files with GPULEAK_PYTHON=0")
# ctypes.CDLL and PyDLL calls from the same line share one native stack.
eq(sorted((l["bytes"], l["count"]) for l in leaks), [(3000, 1), (3000, 2), (4000, 1)], "leak groups")
PY
