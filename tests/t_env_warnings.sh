# Every GPULEAK_* variable docs/environment.md lists warns about a bad value: exactly
# one line, naming the variable, and the program runs as without it.  Each
# boolean has its own warning (two bad ones give two lines), the usual
# boolean words are understood (GPULEAK_OOM_SNAPSHOT=false is off), an
# unknown %-conversion in GPULEAK_OUTPUT is said, and an uncatchable
# GPULEAK_SIGNAL is told as such.
source "$ROOT/tests/lib.sh"

# warns EXPECTED-STDERR VAR=VALUE...: the program's status and its stderr,
# exactly.
warns() {
    local want=$1 rc
    shift
    rm -f ./*.snap
    set +e
    env "$@" LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/hostile" plain >/dev/null 2>err
    rc=$?
    set -e
    expect_eq "$rc" 3 "exit status with $*"
    expect_eq "$(cat err)" "$want" "stderr with $*"
}
B='expected 1 or 0 (yes/no, true/false, on/off)'
warns "gpuleak: GPULEAK_OUTPUT=x%z.%p.snap: unknown conversion '%z' kept as text (known: %p %h %r %n %t %%)" \
    GPULEAK_OUTPUT=x%z.%p.snap
ls x%z.*.snap >/dev/null 2>&1 || fail "the pattern with %z was not kept as text: $(ls)"
warns "gpuleak: GPULEAK_OUTPUT=snap%: unknown conversion '%' kept as text (known: %p %h %r %n %t %%)" \
    GPULEAK_OUTPUT=snap%
warns "gpuleak: ignoring GPULEAK_OUTPUT: longer than 1023 bytes, using gpuleak.%p.%n.snap" \
    GPULEAK_OUTPUT="$(printf 'x%.0s' $(seq 1100))"
warns "gpuleak: ignoring GPULEAK_DEPTH=999: expected 0..256, using 64" GPULEAK_DEPTH=999
warns "gpuleak: ignoring GPULEAK_SIGNAL=FOO: not a signal name or number; using USR1" GPULEAK_SIGNAL=FOO
warns "gpuleak: ignoring GPULEAK_SIGNAL=KILL: SIGKILL cannot be caught; snapshots on signal are off" \
    GPULEAK_SIGNAL=KILL
warns "gpuleak: ignoring GPULEAK_SIGNAL=sigstop: SIGSTOP cannot be caught; snapshots on signal are off" \
    GPULEAK_SIGNAL=sigstop
warns "gpuleak: ignoring GPULEAK_SIGNAL=SEGV: a crash signal cannot ask for snapshots; snapshots on signal are off" \
    GPULEAK_SIGNAL=SEGV
warns "gpuleak: ignoring GPULEAK_MAX_ENTRIES=-1: expected 0..67108864, using 65536" GPULEAK_MAX_ENTRIES=-1
warns "gpuleak: ignoring GPULEAK_OOM_SNAPSHOT=maybe: $B, using 1" GPULEAK_OOM_SNAPSHOT=maybe
warns "gpuleak: ignoring GPULEAK_OOM_INTERVAL=abc: expected seconds from 0 to 1 year (or 500ms, 5m, 1h), using 10" \
    GPULEAK_OOM_INTERVAL=abc
warns "gpuleak: ignoring GPULEAK_TORCH_SETTLE=soon: expected seconds from 0 to 1 year (or 500ms, 5m, 1h), using 10" \
    GPULEAK_TORCH_SETTLE=soon
warns "gpuleak: ignoring GPULEAK_TORCH_LINES=always: expected request, start or never, using request" GPULEAK_TORCH_LINES=always
warns "gpuleak: ignoring GPULEAK_TORCH_LINES=always: expected request, start or never, using never" \
    GPULEAK_TORCH_LINES=always GPULEAK_MODE=light
warns "gpuleak: ignoring GPULEAK_MODE=lite: expected full or light, using full" GPULEAK_MODE=lite
warns "gpuleak: ignoring GPULEAK_SAMPLE_BYTES=1.5Q: expected bytes from 1 to 1T (4096, 512k, 1.5M, 1 MiB, 2G), using 1024K" \
    GPULEAK_SAMPLE_BYTES=1.5Q
warns "gpuleak: ignoring GPULEAK_SAMPLE_BYTES=0: expected bytes from 1 to 1T (4096, 512k, 1.5M, 1 MiB, 2G), using 1024K" \
    GPULEAK_SAMPLE_BYTES=0 GPULEAK_MODE=light
warns "gpuleak: ignoring GPULEAK_SAMPLE_SEED=-1: expected a number from 0 to 9223372036854775807, using a random seed" \
    GPULEAK_SAMPLE_SEED=-1
warns "gpuleak: ignoring GPULEAK_INTERVAL=5x: not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h); no periodic snapshots" \
    GPULEAK_INTERVAL=5x
warns "gpuleak: ignoring GPULEAK_STEP_LINES_EVERY=-1: not a number of steps from 0 to 1000000; using 20" \
    GPULEAK_STEP_LINES_EVERY=-1
warns "gpuleak: ignoring GPULEAK_STEP_VIEW_EVERY=0: not auto or a number of steps from 1 to 1000000; using auto" \
    GPULEAK_STEP_VIEW_EVERY=0
warns "gpuleak: ignoring GPULEAK_STEP_INTERVAL=5x: not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h); no views by time" \
    GPULEAK_STEP_INTERVAL=5x
warns "gpuleak: ignoring GPULEAK_KEEP=1: not 0 (all) or 2 to 10000; keeping 10" GPULEAK_KEEP=1
warns "gpuleak: ignoring GPULEAK_PYTHON=2: $B, using 1" GPULEAK_PYTHON=2
warns "gpuleak: ignoring GPULEAK_FREE_STACKS=x: $B, using 0" GPULEAK_FREE_STACKS=x
warns "gpuleak: ignoring GPULEAK_DISABLE=perhaps: $B, using 0" GPULEAK_DISABLE=perhaps
warns "gpuleak: ignoring GPULEAK_STACK_CACHE=often: expected on, off or miss, using on" GPULEAK_STACK_CACHE=often
warns "gpuleak: ignoring GPULEAK_CLOCK=tsc: expected auto or kernel, using auto" GPULEAK_CLOCK=tsc
# Two bad booleans: one line each.
warns "gpuleak: ignoring GPULEAK_DISABLE=maybe: $B, using 0
gpuleak: ignoring GPULEAK_FREE_STACKS=sure: $B, using 0" GPULEAK_DISABLE=maybe GPULEAK_FREE_STACKS=sure
# Good values say nothing: every boolean word, durations with units.
warns "" GPULEAK_DISABLE=No GPULEAK_PYTHON=on GPULEAK_FREE_STACKS=TRUE GPULEAK_OOM_SNAPSHOT=y GPULEAK_STACK_CACHE=Miss \
    GPULEAK_OOM_INTERVAL=500ms GPULEAK_SIGNAL=sigusr2 GPULEAK_OUTPUT=a%%b.%p.%n.snap
warns "" GPULEAK_MODE=Light GPULEAK_SAMPLE_BYTES=512KiB GPULEAK_SAMPLE_SEED=7 GPULEAK_TORCH_LINES=never
warns "" GPULEAK_MODE=full GPULEAK_SAMPLE_BYTES=4m GPULEAK_STEP_LINES_EVERY=0 GPULEAK_STEP_VIEW_EVERY=auto
warns "" GPULEAK_CLOCK=Kernel
warns "" GPULEAK_CLOCK=auto
warns "" GPULEAK_STEP_VIEW_EVERY=1000000
warns "" GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES="1.5 MiB"   # the one size grammar (common/size_parse.h)

# GPULEAK_OOM_SNAPSHOT=false is off: the exit snapshot only.  (Before, only
# "0" was off.)
for off in false no off 0; do
    rm -f ./*.snap
    GPULEAK_OOM_SNAPSHOT=$off traced "$TPROG/scenarios" oom >/dev/null 2>err
    expect_eq "$(cat err)" "" "stderr with GPULEAK_OOM_SNAPSHOT=$off"
    expect_eq "$(ls gpuleak.*.snap | wc -l)" 1 "snapshots with GPULEAK_OOM_SNAPSHOT=$off"
done
rm -f ./*.snap
GPULEAK_OOM_SNAPSHOT=yes traced "$TPROG/scenarios" oom >/dev/null
expect_eq "$(ls gpuleak.*.snap | wc -l)" 2 "snapshots with GPULEAK_OOM_SNAPSHOT=yes"
