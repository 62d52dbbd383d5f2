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
    (1000, 1, ["alloc py_frames.py:$(line alloc)", "inner py_frames.py:$(line inner)"]),
    (2000, 1, ["alloc py_frames.py:$(line alloc)", "inner py_frames.py:$(line inner)"]),
    (3000, 1, ["via_extension py_frames.py:$(line ext-nogil)", "paths py_frames.py:$(line paths-nogil)"]),
    (4000, 1, ["via_extension py_frames.py:$(line ext-gil)", "paths py_frames.py:$(line paths-gil)"]),
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
# The walk's per-depth memo of the previous Python stack (capture/pyframes.c)
# must not reuse a frame's line when only a frame below it changed (same
# addresses, another caller) or when the frame is at another line.
GPULEAK_OUTPUT=memo.snap traced python3 "$py" memo
"$REPORT" --json memo.snap >memo.json
check_json memo.json <<PY
got = sorted((l["bytes"], l["count"], [frame(f) for f in l["frames"][:3]]) for l in leaks)
site = ["alloc py_frames.py:$(line alloc)", "site py_frames.py:$(line site)"]
want = [
    (1400, 2, ["two_lines py_frames.py:$(line even)", "memo py_frames.py:$(line memo-two)"]),
    (1500, 3, site + ["caller_a py_frames.py:$(line caller-a)"]),
    (1600, 2, ["two_lines py_frames.py:$(line odd)", "memo py_frames.py:$(line memo-two)"]),
    (1800, 3, site + ["caller_b py_frames.py:$(line caller-b)"]),
]
eq([(b, c, f[:len(w)]) for (b, c, f), (_, _, w) in zip(got, want)], want, "memo: callers and lines told apart")
PY
