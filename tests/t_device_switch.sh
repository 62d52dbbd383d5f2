# The device of each allocation stays exact now that gpuleak keeps the
# runtime's current device per thread (cuda/where.h) instead of asking
# cudaGetDevice on every event (tests/programs/device_switch.c, 2 fakecuda
# devices): main and three threads at once switch devices through
# cudaSetDevice, the driver's cuCtxSetCurrent / cuCtxPushCurrent /
# cuCtxPopCurrent / cuCtxCreate, and the same through
# cuGetProcAddress, dlsym and cudaGetDriverEntryPoint; each cudaMalloc's
# device is asserted (its size in KiB names it).  Then an in-process attach:
# the device set before the attach, and one set while detached (not seen by
# any hook), are asked for once after each attach.
source "$ROOT/tests/lib.sh"
export FAKECUDA_DEVICES=2
GPULEAK_OUTPUT=threads.snap traced "$TPROG/device_switch" threads || fail "threads: run"
"$REPORT" --json threads.snap >threads.json
check_json threads.json <<'PY'
eq(sorted((l["bytes"] // 1024, l["device"]) for l in leaks),
   [(1, 0), (2, 0),
    (11, 1), (12, 0), (13, 1),
    (21, 1), (22, 0), (23, 1), (24, 0), (25, 1),
    (31, 1), (32, 0), (33, 1), (34, 0), (35, 1)], "each allocation's device")
PY

mkdir snaps
LD_LIBRARY_PATH=$FAKECUDA "$TPROG/device_switch" attach "$LIBGPULEAK_SO" "GPULEAK_OUTPUT=$PWD/snaps/
" >out.txt 2>err.txt || fail "attach: $? $(cat err.txt)"
expect_eq "$(grep -v snapshot out.txt | tr '\n' ' ')" "begin 0 end 0 begin 0 end 0 " "attach: the program's output"
first=$(sed -n 's/^snapshot //p' out.txt | sed -n 1p)
second=$(sed -n 's/^snapshot //p' out.txt | sed -n 2p)
[ -f "$first" ] && [ -f "$second" ] && [ "$first" != "$second" ] || fail "attach: two snapshots ($(cat out.txt))"
"$REPORT" --json "$first" >first.json
"$REPORT" --json "$second" >second.json
check_json first.json <<'PY'
eq(sorted((l["bytes"] // 1024, l["device"]) for l in leaks), [(41, 1), (42, 0)], "first attach: devices")
PY
check_json second.json <<'PY'
eq(sorted((l["bytes"] // 1024, l["device"]) for l in leaks if l["bytes"] // 1024 == 43), [(43, 1)],
   "second attach: the device set while detached")
PY
echo ok
