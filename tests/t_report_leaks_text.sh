#!/usr/bin/env bash
# Text report of the known leak set: exact leak lines in the documented
# order (bytes desc, count desc, stack id asc), frames symbolized to the
# generator's own functions at the exact lines, summary and peak sections.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" leaks leaks.snap > expect.json
"$REPORT" leaks.snap > out.txt 2> err.txt || fail "reporter exit $?"
[ ! -s err.txt ] || fail "stderr not empty: $(cat err.txt)"

# expected line of frame I of stack S, from the generator
python3 -c 'import json; d=json.load(open("expect.json"))
for s, fr in d["stacks"].items():
    for i, f in enumerate(fr): print("L_%s_%d=%d" % (s, i, f["line"]))' > lines.sh
source lines.sh
ln() { local v="L_$1_$2"; echo "${!v}"; }

sed -n '/^LEAKS$/,/^LEAK SUMMARY$/p' out.txt > leaks.txt
cat > want.txt <<EOT
LEAKS
1,048,576 bytes (1.0 MiB) in 1 allocation: device memory on device 0 (cudaMalloc), not freed at exit
    allocated at 0.01 s (seq 3)
    #0 alloc_weights (snapgen.c:$(ln 1 0)) [snapgen]
    #1 load_model (snapgen.c:$(ln 1 1)) [snapgen]
    #2 capture (snapgen.c:$(ln 1 2)) [snapgen]

524,288 bytes (512.0 KiB) in 2 allocations: pool memory on device 1 (cudaMallocAsync), not freed at exit
    allocated from 0.10 s to 0.11 s (seq 10..11)
    #0 ns::Trainer::step(int) (snapgen_cxx.cc:$(ln 4 0)) [snapgen]
    #1 cxx_train (snapgen_cxx.cc:$(ln 4 1)) [snapgen]
    #2 capture (snapgen.c:$(ln 4 2)) [snapgen]

196,608 bytes (192.0 KiB) in 3 allocations: device memory on device 0 (cudaMalloc), not freed at exit
    allocated from 0.02 s to 0.06 s (seq 4..8)
    #0 alloc_activations (snapgen.c:$(ln 2 0)) [snapgen]
    #1 train_loop (snapgen.c:$(ln 2 1)) [snapgen]
    #2 capture (snapgen.c:$(ln 2 2)) [snapgen]

196,608 bytes (192.0 KiB) in 1 allocation: managed memory on device 0 (cudaMallocManaged), not freed at exit
    allocated at 0.12 s (seq 12)
    #0 alloc_managed (snapgen.c:$(ln 5 0)) [snapgen]
    #1 load_model (snapgen.c:$(ln 5 1)) [snapgen]
    #2 capture (snapgen.c:$(ln 5 2)) [snapgen]

8,192 bytes (8.0 KiB) in 2 allocations: host-pinned memory on host (cudaMallocHost), not freed at exit
    allocated from 0.03 s to 0.05 s (seq 5..7)
    #0 pin_staging (snapgen.c:$(ln 3 0)) [snapgen]
    #1 train_loop (snapgen.c:$(ln 3 1)) [snapgen]
    #2 capture (snapgen.c:$(ln 3 2)) [snapgen]

1,000 bytes in 1 allocation: device memory on device 1 (cuMemAlloc_v2), not freed at exit
    allocated at 0.14 s (seq 14)
    #0 tie_a (snapgen.c:$(ln 6 0)) [snapgen]
    #1 capture (snapgen.c:$(ln 6 1)) [snapgen]

1,000 bytes in 1 allocation: device memory on device 1 (cuMemAlloc_v2), not freed at exit
    allocated at 0.13 s (seq 13)
    #0 tie_b (snapgen.c:$(ln 7 0)) [snapgen]
    #1 capture (snapgen.c:$(ln 7 1)) [snapgen]

12 bytes in 1 allocation: device memory on device 0 (cudaMalloc), not freed at exit
    allocated at 0.15 s (seq 15)
    (no stack captured)

LEAK SUMMARY
EOT
diff -u want.txt leaks.txt || fail "LEAKS section differs"

sed -n '/^LEAK SUMMARY$/,/^$/p' out.txt > summary.txt
cat > want.txt <<'EOT'
LEAK SUMMARY
    total: 1,976,284 bytes (1.9 MiB) in 12 allocations
    device memory on device 0: 1,245,196 bytes (1.2 MiB) in 5 allocations
    device memory on device 1: 2,000 bytes (2.0 KiB) in 2 allocations
    pool memory on device 1: 524,288 bytes (512.0 KiB) in 2 allocations
    managed memory on device 0: 196,608 bytes (192.0 KiB) in 1 allocation
    host-pinned memory on host: 8,192 bytes (8.0 KiB) in 2 allocations

EOT
diff -u want.txt summary.txt || fail "LEAK SUMMARY differs"

# header
grep -qx 'process:  pid 4242, ppid 1, rank 0, host testhost' out.txt || fail "pid line"
grep -qxF "command:  ./train --epochs 3 'it'\\''s here'" out.txt || fail "command line"
grep -qx 'taken:    at exit, 2.50 s after start (snapshot 0, final)' out.txt || fail "taken line"
grep -q '^warning' out.txt && fail "unexpected warning"

# peak: devices in order 0, 1, host; composition bytes desc, count desc
grep -x 'device 0: peak 4,194,304 bytes (4.0 MiB) at seq 17, 0.52 s after start' out.txt >/dev/null || fail "device 0 peak line"
grep -x 'device 1: peak 1,048,576 bytes (1.0 MiB) at seq 9, 0.25 s after start' out.txt >/dev/null || fail "device 1 peak line"
grep -x 'host: peak 16,384 bytes (16.0 KiB) at seq 5, 0.03 s after start' out.txt >/dev/null || fail "host peak line"
expect_eq "$(grep -E '^(device [0-9]+|host): peak' out.txt | cut -d: -f1 | tr '\n' ' ')" "device 0 device 1 host " "device order"
sed -n '/^device 0: peak/,/^$/p' out.txt | grep -E '^    [0-9].* from:$' > comp.txt
cat > want.txt <<'EOT'
    2,097,152 bytes (2.0 MiB) in 2 allocations from:
    1,048,576 bytes (1.0 MiB) in 16 allocations from:
    1,048,576 bytes (1.0 MiB) in 1 allocation from:
EOT
diff -u want.txt comp.txt || fail "device 0 composition"
sed -n '/^device 0: peak/,/^$/p' out.txt | grep -qx "        #0 alloc_managed (snapgen.c:$(ln 5 0)) \[snapgen\]" || fail "composition frames"
grep -qx '    driver: 75,161,927,680 bytes (70.0 GiB) free of 85,899,345,920 bytes (80.0 GiB)' out.txt || fail "driver line"
echo ok
