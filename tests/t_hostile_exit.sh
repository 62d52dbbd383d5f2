# A program that, before it exits, closes every file descriptor (stderr
# too), changes directory, or lowers its limits to almost nothing (open
# files, file size, address space) still gets its snapshot, or at most one
# warning line; its exit status and output are its own.
source "$ROOT/tests/lib.sh"

# hrun MODE: runs hostile MODE under gpuleak in dir MODE/, checks status 3,
# the stdout line, and at most one "gpuleak: " line and nothing else.
hrun() {
    local mode=$1; mkdir "$mode"; local rc
    set +e
    # stderr through a pipe: a file would be cut by the program's own
    # RLIMIT_FSIZE (the fsize case), which is not what is tested here.
    (cd "$mode" && traced "$TPROG/hostile" "$mode" 2>&1 >out | cat >err; exit "${PIPESTATUS[0]}"); rc=$?
    set -e
    expect_eq "$rc" 3 "$mode: exit status"
    expect_eq "$(cat "$mode/out")" "hostile $mode done" "$mode: stdout"
    expect_eq "$(grep -vc '^gpuleak: ' "$mode/err" || true)" 0 "$mode: foreign stderr: $(cat "$mode/err")"
    [ "$(grep -c '^gpuleak: ' "$mode/err" || true)" -le 1 ] || fail "$mode: more than one warning: $(cat "$mode/err")"
}
# snap_has_leak DIR: DIR holds one snapshot, whose one leak is hostile's.
snap_has_leak() {
    local files=("$1"/gpuleak.*.snap)
    [ -e "${files[0]}" ] && [ ${#files[@]} -eq 1 ] || fail "$1: expected one snapshot: $(ls -A "$1")"
    "$REPORT" --json "${files[0]}" >"$1/r.json"
    check_json "$1/r.json" <<'PY'
eq([(l["bytes"], l["frames"][0]["function"]) for l in leaks], [(1048576, "leak")], "leaks")
PY
}

hrun closefds;  snap_has_leak closefds   # stderr closed: no warning possible, but the file is there
hrun chdir;     snap_has_leak chdir      # written where the program started, not in /
[ -z "$(ls /gpuleak.*.snap 2>/dev/null)" ] || fail "a snapshot was written in /"
if [ -z "$GL_SAN" ]; then
    hrun nofile                          # no descriptor left: one warning
    expect_eq "$(grep -c '^gpuleak: ' nofile/err)" 1 "nofile: warning"
else
    echo "note: nofile case not run under $GL_SAN (the sanitizer itself needs descriptors at exit)"
fi
skip_fsize=$([ "$GL_SAN" = "" ] && echo no || echo yes)
if [ "$skip_fsize" = no ]; then
    hrun fsize                           # EFBIG, SIGXFSZ not fatal: one warning, no partial file
    expect_eq "$(grep -c '^gpuleak: ' fsize/err)" 1 "fsize: warning"
    [ -z "$(ls -A fsize | grep -v '^out$\|^err$')" ] || fail "fsize: files left: $(ls -A fsize)"
else
    echo "note: fsize case not run under $GL_SAN (the sanitizer's own log writes hit the limit)"
fi
if [ -z "$GL_SAN" ]; then
    hrun as                              # no memory: one warning, or the snapshot
    [ "$(grep -c '^gpuleak: ' as/err)" -eq 1 ] || snap_has_leak as
else
    echo "note: address-space case not run under $GL_SAN (the sanitizer reserves terabytes of shadow)"
fi
true
