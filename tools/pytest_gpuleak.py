"""pytest plugin: each test's device-memory leaks and peak, under gpuleak.

    gpuleak run -- python -m pytest --gpuleak            # the launcher puts
    gpuleak run -- python -m pytest -p pytest_gpuleak --gpuleak   # this on PYTHONPATH
    pip install tools/ && gpuleak run -- pytest --gpuleak       # entry point "gpuleak"

Each test runs as an annotated phase ("pytest: <node id>" on the timeline).
gpuleak snapshots the process just before and just after the test's call
phase, and the reporter's diff of the two (`new_since_first`) gives the
allocations the test made and did not free: its leaks.  The peak is the
highest device usage reached during the call, above the usage when it began
(so that one test's leak is not charged to the next), read from the
history, which is restarted for each test and read from the second
snapshot.  Allocator caches the reporter recognizes
(PyTorch, CuPy, RMM, ... docs/reporter.md) are not leaks.

PyTorch's caching allocator hides tensors from CUDA: a kept tensor may sit
in a segment an earlier test paid for, and a temporary may reuse a cached
one.  So where torch.cuda is initialized and its allocator is the native
(caching) one, the plugin counts PyTorch's tensors too (docs/pytorch.md):
the test's leak adds the tensors it left alive (blocks of
torch.cuda.memory._snapshot() that were not there before, at the test's
own line when PyTorch recorded the tensor's stack, else at the test), and
its peak is the peak of torch.cuda.max_memory_allocated() during the test
above memory_allocated() at its start (torch.cuda.reset_peak_memory_stats
is called before each test), not the peak of segments.

Markers, like pytest-memray's limit_memory / limit_leaks:

    @pytest.mark.gpu_limit_peak("2 GiB")      fails a test whose peak is over
    @pytest.mark.gpu_limit_leaks(0, warmup=1) fails a test that leaves more than
                                              0 bytes; warmup=N runs the test N
                                              times first, unmeasured, so that
                                              caches filled on first use are
                                              not leaks

Sizes are bytes (an int) or a string in gpuleak's one size grammar, that of
gpuleak-report --min-bytes: "4096", "512k", "1.5M", "1 MiB", "2G" (units
are powers of 1024; docs/reporter.md).

The markers are checked when the tests are collected: a bad argument
(gpu_limit_peak("2 GIG"), gpu_limit_peak(), gpu_limit_leaks(-5)) fails its
own test, unrun, with one line naming the marker; the other tests run.

Without gpuleak preloaded, --gpuleak is a usage error (markers alone are
ignored, so a test suite runs as before without --gpuleak).
"""

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

__all__ = ["parse_size"]

# The size grammar of common/size_parse.h, kept identical (tests/t_sizes.sh
# runs one table of cases through both): digits, an optional fraction of at
# most 6 digits (only with a unit from K up, rounded down to whole bytes),
# an optional unit B, K, KB, KiB, ... T, TB, TiB in any case, every one a
# power of 1024; blanks (space, tab) around the number and the unit.
_SIZE = re.compile(r"[ \t]*([0-9]+)(?:\.([0-9]{1,6}))?[ \t]*([A-Za-z]*)[ \t]*")
_SHIFTS = {"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
           "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}
_SIZE_EXAMPLES = "4096, 512k, 1.5M, 1 MiB, 2G"


def parse_size(value):
    """Bytes from 4096, "512k", "1.5M", "1 MiB", "2 GiB" (units are powers of
    1024, as everywhere in gpuleak; the grammar of common/size_parse.h)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 64:
        return value
    m = _SIZE.fullmatch(value) if isinstance(value, str) else None
    shift = _SHIFTS.get(m.group(3).lower()) if m else None
    if shift is None or (m.group(2) is not None and shift == 0):
        raise ValueError("not a size: %r (examples: %s)" % (value, _SIZE_EXAMPLES))
    frac = m.group(2) or ""
    n = (int(m.group(1)) << shift) + (int(frac or "0") << shift) // 10 ** len(frac)
    if n >= 1 << 64:
        raise ValueError("not a size: %r (more than 2^64 - 1 bytes)" % (value,))
    return n


def _s(n):
    return "" if n == 1 else "s"


def _human(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%.1f %s" % (n / size, unit)
    return "%d B" % n


class _Library:
    """libgpuleak.so's public API in this process (gpuleak.h)."""

    def __init__(self):
        process = ctypes.CDLL(None)
        try:
            self.snapshot_name = process.gpuleak_snapshot_name
            self.annotate = process.gpuleak_annotate
            self.record_history = process.gpuleak_record_history
        except AttributeError:
            raise pytest.UsageError(
                "--gpuleak: libgpuleak.so is not preloaded; run "
                "'gpuleak run -- python -m pytest --gpuleak ...'") from None
        self.snapshot_name.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        self.snapshot_name.restype = ctypes.c_int
        self.annotate.argtypes = [ctypes.c_char_p]
        self.annotate.restype = ctypes.c_int
        self.record_history.argtypes = [ctypes.c_int, ctypes.c_long]
        self.record_history.restype = ctypes.c_int

    def snapshot(self, path):
        if self.snapshot_name(os.fsencode(path), None, 0) != 0:
            raise RuntimeError("gpuleak could not write %s" % path)

    def mark(self, label):
        self.annotate(label.encode("utf-8", "replace"))


def _find_reporter(config):
    given = config.getoption("gpuleak_report") or os.environ.get("GPULEAK_REPORT")
    if given:
        return given
    # Installed or in the build tree, the reporter is ../../bin/gpuleak-report
    # from lib/python, where the launcher finds this module.
    here = os.path.dirname(os.path.abspath(__file__))
    beside = os.path.join(here, "..", "..", "bin", "gpuleak-report")
    if os.access(beside, os.X_OK):
        return os.path.normpath(beside)
    found = shutil.which("gpuleak-report")
    if found is None:
        raise pytest.UsageError("--gpuleak: gpuleak-report not found; give --gpuleak-report PATH")
    return found


def _torch_cuda():
    """torch.cuda when torch is imported, CUDA is initialized (never
    initialized here) and the caching allocator is the backend; else None."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    try:
        if cuda is None or not cuda.is_initialized():
            return None
        if cuda.memory.get_allocator_backend() != "native":
            return None  # cudaMallocAsync: every tensor is a CUDA call gpuleak sees
    except Exception:
        return None
    return cuda


class _TorchAccount:
    """PyTorch's own account of one test: its live blocks and allocated
    bytes when it began, and its peak counter reset."""

    def __init__(self):
        self.start = {}
        self.blocks = set()
        self.broken = False
        cuda = _torch_cuda()
        if cuda is None:
            return  # not initialized yet: the test starts from nothing
        try:
            for d in range(cuda.device_count()):
                self.start[d] = cuda.memory_allocated(d)
                cuda.reset_peak_memory_stats(d)
            self.blocks = {key for key, _ in self._live(cuda)}
        except Exception:  # PyTorch's own failure: measured by CUDA calls only
            self.broken = True

    @staticmethod
    def _live(cuda):
        """[((device, address, size), frames)] of each live tensor's block."""
        return [((seg.get("device", 0), b["address"], b["size"]), b.get("frames") or [])
                for seg in cuda.memory._snapshot()["segments"]
                for b in seg["blocks"] if b["state"] == "active_allocated"]

    def finish(self, test_file, test_site):
        """(peak bytes, [(bytes, count, where)] of the tensors the test left
        alive), or None when PyTorch's allocator was not used."""
        cuda = _torch_cuda()
        if cuda is None or self.broken:
            return None
        try:
            peak = 0
            for d in range(cuda.device_count()):
                peak = max(peak, cuda.max_memory_allocated(d) - self.start.get(d, 0))
            live = self._live(cuda)
        except Exception:
            return None
        sites = {}
        for key, frames in live:
            if key not in self.blocks:
                where = self._where(frames, test_file) or test_site
                b, n = sites.get(where, (0, 0))
                sites[where] = (b + key[2], n + 1)
        return peak, [(b, n, where) for where, (b, n) in sites.items()]

    @staticmethod
    def _where(frames, test_file):
        """The test file's innermost frame (PyTorch's frames are innermost
        first), "function file:line"; None when it recorded no such frame
        (history was off when the tensor was made)."""
        for f in frames:
            path = f.get("filename") or ""
            if path and os.path.abspath(path) == test_file:
                return _frame_text([{"function": f.get("name"), "file": path, "line": f.get("line", 0)}], 1)
        return None


class _Result:
    def __init__(self, leaked_bytes, leaked_count, leak_sites, peak_bytes):
        self.leaked_bytes = leaked_bytes
        self.leaked_count = leaked_count
        self.leak_sites = leak_sites  # [(bytes, count, "function file:line")]
        self.peak_bytes = peak_bytes


def _frame_text(frames, depth=3):
    """The innermost frames of a stack, "function file:line <- caller ...",
    files relative to the working directory when under it."""
    parts = []
    for f in frames[:depth]:
        name = f.get("function") or "??"
        path = f.get("file")
        if path:
            rel = os.path.relpath(path) if os.path.isabs(path) else path
            path = path if rel.startswith("..") else rel
            parts.append("%s %s:%s" % (name, path, f.get("line", 0)))
        else:
            parts.append(name)
    return " <- ".join(parts) if parts else "(no stack)"


def _marker_text(marker):
    """A marker as written: gpu_limit_leaks(0, warmup='two')."""
    args = [repr(a) for a in marker.args] + ["%s=%r" % kv for kv in sorted(marker.kwargs.items())]
    return "%s(%s)" % (marker.name, ", ".join(args))


class _Limits:
    """A test's gpu_limit_peak / gpu_limit_leaks markers, checked: peak and
    leaks in bytes (None: no limit), warmup in runs.  ValueError, naming the
    marker as written, when one is bad."""

    def __init__(self, item):
        self.peak = self.leaks = None
        self.warmup = 0
        peak = item.get_closest_marker("gpu_limit_peak")
        if peak is not None:
            self.peak = self._size(peak, 1, ())
        leaks = item.get_closest_marker("gpu_limit_leaks")
        if leaks is not None:
            self.leaks = self._size(leaks, 0, ("warmup",))
            warmup = leaks.kwargs.get("warmup", 0)
            if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
                raise ValueError("bad marker %s: warmup must be a whole number of runs, not %r"
                                 % (_marker_text(leaks), warmup))
            self.warmup = warmup

    @staticmethod
    def _size(marker, least, keywords):
        """The marker's one size argument (0 when it may be left out:
        least == 0)."""
        unknown = sorted(set(marker.kwargs) - set(keywords))
        if not least <= len(marker.args) <= 1 or unknown:
            raise ValueError('bad marker %s: it takes one size, as in %s("2 GiB")'
                             % (_marker_text(marker), marker.name))
        try:
            return parse_size(marker.args[0] if marker.args else 0)
        except ValueError as e:
            raise ValueError("bad marker %s: %s" % (_marker_text(marker), e)) from None


class GpuleakPlugin:
    # The history must hold every event of one test: the ring keeps the last
    # this many (72 bytes each).
    HISTORY_ENTRIES = 1_000_000

    def __init__(self, config):
        self.config = config
        self.lib = _Library()
        self.reporter = _find_reporter(config)
        keep = config.getoption("gpuleak_keep")
        self.keep = keep is not None
        self.dir = keep if keep else tempfile.mkdtemp(prefix="pytest-gpuleak-")
        os.makedirs(self.dir, exist_ok=True)
        self.results = {}
        self.limits = {}  # node id: _Limits, or the ValueError of a bad marker
        self.count = 0
        if self.lib.record_history(1, self.HISTORY_ENTRIES) != 0:
            raise pytest.UsageError("--gpuleak: gpuleak refused to record the history")

    def _report(self, *args):
        out = subprocess.run([self.reporter, "--json"] + list(args),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if out.returncode != 0:
            raise RuntimeError("gpuleak-report %s: %s" % (" ".join(args),
                                                         out.stderr.decode(errors="replace").strip()))
        return json.loads(out.stdout)

    def _measure(self, before, after, torch_account=None):
        new = self._report("diff", before, after).get("new_since_first") or {"groups": []}
        groups = [g for g in new["groups"] if g.get("rule") is None]
        sites = [(g["bytes"], g["count"], _frame_text(g["frames"])) for g in groups]
        if torch_account is not None:
            # PyTorch's tensors: its segments are a cache (rule-matched
            # above, so not counted twice), and its peak is of tensors.
            peak, tensor_sites = torch_account
            sites += tensor_sites
        else:
            # The history was restarted just before the test: its series are
            # the test's own events, from the level the test began with.
            timeline = self._report(after)["timeline"]
            peak = 0
            for dev in timeline["devices"]:
                if dev["device"] >= 0:  # pinned host memory is not device memory
                    peak = max(peak, dev["max_bytes"] - dev["start_bytes"])
        sites.sort(reverse=True)
        return _Result(sum(s[0] for s in sites), sum(s[1] for s in sites), sites, peak)

    def pytest_collection_modifyitems(self, items):
        # Checked once, at collection: a bad argument then fails its own test
        # (run or not, passing or not) instead of raising inside a reporting
        # hook, which pytest turns into an INTERNALERROR that ends the run.
        for item in items:
            self._limits(item)

    def _limits(self, item):
        """The test's checked limits, or the ValueError of its bad marker."""
        if item.nodeid not in self.limits:
            try:
                self.limits[item.nodeid] = _Limits(item)
            except ValueError as e:
                self.limits[item.nodeid] = e
        return self.limits[item.nodeid]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        limits = self._limits(item)
        if isinstance(limits, ValueError):
            pytest.fail("gpuleak: %s" % limits, pytrace=False)
        for _ in range(limits.warmup):
            item.runtest()  # unmeasured: fills the caches a first call fills
        self.count += 1
        before = os.path.join(self.dir, "%d.before.snap" % self.count)
        after = os.path.join(self.dir, "%d.after.snap" % self.count)
        label = "pytest: " + item.nodeid
        if self.lib.record_history(1, self.HISTORY_ENTRIES) != 0:  # restarts it
            raise RuntimeError("gpuleak refused to record the history")
        self.lib.snapshot(before)
        torch_start = _TorchAccount()
        self.lib.mark(label)
        try:
            yield
        finally:
            self.lib.mark(label + " (end)")
            self.lib.snapshot(after)
            try:
                test_file = os.path.abspath(str(item.fspath))
                test_site = "%s %s:%d" % (item.name, os.path.basename(test_file),
                                          (item.location[1] or 0) + 1)
                torch_account = torch_start.finish(test_file, test_site)
                self.results[item.nodeid] = self._measure(before, after, torch_account)
            except (RuntimeError, ValueError, KeyError) as e:
                self.results[item.nodeid] = e
            if not self.keep:
                for f in (before, after):
                    try:
                        os.unlink(f)
                    except OSError:
                        pass

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.when != "call" or not report.passed:
            return
        result = self.results.get(item.nodeid)
        if isinstance(result, Exception):
            report.outcome = "failed"
            report.longrepr = "gpuleak: could not measure this test: %s" % result
            return
        problems = []
        limits = self._limits(item)
        if result is not None and limits.peak is not None and result.peak_bytes > limits.peak:
            limit = limits.peak
            problems.append("peak device memory %s (%d bytes) is over the limit of %s (%d bytes)"
                            % (_human(result.peak_bytes), result.peak_bytes, _human(limit), limit))
        if result is not None and limits.leaks is not None and result.leaked_bytes > limits.leaks:
            limit = limits.leaks
            lines = ["leaked %s (%d bytes in %d allocation%s), over the limit of %d bytes:"
                     % (_human(result.leaked_bytes), result.leaked_bytes,
                        result.leaked_count, _s(result.leaked_count), limit)]
            lines += ["    %d bytes in %d allocation%s at %s" % (b, n, _s(n), where)
                      for b, n, where in result.leak_sites[:10]]
            problems.append("\n".join(lines))
        if problems:
            report.outcome = "failed"
            report.longrepr = "gpuleak: " + "\ngpuleak: ".join(problems)

    def pytest_terminal_summary(self, terminalreporter):
        tr = terminalreporter
        tr.write_sep("=", "gpuleak: device memory per test")
        rows = [(r.peak_bytes, r.leaked_bytes, r.leaked_count, node)
                for node, r in self.results.items() if not isinstance(r, Exception)]
        rows.sort(key=lambda r: (-r[0], -r[1], r[3]))
        shown = rows[:self.config.getoption("gpuleak_top")]
        if not shown:
            tr.write_line("no test was measured")
        for peak, leaked, count, node in shown:
            tr.write_line("peak %10s  leaked %10s in %d allocation%s  %s"
                          % (_human(peak), _human(leaked), count, _s(count), node))
        leaking = sum(1 for r in rows if r[1] > 0)
        tr.write_line("%d tests measured, %d leaked device memory%s"
                      % (len(rows), leaking,
                         "; snapshots in %s" % self.dir if self.keep else ""))

    def pytest_unconfigure(self, config):
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def pytest_addoption(parser):
    group = parser.getgroup("gpuleak", "GPU memory leaks and peaks (gpuleak)")
    group.addoption("--gpuleak", action="store_true", default=False,
                    help="measure each test's device-memory leaks and peak (run under 'gpuleak run')")
    group.addoption("--gpuleak-top", type=int, default=10, metavar="N",
                    help="tests shown in the summary, largest peak first (default 10)")
    group.addoption("--gpuleak-keep", default=None, metavar="DIR",
                    help="keep each test's before/after snapshots in DIR")
    group.addoption("--gpuleak-report", default=None, metavar="PATH",
                    help="the gpuleak-report to use (default: beside this module, then PATH)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu_limit_peak(size): fail if the test's peak device memory is over size")
    config.addinivalue_line("markers",
                            "gpu_limit_leaks(size=0, warmup=0): fail if the test leaves more than size bytes of device memory")
    if config.getoption("gpuleak"):
        config.pluginmanager.register(GpuleakPlugin(config), "gpuleak-plugin")
