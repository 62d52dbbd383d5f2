"""torch.cuda of the stand-in: importing it imports torch.cuda.memory."""
from . import memory  # noqa: F401
from .memory import (empty_cache, memory_allocated, memory_reserved,  # noqa: F401
                     max_memory_allocated)
from . import _allocator  # noqa: F401


def is_available():
    return True


def is_initialized():
    """As PyTorch's: whether CUDA state was initialized (the stand-in's is
    at import)."""
    return True


def synchronize(device=None):
    return None
