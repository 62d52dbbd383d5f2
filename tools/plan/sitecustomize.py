"""gpuleak plan's hook in a planned Python program.

`gpuleak plan` puts this file's directory first on PYTHONPATH, so Python
imports it at start-up (as `sitecustomize`) without the program changing.
It then imports the sitecustomize it shadows, if any, and:
  - after GPULEAK_PLAN_STEPS optimizer steps (any torch.optim optimizer,
    counted by a global step post-hook), ends the program with
    SystemExit(0): `finally` blocks and atexit handlers run;
  - notes an uncaught torch.OutOfMemoryError;
  - at exit writes GPULEAK_PLAN_OUT (JSON, mode 0600, never through a
    symlink): the steps taken, whether it ran out of memory, and PyTorch's
    own max_memory_allocated / max_memory_reserved of device 0.
Nothing happens without GPULEAK_PLAN_OUT, nor in the program's children
(the first process to load this sets GPULEAK_PLAN_CHILD for them).
"""

import atexit
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys

_OUT = os.environ.get("GPULEAK_PLAN_OUT")
_HERE = os.path.dirname(os.path.abspath(__file__))
_state = {"steps": 0, "oom": False, "error": None}


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


def _after_step(optimizer, args, kwargs):
    _state["steps"] += 1
    wanted = _steps_wanted()
    if wanted and _state["steps"] >= wanted:
        raise SystemExit(0)


class _OptimizerWatch(importlib.abc.MetaPathFinder):
    """Registers the step hook once torch.optim.optimizer is imported."""

    def find_spec(self, name, path, target=None):
        if name != "torch.optim.optimizer":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            module.register_optimizer_step_post_hook(_after_step)

        spec.loader.exec_module = exec_module
        return spec


def _excepthook(kind, value, tb):
    if any(k.__name__ == "OutOfMemoryError" for k in kind.__mro__):
        _state["oom"] = True
    _state["error"] = kind.__name__
    _previous_excepthook(kind, value, tb)


def _write():
    record = dict(_state)
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            record["peak_allocated"] = torch.cuda.max_memory_allocated(0)
            record["peak_reserved"] = torch.cuda.max_memory_reserved(0)
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
    sys.meta_path.insert(0, _OptimizerWatch())
    atexit.register(_write)
