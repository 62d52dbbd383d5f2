"""torch._C of the stand-in: what gpuleak asks of PyTorch's C module."""
from .cuda import _allocator


def _cuda_isHistoryEnabled():
    from .cuda import memory
    memory.calls.append(("_cuda_isHistoryEnabled",))
    return _allocator._history is not None
