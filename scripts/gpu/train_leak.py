"""A small PyTorch training loop with a planted leak, for scripts/gpu-check.sh.

Each step keeps a copy of the logits in a list (the LEAK-SITE line), so
device memory grows by LEAK_BYTES per step.  Every tensor that outlives a
step is a multiple of 512 bytes, so torch's counters (which round to 512)
and gpuleak's (exact) can be compared exactly between steps.

    python3 train_leak.py --steps 200 --json run.json
        [--mid-file F --go-file G]   at the middle step: write F (torch's
                                     counters), then wait for G to appear
                                     (the checker takes a SIGUSR1 snapshot)
        [--end-snap PATH]            gpuleak snapshot after the loop (API)
        [--record-history --torch-snap PATH]
                                     torch.cuda.memory history and its
                                     _dump_snapshot at the same moment

Whatever happens, it writes --json (with "error" on failure) and exits 0 on
success, 3 when there is no CUDA device, 1 otherwise.  Allocator settings
come from the environment (PYTORCH_CUDA_ALLOC_CONF,
PYTORCH_NO_CUDA_MEMORY_CACHING), as for any program.
"""
import argparse
import ctypes
import gc
import json
import os
import statistics
import sys
import time
import traceback

BATCH, IN, HIDDEN, OUT = 512, 1024, 2048, 384
LEAK_BYTES = BATCH * OUT * 4  # one float32 copy of the logits per step
PINNED_BYTES = 1 << 20

result = {"pid": os.getpid(), "leak_bytes_each": LEAK_BYTES,
          "env": {k: os.environ.get(k) for k in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING")}}


def counters(torch):
    c = {"allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved(),
         "max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved()}
    try:
        st = torch.cuda.memory_stats()
        for k in ("allocation.all.current", "segment.all.current", "num_alloc_retries", "num_ooms"):
            if k in st:
                c[k] = st[k]
    except Exception as e:  # some backends keep no stats
        c["stats_error"] = str(e)
    return c


def live_tensor_bytes(torch):
    """Bytes of the distinct CUDA storages reachable from Python objects."""
    seen, total = set(), 0
    for o in gc.get_objects():
        try:
            if torch.is_tensor(o) and o.is_cuda:
                st = o.untyped_storage()
                key = st.data_ptr()
                if key not in seen:
                    seen.add(key)
                    total += st.nbytes()
        except Exception:
            pass
    return total


def gpuleak_snapshot(path):
    try:
        fn = ctypes.CDLL(None).gpuleak_snapshot
    except AttributeError:
        return None
    fn.argtypes = [ctypes.c_char_p]
    fn.restype = ctypes.c_int
    return path if fn(os.fsencode(path)) == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--json", required=True)
    ap.add_argument("--mid-file")
    ap.add_argument("--go-file")
    ap.add_argument("--end-snap")
    ap.add_argument("--record-history", action="store_true")
    ap.add_argument("--torch-snap")
    a = ap.parse_args()
    result["steps"] = a.steps

    import torch
    import torch.nn.functional as F
    result["torch"] = torch.__version__
    if not torch.cuda.is_available():
        result["error"] = "torch.cuda.is_available() is False"
        return 3
    result["device"] = torch.cuda.get_device_name(0)
    result["cuda"] = torch.version.cuda
    result["allocator_backend"] = getattr(torch.cuda.memory, "get_allocator_backend", lambda: "?")()
    if a.record_history:
        torch.cuda.memory._record_memory_history(max_entries=1000000)

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(),
                                torch.nn.Linear(HIDDEN, OUT)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(BATCH, IN, device="cuda")
    y = torch.randint(0, OUT, (BATCH,), device="cuda")
    # A pinned host block, used and let go: PyTorch's caching host allocator
    # keeps it for reuse (held by a cache, not a leak).
    pinned = torch.empty(PINNED_BYTES, dtype=torch.uint8, pin_memory=True)
    pinned.fill_(1)
    del pinned
    result["pinned_bytes"] = PINNED_BYTES
    kept = []

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()
        kept.append(logits.detach().clone())  # LEAK-SITE: one tensor kept per step

    times = []
    mid_step = a.steps // 2
    for i in range(a.steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        if i == mid_step and a.mid_file:
            mid = {"step": i, "counters": counters(torch), "gc_live_bytes": live_tensor_bytes(torch),
                   "kept": len(kept)}
            result["mid"] = mid
            tmp = a.mid_file + ".tmp"
            with open(tmp, "w") as f:
                json.dump(mid, f)
            os.rename(tmp, a.mid_file)
            deadline = time.time() + 30
            while a.go_file and not os.path.exists(a.go_file) and time.time() < deadline:
                time.sleep(0.01)
            result["mid"]["go_seen"] = bool(a.go_file and os.path.exists(a.go_file))

    torch.cuda.synchronize()
    warm = times[min(10, len(times) // 2):]
    result["step_ms_median"] = statistics.median(warm) * 1e3
    result["step_ms_mean"] = statistics.fmean(warm) * 1e3
    result["loop_s"] = sum(times)
    result["kept"] = len(kept)
    result["kept_bytes"] = sum(t.untyped_storage().nbytes() for t in kept)
    gc.collect()
    result["end"] = {"counters": counters(torch), "gc_live_bytes": live_tensor_bytes(torch)}
    try:
        result["end"]["mem_get_info"] = list(torch.cuda.mem_get_info())  # [free, total], device-wide
    except Exception as e:
        result["end"]["mem_get_info_error"] = str(e)
    if a.end_snap:
        result["end_snap"] = gpuleak_snapshot(a.end_snap)
    if a.record_history and a.torch_snap:
        torch.cuda.memory._dump_snapshot(a.torch_snap)
        result["torch_snap"] = a.torch_snap
    return 0


if __name__ == "__main__":
    try:
        rc = main()
    except BaseException as e:  # report, never hang the checker
        result["error"] = "%s: %s" % (type(e).__name__, e)
        result["traceback"] = traceback.format_exc()
        rc = 1
    with open(sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else "train_leak.json", "w") as f:
        json.dump(result, f, indent=1)
    sys.stdout.flush()
    sys.exit(rc)
