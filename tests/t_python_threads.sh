# Eight Python threads allocate through ctypes (GIL released) while another
# thread holds the GIL in a tight loop: no deadlock (the test's timeout is
# the failure), exact leaks: thread t leaks t+1 allocations of 100*(t+1) bytes.
source "$ROOT/tests/lib.sh"
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13
py=$ROOT/tests/programs/py_frames.py
GPULEAK_OUTPUT=threads.snap guard 60 env LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" python3 "$py" threads
"$REPORT" --json threads.snap >threads.json
line=$(grep -n "LEAK-LINE: alloc" "$py" | cut -d: -f1)
check_json threads.json <<PY
eq([(l["bytes"], l["count"], frame(l["frames"][0]), l["frames"][1]["function"]) for l in leaks],
   [(20400, 36, "alloc py_frames.py:$line", "leak_in_thread")], "leaks")
PY
# Each Python version installed here (pyenv) gets the same frames.
for v in 3.10 3.12 3.13; do
    pyv=$(ls -d ~/.pyenv/versions/$v.*/bin/python$v 2>/dev/null | head -1) || true
    [ -n "$pyv" ] || { echo "SKIP python$v: not installed"; continue; }
    GPULEAK_OUTPUT=v$v.snap traced "$pyv" "$py" threads
    "$REPORT" --json v$v.snap >v$v.json
    check_json v$v.json <<PY
eq([(l["bytes"], l["count"], frame(l["frames"][0])) for l in leaks], [(20400, 36, "alloc py_frames.py:$line")], "python $v")
PY
done
