"""A stand-in for PyTorch's `torch` package, for gpuleak's tests on fakecuda.

Only what gpuleak relies on is modelled, as PyTorch's own source defines it
(torch/cuda/memory.py, c10/cuda/CUDACachingAllocator.cpp): a caching
allocator that gets segments from cudaMalloc (fakecuda's libcudart, through
ctypes, which releases the GIL as PyTorch's C++ allocator does), splits them
into blocks, keeps freed blocks cached, and reports itself through
torch.cuda.memory._snapshot() in PyTorch's format; history recording with
Python stacks (torch.cuda.memory._record_memory_history); tensors whose
last reference frees their block; and an autograd-like graph: a tensor made
by an operation keeps its inputs alive, so `losses.append(loss)` keeps a
step's activations, the commonest PyTorch leak.

Real PyTorch 2.14.1 now runs under gpuleak on fakecuda (tests/t_torch_real*.sh,
docs/pytorch.md), and a test that can use it does.  This stand-in is kept
only for what real torch cannot show here:
  - exactly what gpuleak asks of torch, counted per call (`memory.calls`:
    t_torch_blocks), and torch builds without `_cuda_isHistoryEnabled`;
  - a `_snapshot()` that is slow, or during which a signal lands, on demand
    (TORCH_STANDIN_SNAPSHOT_DELAY, TORCH_STANDIN_SNAPSHOT_SIGNAL:
    t_torch_interrupt), where real torch's timing is not the test's to set;
  - views of 3,000 to 100,000 distinct tensor lines made in seconds
    (t_torch_stacks, the bench);
  - a fixed, machine-independent report for the example of docs/pytorch.md
    (t_torch_example), and PyTorch's code paths on a machine where
    scripts/torch-env.sh cannot install torch.
Where it differs from real torch (found by running both): real torch has
already recorded its first tensor when gpuleak turns history on, so that
tensor has no Python stack; gradients made by backward() are allocated on
autograd's thread and have none either; the stand-in gives every tensor one.
"""
import ctypes as _ctypes
import os as _os

# PyTorch's import loads libc10_cuda.so, where its CUDA allocator lives;
# gpuleak looks for it before it asks Python anything.  The tests name a
# stand-in library (any libc10_cuda*.so) here; without it, this package is
# invisible to gpuleak's PyTorch support.
if _os.environ.get("TORCH_STANDIN_C10_CUDA"):
    _ctypes.CDLL(_os.environ["TORCH_STANDIN_C10_CUDA"])

from . import _C  # noqa: F401,E402
from . import cuda  # noqa: F401,E402  (imports torch.cuda.memory, as PyTorch does)
from ._tensor import Tensor, empty, zeros, float32, float16  # noqa: F401,E402

__version__ = "0.0+gpuleak.standin"
