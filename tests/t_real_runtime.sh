# NVIDIA's real runtime (the toolkit's libcudart.so.13 and nvcc's default
# libcudart_static.a) against a recording driver (tests/realcuda/): no GPU
# needed.  It fails when
#  (a) the runtime behaves differently under gpuleak: other driver requests
#      (names, versions, flags, symbolStatus, in order), other driver calls,
#      or other return codes seen by the program;
#  (b) an allocation, free, pool, VMM, graph-memory, IPC, external-memory,
#      module/library or context-teardown entry point the runtime fetches is
#      not handed gpuleak's wrapper of the same ABI, unless
#      docs/interception.md's request table says why not.  Checked by
#      replaying the recorded requests exactly (tests/realcuda/replay.c)
#      under LD_PRELOAD and asking dladdr where each answer lies: on the
#      recording driver (it answers every name) and on fakecuda's driver
#      (it answers by ABI version, with exported names to compare).
# The recorded requests (tools/fakecuda/real_runtime_requests.txt) must be
# what this toolkit's runtime asks now: tests/realcuda/record.sh rewrites it.
source "$ROOT/tests/lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
skip_if '[ ! -x "$NVCC" ]' "no nvcc at $NVCC"
skip_if '[ ! -e "$CUDA_HOME/lib64/libcudart.so.13" ] || [ ! -e "$CUDA_HOME/lib64/libcudart_static.a" ]' \
    "NVIDIA's libcudart.so.13 / libcudart_static.a not in $CUDA_HOME/lib64"
# NVIDIA's runtime is not built with ASan; its first dlopen of a driver
# under a sanitized preload works, but the nvcc programs are not sanitized.
REC=$BUILD/realcuda
DATA=$ROOT/tools/fakecuda/real_runtime_requests.txt

# nvcc builds, cached in $BUILD (a few seconds each otherwise).
for kind in shared static; do
    prog=$REC/prog_$kind
    if [ ! -x "$prog" ] || [ "$ROOT/tests/realcuda/prog.cu" -nt "$prog" ] || [ "$NVCC" -nt "$prog" ]; then
        flag=; [ $kind = shared ] && flag="-cudart shared"
        "$NVCC" $flag -o "$prog.tmp" "$ROOT/tests/realcuda/prog.cu" || fail "nvcc ($kind)"
        mv "$prog.tmp" "$prog"
    fi
done

requests() { awk '$1 == "gpa" { if (NF == 6) print $3, $4, $5, $6; else print "\"\"", $3, $4, $5 }' "$1"; }
for kind in shared static; do
    for how in plain traced; do
        rm -f "$how.$kind.log"
        pre=; [ $how = traced ] && pre=$LIBGPULEAK
        REC_LOG=$PWD/$how.$kind.log LD_PRELOAD=$pre GPULEAK_OUTPUT=$PWD/ \
            LD_LIBRARY_PATH=$REC:$CUDA_HOME/lib64 "$REC/prog_$kind" >"$how.$kind.out" 2>"$how.$kind.err" ||
            fail "$kind runtime ($how) exited $?"
    done
    # What the program saw: every runtime call's code, identical.
    cmp -s plain.$kind.out traced.$kind.out || fail "$kind: return codes differ: $(diff plain.$kind.out traced.$kind.out)"
    expect_eq "$(head -1 plain.$kind.out)" "cudaMalloc 801" "$kind: the runtime stops at cuGetExportTable (not supported)"
    # What the runtime asked and called, and through which entry point (the
    # dlsym'd cuGetProcAddress_v2 or the one it fetched).
    cmp -s <(grep '^gpa' plain.$kind.log) <(grep '^gpa' traced.$kind.log) ||
        fail "$kind: requests differ: $(diff <(grep '^gpa' plain.$kind.log) <(grep '^gpa' traced.$kind.log) | head)"
    requests plain.$kind.log >plain.$kind.req
    grep -v '^gpa' plain.$kind.log >plain.$kind.calls
    grep -v '^gpa' traced.$kind.log >traced.$kind.calls
    cmp -s plain.$kind.calls traced.$kind.calls || fail "$kind: driver calls differ: $(diff plain.$kind.calls traced.$kind.calls)"
    expect_eq "$(grep -c '^scope local' plain.$kind.log)" 1 "$kind: the driver is loaded once, without RTLD_GLOBAL"
    # The data fakecuda follows is what this runtime asks.
    awk '!/^#/ { print $3, $4, $5, $6 }' "$DATA" >data.req
    cmp -s data.req plain.$kind.req || fail "$kind: $DATA is stale (tests/realcuda/record.sh): $(diff data.req plain.$kind.req | head)"
done
expect_eq "$(wc -l <plain.static.req)" 440 "requests"
expect_eq "$(cut -d' ' -f1 plain.static.req | sort -u | grep -vc '^""$')" 345 "symbols"

# (b) the replay.
LD_LIBRARY_PATH=$REC LD_PRELOAD=$LIBGPULEAK REC_LOG=/dev/null "$TPROG/replay_requests" "$DATA" >rec.replay ||
    fail "replay on the recording driver"
fc "$TPROG/replay_requests" "$DATA" >fc.plain || fail "replay on fakecuda"
LD_PRELOAD=$LIBGPULEAK fc "$TPROG/replay_requests" "$DATA" >fc.traced || fail "replay on fakecuda under gpuleak"
python3 - "$ROOT/docs/interception.md" <<'PY' || exit 1
import re, sys
MEMORY = re.compile(r"Alloc|Free|MemPool|MemCreate|MemRelease|MemMap|MemUnmap|MemAddress|RetainAllocationHandle|"
                    r"MemImport|MemExport|Ipc\w*Mem|ExternalMemory|GraphMemAttribute|GraphAddNode|GraphInstantiate|GraphLaunch|"
                    r"GraphExecDestroy|GraphDestroy$|HostRegister|HostUnregister|ArrayCreate|Array3DCreate|"
                    r"ArrayDestroy|CtxDestroy|CtxDetach|PrimaryCtxReset|PrimaryCtxRelease|ModuleLoad|ModuleUnload|"
                    r"LibraryLoad|LibraryUnload|Multicast|GetMemPool|SetMemPool|GetDefaultMemPool|DeviceGraphMemTrim|"
                    r"GraphicsMapResources|GraphicsResourceGetMapped|GraphicsSubResourceGetMapped|RegisterBufferObject|"
                    r"MapBufferObject|Graphics\w*Register|"
                    r"StreamBeginCapture")  # a capture may begin: graph.c asks cuStreamIsCapturing from then on
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"\| `(cu\w+)@(\d+)` \| [^|]* \| (wrapped|not wrapped: .{8,}) \|\s*$", line)
    if m:
        rows[(m.group(1), m.group(2))] = m.group(3)
def load(path):
    return [l.split() for l in open(path)]
rec = load("rec.replay")
fc_plain, fc_traced = load("fc.plain"), load("fc.traced")
errors = []
seen = set()
for r in rec:
    order, name, version, flags, rc, obj, sym = r
    if not MEMORY.search(name):
        continue
    key = (name, version)
    seen.add(key)
    wrapped = obj == "libgpuleak.so"
    row = rows.get(key)
    if row is None:
        errors.append(f"{name}@{version} (flags {flags}): not in docs/interception.md's request table"
                      f" ({'wrapped' if wrapped else 'not wrapped'})")
    elif (row == "wrapped") != wrapped:
        errors.append(f"{name}@{version} (flags {flags}): docs say '{row}', replay gives {obj}")
# The ABI: where fakecuda's driver answers, the wrapper has its exported name.
for p, t in zip(fc_plain, fc_traced):
    if p[:4] != t[:4] or p[4] != t[4]:
        errors.append(f"fakecuda replay differs under gpuleak: {p} / {t}")
    elif t[5] == "libgpuleak.so" and t[6] != p[6]:
        errors.append(f"{p[1]}@{p[2]} (flags {p[3]}): driver gives {p[6]}, gpuleak hands out its {t[6]} wrapper")
    elif t[5] == "libgpuleak.so" and not MEMORY.search(p[1]) and p[1] not in ("cuGetProcAddress", "cuDevicePrimaryCtxRetain",
            "cuCtxCreate", "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent"):  # the current device (cuda/where.h)
        errors.append(f"{p[1]}@{p[2]}: wrapped but not counted as memory-relevant here")
stale = sorted(k for k in rows if k not in seen)
if stale:
    errors.append(f"docs rows for requests the runtime does not make: {stale}")
if errors:
    print("FAIL: " + "\n      ".join(errors), file=sys.stderr)
    sys.exit(1)
PY
