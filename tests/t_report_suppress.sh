#!/usr/bin/env bash
# Suppressions and frame folding on the "caches" snapshot: PyTorch's caching
# allocator (demangled C++ name) and a cuBLAS workspace (frames in a missing
# libcublasLt) are "held by allocator caches", not leaks; the static-runtime
# frames (cudaFakeStaticMalloc, fc_static_impl) and the libcublasLt frames
# are folded away unless --all-frames; user rules (fun:/src:/obj:, "...")
# move memory to "suppressed"; bad rule files are usage errors; --folded,
# --group-depth and --color.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" caches c.snap
"$REPORT" --json c.snap > c.json || fail "exit $?"
check_json c.json <<'PY'
eq([(l["bytes"], l["frames"][0]["function"], l["folded_frames"]) for l in leaks],
   [(2097152, "static_user", 2), (1048576, "alloc_weights", 0)], "leaks")
ac = d["allocator_caches"]
eq((ac["bytes"], ac["count"]), (12582912, 2), "cache totals")
eq([(r["name"], r["bytes"], r["count"]) for r in ac["rules"]],
   [("pytorch-caching-allocator", 8388608, 1), ("cublas-workspace", 4194304, 1)], "cache rules")
eq([(g["rule"], g["frames"][0]["function"]) for g in ac["groups"]],
   [("pytorch-caching-allocator", "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int)"),
    ("cublas-workspace", "alloc_activations")], "cache groups (cuBLAS frames folded)")
ls = d["leak_summary"]
eq((ls["bytes"], ls["leaked_bytes"], ls["cached_bytes"], ls["suppressed_bytes"]),
   (15728640, 3145728, 12582912, 0), "summary")
eq(d["options"]["default_suppressions"], True, "options")
PY
"$REPORT" c.snap > c.txt
grep -qx 'HELD BY ALLOCATOR CACHES' c.txt || fail "cache section"
grep -qx '    pytorch-caching-allocator: 8,388,608 bytes (8.0 MiB) in 1 allocation' c.txt || fail "cache rule line"
grep -qx '    of which held by allocator caches: 12,582,912 bytes (12.0 MiB) in 2 allocations' c.txt || fail "summary cache line"
grep -q 'held by cublas-workspace$' c.txt || fail "group rule"

# without the built-in rules everything is a leak; folding still applies
"$REPORT" --json --no-default-suppressions c.snap > n.json
check_json n.json <<'PY'
eq([(l["bytes"], l["frames"][0]["function"]) for l in leaks],
   [(8388608, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int)"),
    (4194304, "alloc_activations"), (2097152, "static_user"), (1048576, "alloc_weights")], "no defaults")
eq(d["allocator_caches"]["groups"], [], "no cache groups")
PY
# --all-frames keeps the library and static-runtime frames
"$REPORT" --json --no-default-suppressions --all-frames c.snap > a.json
check_json a.json <<'PY'
w = leaks[1]["frames"]
eq([(f["module"], f["offset"], f["function"]) for f in w[:2]],
   [("libcublasLt.so.12", 0x1234, None), ("libcublasLt.so.12", 0x5678, None)], "cuBLAS frames")
eq([f["function"] for f in leaks[2]["frames"]][:3], ["fc_static_impl", "cudaFakeStaticMalloc", "static_user"], "static frames")
eq(leaks[2]["folded_frames"], 0, "nothing folded")
PY
"$REPORT" --no-default-suppressions --all-frames c.snap | grep -qx '    #0 libcublasLt.so.12+0x1234' || fail "text module+offset"

# user rules: name on the first line, "..." any frames, globs; src: names
# the line of static_user's call in snapgen.c (found, not written down: the
# generator's lines move as it grows)
SL=$(grep -n 'STK_CALL(s, "static_user"' "$ROOT/tests/report/snapgen.c" | cut -d: -f1)
[ -n "$SL" ] || fail "static_user's call not found in snapgen.c"
cat > s.supp <<EOF2
# my rules
{
   weights-are-fine
   ...
   fun:alloc_w*
}

{
   static-by-file
   ...
   src:snapgen.c:$SL
}
EOF2
"$REPORT" --json --suppressions s.supp c.snap > s.json || fail "suppressions exit $?"
check_json s.json <<'PY'
eq(leaks, [], "all suppressed")
sp = d["suppressed"]
eq([(r["name"], r["bytes"]) for r in sp["rules"]], [("weights-are-fine", 1048576), ("static-by-file", 2097152)], "suppressed rules")
eq(d["leak_summary"]["suppressed_bytes"], 3145728, "suppressed bytes")
eq(d["options"]["suppressions_file"], "s.supp", "file option")
PY
grep -n "static_user (snapgen.c:$SL)" c.txt > /dev/null || fail "static_user is not at snapgen.c:$SL in the text report"
"$REPORT" --suppressions s.supp c.snap | grep -qx '    of which suppressed: 3,145,728 bytes (3.0 MiB) in 2 allocations' || fail "text suppressed"
"$REPORT" --suppressions s.supp c.snap | grep -q '^No leaks: the 4 live allocations are held by allocator caches or suppressed.$' || fail "no-leaks wording"
# rules see the full stack, folded frames included: anchored at the
# innermost frame, fun:static_user does not match (fc_static_impl is there)
printf '{\n  folded-top\n  fun:static_user\n}\n' > u.supp
"$REPORT" --json --suppressions u.supp c.snap > u.json
expect_eq "$(jget u.json 'len(d["leaks"])')" 2 "anchored rule vs folded frames"
# a rule anchored at the innermost frame does not match deeper frames
printf '{\n  anchored\n  fun:load_model\n}\n{\n  obj-rule\n  ...\n  obj:snapg?n\n  fun:capture\n}\n' > t.supp
"$REPORT" --json --no-default-suppressions --suppressions t.supp c.snap > t.json
check_json t.json <<'PY'
eq(leaks, [], "obj rule with ... matches everything ending in capture")
eq([r["name"] for r in d["suppressed"]["rules"]], ["obj-rule"], "anchored rule matched nothing")
PY
# bad rule files: exit 2, one line naming the line
bad() {
    printf "$1" > bad.supp
    local rc=0
    "$REPORT" --suppressions bad.supp c.snap > out.txt 2> err.txt || rc=$?
    expect_eq "$rc" 2 "bad rule '$1' exit"
    expect_eq "$(wc -l < err.txt)" 1 "bad rule lines"
    grep -q "^gpuleak-report: bad.supp: line $2: " err.txt || fail "bad rule message: $(cat err.txt)"
}
bad '{\n name\n}\n' 3
bad '{\n name\n fun:x\n' 1
bad 'fun:x\n' 1
bad '{\n name\n frob:x\n}\n' 3
# valgrind's kind line is named as such, with the format that is taken
bad '{\n name\n Memcheck:Leak\n fun:malloc\n}\n' 3
expect_eq "$(cat err.txt)" "gpuleak-report: bad.supp: line 3: a TOOL:KIND line (valgrind's Memcheck:Leak) is not taken: a rule is '{', a name, then fun:, obj:, src: patterns or '...', then '}'" "valgrind kind line"
# --check-suppressions: the rules read, nothing else done (gpuleak check
# runs it before the command)
rc=0; "$REPORT" --check-suppressions s.supp >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat out.txt):$(wc -c <err.txt)" "0:s.supp: 2 rules:0" "--check-suppressions, good file"
printf '{\n name\n fun:x\n' >bad.supp
rc=0; "$REPORT" --check-suppressions bad.supp >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(wc -c <out.txt):$(cat err.txt)" "2:0:gpuleak-report: bad.supp: line 1: rule not closed with '}'" "--check-suppressions, bad file"
rc=0; "$REPORT" --check-suppressions nosuch.supp >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak-report: nosuch.supp: cannot open: No such file or directory" "--check-suppressions, no file"
"$REPORT" --list-default-suppressions | grep -q '^   fun:c10::cuda::CUDACachingAllocator::Native::\*$' || fail "list defaults"

# folded stacks for flame graphs: outermost first, bytes
"$REPORT" --folded leaks c.snap > f.txt
cat > want.txt <<'EOF2'
device_0:device;capture;static_user 2097152
device_0:device;capture;load_model;alloc_weights 1048576
EOF2
diff -u want.txt f.txt || fail "--folded leaks"
"$REPORT" --folded peak c.snap | head -1 | grep -qx 'device_0;capture;torch_step;c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int) 8388608' || fail "--folded peak"
rc=0; "$REPORT" --folded leaks --json c.snap 2> err.txt || rc=$?
expect_eq "$rc" 2 "--folded with --json"

# colour: never on a pipe by default, always when asked
LC_ALL=C grep -q $'\x1b' c.txt && fail "colour in a pipe"
"$REPORT" --color always c.snap | LC_ALL=C grep -q $'\x1b\[1mLEAKS' || fail "--color always"
rc=0; "$REPORT" --color sometimes c.snap 2> /dev/null || rc=$?
expect_eq "$rc" 2 "--color bad value"
echo ok
