# Garbage in every GPULEAK_* variable (empty, negative, huge, non-numeric,
# overlong, '%' patterns that expand to nothing or lead out of the
# directory): the program runs with the same exit status and stdout, at most
# one "gpuleak: " line per bad variable and nothing else on stderr, and a
# snapshot is still written with the defaults where the output name allows.
source "$ROOT/tests/lib.sh"
fc "$TPROG/hostile" plain >bare.out 2>bare.err && fail "hostile plain should exit 3"
long=$(printf 'x%.0s' $(seq 5000))

# run VAR=VALUE...: runs the program with those settings in a fresh directory;
# checks status, stdout, stderr shape; leaves the directory as run.N
n=0
run() {
    n=$((n + 1)); mkdir run.$n; local rc
    set +e
    (cd run.$n && env "$@" LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/hostile" plain >out 2>err)
    rc=$?
    set -e
    expect_eq "$rc" 3 "exit status with $*"
    cmp -s bare.out run.$n/out || fail "stdout changed with $*"
    local bad
    bad=$(grep -vc '^gpuleak: ' run.$n/err || true)
    expect_eq "$bad" 0 "stderr lines not from gpuleak with $* ($(cat run.$n/err))"
    local warn
    warn=$(grep -c '^gpuleak: ' run.$n/err || true)
    [ "$warn" -le "${MAXWARN:-1}" ] || fail "$warn warning lines with $*: $(cat run.$n/err)"
}
# expect_default_snapshot: run.N holds exactly one default-named snapshot
# that the reporter reads.
expect_snapshot() {
    local files=(run.$n/gpuleak.*.snap)
    [ -e "${files[0]}" ] && [ ${#files[@]} -eq 1 ] || fail "run $n: expected one default snapshot: $(ls -A run.$n)"
    "$REPORT" "${files[0]}" >/dev/null || fail "run $n: snapshot unreadable"
}

for var in GPULEAK_DEPTH GPULEAK_MAX_ENTRIES GPULEAK_DISABLE GPULEAK_PYTHON GPULEAK_SIGNAL \
           GPULEAK_OOM_INTERVAL GPULEAK_OOM_SNAPSHOT GPULEAK_INTERVAL GPULEAK_KEEP RANK LOCAL_RANK \
           GPULEAK_MODE GPULEAK_SAMPLE_BYTES GPULEAK_SAMPLE_SEED; do
    for val in "" "-1" "-2147483649" "99999999999999999999999" "abc" "12abc" " 7" "0x10" "1e3" \
               "$long" $'\x01\x7f' "%s%s%n"; do
        run "$var=$val"
        [ "$var" = GPULEAK_DISABLE ] || expect_snapshot
    done
done
# Light mode with a hostile sample size: the same program, a snapshot.
for val in "" "-1" "abc" "99999999999999999999999" "$long" "1" "1G"; do
    run GPULEAK_MODE=light "GPULEAK_SAMPLE_BYTES=$val"; expect_snapshot
done
# Every variable bad at once: one line each at most.
MAXWARN=14 run GPULEAK_DEPTH=-5 GPULEAK_MAX_ENTRIES=x GPULEAK_DISABLE=maybe GPULEAK_PYTHON=2 \
    GPULEAK_SIGNAL=KILL GPULEAK_OOM_INTERVAL=-1 GPULEAK_OUTPUT="$long" RANK=-3 GPULEAK_INTERVAL=1e3 GPULEAK_KEEP=1 \
    GPULEAK_MODE=x GPULEAK_SAMPLE_BYTES=-1 GPULEAK_SAMPLE_SEED=x
expect_snapshot

# GPULEAK_OUTPUT: overlong (default name used, one warning); empty (default).
run GPULEAK_OUTPUT="$long"; expect_snapshot
grep -q 'longer than' run.$n/err || fail "no warning for an overlong GPULEAK_OUTPUT"
run GPULEAK_OUTPUT=; expect_snapshot
# Patterns that expand to no file name: one warning, nothing written, no
# file anywhere above the directory.
for pat in . .. ./ "nonexistent/.." "sub/"; do
    run GPULEAK_OUTPUT="$pat"
done
# '%' at the end, unknown conversions, '%%': literal, inside the directory
# (the unknown conversion is said; a missing directory is a second problem).
run GPULEAK_OUTPUT='snap%'; [ -f run.$n/snap% ] || fail "pattern 'snap%': $(ls -A run.$n)"
MAXWARN=2 run GPULEAK_OUTPUT='a%q%/b%%'; [ -f 'run.'$n'/a%q%/b%' ] 2>/dev/null || [ -z "$(ls -A run.$n | grep -v '^out$\|^err$')" ] \
    || fail "pattern 'a%q%/b%%' wrote outside: $(ls -A run.$n)"
# Huge %n counts: a pattern that is all conversions still fits.
run GPULEAK_OUTPUT="$(printf '%%n%.0s' $(seq 400))"
# %h cannot lead out of the directory, whatever the host name (needs a UTS
# namespace; skipped, with a note, where unshare is not allowed).
if unshare -u true 2>/dev/null; then
    for h in .. . "" "a/../../b" "../x"; do
        mkdir -p h/in
        set +e
        (cd h/in && unshare -u sh -c 'hostname -- "$1" 2>/dev/null || hostname "$1"; shift; exec "$@"' sh "$h" \
            env GPULEAK_OUTPUT='%h/%h.snap' LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/hostile" plain \
            >/dev/null 2>err); rc=$?
        set -e
        expect_eq "$rc" 3 "exit status with host name '$h'"
        [ -z "$(find h -maxdepth 1 -type f)" ] || fail "host name '$h': a file outside the directory: $(find h)"
        [ -z "$(find h/in -name '*.snap' -not -path 'h/in/*/*')" ] || fail "host name '$h': $(find h)"
        rm -rf h
    done
else
    echo "note: no UTS namespace, host-name cases not run"
fi
true
