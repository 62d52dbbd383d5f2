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
