"""What tests/programs/plan_gpt.py and plan_resnet.py share: the figures
they print around their training (docs/plan.md, "Two models, five batch
sizes").

run(args, model, opt, inputs, train) calls train(after_step), the model's
own loop of args.steps optimizer steps (each model keeps its own loop: the
order its tensors die in is part of the pinned peaks), which calls
after_step() after each step.  Then it prints "seconds S" (the steps' wall
time) and, on cuda, "peaks ALLOCATED RESERVED"
(torch.cuda.max_memory_allocated / _reserved) and, with args.nvml,
"nvml_used BYTES" (NVML's charge for this process: pynvml, else
nvidia-smi; "-" when neither answers).  With args.memtracker the steps run
inside torch.distributed._tools.mem_tracker's MemTracker (its per-module
state reset after each step), which also prints "memtracker PEAK" (its
peak of the device, bytes) and no seconds.

main_exit(main) runs a script's main() and ends the process."""
import atexit
import os
import subprocess
import sys
import time

import torch


def _nvml_used():
    """Device memory NVML charges this process, in bytes, or None."""
    pid = os.getpid()
    try:
        import pynvml
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
            if p.pid == pid:
                return p.usedGpuMemory
    except Exception:
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30).stdout
        for line in out.splitlines():
            cols = [c.strip() for c in line.split(",")]
            if len(cols) == 2 and cols[0] == str(pid):
                return int(cols[1]) << 20  # MiB
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return None


def run(args, model, opt, inputs, train):
    if getattr(args, "memtracker", False):
        from torch.distributed._tools.mem_tracker import MemTracker
        tracker = MemTracker()
        tracker.track_external(model, opt, *inputs)
        with tracker:
            # MemTracker keeps per-module state for one iteration only.
            train(tracker.reset_mod_stats)
        peak = tracker.get_tracker_snapshot("peak")
        print("memtracker", sum(s["Total"] for d, s in peak.items() if d.type == args.device), flush=True)
    else:
        t0 = time.monotonic()
        train(lambda: None)
        if args.device == "cuda":
            torch.cuda.synchronize()
        print("seconds %.3f" % (time.monotonic() - t0), flush=True)
    if args.device == "cuda":
        print("peaks", torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), flush=True)
        if getattr(args, "nvml", False):
            used = _nvml_used()
            print("nvml_used", "-" if used is None else used, flush=True)


def main_exit(main):
    """Runs main(); an uncaught torch.OutOfMemoryError is reported as
    Python reports any uncaught exception (sys.excepthook, so that
    `gpuleak plan`'s hook notes it; then the atexit handlers) and ends the
    process with status 1 at once, without the interpreter's finalization.
    Why: when backward() raises, PyTorch's autograd device thread may still
    hold the failed graph task, whose release takes the GIL; once
    finalization has begun that thread is ended by a forced unwind through
    a noexcept destructor, and std::terminate aborts the process (status
    134, "terminate called without an active exception"; 1 run in ~6 of
    plan_gpt.py --batch 15 on a 1000 MiB card)."""
    try:
        main()
    except torch.OutOfMemoryError:
        sys.excepthook(*sys.exc_info())
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
