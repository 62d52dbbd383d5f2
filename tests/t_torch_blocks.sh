# PyTorch's tensors inside its cache (issue 23, item 1; docs/pytorch.md): a
# training loop on the stand-in torch package (tests/programs/torch_standin,
# a caching allocator over fakecuda modelled on c10's) keeps each step's loss,
# and through its graph the step's input and activation.  Each snapshot
# carries PyTorch's own blocks (TORCH, TORCH_BLOCKS), asked on the requesting
# thread (gpuleak_memory._dump_snapshot) or, for SIGUSR1, on Python's main
# thread through a pending call; gpuleak turned history recording on by
# itself, so every tensor has its Python line.  The report lists, per
# segment, the tensors that hold it, with exact bytes, and agrees with
# torch.cuda.memory_allocated()/memory_reserved(); the segments themselves
# are held by pytorch-caching-allocator because PyTorch named them.
source "$ROOT/tests/lib.sh"
torch_standin_setup
# Every tensor's line from PyTorch's first CUDA use, as asserted here (the
# default waits for the first request: t_torch_real_lines).
export GPULEAK_TORCH_LINES=start
prog=$ROOT/tests/programs/torch_train.py
line() { site_line torch_train.py "$1"; }
KiB=1024; MiB=$((1024 * 1024))

traced python3 "$prog" request >out.txt || fail "request run: exit $?"
# What the stand-in says it holds after step 3: 1 MiB of weights, then per
# step 256 KiB of input, 256 KiB of activation and a 512-byte loss block.
expect_eq "$(grep '^step 3' out.txt)" "step 3 allocated $((MiB + 4 * (512 * KiB + 512))) reserved $((4 * MiB))" "torch's own totals"
# gpuleak asked PyTorch to record, once, in PyTorch's cheapest mode.
expect_eq "$(grep '^calls' out.txt)" "calls ['_record_memory_history'] [('state', 'alloc', 'python')]" "history turned on"
# Asked once whether history was on (the probe), and once per snapshot.
expect_eq "$(grep '^asked' out.txt)" "asked [('_cuda_isHistoryEnabled', 1), ('_snapshot', 4)]" "what was asked"
"$REPORT" --sections leaks step3.snap >r3.txt || fail "report exit $?"
# Segment addresses are fakecuda's (they differ under TSan): not compared.
seg_addr() { sed 's/^segment 0x[0-9a-f]*:/segment ADDR:/'; }
sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" r3.txt | seg_addr >torch3.txt
cat >want3.txt <<TXT
PYTORCH'S CACHE
What PyTorch's caching allocator held (torch.cuda.memory._snapshot()), segment
by segment, with the live tensors in each by the Python line that allocated them:
    reserved:  4,194,304 bytes (4.0 MiB) in 2 segments
    allocated: 3,147,776 bytes (3.0 MiB) in 13 tensors
    cached:    1,046,528 bytes (1022.0 KiB) (free for reuse, or waiting for a stream)

segment ADDR: 2,097,152 bytes (2.0 MiB) on device 0, cudaMalloc from <module> (torch_train.py:$(line WEIGHTS-LINE))
    1,837,056 bytes (1.8 MiB) in 8 tensors, 260,096 bytes (254.0 KiB) cached
        1,048,576 bytes (1.0 MiB) in 1 tensor: <module> (torch_train.py:$(line WEIGHTS-LINE))
        524,288 bytes (512.0 KiB) in 2 tensors: step (torch_train.py:$(line INPUT-LINE))
        262,144 bytes (256.0 KiB) in 1 tensor: forward (torch_train.py:$(line ACT-LINE))
        2,048 bytes (2.0 KiB) in 4 tensors: forward (torch_train.py:$(line LOSS-LINE))

segment ADDR: 2,097,152 bytes (2.0 MiB) on device 0, cudaMalloc from step (torch_train.py:$(line SCRATCH-LINE))
    1,310,720 bytes (1.2 MiB) in 5 tensors, 786,432 bytes (768.0 KiB) cached
        786,432 bytes (768.0 KiB) in 3 tensors: forward (torch_train.py:$(line ACT-LINE))
        524,288 bytes (512.0 KiB) in 2 tensors: step (torch_train.py:$(line INPUT-LINE))

LEAK SUMMARY
TXT
diff -u want3.txt torch3.txt || fail "PYTORCH'S CACHE section of step 3"
# The segments are PyTorch's cache: no leak, though no rule matches a frame
# of the stand-in's Python allocator.
grep -qx 'No leaks: the 2 live allocations are held by allocator caches or suppressed.' r3.txt ||
    fail "segments not held by the cache: $(sed -n '/^LEAKS/,+2p' r3.txt)"
grep -qx '    pytorch-caching-allocator: 4,194,304 bytes (4.0 MiB) in 2 allocations' r3.txt || fail "cache rule totals"
# Every step: the report's totals are torch's.
for i in 0 1 2 3; do
    want=$(grep "^step $i" out.txt | awk '{print $4}')
    got=$("$REPORT" --sections leaks step$i.snap | sed -n 's/^    allocated: \([0-9,]*\) bytes.*/\1/p' | tr -d ,)
    expect_eq "$got" "$want" "allocated bytes at step $i"
done

# diff over the series names the lines of the kept tensors (the loss and,
# through its graph, the input and the activation), which grew at every
# step, and not the weights, which did not change; --error-exitcode fails.
"$REPORT" diff step0.snap step1.snap step2.snap step3.snap >d.txt || fail "diff exit $?"
grep '^[+-]' d.txt | sed -n '/suspected leak (its tensors/p' >suspects.txt
expect_eq "$(cat suspects.txt)" "+786,432 bytes (768.0 KiB): step (torch_train.py:$(line INPUT-LINE)), suspected leak (its tensors grew at every step)
+786,432 bytes (768.0 KiB): forward (torch_train.py:$(line ACT-LINE)), suspected leak (its tensors grew at every step)
+1,536 bytes (1.5 KiB): forward (torch_train.py:$(line LOSS-LINE)), suspected leak (its tensors grew at every step)" "diff's suspects"
grep -A2 "forward (torch_train.py:$(line LOSS-LINE)), suspected" d.txt | tail -2 >loss.txt
expect_eq "$(cat loss.txt)" "    live bytes: 512 -> 1,024 -> 1,536 -> 2,048
    tensors:    1 -> 2 -> 3 -> 4" "the loss line's series"
grep -q "torch_train.py:$(line WEIGHTS-LINE))" <(sed -n '/^TENSORS IN/,$p' d.txt) && fail "the weights did not change"
rc=0; "$REPORT" --error-exitcode 9 diff step0.snap step1.snap step2.snap step3.snap >/dev/null || rc=$?
expect_eq "$rc" 9 "--error-exitcode on tensors that grew at every step"
# Two snapshots are no series.
rc=0; "$REPORT" --error-exitcode 9 diff step1.snap step3.snap >d2.txt || rc=$?
expect_eq "$rc" 0 "two snapshots: nothing suspected"
grep -q 'suspected leak (its tensors' d2.txt && fail "two snapshots: a suspect"

# The same in JSON (docs/json-output.md).
"$REPORT" --json step3.snap >r3.json || fail "json exit $?"
check_json r3.json <<PY
t = d["torch"]
eq((t["status"], t["reserved_bytes"], t["allocated_bytes"], t["segment_count"], t["tensor_count"]),
   ("answered", 4 * $MiB, 3147776, 2, 13), "torch totals")
eq([(g["size"], g["seen_by_gpuleak"], g["allocated_bytes"], g["cached_bytes"],
     [(x["bytes"], x["requested_bytes"], x["count"], x["line"]) for x in g["tensors"]]) for g in t["segments"]],
   [($MiB * 2, True, 1837056, 260096, [($MiB, $MiB, 1, $(line WEIGHTS-LINE)), (524288, 524288, 2, $(line INPUT-LINE)),
                                      (262144, 262144, 1, $(line ACT-LINE)), (2048, 16, 4, $(line LOSS-LINE))]),
    ($MiB * 2, True, 1310720, 786432, [(786432, 786432, 3, $(line ACT-LINE)), (524288, 524288, 2, $(line INPUT-LINE))])],
   "segments and their tensors")
PY
"$REPORT" --json diff step0.snap step1.snap step2.snap step3.snap >d.json || fail "json diff exit $?"
check_multi_json d.json <<PY
t = d["torch_lines"]
eq(t["snapshots_with_torch"], 4, "snapshots with torch")
eq([(x["line"], x["bytes"], x["suspected_leak"]) for x in t["lines"]],
   [($(line INPUT-LINE), [262144, 524288, 786432, 1048576], True),
    ($(line ACT-LINE), [262144, 524288, 786432, 1048576], True),
    ($(line LOSS-LINE), [512, 1024, 1536, 2048], True),
    ($(line WEIGHTS-LINE), [$MiB] * 4, False)], "lines over the series")
PY

# A reader refuses what the writer never writes (exit 2, one line).
bad() { # FIELD-SETTING... EXPECTED-MESSAGE
    local msg=${*: -1}
    snap_set step3.snap bad.snap "${@:1:$#-1}" || fail "snap_set $*"
    rc=0; "$REPORT" bad.snap >/dev/null 2>bad.err || rc=$?
    expect_eq "$rc" 2 "exit status, $msg"
    grep -q "$msg" bad.err || fail "message: got '$(cat bad.err)', expected '$msg'"
}
bad TORCH_BLOCKS 0 stack_id 99999 "torch block 0 refers to undefined stack id 99999"
bad TORCH 0 blocks 3 "more TORCH_BLOCKS entries than the TORCH record's 3"
bad TORCH 0 status 0 "TORCH record with status 0"
bad TORCH 0 status 2 "TORCH_BLOCKS record without an answered TORCH record before it"
bad TORCH_BLOCKS 0 device 5000 "device"

# SIGUSR1: the writer thread asks Python's main thread (a pending call, run
# between two of its sleeps); the same tensors.
GPULEAK_OUTPUT=sig%n.snap traced python3 "$prog" signal >sig.txt || fail "signal run: exit $?"
"$REPORT" --sections leaks sig3.snap | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" | seg_addr >sig3.txt
diff -u want3.txt sig3.txt || fail "PYTORCH'S CACHE of the signal snapshot"
# The exit snapshot cannot ask (Python is finalized): it carries the view
# gpuleak's atexit callback took before finalization (issue 35), the same
# tensors, and says how old it is.
"$REPORT" --sections leaks sig4.snap | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" | seg_addr >sig4.txt
grep -Eq "^PyTorch's view from [0-9]+\.[0-9] s before this snapshot, the last one it gave" sig4.txt ||
    fail "the exit snapshot does not say its view's age: $(head -3 sig4.txt)"
grep -v "^PyTorch's view from \|^could not ask (at exit" sig4.txt | diff -u want3.txt - ||
    fail "PYTORCH'S CACHE of the exit snapshot"
# The exit snapshot repeats the last step's tensors: it is no step, so the
# lines that grew at every step stay suspected leaks (walk-through defect 1).
"$REPORT" --json diff sig0.snap sig1.snap sig2.snap sig3.snap sig4.snap >sigd.json || fail "diff to the exit snapshot: exit $?"
check_multi_json sigd.json <<PY
t = d["torch_lines"]
eq((d["snapshots"][-1]["reason"], t["snapshots_with_torch"]), ("exit", 5), "the exit snapshot, with its view")
eq([(x["line"], x["bytes"], x["suspected_leak"]) for x in t["lines"]],
   [($(line INPUT-LINE), [262144, 524288, 786432, 1048576, 1048576], True),
    ($(line ACT-LINE), [262144, 524288, 786432, 1048576, 1048576], True),
    ($(line LOSS-LINE), [512, 1024, 1536, 2048, 2048], True),
    ($(line WEIGHTS-LINE), [$MiB] * 5, False)], "lines over a series ending in the exit snapshot")
PY

# Python's main thread blocked in C longer than gpuleak waits: the snapshot
# is written without the tensors, and says so.
GPULEAK_OUTPUT=blk%n.snap traced python3 "$prog" blocked || fail "blocked run: exit $?"
"$REPORT" --sections leaks blk0.snap | sed -n "/^PYTORCH'S CACHE/,+2p" >blk.txt
expect_eq "$(cat blk.txt)" "PYTORCH'S CACHE
PyTorch was not asked in time: Python's main thread ran no bytecode within 2 s
(it was blocked in C), or took over 60 s to answer; this snapshot has no tensors." "no answer in time"
# Asked again when it returned from C (issue 35): the follow-up snapshot
# (the program waits for it) carries that answer: step 0's 1 MiB of weights,
# 256 KiB of input, 256 KiB of activation and a 512-byte loss.
"$REPORT" --sections leaks blk1.snap | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" >blk1.txt
grep -Eq "^PyTorch's view from [0-9]+\.[0-9] s before this snapshot" blk1.txt || fail "the follow-up: no age line: $(head -3 blk1.txt)"
expect_eq "$(grep -m1 '^    allocated:' blk1.txt)" "    allocated: 1,573,376 bytes (1.5 MiB) in 4 tensors" "the follow-up's tensors"

# A fatal signal (issue 35): its snapshot carries the last view, step 3's
# (the signal snapshot's), at least 0.5 s old.
rc=0; GPULEAK_OUTPUT=crash%n.snap traced python3 "$prog" crash >crash.txt || rc=$?
expect_eq "$rc" 139 "crash run: exit status"
"$REPORT" --sections leaks crash4.snap | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" | seg_addr >crash4.txt
age=$(sed -nE "s/^PyTorch's view from ([0-9.]+) s before this snapshot.*/\1/p" crash4.txt)
awk -v a="$age" 'BEGIN { exit !(a >= 0.5 && a < 30) }' || fail "the fatal snapshot's view age: '$age' s"
grep -v "^PyTorch's view from \|^could not ask (at exit" crash4.txt | diff -u want3.txt - ||
    fail "PYTORCH'S CACHE of the fatal snapshot"

# The program records history itself: gpuleak leaves it alone.
GPULEAK_OUTPUT=usr%n.snap traced python3 "$prog" user >usr.txt || fail "user run: exit $?"
expect_eq "$(grep '^calls' usr.txt)" "calls ['_record_memory_history'] [('all', 'all', 'all')]" "the program's own recording kept"

# GPULEAK_TORCH=0: nothing asked, no record.
mkdir off
(cd off && GPULEAK_TORCH=0 traced python3 "$prog" request >off.txt) || fail "off run: exit $?"
expect_eq "$(grep '^calls' off/off.txt)" "calls [] []" "GPULEAK_TORCH=0"
"$REPORT" off/step3.snap | grep -q "PYTORCH'S CACHE" && fail "GPULEAK_TORCH=0 wrote a TORCH record"

# torch.cuda.memory imported but no libc10_cuda.so loaded (not PyTorch):
# never a pending call -- the stand-in saw neither _record_memory_history
# nor _snapshot nor _cuda_isHistoryEnabled -- and no record, on request or
# on SIGUSR1.
mkdir noc10
(cd noc10 && TORCH_STANDIN_C10_CUDA= traced python3 "$prog" request >out.txt) || fail "no-c10 run: exit $?"
expect_eq "$(grep '^calls' noc10/out.txt)" "calls [] []" "no libc10_cuda: nothing turned on"
expect_eq "$(grep '^asked' noc10/out.txt)" "asked []" "no libc10_cuda: nothing asked"
"$REPORT" noc10/step3.snap | grep -q "PYTORCH'S CACHE" && fail "no libc10_cuda: a TORCH record"

# Python without torch: no record.
cat >notorch.py <<'PY'
import ctypes, os, sys
sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm
rt = ctypes.CDLL(os.environ["FAKECUDA_RT"])
p = ctypes.c_void_p()
assert rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(4096)) == 0
assert gm._dump_snapshot("notorch.snap") == "notorch.snap"
assert "torch" not in sys.modules
PY
PYTHONPATH= traced python3 notorch.py || fail "no-torch run: exit $?"
"$REPORT" notorch.snap >notorch.txt
grep -q "PYTORCH'S CACHE" notorch.txt && fail "a TORCH record without torch"
grep -q '^4,096 bytes (4.0 KiB) in 1 allocation' notorch.txt || fail "the program's allocation: $(sed -n '/^LEAKS/,+2p' notorch.txt)"
exit 0

# A file written before TORCH had age_us (32-byte record; the fuzz seed
# g-torchview.snap) still reads: its view was asked for it (age 0, no age line).
old=$ROOT/tests/fuzz/corpus/report/g-torchview.snap
"$REPORT" "$old" >old.txt || fail "old TORCH record: exit $?"
grep -q "^PYTORCH'S CACHE" old.txt || fail "old TORCH record: no PYTORCH'S CACHE"
grep -q "^PyTorch's view from" old.txt && fail "old TORCH record: an age line"
"$REPORT" --json "$old" | python3 -c 'import json, sys; t = json.load(sys.stdin)["torch"]; print(t["status"], t["age_us"])' >old.json
expect_eq "$(cat old.json)" "answered 0" "old TORCH record in JSON"
