# Python frames in the live view (issue 34): the live file (version 2)
# carries a site's Python frames as py:ID with a pyframe line (id, line,
# function, file) instead of raw tagged ids; `gpuleak top` shows the Python
# file:line of a site reached from Python; version-1 files stay readable
# (their tagged ids dropped); malformed new lines get one line, status 2.
source "$ROOT/tests/lib.sh"
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13
py=$ROOT/tests/programs/py_live.py
line() { grep -n "LIVE-LINE: $1" "$py" | cut -d: -f1; }
TOP=$BUILD/libexec/gpuleak/gpuleak-top
live_python_job 1048576 "$py" hold

expect_eq "$(head -1 job.live)" "gpuleak-live 2" "version"
# No raw Python-frame id in a stack: return addresses and py:ID only.
expect_eq "$(grep '^stack ' job.live | tr ' ' '\n' | grep -c '^ffffffff' || true)" 0 "tagged ids in stacks"
sed -n 's/^pyframe [0-9]* //p' job.live | grep " $py\$" | sort >pyframes
expect_eq "$(cat pyframes)" "$(printf '%s\n' "$(line alloc) alloc $py" "$(line hold) hold $py" "$(grep -n '^        hold()$' "$py" | cut -d: -f1) <module> $py" | sort)" \
    "pyframe lines"
# Every py:ID named by a stack has its line.
for id in $(grep '^stack ' job.live | tr ' ' '\n' | sed -n 's/^py://p' | sort -u); do
    grep -q "^pyframe $id " job.live || fail "py:$id has no pyframe line"
done
"$TOP" --once "$PWD/job.live" >once.txt 2>once.err || fail "gpuleak-top: $(cat once.err)"
expect_eq "$(grep -A1 'largest live stacks' once.txt | tail -1)" "      live      count  device where" "top: header"
expect_eq "$(sed -n '/largest live stacks/{n;n;p}' once.txt)" \
    "   1.0 MiB          1  0      alloc py_live.py:$(line alloc) <- hold py_live.py:$(line hold)" "top: the Python site"

# Version 1 (an older library): readable, its tagged ids dropped.
printf 'gpuleak-live 1\npid 7\nsite 1 0 4096 1\nstack 1 ffffffff00000001 ffffffff00000002\nend\n' >v1.live
"$TOP" --once "$PWD/v1.live" >v1.out 2>v1.err || fail "version 1: $(cat v1.err)"
expect_eq "$(sed -n '/largest live stacks/{n;n;p}' v1.out)" "   4.0 KiB          1  0      (stack 1: no frame of the program)" "version 1 with tagged ids"

# Malformed version-2 lines: one line, status 2.
bad() {  # bad NAME LINES WHY
    printf 'gpuleak-live 2\npid 7\nsite 1 0 4096 1\n%b\nend\n' "$2" >"$1.live"
    set +e
    "$TOP" --once "$PWD/$1.live" >"$1.out" 2>"$1.err"
    local rc=$?
    set -e
    expect_eq "$rc" 2 "$1: status"
    expect_eq "$(cat "$1.err")" "gpuleak-top: $PWD/$1.live: $3" "$1: message"
}
bad pyzero 'stack 1 py:0\npyframe 0 3 f /x.py' "malformed line 4"
bad pyword 'stack 1 py:x' "malformed line 4"
bad pyhuge 'stack 1 py:4294967296' "malformed line 4"
bad tagged 'stack 1 ffffffff00000001' "malformed line 4"
bad pyline 'stack 1 py:1\npyframe 1 x f /x.py' "malformed line 5"
bad pyshort 'stack 1 py:1\npyframe 1 3' "malformed line 5"
bad pymissing 'stack 1 py:1 py:2\npyframe 1 3 f /x.py' "Python frame 2 has no pyframe line"
