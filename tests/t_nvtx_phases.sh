#!/usr/bin/env bash
# NVTX ranges become phases with no code change (issue 23 item 4): the
# injection library (tools/nvtx/gpuleak_nvtx.c) turns nvtxRangePushA /
# nvtxRangePushEx / nvtxRangePop into "X" / "X (end)" annotations.
# tests/programs/nvtx_phases.c knows only NVTX: "load" keeps 9 MiB, "train"
# holds "forward" (4 MiB freed) and "backward" (2 MiB kept) and frees 1 MiB.
# Preloaded by hand, then through `gpuleak run`, which names the library in
# NVTX_INJECTION64_PATH unless the user set that variable.
source "$ROOT/tests/lib.sh"
NVTXLIB=$BUILD/lib/libgpuleak-nvtx.so
[ -f "$NVTXLIB" ] || fail "no $NVTXLIB"
MiB=1048576
check_phases() { # SNAPSHOT
    "$REPORT" --json "$1" > "$1.json" || fail "report exit $?"
    check_json "$1.json" <<PY
M = $MiB
P = d["phases"]
eq([(p["label"], p["depth"], p["parent"], p["ended_by"]) for p in P["list"]],
   [("load", 0, -1, "end"), ("train", 0, -1, "end"), ("forward", 1, 1, "end"), ("backward", 1, 1, "end")], "nvtx structure")
eq([(p["label"], [(v["start_bytes"] // M, v["peak_bytes"] // M, v["end_bytes"] // M, v["net_bytes"] // M) for v in p["devices"]])
    for p in P["list"]],
   [("load", [(0, 9, 9, 9)]), ("train", [(9, 13, 10, 1)]), ("forward", [(9, 13, 9, 0)]), ("backward", [(9, 11, 11, 2)])],
   "nvtx figures (MiB)")
PY
}
mkdir a && (cd a && NVTX_INJECTION64_PATH=$NVTXLIB traced "$TPROG/nvtx_phases") || fail "preloaded run"
check_phases "a/$(cd a && only_snapshot)"
"$REPORT" a/gpuleak.*.snap > a.txt
grep -q '^  phase "backward": seq' a.txt || fail "text"

# the injection without gpuleak: the program runs as before, nothing written
mkdir b && (cd b && NVTX_INJECTION64_PATH=$NVTXLIB fc "$TPROG/nvtx_phases") || fail "without gpuleak"
[ -z "$(ls b)" ] || fail "files without gpuleak: $(ls b)"

skip_under_san "the launcher preloads the uninstrumented library"
mkdir c && (cd c && fc "$LAUNCHER" run -q -- "$TPROG/nvtx_phases") || fail "gpuleak run"
check_phases "c/$(cd c && only_snapshot)"
# a user's choice (here: none) is left alone
mkdir e && (cd e && NVTX_INJECTION64_PATH= fc "$LAUNCHER" run -q -- "$TPROG/nvtx_phases") || fail "gpuleak run, injection off"
"$REPORT" --json e/gpuleak.*.snap > e.json
expect_eq "$(jget e.json 'len(d["phases"]["list"])')" 0 "no phases when the user turned NVTX injection off"
echo ok
