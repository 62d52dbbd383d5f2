# Root attaching to another user's process (issue 48, item 7): the process
# writes its snapshots itself, as its own user, so an --output directory
# that user cannot write is refused at the attach, in one line naming the
# directory and the user, and nothing is loaded; a directory it can write
# gets every snapshot, owned by that user.  Before: attach and detach
# exited 0 and every snapshot was lost.  Needs root (a throwaway user is
# made and removed); skipped otherwise.
source "$ROOT/tests/lib.sh"
skip_under_san "gdb calls into the process; the sanitizers' runtimes are not made for that"
command -v gdb >/dev/null || skip_if true "no gdb"
skip_if '[ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null' \
    "needs root, useradd and setpriv"
export LD_LIBRARY_PATH=$FAKECUDA

user=gltest$$
useradd -M -N -s /usr/sbin/nologin "$user" || skip_if true "useradd failed"
pid=""
cleanup() {
    [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
    userdel "$user" 2>/dev/null || true
    rm -rf "${shared:-}"
}
trap cleanup EXIT
uid=$(id -u "$user")
gid=$(id -g "$user")

mkfifo cmd
setpriv --reuid="$uid" --regid="$gid" --clear-groups "$TPROG/attach_target" <cmd >target.out 2>&1 &
pid=$!
exec 3>cmd
wait_for "the target's ready" grep -q '^ready$' target.out
threads() { cat /proc/"$1"/task/*/comm 2>/dev/null | sort | tr '\n' ' '; }
before=$(threads "$pid")

# This test's directory is root's, 0700.
mkdir private
chmod 0700 . private
rc=0; "$LAUNCHER" attach --output "$PWD/private/" "$pid" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 2 "a directory the user cannot write: status ($(cat err.txt))"
expect_eq "$(cat err.txt)" "gpuleak: attach: --output: process $pid runs as user $user, uid $uid, which cannot create files in $PWD/private (its snapshots would be lost); choose a directory it can write" \
    "a directory the user cannot write: message"
expect_eq "$(threads "$pid")" "$before" "refused: the target's threads"
expect_eq "$(grep -c libgpuleak "/proc/$pid/maps" || true)" 0 "refused: libgpuleak not loaded"

# One it can write: every snapshot there, the user's.
shared=$(mktemp -d /tmp/gpuleak-foreign.XXXXXX)
chown "$uid:$gid" "$shared"
rc=0; "$LAUNCHER" attach --output "$shared/" "$pid" 2>err.txt || rc=$?
expect_eq "$rc" 0 "a directory the user can write: attach ($(cat err.txt))"
echo "rt 1048576" >&3
"$LAUNCHER" snapshot --timeout 20 "$pid" >snap.out 2>snap.err || fail "snapshot: $(cat snap.err)"
"$LAUNCHER" detach "$pid" >detach.out 2>detach.err || fail "detach: $(cat detach.err)"
expect_eq "$(ls "$shared" | wc -l)" 2 "snapshots written"
expect_eq "$(stat -c %u "$shared"/*.snap | sort -u)" "$uid" "the snapshots' owner"
echo quit >&3
exec 3>&-
rc=0; wait "$pid" || rc=$?
pid=""
expect_eq "$rc" 7 "the target's exit status"
echo ok
