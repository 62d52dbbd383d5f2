#!/usr/bin/env bash
# --pprof OUT.pb.gz: a gzipped profile.proto that Go's own pprof reads.
# tests/programs/pprof_growth.c holds known memory at known lines and grows
# between two snapshots of one process; py_frames.py allocates from Python.
# `go tool pprof -top` gives the exact bytes and counts per function for the
# four sample types, -lines the file:line of native and Python frames,
# -diff_base the growing line with its exact growth, -tags the device, kind
# and API labels (a site on two devices, whose calls CALLS cannot split by
# device, gets its alloc values without one).  The file is written
# atomically, 0600, never through a planted symlink; a bad snapshot or an
# unwritable path gives one line and a non-zero exit, and no file.
source "$ROOT/tests/lib.sh"
skip_if '! command -v go >/dev/null' "go is not installed (scripts/install-deps.sh installs golang-go)"
export PPROF_TMPDIR=$PWD HOME=$PWD # pprof keeps nothing outside the test's directory

# The bytes (or counts) per function, or per line with -lines: "NAME VALUE"
# for each entry with its own (flat) value, file paths cut to their basename.
top() {
    go tool pprof -top -nodefraction=0 "$@" 2>/dev/null |
        awk 'f && $1 != "0" { v = $1; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print $0, v }
             /^ *flat  flat%/ { f = 1 }' | sed -E 's#[^ ]*/##g' | sort
}

traced "$TPROG/pprof_growth" || fail "pprof_growth"
final=$(only_snapshot)
"$REPORT" --pprof fin.pb.gz "$final" >out.txt 2>err.txt || fail "exit $?: $(cat err.txt)"
[ -s out.txt ] && fail "--pprof wrote to stdout: $(head -3 out.txt)"
"$REPORT" --pprof mid.pb.gz mid.snap || fail "mid"
expect_eq "$(stat -c %a fin.pb.gz)" 600 "mode"
gzip -t fin.pb.gz || fail "not gzip"

gl=$(site_line pprof_growth.c 'PPROF-SITE: grow \*/')
sl=$(site_line pprof_growth.c 'PPROF-SITE: steady')
pl=$(site_line pprof_growth.c 'PPROF-SITE: pinned')
cl=$(site_line pprof_growth.c 'PPROF-SITE: churn')
dl=$(site_line pprof_growth.c 'PPROF-SITE: spread')
expect_eq "$(top -sample_index=inuse_space -unit=B fin.pb.gz)" \
    "$(printf '%s\n' 'grow 3145728B' 'pinned 8192B' 'spread 1572864B' 'steady 3145728B')" "inuse_space"
expect_eq "$(top -sample_index=inuse_objects fin.pb.gz)" \
    "$(printf '%s\n' 'grow 3' 'pinned 1' 'spread 2' 'steady 1')" "inuse_objects"
expect_eq "$(top -sample_index=alloc_space -unit=B fin.pb.gz)" \
    "$(printf '%s\n' 'churn 40960B' 'grow 3145728B' 'pinned 8192B' 'spread 1572864B' 'steady 3145728B')" "alloc_space"
expect_eq "$(top -sample_index=alloc_objects fin.pb.gz)" \
    "$(printf '%s\n' 'churn 10' 'grow 3' 'pinned 1' 'spread 2' 'steady 1')" "alloc_objects"
# inuse_space is the default, as in Go's heap profiles
expect_eq "$(top -unit=B -lines fin.pb.gz)" \
    "$(printf '%s\n' "grow pprof_growth.c:$gl 3145728B" "pinned pprof_growth.c:$pl 8192B" \
                     "spread pprof_growth.c:$dl 1572864B" "steady pprof_growth.c:$sl 3145728B")" "lines"
expect_eq "$(top -sample_index=alloc_space -unit=B -lines fin.pb.gz | grep churn)" \
    "churn pprof_growth.c:$cl 40960B" "the freed site's line"

# two snapshots of one job: only grow()'s line grew, by 2 MiB in 2 allocations
expect_eq "$(top -lines -unit=B -diff_base mid.pb.gz fin.pb.gz)" "grow pprof_growth.c:$gl 2097152B" "diff bytes"
expect_eq "$(top -lines -sample_index=inuse_objects -diff_base mid.pb.gz fin.pb.gz)" \
    "grow pprof_growth.c:$gl 2" "diff objects"

# labels
tags() { go tool pprof -tags -unit=B "$@" 2>/dev/null | awk 'NF' | sed 's/ *(.*)//; s/^ *//'; }
tags fin.pb.gz >tags.txt
cat >want.txt <<'EOF'
api: Total 7872512.0B
7864320.0B: cudaMalloc
8192.0B: cudaMallocHost
device: Total 7872512.0B
6815744.0B: 0
1048576.0B: 1
8192.0B: host
kind: Total 7872512.0B
7864320.0B: device
8192.0B: host-pinned
EOF
diff want.txt tags.txt || fail "tags"
# CALLS does not say the device: spread()'s calls (two devices) and
# churn()'s (none live) have no device label; the rest have their one device
tags -sample_index=alloc_space fin.pb.gz | sed -n '/^device:/,/^kind:/p' >tags.txt
printf '%s\n' 'device: Total 6299648.0B' '6291456.0B: 0' '8192.0B: host' '0.0B: 1' 'kind: Total 7913472.0B' >want.txt
diff want.txt tags.txt || fail "alloc_space by device"

# No stack recorded (GPULEAK_DEPTH=0, hence no CALLS either): one frame,
# alloc as inuse.  An older snapshot without CALLS: alloc as inuse too.
mkdir d0 && (cd d0 && GPULEAK_DEPTH=0 traced "$TPROG/pprof_growth")
"$REPORT" --pprof d0.pb.gz d0/gpuleak.*.snap || fail "depth 0"
expect_eq "$(top -unit=B d0.pb.gz)" "[no stack] 7872512B" "depth 0 inuse"
expect_eq "$(top -unit=B -sample_index=alloc_space d0.pb.gz)" "[no stack] 7872512B" "depth 0 alloc"
"$TPROG/snapgen" ipc old.snap
"$REPORT" --pprof old.pb.gz old.snap || fail "old snapshot"
top -unit=B old.pb.gz >inuse.txt
[ -s inuse.txt ] || fail "old snapshot: nothing in use"
expect_eq "$(top -unit=B -sample_index=alloc_space old.pb.gz)" "$(cat inuse.txt)" "old snapshot: alloc as inuse"

# Python frames: function, file and line, as the report shows them
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13 PYTHONPATH=$TPROG/python
py=$ROOT/tests/programs/py_frames.py
pyl() { grep -n "LEAK-LINE: $1" "$py" | cut -d: -f1; }
GPULEAK_OUTPUT=py.snap traced python3 "$py" paths || fail "py_frames"
"$REPORT" --pprof py.pb.gz py.snap || fail "python profile"
expect_eq "$(top -unit=B -lines py.pb.gz)" \
    "$(printf '%s\n' "alloc py_frames.py:$(pyl alloc) 3000B" "via_extension py_frames.py:$(pyl ext-gil) 4000B" \
                     "via_extension py_frames.py:$(pyl ext-nogil) 3000B" | sort)" "python lines"

# Atomic, 0600, never through a symlink: an old file is replaced whole, a
# planted link is refused, neither followed nor replaced (t_output_targets).
echo old >victim && chmod 644 victim && ln -s victim link.pb.gz
echo old >old.pb.gz && chmod 644 old.pb.gz
rc=0; "$REPORT" --pprof link.pb.gz "$final" 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "1:gpuleak-report: link.pb.gz: cannot write: is a symbolic link, not followed (name the file itself; a stream is /dev/stdout, /dev/stderr or /dev/fd/N)" "a planted link"
"$REPORT" --pprof old.pb.gz "$final" || fail "over an old file"
expect_eq "$(cat victim)" old "the symlink's target"
[ -L link.pb.gz ] || fail "the symlink was replaced"
expect_eq "$(stat -c %a old.pb.gz)" "600" "mode"
cmp -s old.pb.gz fin.pb.gz || fail "old file not replaced by the profile"
rm -f err.txt

# Failures: one line, non-zero, no file and no temporary left.
rm -rf d0 && ls >before.txt
one_line_fail() { # WANT_RC CMD...: exit status and a single stderr line
    local want=$1
    shift
    local rc=0
    "$@" >o.txt 2>e.txt || rc=$?
    expect_eq "$rc" "$want" "exit of $*"
    expect_eq "$(wc -l <e.txt)" 1 "stderr lines of $*: $(cat e.txt)"
}
one_line_fail 1 "$REPORT" --pprof nodir/x.pb.gz "$final"
grep -q '^gpuleak-report: nodir/x.pb.gz: cannot write: No such file or directory$' e.txt || fail "message: $(cat e.txt)"
mkdir adir
one_line_fail 1 "$REPORT" --pprof adir "$final"
head -c 100 "$final" >trunc.snap
one_line_fail 2 "$REPORT" --pprof bad.pb.gz trunc.snap
one_line_fail 2 "$REPORT" --pprof x.pb.gz --json "$final"
one_line_fail 2 "$REPORT" --pprof x.pb.gz mid.snap "$final"
one_line_fail 2 "$REPORT" --pprof x.pb.gz diff mid.snap "$final"
ls | grep -v -x -e adir -e trunc.snap -e o.txt -e e.txt | diff before.txt - || fail "files left behind"
[ -z "$(ls adir)" ] || fail "temporary left in adir"
echo ok
