"""gpuleak plan's hook in a planned Python program.

`gpuleak plan` puts this file's directory first on PYTHONPATH, so Python
imports it at start-up (as `sitecustomize`) without the program changing.
It then imports the sitecustomize it shadows, if any, and:
  - after GPULEAK_PLAN_STEPS optimizer steps (any torch.optim optimizer,
    counted by a global step post-hook), ends the program with
    SystemExit(0): `finally` blocks and atexit handlers run;
  - notes an uncaught torch.OutOfMemoryError;
  - turns PyTorch's recorder on at torch.cuda's initialization (every
    allocation and free in order, with Python stacks), and after each
    optimizer step notes the storages of its params, grads and state;
  - notes, once per (kind, line), the user's lines that read device values
    (.item(), .tolist(), nonzero, a tensor's truth value, unique,
    masked_select), create a CUDA stream, or call torch.compile: where a
    plan may differ from the card;
  - at exit writes GPULEAK_PLAN_OUT (JSON, mode 0600, never through a
    symlink): the steps taken, whether it ran out of memory, PyTorch's
    own max_memory_allocated / max_memory_reserved of device 0, the
    composition of the allocated peak (gpuleak_plan_peak.py) and the
    warnings.
Nothing happens without GPULEAK_PLAN_OUT, nor in the program's children
(the first process to load this sets GPULEAK_PLAN_CHILD for them).
"""

import atexit
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import weakref

_OUT = os.environ.get("GPULEAK_PLAN_OUT")
_HERE = os.path.dirname(os.path.abspath(__file__))
_state = {"steps": 0, "oom": False, "error": None, "warnings": []}
_step_tensors = []  # per step: (PyTorch's allocation count, {category: [storage addresses]})
_warned = set()
_optimizers = []  # weak references to the optimizers made


def _chain():
    """Run the sitecustomize this file shadows (a venv's, a distro's)."""
    path = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def _steps_wanted():
    try:
        return int(os.environ.get("GPULEAK_PLAN_STEPS", "0"))
    except ValueError:
        return 0


def _storage_address(tensor):
    """Where a CUDA tensor of device 0 keeps its bytes, else None."""
    torch = sys.modules["torch"]
    if not isinstance(tensor, torch.Tensor) or not tensor.is_cuda or tensor.get_device() != 0:
        return None
    return tensor.untyped_storage().data_ptr()


def _note_step_tensors(optimizer):
    """The storages of the step's params, grads and optimizer state, with
    PyTorch's count of allocations: which allocation made each."""
    torch = sys.modules["torch"]
    if not torch.cuda.is_initialized():
        return
    found = {"parameters": set(), "gradients": set(), "optimizer_state": set()}
    for group in optimizer.param_groups:
        for p in group["params"]:
            found["parameters"].add(_storage_address(p))
            found["gradients"].add(_storage_address(p.grad))
    for state in optimizer.state.values():
        for value in state.values():
            found["optimizer_state"].add(_storage_address(value))
    count = torch.cuda.memory_stats(0).get("allocation.all.allocated", 0)
    _step_tensors.append((count, {k: sorted(a for a in v if a) for k, v in found.items()}))


def _after_step(optimizer, args, kwargs):
    try:
        _note_step_tensors(optimizer)
    except Exception as e:  # the plan has no composition; the program goes on
        _state["step_error"] = repr(e)
    _state["steps"] += 1
    wanted = _steps_wanted()
    if wanted and _state["steps"] >= wanted:
        raise SystemExit(0)


# What plan warns about: how each call may make the plan differ from the card.
_VALUE_READ = ("reads a device value: fakecuda's kernels compute nothing, so the value is 0 "
               "and data-dependent shapes or branches may differ from the card")
_WARNINGS = {
    "item": "Tensor.item() " + _VALUE_READ,
    "tolist": "Tensor.tolist() " + _VALUE_READ,
    "nonzero": "nonzero() " + _VALUE_READ + " (its result's shape is data-dependent)",
    "bool": "a CUDA tensor's truth value (if/while/assert on a tensor) " + _VALUE_READ,
    "unique": "unique() " + _VALUE_READ + " (its result's shape is data-dependent)",
    "masked_select": "masked_select() " + _VALUE_READ + " (its result's shape is data-dependent)",
    "stream": ("torch.cuda.Stream() creates another CUDA stream: fakecuda completes every stream at the "
               "call, so memory freed on one stream and reused on another may be reused sooner than on "
               "the card, and the plan may peak lower"),
    "compile": ("torch.compile: the kernels and memory of compiled code (Inductor, Triton, CUDA graphs) "
                "are not modelled by fakecuda's stand-ins, so the plan may differ from the card"),
}


def _user_line():
    """The innermost frame outside torch's package and this file."""
    torch_dir = os.path.dirname(sys.modules["torch"].__file__) + os.sep
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith(torch_dir) and os.path.dirname(os.path.abspath(name)) != _HERE:
            return name, f.f_lineno
        f = f.f_back
    return None, None


def _warn(kind):
    filename, line = _user_line()
    if (kind, filename, line) in _warned:
        return
    _warned.add((kind, filename, line))
    _state["warnings"].append({"kind": kind, "file": filename, "line": line, "message": _WARNINGS[kind]})


def _watch_call(owner, attr, kind, cuda_only=True):
    """owner.attr warns (once per line) before doing what it did."""
    original = getattr(owner, attr, None)
    if original is None:
        return

    def watched(*args, **kwargs):
        try:
            if not cuda_only or (args and getattr(args[0], "is_cuda", False)):
                _warn(kind)
        except Exception:  # a warning lost; the call goes on
            pass
        return original(*args, **kwargs)

    watched.__name__ = getattr(original, "__name__", attr)
    watched.__doc__ = getattr(original, "__doc__", None)
    setattr(owner, attr, watched)


def _watch_streams(torch):
    """A torch.cuda.Stream made anew (not one named by id or pointer, as
    torch.cuda.current_stream() and ExternalStream make them) warns."""
    stream = torch.cuda.Stream
    original = stream.__new__

    def __new__(cls, *args, **kwargs):
        try:
            if "stream_id" not in kwargs and "stream_ptr" not in kwargs:
                _warn("stream")
        except Exception:
            pass
        return original(cls, *args, **kwargs)

    stream.__new__ = staticmethod(__new__)


def _start_recorder():
    """PyTorch's recorder, every event with Python stacks, from the first
    allocation (gpuleak_plan_peak.py replays it).  Called inside torch.cuda's
    initialization, where an exception would fail the program's first CUDA
    call: the record says why instead."""
    try:
        import gpuleak_plan_peak
        torch = sys.modules["torch"]
        torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python",
                                                 max_entries=gpuleak_plan_peak.MAX_TRACE)
    except Exception as e:
        _state["recorder_error"] = repr(e)


def _torch_imported(torch):
    """Once torch is imported: the watched calls, and the recorder queued
    for torch.cuda's initialization."""
    for attr, kind in (("item", "item"), ("tolist", "tolist"), ("nonzero", "nonzero"),
                       ("__bool__", "bool"), ("unique", "unique"), ("masked_select", "masked_select")):
        _watch_call(torch.Tensor, attr, kind)
    for attr in ("nonzero", "unique", "masked_select"):
        _watch_call(torch, attr, attr)
    _watch_call(torch, "compile", "compile", cuda_only=False)
    _watch_streams(torch)
    torch.cuda._lazy_call(_start_recorder)


def _optimizer_imported(module):
    """The step hook, and every optimizer noted as it is made, so that its
    tensors are noted at exit too: a run that ran out of memory before its
    first step still has its parameters named."""
    module.register_optimizer_step_post_hook(_after_step)
    init = module.Optimizer.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        _optimizers.append(weakref.ref(self))

    module.Optimizer.__init__ = __init__


class _ImportWatch(importlib.abc.MetaPathFinder):
    """Calls a function with a module once it is imported: for
    torch.optim.optimizer (the step hook) and torch (the rest)."""

    def __init__(self):
        self.pending = {"torch.optim.optimizer": _optimizer_imported, "torch": _torch_imported}

    def find_spec(self, name, path, target=None):
        then = self.pending.pop(name, None)
        if then is None:
            return None
        if not self.pending:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            try:
                then(module)
            except Exception as e:  # the plan loses a part; the program goes on
                _state["hook_error"] = repr(e)

        spec.loader.exec_module = exec_module
        return spec


def _excepthook(kind, value, tb):
    if any(k.__name__ == "OutOfMemoryError" for k in kind.__mro__):
        _state["oom"] = True
    _state["error"] = kind.__name__
    _previous_excepthook(kind, value, tb)


def _composition(torch):
    """The allocated peak's composition, or {"error": why not}."""
    import gpuleak_plan_peak
    try:
        for ref in _optimizers:
            if ref() is not None:
                _note_step_tensors(ref())
        return gpuleak_plan_peak.compose(torch, _step_tensors)
    except gpuleak_plan_peak.Inexact as e:
        return {"error": str(e)}
    except Exception as e:
        return {"error": repr(e)}


def _write():
    record = dict(_state)
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            record["peak_allocated"] = torch.cuda.max_memory_allocated(0)
            record["peak_reserved"] = torch.cuda.max_memory_reserved(0)
            record["composition"] = _composition(torch)
    except Exception as e:  # the record says why it has no peaks
        record["torch_error"] = repr(e)
    tmp = "%s.%d.tmp" % (_OUT, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(record, f)
    os.replace(tmp, _OUT)


_chain()
if _OUT and not os.environ.get("GPULEAK_PLAN_CHILD"):
    os.environ["GPULEAK_PLAN_CHILD"] = "1"
    _previous_excepthook = sys.excepthook
    sys.excepthook = _excepthook
    sys.meta_path.insert(0, _ImportWatch())
    atexit.register(_write)
