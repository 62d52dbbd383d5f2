#!/usr/bin/env bash
# gpuleak on AArch64 (Grace Hopper GH200, Grace Blackwell), checked on this
# x86-64 machine under emulation:
#   - cross-builds libgpuleak.so, fakecuda and the test programs below with
#     aarch64-linux-gnu-gcc into build-arm64/ (the native build must exist:
#     its gpuleak-report reads both architectures' snapshots);
#   - runs each program under qemu-aarch64 with the target's own dynamic
#     loader and libc (-L /: the cross toolchain's ld.so with the multiarch
#     libc hangs in pthread_create, so never mix the two);
#   - checks that every kind of dlsym/dlvsym lookup is answered exactly as on
#     x86-64 (tests/programs/dlsym_probe.c: the trampolines in
#     interpose/hooks/dlsym_trampoline.S), and that each program's report --
#     leaks, mapped memory, device counters, history counts, frames and
#     lines -- equals the x86-64 build's report of the same run.
# Prints one line per check, then "check-aarch64: N passed, N failed".
#
#   scripts/check-aarch64.sh [--install]     (make check-aarch64)
#
# --install first installs what it needs from Debian: adds the arm64
# architecture to dpkg, then gcc-aarch64-linux-gnu, qemu-user, libc6:arm64
# and libunwind-dev:arm64.  Not part of `make check`: it changes the
# machine's package architectures, which CI should not do behind one's back.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
NATIVE=${BUILD:-build}
CROSS=${CROSS_BUILD:-build-arm64}
CC_CROSS=${CC_CROSS:-aarch64-linux-gnu-gcc}

if [ "${1:-}" = --install ]; then
    dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-aarch64-linux-gnu qemu-user libc6:arm64 \
        libunwind-dev:arm64 >/dev/null
fi
for tool in "$CC_CROSS" qemu-aarch64; do
    command -v "$tool" >/dev/null || { echo "check-aarch64: $tool not found (run with --install)" >&2; exit 2; }
done
[ -e /lib/ld-linux-aarch64.so.1 ] && [ -e /usr/lib/aarch64-linux-gnu/libunwind.so ] ||
    { echo "check-aarch64: arm64 libc6/libunwind-dev not installed (run with --install)" >&2; exit 2; }

PROGS="dlsym_probe runtime_kinds runtime_kinds_static driver_paths external_mem external_mem_static scenarios"
native_targets="$NATIVE/bin/gpuleak-report $NATIVE/lib/libgpuleak.so $NATIVE/fakecuda/libcuda.so"
cross_targets="$CROSS/lib/libgpuleak.so $CROSS/fakecuda/libcuda.so $CROSS/fakecuda/libcudart.so"
for p in $PROGS; do
    native_targets+=" $NATIVE/tests/$p"
    cross_targets+=" $CROSS/tests/$p"
done
make -s -j"$(nproc)" BUILD="$NATIVE" $native_targets >/dev/null
make -s -j"$(nproc)" CC="$CC_CROSS" BUILD="$CROSS" $cross_targets >/dev/null
file -b "$CROSS/lib/libgpuleak.so" | grep -q aarch64 || { echo "check-aarch64: $CROSS is not an AArch64 build" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuleak-aarch64.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
result() { # STATUS NAME DETAIL
    printf '%-4s  %-30s %s\n' "$1" "$2" "$3"
    if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# run ARCH DIR PROG ARGS...: PROG under gpuleak, in DIR, final snapshot DIR/final.snap.
run() {
    local arch=$1 dir=$2 prog=$3
    shift 3
    mkdir -p "$dir"
    if [ "$arch" = native ]; then
        (cd "$dir" && GPULEAK_OUTPUT="$dir/final.snap" LD_LIBRARY_PATH="$ROOT/$NATIVE/fakecuda" \
            LD_PRELOAD="$ROOT/$NATIVE/lib/libgpuleak.so" timeout 120 "$ROOT/$NATIVE/tests/$prog" "$@")
    else
        (cd "$dir" && timeout 300 qemu-aarch64 -L / -E GPULEAK_OUTPUT="$dir/final.snap" \
            -E LD_LIBRARY_PATH="$ROOT/$CROSS/fakecuda" -E LD_PRELOAD="$ROOT/$CROSS/lib/libgpuleak.so" \
            "$ROOT/$CROSS/tests/$prog" "$@")
    fi
}

# The parts of a report that must not depend on the architecture.
summarize() {
    "$ROOT/$NATIVE/bin/gpuleak-report" --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
def fr(fs):
    return [(f["function"], f["line"]) for f in fs if f.get("function")][:4]
def groups(gs):
    return sorted((g["kind"], g["device"], g["api"], g["bytes"], g["count"], fr(g["frames"])) for g in gs)
print(json.dumps({
    "leaks": groups(d["leaks"]),
    "mapped": groups(d["mapped"]["groups"]),
    "cached": groups(d["allocator_caches"]["groups"]),
    "devices": sorted((x["device"], x["peak_bytes"], x["live_bytes"], x["alloc_count"], x["free_count"],
                       x["failed_count"], x["unknown_free_count"]) for x in d["devices"]),
    "events": (d["timeline"]["allocs"], d["timeline"]["frees"]),
}, indent=1))'
}

# dlsym: the same answers on both, and the explicit lookup is the hook.
probe() {
    local arch=$1
    if [ "$arch" = native ]; then
        LD_LIBRARY_PATH="$NATIVE/fakecuda" LD_PRELOAD="$ROOT/$NATIVE/lib/libgpuleak.so" "$NATIVE/tests/dlsym_probe"
    else
        timeout 120 qemu-aarch64 -L / -E LD_LIBRARY_PATH="$ROOT/$CROSS/fakecuda" \
            -E LD_PRELOAD="$ROOT/$CROSS/lib/libgpuleak.so" "$CROSS/tests/dlsym_probe"
    fi
}
if probe native >"$WORK/probe.native" 2>&1 && probe cross >"$WORK/probe.cross" 2>&1 &&
    grep -qx 'handle:cudaMalloc libgpuleak.so' "$WORK/probe.cross" && diff -q "$WORK/probe.native" "$WORK/probe.cross" >/dev/null; then
    result PASS dlsym "$(tr '\n' ';' <"$WORK/probe.cross")"
else
    result FAIL dlsym "$(diff "$WORK/probe.native" "$WORK/probe.cross" 2>&1 | tr '\n' ' ' | cut -c1-300)"
fi

# Each program: the same report on both architectures.
while read -r name prog args; do
    [ -n "$name" ] || continue
    ok=1 why=""
    for arch in native cross; do
        # shellcheck disable=SC2086 # args are words
        if ! run "$arch" "$WORK/$name.$arch" "$prog" $args >"$WORK/$name.$arch.out" 2>&1; then
            ok=0 why="$arch run failed: $(tail -1 "$WORK/$name.$arch.out")"
        elif ! summarize "$WORK/$name.$arch/final.snap" >"$WORK/$name.$arch.json" 2>"$WORK/$name.$arch.err"; then
            ok=0 why="$arch report failed: $(tail -1 "$WORK/$name.$arch.err")"
        fi
    done
    if [ $ok = 1 ] && ! diff -u "$WORK/$name.native.json" "$WORK/$name.cross.json" >"$WORK/$name.diff"; then
        ok=0 why="reports differ: $(grep '^[-+] ' "$WORK/$name.diff" | head -4 | tr '\n' ' ')"
    fi
    if [ $ok = 1 ]; then
        result PASS "$name" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%d leak groups, %d mapped, events %s" % (len(d["leaks"]), len(d["mapped"]), d["events"]))' "$WORK/$name.cross.json")"
    else
        result FAIL "$name" "$why"
    fi
done <<'EOF'
runtime-shared     runtime_kinds
runtime-static     runtime_kinds_static
driver-direct      driver_paths direct
driver-dlsym       driver_paths dlsym
driver-procaddr    driver_paths procaddr
driver-entry       driver_paths entry
external-runtime   external_mem runtime
external-dlsym     external_mem dlsym
external-static    external_mem_static runtime
peak               scenarios peak
leak-async         scenarios leak-async
EOF
echo "check-aarch64: $passed passed, $failed failed"
[ "$failed" = 0 ]
