"""When gpuleak turns PyTorch's recorder on (GPULEAK_TORCH_LINES), on real
PyTorch, for tests/t_torch_real_lines.sh.  MODE:
  request  A; snapshot one.snap; B; snapshot two.snap (the default: the
           first request turns the recorder on, so A has no line, B has)
  history  gpuleak_memory._record_memory_history() first, as PyTorch's own
           workflow starts: every tensor has its line
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
# PyTorch's first CUDA use: gpuleak finds PyTorch at this allocation, after
# PyTorch has recorded (or not) this tensor, so it never has a line.
first = torch.zeros(1, device="cuda")
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
