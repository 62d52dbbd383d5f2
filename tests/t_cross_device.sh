# Stream-ordered memory is on the stream's device, or the named pool's,
# whatever device is current (tests/programs/cross_device.c): with device 0
# current, allocations on a stream of device 1 and from device 1's pool are
# device 1's memory -- in the leaks and in each device's live bytes and
# peak -- through the shared runtime, the driver API, and the static runtime
# (seen only as driver calls).  The default stream's stays on device 0.
source "$ROOT/tests/lib.sh"
MiB=1048576
for how in runtime driver static; do
    prog=$TPROG/cross_device mode=$how
    [ "$how" = static ] && prog=$TPROG/cross_device_static mode=runtime
    GPULEAK_OUTPUT=$how.snap traced "$prog" "$mode" || fail "$how: run"
    "$REPORT" --json "$how.snap" >"$how.json"
    pre=$([ "$how" = driver ] && echo cu || echo rt)
    case $how in
        runtime) a1=cudaMallocAsync a2=cudaMallocFromPoolAsync s1=$MiB s2=$((2 * MiB)) ;;
        driver) a1=cuMemAllocAsync a2=cuMemAllocFromPoolAsync s1=$((3 * MiB)) s2=$((4 * MiB)) ;;
        static) a1=cuMemAllocAsync a2=cuMemAllocFromPoolAsync s1=$MiB s2=$((2 * MiB)) ;;
    esac
    l1=$(site_line cross_device.c "LEAK-SITE: ${pre}_leak_on_stream")
    l2=$(site_line cross_device.c "LEAK-SITE: ${pre}_leak_from_pool")
    l3=$(site_line cross_device.c "LEAK-SITE: ${pre}_leak_here")
    check_json "$how.json" <<PY
eq(sorted((l["device"], l["bytes"], l["api"], frame(l["frames"][0])) for l in leaks),
   [(0, $MiB // 2, "$a1", "${pre}_leak_here cross_device.c:$l3"),
    (1, $s1, "$a1", "${pre}_leak_on_stream cross_device.c:$l1"),
    (1, $s2, "$a2", "${pre}_leak_from_pool cross_device.c:$l2")], "$how: leaks by device")
eq(sorted((x["device"], x["live_bytes"], x["peak_bytes"]) for x in d["devices"]),
   [(0, $MiB // 2, $MiB // 2), (1, $s1 + $s2, $s1 + $s2)], "$how: each device's live bytes and peak")
PY
done

# A stream-ordered request on device 1's stream that fails is device 1's
# failure (the stream's device, from the driver), through the runtime and
# the driver alike.
GPULEAK_OOM_SNAPSHOT=0 GPULEAK_OUTPUT=oom.snap traced "$TPROG/cross_device" oom >oom.out || fail "oom: run"
expect_eq "$(tr '\n' ' ' <oom.out)" "oom runtime 2 oom driver 2 " "return codes"
"$REPORT" --json oom.snap >oom.json
check_json oom.json <<'PY'
eq([(e["device"], e["api"]) for e in d["out_of_memory"]["events"]], [(1, "cudaMallocAsync"), (1, "cuMemAllocAsync")],
   "failed on the stream's device")
eq(sorted((x["device"], x["failed_count"]) for x in d["devices"]), [(0, 0), (1, 2)], "device 1's failed count")
PY
"$REPORT" oom.snap | grep -qx '2 allocations failed for lack of memory: 2 on device 1.' || fail "OOM headline"
