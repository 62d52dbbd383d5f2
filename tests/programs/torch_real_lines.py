"""When gpuleak turns PyTorch's recorder on (GPULEAK_TORCH_LINES), on real
PyTorch, for tests/t_torch_real_lines.sh.  MODE:
  request  A; snapshot one.snap; B; snapshot two.snap (the default: the
           first request turns the recorder on, so A has no line, B has)
  history  gpuleak_memory._record_memory_history() first, as PyTorch's own
           workflow starts, then torch.cuda.is_available(): every tensor
           has its line (the recorder is queued for torch.cuda's
           initialization; without is_available(), as in request mode, it
           is turned on inside that initialization)
  growth   A; the cache holds still for longer than GPULEAK_TORCH_SETTLE;
           C needs a new segment (the cache grows: that turns the recorder
           on, after C is made); D; snapshot two.snap"""
import os
import sys
import time

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

def a_python_call():
    """A Python frame's entry: where CPython runs pending calls, such as the
    one that turns the recorder on (C functions like torch.empty are not)."""


mode = sys.argv[1]
if mode == "history":
    gm._record_memory_history()
    torch.cuda.is_available()
# PyTorch's first CUDA use: with the recorder asked for from the start
# (GPULEAK_TORCH_LINES=start, or history above), it is on before this
# tensor is made; else gpuleak finds PyTorch at its allocation, after it.
first = torch.zeros(1, device="cuda")  # FIRST-LINE: 512 bytes
a = torch.empty(256 * 1024, device="cuda")  # A-LINE: 1 MiB
if mode != "growth":
    gm._dump_snapshot("one.snap")
    b = torch.empty(512 * 1024, device="cuda")  # B-LINE: 2 MiB
else:
    time.sleep(1.5)
    c = torch.empty(8 * 1024 * 1024, device="cuda")  # C-LINE: 32 MiB, a new segment
    a_python_call()
    d = torch.empty(128 * 1024, device="cuda")  # D-LINE: 512 KiB
gm._dump_snapshot("two.snap")
