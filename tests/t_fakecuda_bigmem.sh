# Device memory that costs nothing (issue 44, item 3): an 80 GB card on a
# machine with less memory.  Device ranges are MAP_NORESERVE and backed only
# where a program writes, and with --drop-copies (FAKECUDA_DROP_COPIES=1)
# copies and memsets into device memory do nothing, so a model built on the
# device costs no host memory.  tests/programs/gpu_bigmem.c prints its own
# VmRSS (KiB) after each step.
source "$ROOT/tests/lib.sh"
RUN=$FAKECUDA/fakecuda-run
P=$TPROG/gpu_bigmem
# rss FILE STEP: the step's VmRSS in KiB.
rss() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
# grew FILE FROM TO: KiB the step TO added to FROM.
grew() { echo $(($(rss "$1" "$3") - $(rss "$1" "$2"))); }

# 60 GiB allocated on an h100-sxm-80gb: resident memory unchanged (within
# 8 MiB: the allocator's own bookkeeping).
"$RUN" --gpu h100-sxm-80gb --devices 1 -- "$P" 60 256 >copies.txt || fail "gpu_bigmem exited $?"
[ "$(grew copies.txt start allocated)" -lt 8192 ] || fail "60 GiB allocated cost $(grew copies.txt start allocated) KiB: $(cat copies.txt)"
# Copies and memsets are real by default: 256 MiB each are resident.
[ "$(grew copies.txt allocated copied)" -ge 262144 ] || fail "256 MiB copied cost only $(grew copies.txt allocated copied) KiB"
[ "$(grew copies.txt copied memset)" -ge 262144 ] || fail "256 MiB memset cost only $(grew copies.txt copied memset) KiB"

# Dropped: the same copies and memsets cost nothing.
"$RUN" --drop-copies --gpu h100-sxm-80gb --devices 1 -- "$P" 60 256 >dropped.txt || fail "gpu_bigmem --drop-copies exited $?"
[ "$(grew dropped.txt start memset)" -lt 8192 ] || fail "with dropped copies: $(cat dropped.txt)"
FAKECUDA_DROP_COPIES=1 "$RUN" --gpu h100-sxm-80gb --devices 1 -- "$P" 60 256 >env.txt || fail "FAKECUDA_DROP_COPIES=1 exited $?"
[ "$(grew env.txt start memset)" -lt 8192 ] || fail "FAKECUDA_DROP_COPIES=1: $(cat env.txt)"

# The card's size still binds: 85027979264 bytes less the context's 512 MiB
# hold 78 GiB, not 79.
rc=0
"$RUN" --gpu h100-sxm-80gb --devices 1 -- "$P" 80 64 >full.txt 2>full.err || rc=$?
expect_eq "$rc:$(cat full.err)" "1:gpu_bigmem: cudaMalloc 78 failed" "80 GiB on an h100-sxm-80gb"
