"""scripts/gpu-check.sh: gpuleak on real hardware (or fakecuda), one command.

Builds (or takes a carried build of) gpuleak, builds real CUDA programs with
nvcc, runs them and a PyTorch training loop under gpuleak, checks every
report exactly, and prints one line per check, then a summary:

    PASS|FAIL|SKIP  <check>  <key numbers or reason>
    gpu-check: N passed, N failed, N skipped

Standard library only (runs with the python3 that has torch).  Exit status:
0 no check failed, 1 a check failed, 2 bad usage.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPU_DIR = os.path.join(ROOT, "scripts", "gpu")
PROGRAMS = os.path.join(ROOT, "tests", "programs")
CACHE = os.path.join(ROOT, "build", "gpu-check")
T0 = time.time()

# Libraries that any glibc system has: never packed, never put on a path.
GLIBC = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
         "libresolv.so.2", "libutil.so.1", "ld-linux-x86-64.so.2", "linux-vdso.so.1"}

MiB = 1024 * 1024
# torch rounds every block to 512 bytes; gpuleak records the exact request.
# Between steps every live tensor is a multiple of 512 bytes; at the peak a
# few scalars (loss, its gradient) are live, each 4 bytes for gpuleak and
# 512 for torch.
ROUNDING_SLACK = 64 * 1024


class Skip(Exception):
    pass


class Fail(Exception):
    pass


def fmt(n):
    return "{:,}".format(n)


# ---------------------------------------------------------------- checks list

CUDA_CHECKS = ["rt-shared", "rt-static", "reset", "ctx-teardown", "green", "cross-device", "drv-direct", "drv-dlsym", "drv-procaddr", "drv-entry",
               "vmm", "vmm-import", "multicast", "vmm-host", "managed-pool", "pool-owner", "module", "ledger", "ipc", "external", "bad-free", "async", "peak", "threads", "oom", "sigusr1", "attach", "kernels", "graph", "cublas-workspace"]
TORCH_CHECKS = ["torch-caching", "torch-uncached", "torch-async", "torch-expandable",
                "torch-caches", "torch-sigusr1", "torch-blocks", "torch-exit", "torch-overhead", "torch-memviz"]
PLAN_CHECKS = ["plan"]
ALL_CHECKS = ["build", "nvcc"] + CUDA_CHECKS + TORCH_CHECKS + PLAN_CHECKS

DESCRIPTIONS = {
    "build": "libgpuleak.so, gpuleak-report, gpuleak: carried (--prebuilt) or built with make",
    "nvcc": "the real CUDA test programs, built with nvcc (-cudart shared/static/none)",
    "rt-shared": "runtime_kinds.c, -cudart shared: every runtime family, exact leaks and counts",
    "rt-static": "runtime_kinds.c, -cudart static: caught at the driver layer",
    "reset": "runtime_kinds.c reset: cudaDeviceReset releases leaked memory but stream-ordered; reported as torn down"
             " (shared runtime; and static, seen as the driver's reset; static reset-only: no leak)",
    "ctx-teardown": "ctx_teardown.c: pool and VMM memory outlive cuDevicePrimaryCtxReset/cuCtxDestroy/the last"
                    " cuDevicePrimaryCtxRelease, a reset with an own context frees nothing: the driver's answers,"
                    " and gpuleak agrees",
    "green": "ctx_teardown.c green-last/green-held: real green contexts (2 groups of >= 8 SMs); memory allocated"
             " in one is the primary context's: it outlives cuGreenCtxDestroy while the primary is held (the"
             " driver's free memory and cuMemFree say so) and goes with the last reference; gpuleak: no leaks",
    "cross-device": "cross_device.c: stream-ordered memory on another device's stream or pool is that device's"
                    " (needs two GPUs)",
    "drv-direct": "driver_paths.c: driver API linked directly",
    "drv-dlsym": "driver_paths.c: dlopen(libcuda.so.1) + dlsym",
    "drv-procaddr": "driver_paths.c: cuGetProcAddress by base name (and per-thread: _ptsz)",
    "drv-entry": "driver_paths.c: cudaGetDriverEntryPoint(ByVersion)",
    "vmm": "driver_lifecycle.c vmm: cuMemCreate/cuMemMap lifetimes, mid-run snapshot",
    "vmm-import": "vmm_import.c: a VMM handle shared as a POSIX fd, the importer's mapping never unmapped",
    "multicast": "multicast.c plain: a multicast object bound (BindMem, BindAddr), mapped, released while mapped;"
                 " one never released is a leak of its own kind, in no device's usage (needs two GPUs with"
                 " multicast)",
    "vmm-host": "vmm_host.c plain: cuMemCreate at host and host-NUMA locations is host-pinned memory on the"
                " host, not on a GPU; device-located stays the device's",
    "managed-pool": "managed_pool.c: what a CUDA 13 managed pool (created, or a location's default or current)"
                    " hands out (driver and runtime) is managed memory;"
                    " a pinned pool's is pool memory",
    "pool-owner": "pool_owner.c: pools never destroyed (driver and runtime) reported at their lines with the"
                  " driver's reserve; a destroyed one is nothing",
    "module": "module_load.c real: a PTX module and a runtime library left loaded (eager loading) are reported"
              " under LOADED MODULES at their lines with what the driver's free memory dropped by; a module"
              " in a destroyed context is no teardown leak",
    "ledger": "module_load.c real: every used byte of the device in the report's LEDGER (live memory, pools,"
              " modules, the context measured at its creation); the unexplained remainder stated, under 5%"
              " of used memory",
    "ipc": "ipc_share.c: CUDA IPC handles and a pool pointer shared by a forked process (runtime, driver, driver"
           " with a context reset): the mapping never closed, the exporter untouched",
    "external": "external_mem.c: external memory imported from a VMM POSIX fd, object/buffer/array never released",
    "bad-free": "bad_free.c: double, interior and bogus frees refused by CUDA, each reported at its line",
    "async": "scenarios.c leak-async: cudaMallocAsync leaks, exact site",
    "peak": "scenarios.c peak: exact peak and its composition",
    "threads": "churn.c: two threads allocating, exact per-thread leaks and counts",
    "oom": "scenarios.c oom: one oversized cudaMalloc fails cleanly, OOM snapshot",
    "sigusr1": "churn.c: `gpuleak snapshot PID` (SIGUSR1) mid-run",
    "attach": "attach_target.c started without gpuleak: `gpuleak attach PID` (gdb), leaks through the runtime, the"
              " driver and dlsym at their lines, the free of memory made before no bad free, detach",
    "kernels": "scripts/gpu/kernels.cu: kernels, created pool, managed/pinned, two threads",
    "graph": "graph_memory.c: graph memory nodes (explicit, generic, captured), exact leaks, counts, peak",
    "cublas-workspace": "blas_workspace.c: what cuBLAS allocates itself without a workspace of the program's"
                        " (fakecuda's stand-in follows a policy: tools/fakecuda/README.md): one default"
                        " workspace per stream used, 32 MiB from sm90, cuMemAllocAsync, held by cublas-workspace",
    "torch-caching": "default caching allocator: gpuleak peak == torch.cuda.max_memory_reserved()",
    "torch-uncached": "PYTORCH_NO_CUDA_MEMORY_CACHING=1: the leak, live and peak bytes",
    "torch-async": "backend:cudaMallocAsync: the leak, peak == max_memory_allocated",
    "torch-expandable": "expandable_segments:True: gpuleak peak == max_memory_reserved",
    "torch-caches": "cached segments reported as held by allocator caches, not leaks",
    "torch-sigusr1": "SIGUSR1 snapshot mid-training: valid, live == memory_reserved",
    "torch-blocks": "PyTorch's own blocks in the mid (SIGUSR1) and end snapshots: totals == memory_allocated/"
                    "memory_reserved, the kept tensors at the LEAK-SITE line (docs/pytorch.md)",
    "torch-exit": "every traced training run wrote a valid final snapshot",
    "torch-overhead": "time per step with and without gpuleak",
    "torch-memviz": "--torch-snapshot loads in torch.cuda._memory_viz, same segments/peak as torch's",
    "plan": "tests/programs/plan_gpt.py at 3 batch sizes on the card and under `gpuleak plan --gpu PROFILE`"
            " (the card's profile): max_memory_reserved, max_memory_allocated, NVML's used side by side;"
            " targets: reserved within 1%, NVML used within 5% (docs/plan.md)",
}


# ------------------------------------------------------------------- context

class Ctx:
    def __init__(self, args):
        self.args = args
        self.results = []  # (status, name, detail)
        self.mode = None
        self.nvcc = None
        self.cuda_home = None
        self.lib = self.report = self.launcher = None
        self.build_desc = ""
        self.deps_dir = None
        self.fakecuda = None
        self.progs = {}
        self.python = args.python or sys.executable
        self.out = None

    def elapsed(self):
        return time.time() - T0

    def log(self, msg):
        line = "[%6.1fs] %s" % (self.elapsed(), msg)
        if self.args.verbose:
            print(line, file=sys.stderr, flush=True)
        with open(os.path.join(self.out, "gpu-check.log"), "a") as f:
            f.write(line + "\n")

    def add(self, status, name, detail):
        detail = " ".join(str(detail).split())
        self.results.append((status, name, detail))
        self.log("%s %s %s" % (status, name, detail))
        if self.args.verbose:
            print("%-4s  %-16s %s" % (status, name, detail), file=sys.stderr, flush=True)

    def wanted(self, name):
        if not self.args.only:
            return True
        for w in (x.strip() for x in self.args.only.split(",")):
            if w == name or (w == "cuda" and name in CUDA_CHECKS) or (w == "torch" and name in TORCH_CHECKS):
                return True
            if w.endswith("*") and name.startswith(w[:-1]):
                return True
        return False


def run(cmd, cwd=None, env=None, timeout=120, log=None):
    """Runs cmd; returns (rc, stdout, stderr).  rc 124 on timeout."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout or b"", (e.stderr or b"") + b"\n[timed out]\n"
    except OSError as e:
        rc, out, err = 127, b"", str(e).encode()
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    if log:
        with open(log, "w") as f:
            f.write("$ %s\n# rc=%d\n--- stdout\n%s--- stderr\n%s" % (" ".join(map(str, cmd)), rc, out, err))
    return rc, out, err


def first_error(err):
    lines = [l for l in err.splitlines() if l.strip() and "no version information available" not in l]
    return lines[-1][:160] if lines else "(no message)"


# ----------------------------------------------------------- environment

def detect_mode(args):
    if args.fake:
        return "fake"
    if args.hw:
        return "hw"
    if glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/nvidiactl"):
        return "hw"
    return "fake"


def find_nvcc():
    cands = []
    if os.environ.get("CUDA_HOME"):
        cands.append(os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc"))
    cands.append("/usr/local/cuda/bin/nvcc")
    w = shutil.which("nvcc")
    if w:
        cands.append(w)
    cands += sorted(glob.glob("/usr/local/cuda-*/bin/nvcc"), reverse=True)
    for c in cands:
        if os.access(c, os.X_OK):
            real = os.path.realpath(c)
            return real, os.path.dirname(os.path.dirname(real))
    return None, None


def ldd_missing(path, extra_dirs=()):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if extra_dirs:
        env["LD_LIBRARY_PATH"] = ":".join(extra_dirs)
    else:
        env.pop("LD_LIBRARY_PATH", None)
    rc, out, err = run(["ldd", path], env=env, timeout=30)
    return [l.split()[0] for l in out.splitlines() if "not found" in l]


def ldd_deps(path):
    """(name, path) of every shared library path needs, glibc excluded."""
    rc, out, _ = run(["ldd", path], timeout=30)
    deps = []
    for l in out.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(/\S+)", l)
        if m and m.group(1) not in GLIBC:
            deps.append((m.group(1), m.group(2)))
    return deps


def layout(d):
    """The three artefacts of a build or pack directory."""
    return (os.path.join(d, "lib", "libgpuleak.so"), os.path.join(d, "bin", "gpuleak-report"),
            os.path.join(d, "bin", "gpuleak"))


def try_build_dir(ctx, d, what):
    """Uses the build in d if it works on this machine; returns None or why not."""
    lib, rep, launcher = layout(d)
    for f in (lib, rep, launcher):
        if not os.path.exists(f):
            return "%s missing" % os.path.relpath(f, d)
    # Only the libraries this machine lacks come from the carried deps/.
    deps_src = os.path.join(d, "deps")
    missing = sorted(set(ldd_missing(lib) + ldd_missing(rep)))
    deps_dir = None
    if missing:
        deps_dir = os.path.join(ctx.out, "deps")
        os.makedirs(deps_dir, exist_ok=True)
        for name in missing:
            src = os.path.join(deps_src, name)
            if not os.path.exists(src):
                return "this machine lacks %s and %s does not carry it" % (name, what)
            dst = os.path.join(deps_dir, name)
            if not os.path.exists(dst):
                os.symlink(os.path.abspath(src), dst)
        still = ldd_missing(lib, [deps_dir]) + ldd_missing(rep, [deps_dir])
        if still:
            return "still missing: " + " ".join(sorted(set(still)))
    env = dict(os.environ)
    if deps_dir:
        env["LD_LIBRARY_PATH"] = deps_dir
    rc, out, err = run([rep, "--version"], env=env, timeout=30)
    if rc != 0:
        return "gpuleak-report does not run here: " + first_error(err)
    env["LD_PRELOAD"] = os.path.abspath(lib)
    rc, out, err = run([sys.executable, "-c",
                        "import ctypes; ctypes.CDLL(None).gpuleak_snapshot; print('loaded')"],
                       env=env, timeout=60)
    if rc != 0 or "loaded" not in out:
        return "libgpuleak.so does not load here: " + first_error(err)
    ctx.lib, ctx.report, ctx.launcher = (os.path.abspath(x) for x in (lib, rep, launcher))
    ctx.deps_dir = deps_dir
    fc = os.path.join(d, "fakecuda")
    if os.path.exists(os.path.join(fc, "libcuda.so.1")):
        ctx.fakecuda = os.path.abspath(fc)
    ctx.build_desc = "%s %s%s" % ({"build": "existing build", "prebuilt": "carried build", "make": "make"}[what],
                                  os.path.relpath(d, ROOT) if d.startswith(ROOT + "/") else d,
                                  " (carried here: %s)" % " ".join(missing) if missing else "")
    return None


def make_build(ctx):
    bdir = os.path.join("build", "gpu-check", "make")
    targets = [os.path.join(bdir, t) for t in ("lib/libgpuleak.so", "bin/gpuleak-report", "bin/gpuleak",
                                               "libexec/gpuleak/gpuleak-tgkill")]
    if ctx.mode == "fake":
        targets += [os.path.join(bdir, "fakecuda", t) for t in ("libcudart.so", "libcuda.so", "libcuda.so.1",
                                                                 "libcublas.so.13", "libcublasLt.so.13")]
    cmd = ["make", "-j%d" % ctx.args.jobs, "BUILD=" + bdir] + targets
    if ctx.cuda_home:
        cmd.append("CUDA_HOME=" + ctx.cuda_home)
    t = time.time()
    rc, out, err = run(cmd, cwd=ROOT, timeout=300, log=os.path.join(ctx.out, "make.log"))
    if rc != 0:
        return "make failed (%s; see make.log)" % first_error(err)
    if ctx.wanted("plan"):  # apart: where it fails, only the plan check misses it (SKIP)
        plan_cmd = [c for c in cmd if c not in targets] + [os.path.join(bdir, t) for t in PLAN_FILES]
        run(plan_cmd, cwd=ROOT, timeout=300, log=os.path.join(ctx.out, "make-plan.log"))
    why = try_build_dir(ctx, os.path.join(ROOT, bdir), "make")
    if why is None:
        ctx.build_desc = "make -j%d into %s (%.0f s)" % (ctx.args.jobs, bdir, time.time() - t)
    return why


def check_build(ctx):
    tried = []
    if ctx.args.prebuilt:
        why = try_build_dir(ctx, os.path.abspath(ctx.args.prebuilt), "prebuilt")
        if why is None:
            return ctx.build_desc
        tried.append("prebuilt: " + why)
    if ctx.args.build_dir:
        why = try_build_dir(ctx, os.path.abspath(ctx.args.build_dir), "build")
        if why is None:
            return ctx.build_desc
        tried.append("build-dir: " + why)
    if ctx.args.no_make:
        raise Fail("; ".join(tried + ["not building (--no-make)"]))
    why = make_build(ctx)
    if why is None:
        return ctx.build_desc + ("; " + "; ".join(tried) if tried else "")
    tried.append(why)
    raise Fail("; ".join(tried))


# ---------------------------------------------------------------- nvcc

def program_specs(ctx):
    """name -> (source, nvcc flags)."""
    stubs = ["-L" + os.path.join(ctx.cuda_home, "lib64", "stubs"), "-L" + os.path.join(ctx.cuda_home, "lib64")]
    tp = lambda f: os.path.join(PROGRAMS, f)
    return {
        "rk_shared": (tp("runtime_kinds.c"), ["-cudart", "shared"]),
        "rk_static": (tp("runtime_kinds.c"), ["-cudart", "static"]),
        "driver_paths": (tp("driver_paths.c"), ["-cudart", "shared"] + stubs + ["-lcuda", "-ldl"]),
        "driver_paths_ptds": (tp("driver_paths.c"), ["-cudart", "shared", "--default-stream", "per-thread"]
                              + stubs + ["-lcuda", "-ldl"]),
        "driver_lifecycle": (tp("driver_lifecycle.c"), ["-cudart", "none"] + stubs + ["-lcuda", "-lpthread"]),
        "ctx_teardown": (tp("ctx_teardown.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "cross_device": (tp("cross_device.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "vmm_import": (tp("vmm_import.c"), ["-cudart", "none"] + stubs + ["-lcuda", "-ldl"]),
        "multicast": (tp("multicast.c"), ["-cudart", "none"] + stubs + ["-lcuda"]),
        "vmm_host": (tp("vmm_host.c"), ["-cudart", "none"] + stubs + ["-lcuda"]),
        "managed_pool": (tp("managed_pool.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "pool_owner": (tp("pool_owner.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "module_load": (tp("module_load.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "ipc_share": (tp("ipc_share.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "external_mem": (tp("external_mem.c"), ["-cudart", "shared"] + stubs + ["-lcuda", "-ldl"]),
        "bad_free": (tp("bad_free.c"), ["-cudart", "shared"] + stubs + ["-lcuda"]),
        "scenarios": (tp("scenarios.c"), ["-cudart", "shared", "-lpthread"]),
        "churn": (tp("churn.c"), ["-cudart", "shared", "-lpthread"]),
        "attach_target": (tp("attach_target.c"), ["-cudart", "shared"] + stubs + ["-lcuda", "-ldl"]),
        "graph_memory": (tp("graph_memory.c"), ["-cudart", "shared"]),
        "blas_workspace": (tp("blas_workspace.c"), ["-cudart", "shared"] + stubs + ["-lcublas"]),
        "kernels": (os.path.join(GPU_DIR, "kernels.cu"),
                    ["-cudart", "shared", "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "-lpthread"]),
    }


def check_nvcc(ctx):
    if not ctx.nvcc:
        if ctx.mode == "hw":
            raise Fail("no nvcc found (CUDA_HOME, /usr/local/cuda, PATH)")
        raise Skip("no nvcc found")
    rc, out, _ = run([ctx.nvcc, "--version"], timeout=30)
    m = re.search(r"release (\d+\.\d+)", out)
    version = m.group(1) if m else "?"
    pdir = os.path.join(CACHE, "progs")
    os.makedirs(pdir, exist_ok=True)
    common = ["-g", "-O0", "-Xcompiler", "-fno-omit-frame-pointer,-fno-inline",
              "-Xlinker", "--enable-new-dtags", "-Xlinker", "-rpath=" + os.path.join(ctx.cuda_home, "lib64")]
    pending, built, cached, failed = [], 0, 0, []
    t = time.time()
    for name, (src, flags) in program_specs(ctx).items():
        exe = os.path.join(pdir, name)
        cmd = [ctx.nvcc] + common + flags + ["-o", exe + ".tmp", src]
        stamp = exe + ".cmd"
        key = "\n".join(cmd) + "\n"
        if (os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src)
                and os.path.exists(stamp) and open(stamp).read() == key):
            ctx.progs[name] = exe
            cached += 1
            continue
        log = open(os.path.join(ctx.out, "nvcc-%s.log" % name), "w")
        log.write("$ %s\n" % " ".join(cmd))
        log.flush()
        pending.append((name, exe, stamp, key, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log))
        while len([p for p in pending if p[4].poll() is None]) >= ctx.args.jobs:
            time.sleep(0.05)
    for name, exe, stamp, key, p, log in pending:
        try:
            rc = p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = 124
        log.close()
        if rc == 0:
            os.replace(exe + ".tmp", exe)
            with open(stamp, "w") as f:
                f.write(key)
            ctx.progs[name] = exe
            built += 1
        else:
            failed.append(name)
    detail = "nvcc %s: %d built, %d cached (%.0f s)" % (version, built, cached, time.time() - t)
    if failed:
        raise Fail(detail + "; failed: %s (see nvcc-*.log)" % " ".join(failed))
    return detail


# ------------------------------------------------------------ running

def traced_env(ctx, output, preload=True, extra=None):
    env = dict(os.environ)
    paths = []
    if ctx.mode == "fake":
        paths.append(ctx.fakecuda)
    if ctx.deps_dir:
        paths.append(ctx.deps_dir)
    if env.get("LD_LIBRARY_PATH"):
        paths.append(env["LD_LIBRARY_PATH"])
    if paths:
        env["LD_LIBRARY_PATH"] = ":".join(paths)
    env.pop("LD_PRELOAD", None)
    for k in [k for k in env if k.startswith("GPULEAK_")]:
        del env[k]
    if preload:
        env["LD_PRELOAD"] = ctx.lib
    if output:
        env["GPULEAK_OUTPUT"] = output
    env.update(extra or {})
    return env


def check_dir(ctx, name):
    d = os.path.join(ctx.out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def prog(ctx, name):
    if name not in ctx.progs:
        raise Skip("%s was not built" % name)
    return ctx.progs[name]


def run_traced(ctx, d, tag, exe, argv, output, timeout=90, expect_rc=0):
    """Runs exe under gpuleak in d.  On fakecuda, a program that cannot run
    there even without gpuleak (real static runtime, kernels) is a SKIP."""
    rc, out, err = run([exe] + argv, cwd=d, env=traced_env(ctx, output), timeout=timeout,
                       log=os.path.join(d, tag + ".log"))
    if rc != expect_rc:
        if ctx.mode == "fake":
            prc, _, perr = run([exe] + argv, cwd=d, env=traced_env(ctx, None, preload=False),
                               timeout=timeout, log=os.path.join(d, tag + ".plain.log"))
            if prc != expect_rc:
                raise Skip("cannot run on fakecuda even without gpuleak (%s)" % first_error(perr))
        raise Fail("%s exited %d under gpuleak: %s" % (tag, rc, first_error(err)))
    return out


def report_help(ctx):
    if not hasattr(ctx, "report_help_text"):
        env = dict(os.environ)
        if ctx.deps_dir:
            env["LD_LIBRARY_PATH"] = ctx.deps_dir
        env.pop("LD_PRELOAD", None)
        ctx.report_help_text = run([ctx.report, "--help"], env=env, timeout=30)[1]
    return ctx.report_help_text


def report_json(ctx, d, snap, text=True, whole_stacks=False):
    """gpuleak-report --json of d/snap, parsed.  whole_stacks: keep the
    CUDA-library frames and the native part of mixed Python stacks (where
    the reporter has those options), so torch's allocator frames show."""
    snap = os.path.join(d, snap)
    if not os.path.exists(snap):
        raise Fail("no snapshot %s (files: %s)" % (os.path.basename(snap), " ".join(sorted(os.listdir(d)))))
    out = snap[:-5] + ".json" if snap.endswith(".snap") else snap + ".json"
    env = dict(os.environ)
    if ctx.deps_dir:
        env["LD_LIBRARY_PATH"] = ctx.deps_dir
    env.pop("LD_PRELOAD", None)
    opts = [o for o in ("--all-frames", "--native") if whole_stacks and o in report_help(ctx)]
    rc, _, err = run([ctx.report, "--json"] + opts + ["--output", out, snap], env=env, timeout=120,
                     log=out + ".log")
    if rc != 0:
        raise Fail("gpuleak-report --json %s: exit %d: %s" % (os.path.basename(snap), rc, first_error(err)))
    with open(out) as f:
        d = json.load(f)
    # the text report too, for people reading $OUT
    if text:
        run([ctx.report, "--output", snap[:-5] + ".txt", snap], env=env, timeout=120)
    return d


def fn(f):
    name = f.get("function") or ""
    return name.split("(")[0]


def user_function(frames, prefix="leak_"):
    for f in frames:
        if fn(f).startswith(prefix):
            return fn(f)
    return None


def devs(d):
    return {x["device"]: x for x in d["devices"]}


def site_line(path, marker):
    with open(path) as f:
        for i, l in enumerate(f, 1):
            if marker in l:
                return i
    raise Fail("marker %r not in %s" % (marker, path))


def frame_str(f):
    return "%s %s:%s" % (fn(f), os.path.basename(f.get("file") or "?"), f.get("line"))


def compare_sets(got, want, what):
    if sorted(got) != sorted(want):
        missing = [w for w in want if w not in got]
        extra = [g for g in got if g not in want]
        raise Fail("%s differ: missing %s; unexpected %s" % (what, missing, extra))


def expect(got, want, what):
    if got != want:
        raise Fail("%s: got %r, expected %r" % (what, got, want))


# ------------------------------------------------------------ CUDA checks

RT_TO_DRV = {"cudaMalloc": "cuMemAlloc_v2", "cudaMallocManaged": "cuMemAllocManaged",
             "cudaMallocPitch": "cuMemAllocPitch_v2", "cudaMallocAsync": "cuMemAllocAsync",
             "cudaMallocFromPoolAsync": "cuMemAllocFromPoolAsync", "cudaMallocHost": "cuMemHostAlloc",
             "cudaHostAlloc": "cuMemHostAlloc", "cudaHostRegister": "cuMemHostRegister_v2",
             "cudaMallocArray": "cuArrayCreate_v2", "cudaMalloc3D": "cuMemAllocPitch_v2",
             "cudaMalloc3DArray": "cuArray3DCreate_v2", "cudaMallocMipmappedArray": "cuMipmappedArrayCreate"}


def check_reset(ctx):
    """tests/t_teardown.sh's cudaDeviceReset part on the real runtime: what the
    reset released (device and managed) is listed as freed only by a context
    teardown, the stream-ordered allocation it documents it keeps is a leak."""
    d = check_dir(ctx, "reset")
    run_traced(ctx, d, "runtime_kinds", prog(ctx, "rk_shared"), ["reset"], os.path.join(d, "reset.snap"))
    r = report_json(ctx, d, "reset.snap")
    expect([(l["kind"], l["bytes"], user_function(l["frames"])) for l in r["leaks"]],
           [("pool", 300000, "leak_async")], "leaks after cudaDeviceReset")
    t = r.get("teardown_leaks", {})
    got = sorted((g["kind"], g["bytes"], g["api"], g["teardown"], user_function(g["frames"])) for g in t.get("groups", []))
    expect(got, [("device", 100000, "cudaMalloc", "cudaDeviceReset", "leak_device"),
                 ("managed", 200000, "cudaMallocManaged", "cudaDeviceReset", "leak_managed")],
           "freed only by the reset")
    note = "cudaDeviceReset: 100,000 B device + 200,000 B managed torn down at their lines; 300,000 B pool kept"
    # The static runtime's reset reaches gpuleak as the driver's: the same
    # outcome, with the driver's API names (whichever the runtime calls).
    try:
        run_traced(ctx, d, "runtime_kinds_static", prog(ctx, "rk_static"), ["reset"], os.path.join(d, "static.snap"))
    except Skip as e:
        return note + "; static runtime: skipped (%s)" % e
    r = report_json(ctx, d, "static.snap")
    expect([(l["kind"], l["bytes"], user_function(l["frames"])) for l in r["leaks"]],
           [("pool", 300000, "leak_async")], "static runtime: leaks after cudaDeviceReset")
    t = r.get("teardown_leaks", {})
    got = sorted((g["kind"], g["bytes"], user_function(g["frames"])) for g in t.get("groups", []))
    expect(got, [("device", 100000, "leak_device"), ("managed", 200000, "leak_managed")],
           "static runtime: freed only by the reset")
    seen = ", ".join(sorted({g["teardown"] for g in t["groups"]}))
    # nvcc's default with the samples' habit: nothing freed by hand, the
    # reset last (CUDA 13's runtime resets through the v1 ABI): no leak.
    run_traced(ctx, d, "runtime_kinds_static", prog(ctx, "rk_static"), ["reset-only"], os.path.join(d, "only.snap"))
    r = report_json(ctx, d, "only.snap")
    expect(r["leaks"], [], "static runtime, reset-only: leaks")
    got = sorted((g["kind"], g["bytes"], user_function(g["frames"])) for g in r.get("teardown_leaks", {}).get("groups", []))
    expect(got, [("device", 100000, "leak_device"), ("managed", 200000, "leak_managed")],
           "static runtime, reset-only: freed only by the reset")
    return note + "; static runtime the same, seen as %s; reset-only: no leak" % seen


def check_ctx_teardown(ctx):
    """tests/t_ctx_teardown.sh on the real driver.  The program frees what
    CUDA documents outlives each teardown and prints the driver's answer
    ("OBS what rc"); gpuleak's report must agree with what the driver did."""
    d = check_dir(ctx, "ctx-teardown")
    want = {"primary-reset": ([("pool-free", 0), ("vmm-unmap", 0), ("vmm-release", 0), ("va-free", 0)],
                              [(6000, "device", "cuDevicePrimaryCtxReset_v2")]),
            "ctx-destroy": ([("pool-free", 0)], [(5000, "device", "cuCtxDestroy_v2")]),
            "own-ctx-reset": ([("reset", 0), ("rt-free", 0)], []),
            "primary-release": ([("kept-free", 0), ("pool-free", 0)],
                                [(3000, "device", "cuDevicePrimaryCtxRelease_v2")])}
    for sc, (obs_want, groups_want) in want.items():
        out = run_traced(ctx, d, sc, prog(ctx, "ctx_teardown"), [sc], os.path.join(d, sc + ".snap"))
        obs = [(m.group(1), int(m.group(2))) for m in re.finditer(r"^OBS (\S+) (-?\d+)$", out, re.M)]
        # the driver's own behaviour first: if it differs from CUDA's
        # documentation, gpuleak's model is what is wrong
        expect(obs, obs_want, "%s: the driver's results (0: the memory outlived the teardown)" % sc)
        r = report_json(ctx, d, sc + ".snap")
        expect([(l["bytes"], user_function(l["frames"], "")) for l in r["leaks"]], [], "%s: leaks" % sc)
        expect(r["invalid_frees"]["count"], 0, "%s: invalid frees" % sc)
        expect([(g["bytes"], g["kind"], g["teardown"]) for g in r["teardown_leaks"]["groups"]], groups_want,
               "%s: freed only by a context teardown" % sc)
    return ("pool + VMM memory outlived cuDevicePrimaryCtxReset, pool memory cuCtxDestroy and the last "
            "cuDevicePrimaryCtxRelease, a reset with an own context freed nothing; gpuleak: no leaks, no invalid "
            "frees, 6,000 + 5,000 + 3,000 B torn down")


def check_green(ctx):
    """tests/t_ctx_teardown.sh's green-context cases on the real driver.
    gpuleak assumes (docs/interception.md, "Green contexts") what cuda.h
    says: a green context holds a reference on its device's primary context,
    and the CUcontext cuCtxFromGreenCtx gives is that primary context, so
    memory allocated in it is the primary context's.  The driver's answers
    are checked first: if it contradicts that, gpuleak's model is wrong."""
    src = os.path.join(PROGRAMS, "ctx_teardown.c")
    d = check_dir(ctx, "green")
    exe = prog(ctx, "ctx_teardown")
    green, prim, lost = site_line(src, "GREEN-SITE"), site_line(src, "PRIMARY-SITE"), site_line(src, "LOST-SITE")
    obs = lambda out: [(m.group(1), int(m.group(2))) for m in re.finditer(r"^OBS (\S+) (-?\d+)$", out, re.M)]
    # (a) the green context holds the primary context's last reference
    out = run_traced(ctx, d, "green-last", exe, ["green-last"], os.path.join(d, "green-last.snap"))
    expect(obs(out), [("active", 1), ("active", 0)],
           "green-last: the primary context active after the program's release, inactive after cuGreenCtxDestroy"
           " (cuda.h: the green context retains it)")
    r = report_json(ctx, d, "green-last.snap")
    expect([(l["bytes"], user_function(l["frames"], "")) for l in r["leaks"]], [], "green-last: leaks")
    expect(r["invalid_frees"]["count"], 0, "green-last: invalid frees")
    expect(sorted((g["bytes"], g["teardown"], fn(g["frames"][0]), g["frames"][0]["line"])
                  for g in r["teardown_leaks"]["groups"]),
           sorted([(3 * MiB, "cuGreenCtxDestroy", "green_alloc", green),
                   (MiB, "cuGreenCtxDestroy", "primary_alloc", prim)]),
           "green-last: what the last reference took, named cuGreenCtxDestroy")
    # (b) destroyed while the program holds the primary context
    out = run_traced(ctx, d, "green-held", exe, ["green-held"], os.path.join(d, "green-held.snap"))
    info = dict((m.group(1), int(m.group(2))) for m in re.finditer(r"^INFO (\S+) (\d+)$", out, re.M))
    if len(info) != 3:
        raise Fail("green-held: the program printed no free-memory lines: %r" % out)
    at_destroy = info["free-after-destroy"] - info["free-before-destroy"]
    at_free = info["free-after-free"] - info["free-after-destroy"]
    seen = dict(obs(out))
    if seen.get("green-free") != 0 or at_destroy >= 3 * MiB:
        raise Fail("the hardware contradicts 'memory allocated in a green context is the primary context's': "
                   "cuGreenCtxDestroy with the primary held gave back %+d B, cuMemFree after it returned %s"
                   % (at_destroy, seen.get("green-free")))
    expect(obs(out), [("active", 1), ("green-free", 0)], "green-held: the driver's results")
    r = report_json(ctx, d, "green-held.snap")
    expect([(l["bytes"], user_function(l["frames"], "")) for l in r["leaks"]], [], "green-held: leaks")
    expect(r["invalid_frees"]["count"], 0, "green-held: the free after cuGreenCtxDestroy was a normal one")
    expect([(g["bytes"], g["teardown"], fn(g["frames"][0]), g["frames"][0]["line"])
            for g in r["teardown_leaks"]["groups"]],
           [(3000, "cuDevicePrimaryCtxRelease_v2", "lost_with_context", lost)], "green-held: the last release's group")
    return ("cuGreenCtxDestroy with the primary held: free memory %+d B, the 3 MiB allocation then freed (rc 0, "
            "free memory %+d B); the green context's last reference tore down 3 MiB + 1 MiB; gpuleak: no leaks"
            % (at_destroy, at_free))


def check_cross_device(ctx):
    """tests/t_cross_device.sh on the real driver: with device 0 current,
    allocations on a stream of device 1 and from device 1's pool are device
    1's memory.  One GPU: SKIP."""
    src = os.path.join(PROGRAMS, "cross_device.c")
    got_all = []
    for how in ("runtime", "driver"):
        d = check_dir(ctx, "cross-device-" + how)
        rc, _, err = run([prog(ctx, "cross_device"), how], cwd=d, env=traced_env(ctx, os.path.join(d, "x.snap")),
                         timeout=60, log=os.path.join(d, how + ".log"))
        if rc == 3:
            raise Skip("needs two GPUs: " + first_error(err))
        if rc != 0:
            raise Fail("%s exited %d under gpuleak: %s" % (how, rc, first_error(err)))
        r = report_json(ctx, d, "x.snap")
        pre = "rt" if how == "runtime" else "cu"
        sizes = (MiB, 2 * MiB) if how == "runtime" else (3 * MiB, 4 * MiB)
        got = sorted((l["device"], l["bytes"], fn(l["frames"][0])) for l in r["leaks"])
        expect(got, [(0, MiB // 2, pre + "_leak_here"), (1, sizes[0], pre + "_leak_on_stream"),
                     (1, sizes[1], pre + "_leak_from_pool")], how + ": leaks by device")
        expect(sorted((x["device"], x["live_bytes"]) for x in r["devices"]),
               [(0, MiB // 2), (1, sum(sizes))], how + ": live bytes per device")
        got_all.append(how)
    return "runtime+driver: another device's stream and pool counted on that device, the default stream's on the current"


def check_runtime_kinds(ctx, how):
    d = check_dir(ctx, "rt-" + how)
    out = run_traced(ctx, d, "runtime_kinds", prog(ctx, "rk_" + how), ["all"], os.path.join(d, "rk.snap"))
    m = re.search(r"pitch (\d+)", out)
    pitch = int(m.group(1)) if m else 1024
    m = re.search(r"pitch3d (\d+)", out)
    pitch3d = int(m.group(1)) if m else 512
    r = report_json(ctx, d, "rk.snap")
    want = [
        ("device", 0, "cudaMalloc", 100000, 1, "leak_device"),
        ("managed", 0, "cudaMallocManaged", 200000, 1, "leak_managed"),
        ("device", 0, "cudaMallocPitch", pitch * 30, 1, "leak_pitch"),
        ("pool", 0, "cudaMallocAsync", 300000, 1, "leak_async"),
        ("pool", 0, "cudaMallocFromPoolAsync", 400000, 1, "leak_from_pool"),
        ("host-pinned", -1, "cudaMallocHost", 500000, 1, "leak_host"),
        ("host-pinned", -1, "cudaHostAlloc", 600000, 1, "leak_host_alloc"),
        ("host-registered", -1, "cudaHostRegister", 700000, 1, "leak_registered"),
        ("array", 0, "cudaMallocArray", 20000, 1, "leak_array"),
        ("device", 0, "cudaMalloc3D", pitch3d * 10 * 3, 1, "leak_3d"),
        ("array", 0, "cudaMalloc3DArray", 4000, 1, "leak_array3d"),
        ("array", 0, "cudaMallocMipmappedArray", 20480, 1, "leak_mipmap"),
    ]
    got = [(l["kind"], l["device"], l["api"], l["bytes"], l["count"], user_function(l["frames"]))
           for l in r["leaks"]]
    note = ""
    if how == "static":
        # The static runtime reaches the driver itself: the API is the
        # driver's.  Its exact name is the real runtime's choice; report
        # where it differs from fakecuda's.
        by_fn = {g[5]: g for g in got}
        diffs, want2 = [], []
        for w in want:
            api = RT_TO_DRV[w[2]]
            g = by_fn.get(w[5])
            if g and g[2] != api and g[2].startswith("cu") and not g[2].startswith("cuda"):
                diffs.append("%s->%s" % (w[2], g[2]))
                api = g[2]
            want2.append(w[:2] + (api,) + w[3:])
        want = want2
        if diffs:
            note = "; driver API differs from fakecuda: " + ", ".join(diffs)
    compare_sets(got, want, "leak groups")
    # The runtime's own frames are folded away: the top frame is the program's.
    expect(sorted(fn(l["frames"][0]) if l["frames"] else None for l in r["leaks"]), sorted(w[5] for w in want),
           "top frames")
    if all("via_static_runtime" in l for l in r["leaks"]):
        # caught at the driver layer, the static runtime's API call is named
        called = {"leak_" + k: v for k, v in (("device", "cudaMalloc"), ("managed", "cudaMallocManaged"),
                  ("pitch", "cudaMallocPitch"), ("async", "cudaMallocAsync"), ("from_pool", "cudaMallocFromPoolAsync"),
                  ("host", "cudaMallocHost"), ("host_alloc", "cudaHostAlloc"), ("registered", "cudaHostRegister"),
                  ("array", "cudaMallocArray"), ("3d", "cudaMalloc3D"), ("array3d", "cudaMalloc3DArray"),
                  ("mipmap", "cudaMallocMipmappedArray"))}
        expect(sorted((user_function(l["frames"]), l["via_static_runtime"]) for l in r["leaks"]),
               sorted((f, called[f] if how == "static" else None) for f in called), "via_static_runtime")
        note += "; via_static_runtime %s" % ("named" if how == "static" else "null")
    dv = devs(r)
    expect((dv[0]["alloc_count"], dv[0]["free_count"]), (14, 5), "device 0 allocs/frees")
    expect((dv[-1]["alloc_count"], dv[-1]["free_count"]), (6, 3), "host allocs/frees")
    expect((dv[0]["unknown_free_count"], dv[-1]["unknown_free_count"]), (0, 0), "unknown frees")
    dev_b = sum(w[3] for w in want if w[1] == 0)
    return "12 leak groups exact (dev0 %s B, host %s B, pitch %d); allocs/frees dev0 14/5 host 6/3%s" % (
        fmt(dev_b), fmt(1800000), pitch, note)


def driver_expectations():
    """The expected leaks and counts of driver_paths.c, read from the fakecuda
    test that checks it (tests/t_paths_driver.sh), so both stay the same."""
    text = open(os.path.join(ROOT, "tests", "t_paths_driver.sh")).read()
    m = re.search(r"want = sorted\(\[(.*?)\]\)", text, re.S)
    counts = re.search(r'\(devices\[0\]\["alloc_count"\], devices\[0\]\["free_count"\]\), \((\d+), (\d+)\)', text)
    host = re.search(r'\(devices\[-1\]\["alloc_count"\], devices\[-1\]\["free_count"\]\), \((\d+), (\d+)\)', text)
    modes = re.search(r"for how in ([a-z -]+); do", text)
    if not (m and counts and modes):
        raise Fail("cannot read the expectations from tests/t_paths_driver.sh")
    return (m.group(1), (int(counts.group(1)), int(counts.group(2))),
            (int(host.group(1)), int(host.group(2))) if host else None, modes.group(1).split())


def check_driver(ctx, how):
    d = check_dir(ctx, "drv-" + how)
    want_src, dev_counts, host_counts, all_modes = driver_expectations()
    modes = [m for m in all_modes if m == how or m.startswith(how + "-")]
    if not modes:
        raise Skip("tests/t_paths_driver.sh has no %s mode" % how)
    for m in modes:
        # "procaddr-ptds" is a mode of the program; any other "-ptds" is the
        # program built for the per-thread default stream (_ptsz exports).
        exe, arg = prog(ctx, "driver_paths"), m
        if m.endswith("-ptds") and m != "procaddr-ptds":
            exe, arg = prog(ctx, "driver_paths_ptds"), m[:-len("-ptds")]
        run_traced(ctx, d, m, exe, [arg], os.path.join(d, m + ".snap"))
        r = report_json(ctx, d, m + ".snap")
        got = [(l["kind"], l["device"], l["api"], l["bytes"], l["count"], fn(l["frames"][0]) if l["frames"] else None)
               for l in r["leaks"]]
        want = eval("[" + want_src + "]", {"ptsz": "_ptsz" if m.endswith("-ptds") else ""})
        compare_sets(got, want, m + ": leak groups")
        dv = devs(r)
        expect((dv[0]["alloc_count"], dv[0]["free_count"]), dev_counts, m + ": device 0 allocs/frees")
        if host_counts:
            expect((dv[-1]["alloc_count"], dv[-1]["free_count"]), host_counts, m + ": host allocs/frees")
    return "%s: %d leak groups exact (%s B dev0, %s B host), top frame leak_*; dev0 %d/%d allocs/frees" % (
        "+".join(modes), len(want), fmt(sum(w[3] for w in want if w[1] == 0)),
        fmt(sum(w[3] for w in want if w[1] == -1)), dev_counts[0], dev_counts[1])


def check_vmm(ctx):
    d = check_dir(ctx, "vmm")
    run_traced(ctx, d, "vmm", prog(ctx, "driver_lifecycle"), ["vmm"], os.path.join(d, "final.snap"))
    r = report_json(ctx, d, "final.snap")
    got = [(l["kind"], l["api"], l["bytes"], l["count"], fn(l["frames"][1]) if len(l["frames"]) > 1 else None)
           for l in r["leaks"]]
    expect(got, [("virtual", "cuMemCreate", 4 * MiB, 1, "leak_vmm"),
                 ("virtual", "cuMemCreate", 2 * MiB, 1, "retained_leak")], "leaks at exit")
    dv = devs(r)
    expect((dv[0]["alloc_count"], dv[0]["free_count"]), (6, 4), "handles created/gone")
    expect(dv[0]["unknown_free_count"], 0, "every release matched")
    mid = report_json(ctx, d, "mid.snap")
    expect(mid["snapshot"]["reason"], "request", "mid-run snapshot reason")
    got = sorted((l["bytes"], fn(l["frames"][1]) if len(l["frames"]) > 1 else None) for l in mid["leaks"])
    expect(got, [(2 * MiB, "mapped_after_release"), (4 * MiB, "leak_vmm")], "live mid-run")
    return ("leaks 4 MiB at leak_vmm + 2 MiB retained (cuMemRetainAllocationHandle) at retained_leak; "
            "released-but-mapped 2 MiB live mid-run; 6 created/4 gone")


def check_vmm_import(ctx):
    """tests/t_vmm_import.sh's core on the real driver: the exporter forks the
    importer and passes the handle's descriptor over a socketpair."""
    line = site_line(os.path.join(PROGRAMS, "vmm_import.c"), "LEAK-SITE: leak_imported_mapping")
    hline = site_line(os.path.join(PROGRAMS, "vmm_import.c"), "LEAK-SITE: leak_imported_handle")
    first = site_line(os.path.join(PROGRAMS, "vmm_import.c"), "IMPORT-SITE: first")
    seen = set()
    for how in ("direct", "procaddr"):
        d = check_dir(ctx, "vmm-import-" + how)
        out = run_traced(ctx, d, how, prog(ctx, "vmm_import"), [how], os.path.join(d, "gpuleak.%p.%n.snap"))
        pids = dict(l.split()[:2] for l in out.splitlines() if l.split()[:1] in (["exporter"], ["importer"]))
        if set(pids) != {"exporter", "importer"}:
            raise Fail("%s: no exporter/importer pids in its output: %r" % (how, out[-200:]))
        imp = report_json(ctx, d, "gpuleak.%s.1.snap" % pids["importer"])
        expect(imp["leaks"], [], how + ": no leaks of its own")
        got = [(g["bytes"], g["count"], g["kind"], g["device"], g["api"], fn(g["frames"][0]) if g["frames"] else None,
                g["frames"][0].get("line") if g["frames"] else None) for g in imp["mapped"]["groups"]]
        # A driver may hand out a new handle per import (the handle left
        # referenced is leak_imported_handle's) or the same one every time
        # (then it is the first import's, as FAKECUDA_IMPORT_REUSE=1 does).
        handle = got[1][5:] if len(got) == 2 else None
        reused = handle == ("importer", first)
        seen.add("same handle per import" if reused else "new handle per import")
        expect(got, [(4 * MiB, 1, "ipc", 0, "cuMemMap", "leak_imported_mapping", line),
                     (0, 1, "ipc", 0, "cuMemImportFromShareableHandle",
                      "importer" if reused else "leak_imported_handle", first if reused else hline)],
               how + ": the mapping never unmapped, the handle never released")
        dv = devs(imp)
        expect((dv[0]["peak_bytes"], dv[0]["live_bytes"], dv[0]["alloc_count"], dv[0]["free_count"],
                dv[0]["unknown_free_count"]), (3000000, 0, 2, 2, 0), how + ": importer's device 0")
        mid = report_json(ctx, d, "mapped.snap")
        got = sorted((g["bytes"], g["count"], fn(g["frames"][0]) if g["frames"] else None)
                     for g in mid["mapped"]["groups"])
        expect(got, [(0, 1, "importer"), (4 * MiB, 1, "leak_imported_mapping"), (10 * 2 * MiB, 10, "map_many")],
               how + ": mapped mid-run (the first imported handle, its mappings)")
        exp = report_json(ctx, d, "gpuleak.%s.0.snap" % pids["exporter"])
        expect((exp["leaks"], devs(exp)[0]["peak_bytes"]), ([], 8 * MiB), how + ": exporter's own memory only")
    return ("direct+procaddr: 4 MiB mapping never unmapped at leak_imported_mapping:%d (kind ipc, cuMemMap), "
            "a handle never released (driver: %s); importer peak 3,000,000 = its own memory; "
            "10 mappings gone in one cuMemUnmap" % (line, ", ".join(sorted(seen))))


def check_multicast(ctx):
    """tests/t_multicast.sh on the real driver, without the refusal probes (a
    real driver blocks a bind until the team is complete): a normal cycle
    leaves nothing, the object never released is the one leak, of kind
    multicast, and no device's usage counts it.  Fewer than two GPUs with
    multicast support (NVLink SHARP): SKIP."""
    src = os.path.join(PROGRAMS, "multicast.c")
    d = check_dir(ctx, "multicast")
    rc, out, err = run([prog(ctx, "multicast"), "plain", "mid.snap"], cwd=d,
                       env=traced_env(ctx, os.path.join(d, "final.snap")), timeout=60,
                       log=os.path.join(d, "multicast.log"))
    if rc == 3:
        raise Skip(out.strip() or first_error(err))
    if rc != 0:
        raise Fail("multicast exited %d under gpuleak: %s" % (rc, first_error(err)))
    r = report_json(ctx, d, "final.snap")
    leak = site_line(src, "LEAK-SITE")
    expect([(l["kind"], l["api"], l["bytes"], l["device"], fn(l["frames"][0]), l["frames"][0]["line"])
            for l in r["leaks"]],
           [("multicast", "cuMulticastCreate", 6 * MiB, 0, "leak_multicast", leak)], "leaks at exit")
    expect((r["invalid_frees"]["count"], r["invalid_frees"]["refused_count"]), (0, 0), "no unknown free")
    expect(sorted((x["device"], x["live_bytes"], x["peak_bytes"]) for x in r["devices"] if x["device"] >= 0),
           [(0, 0, 4 * MiB), (1, 0, 4 * MiB)], "usage: the bound cuMemCreate memory only")
    mid = report_json(ctx, d, "mid.snap")
    expect(sorted((l["kind"], l["bytes"], l["device"]) for l in mid["leaks"]),
           [("multicast", 4 * MiB, 0), ("virtual", 4 * MiB, 0), ("virtual", 4 * MiB, 1)],
           "released but mapped: live mid-run")
    return "6 MiB multicast leak at leak_multicast line %d; normal cycle: no leak, no unknown free; usage 4 MiB/GPU" % leak


def check_vmm_host(ctx):
    """tests/t_vmm_host.sh on the real driver, without the refusal probes:
    host-located cuMemCreate handles are host-pinned memory on the host.  A
    driver without host locations (before 12.2): SKIP."""
    src = os.path.join(PROGRAMS, "vmm_host.c")
    d = check_dir(ctx, "vmm-host")
    rc, out, err = run([prog(ctx, "vmm_host"), "plain"], cwd=d, env=traced_env(ctx, os.path.join(d, "final.snap")),
                       timeout=60, log=os.path.join(d, "vmm_host.log"))
    if rc == 3:
        raise Skip(out.strip() or first_error(err))
    if rc != 0:
        raise Fail("vmm_host exited %d under gpuleak: %s" % (rc, first_error(err)))
    r = report_json(ctx, d, "final.snap")
    expect([(l["kind"], l["api"], l["bytes"], l["device"], fn(l["frames"][0]), l["frames"][0]["line"])
            for l in r["leaks"]],
           [("host-pinned", "cuMemCreate", 4 * MiB, -1, "leak_numa", site_line(src, "NUMA-SITE")),
            ("host-pinned", "cuMemCreate", 2 * MiB, -1, "leak_host", site_line(src, "HOST-SITE"))], "leaks at exit")
    expect(r["invalid_frees"]["count"], 0, "every release matched")
    expect(sorted((x["device"], x["alloc_count"], x["free_count"], x["live_bytes"]) for x in r["devices"]),
           [(-1, 3, 1, 6 * MiB), (0, 1, 1, 0)], "host and device 0 counters")
    return "6 MiB host-pinned (HOST 2 MiB + HOST_NUMA 4 MiB) leaked on the host; device 0: 1 made, 1 freed"


def check_managed_pool(ctx):
    """tests/t_managed_pool.sh on the real driver.  A driver without managed
    pools (before 13.0): SKIP."""
    src = os.path.join(PROGRAMS, "managed_pool.c")
    d = check_dir(ctx, "managed-pool")
    rc, out, err = run([prog(ctx, "managed_pool")], cwd=d, env=traced_env(ctx, os.path.join(d, "final.snap")),
                       timeout=60, log=os.path.join(d, "managed_pool.log"))
    if rc == 3:
        raise Skip(out.strip() or first_error(err))
    if rc != 0:
        raise Fail("managed_pool exited %d under gpuleak: %s" % (rc, first_error(err)))
    r = report_json(ctx, d, "final.snap")
    expect(len([l for l in r["leaks"] if l["kind"] == "mempool"]), 3, "the 3 pools never destroyed")
    expect(sorted((l["kind"], l["api"], l["bytes"], l["device"], fn(l["frames"][0]), l["frames"][0]["line"])
                  for l in r["leaks"] if l["kind"] != "mempool"),
           [("managed", "cuMemAllocFromPoolAsync", 3 * MiB, 0, "leak_managed", site_line(src, "MANAGED-SITE")),
            ("managed", "cuMemAllocFromPoolAsync", 5 * MiB, 0, "leak_default_managed", site_line(src, "DEFAULT-SITE")),
            ("managed", "cuMemAllocFromPoolAsync", 6 * MiB, 0, "leak_current_managed", site_line(src, "CURRENT-SITE")),
            ("managed", "cudaMallocFromPoolAsync", 4 * MiB, 0, "rt_leak_managed", site_line(src, "RT-SITE")),
            ("pool", "cuMemAllocFromPoolAsync", 1 * MiB, 0, "leak_pool", site_line(src, "POOL-SITE"))], "leaks")
    expect(r["invalid_frees"]["count"], 0, "the managed pool's free matched")
    return ("18 MiB managed (created 3 MiB + runtime 4 MiB + 13.0 default 5 MiB + current 6 MiB) from managed pools, "
            "1 MiB pool from a pinned pool")


def check_pool_owner(ctx):
    """tests/t_pool_owner.sh on the real driver; the kept pool's reserve is
    the driver's own (at least the 4 MiB block it keeps), the unused one's 0."""
    src = os.path.join(PROGRAMS, "pool_owner.c")
    d = check_dir(ctx, "pool-owner")
    run_traced(ctx, d, "pool_owner", prog(ctx, "pool_owner"), [], os.path.join(d, "final.snap"))
    r = report_json(ctx, d, "final.snap")
    got = [(l["kind"], l["api"], l["device"], fn(l["frames"][0]), l["frames"][0]["line"]) for l in r["leaks"]]
    expect(sorted(got), sorted([("mempool", "cuMemPoolCreate", 0, "leak_pool_object", site_line(src, "POOL-SITE")),
                                ("mempool", "cuMemPoolCreate", 0, "rt_leak_pool_object", site_line(src, "RT-SITE")),
                                ("mempool", "cuMemPoolCreate", 0, "leak_pool_and_block", site_line(src, "POOL2-SITE")),
                                ("pool", "cuMemAllocFromPoolAsync", 0, "leak_pool_and_block",
                                 site_line(src, "BLOCK-SITE"))]),
           "pools never destroyed, and the block leaked from one")
    reserve = {(l["kind"], fn(l["frames"][0])): l["bytes"] for l in r["leaks"]}
    if reserve[("mempool", "leak_pool_object")] < 4 * MiB or reserve[("mempool", "rt_leak_pool_object")] != 0:
        raise Fail("reserves %r: expected >= 4 MiB kept, 0 unused" % reserve)
    expect(reserve[("pool", "leak_pool_and_block")], MiB, "the block leaked from a pool")
    # The pool's own leak is its idle reserve: what the driver reserves for
    # it beyond what its live block uses (POOLS), never the block again.
    every = [p for dev in r["fragmentation"]["devices"] for p in dev["pools"]]
    pools = [p for p in every if not p["graph"] and p["used_bytes"] == MiB]
    if len(pools) != 1:
        raise Fail("POOLS: no single pool with the live 1 MiB block: %r" % every)
    expect(reserve[("mempool", "leak_pool_and_block")], pools[0]["reserved_bytes"] - MiB,
           "the second pool's idle reserve")
    expect(r["invalid_frees"]["count"], 0, "the destroyed pool's destroy matched")
    return "3 pools never destroyed at their lines, reserve %s B kept / 0 unused / %s B idle beside a 1 MiB leak" % (
        fmt(reserve[("mempool", "leak_pool_object")]), fmt(reserve[("mempool", "leak_pool_and_block")]))


def module_load_report(ctx, name):
    """module_load.c real under gpuleak with eager loading, in its own
    directory: its output (what it measured) and the final report."""
    d = check_dir(ctx, name)
    env = traced_env(ctx, os.path.join(d, "final.snap"), extra={"CUDA_MODULE_LOADING": "EAGER"})
    rc, out, err = run([prog(ctx, "module_load"), "real"], cwd=d, env=env, timeout=90,
                       log=os.path.join(d, "module_load.log"))
    if rc != 0:
        raise Fail("module_load real exited %d under gpuleak: %s" % (rc, first_error(err)))
    return out, report_json(ctx, d, "final.snap")


def check_module(ctx):
    """tests/t_modules.sh on the real driver: what each kept load took is
    measured around it by gpuleak as by the program itself (eager loading, so
    the load takes its memory at once), at the load's line, under
    cuda_modules and never as a leak."""
    src = os.path.join(PROGRAMS, "module_load.c")
    out, r = module_load_report(ctx, "module")
    drops = dict((k, int(v)) for k, v in (line.split() for line in out.splitlines() if line.strip()))
    got = sorted((g["api"], g["bytes"], fn(g["frames"][0]), g["frames"][0]["line"])
                 for g in r["cuda_modules"]["groups"])
    expect(got, sorted([("cuModuleLoadData", drops["module"], "load_ptx", site_line(src, "MOD-SITE")),
                        ("cuLibraryLoadData", drops["library"], "load_library", site_line(src, "LIB-SITE"))]),
           "the loads kept, with the driver's drop across each")
    expect([(l["kind"], l["bytes"]) for l in r["leaks"]], [("device", MiB)], "the one leak")
    expect(r["invalid_frees"]["count"], 0, "no unload without its load")
    expect(r["teardown_leaks"]["count"], 0, "the destroyed context's module is no teardown leak")
    return "module %s B, library %s B (eager loading)" % (fmt(drops["module"]), fmt(drops["library"]))


def check_ledger(ctx):
    """The LEDGER on the real driver (issue 23): the device's used memory split
    into what gpuleak explains and a remainder, stated; the context's cost was
    measured when the runtime created it.  The remainder is what nothing
    explains: the driver's rounding of allocations, kernels loaded lazily,
    other processes since the context was made."""
    _, r = module_load_report(ctx, "ledger")
    ledgers = r.get("ledger") or []
    if not ledgers:
        raise Fail("no ledger in the report (no driver's view at exit?)")
    l0 = ledgers[0]
    if not l0["context"]["measured"]:
        raise Fail("device %d: the context was not measured at its creation" % l0["device"])
    rows = "used %s B = live %s + pools %s + graph pool %s + modules %s + context %s + unexplained %s (%.2f%%)" % (
        fmt(l0["used_bytes"]), fmt(l0["live_bytes"]), fmt(l0["pool_reserve_idle_bytes"]),
        fmt(l0["graph_pool_reserve_idle_bytes"]), fmt(l0["modules_bytes"]),
        fmt(l0["context"]["used_at_create_bytes"]), fmt(l0["unexplained_bytes"]), l0["unexplained_pct"])
    if abs(l0["unexplained_pct"]) >= 5:
        raise Fail("device %d: %s: the remainder is not under 5%%" % (l0["device"], rows))
    return "device %d: %s" % (l0["device"], rows)


def check_ipc(ctx):
    """tests/t_ipc.sh's core on the real driver, as torch.multiprocessing
    shares CUDA tensors: the exporter sends three IPC handles and a pool
    pointer to a forked importer, which maps all four and exits with one
    open.  driver-reset: the importer resets its context before freeing the
    pool pointer, which (pools belong to no context) must still be valid."""
    src = os.path.join(PROGRAMS, "ipc_share.c")
    notes = []
    for how in ("runtime", "driver", "driver-reset"):
        d = check_dir(ctx, "ipc-" + how)
        out = run_traced(ctx, d, how, prog(ctx, "ipc_share"), [how], os.path.join(d, "gpuleak.%p.%n.snap"))
        pids = dict(l.split()[:2] for l in out.splitlines() if l.split()[:1] in (["exporter"], ["importer"]))
        if set(pids) != {"exporter", "importer"}:
            raise Fail("%s: no exporter/importer pids in its output: %r" % (how, out[-200:]))
        pre = "rt" if how == "runtime" else "cu"
        line = site_line(src, "LEAK-SITE: %s_leak_mapping" % pre)
        open_api = "cudaIpcOpenMemHandle" if how == "runtime" else "cuIpcOpenMemHandle_v2"
        imp = report_json(ctx, d, "gpuleak.%s.1.snap" % pids["importer"])
        expect(imp["leaks"], [], how + ": no leaks of its own")
        got = [(g["bytes"], g["count"], g["kind"], g["api"], fn(g["frames"][0]) if g["frames"] else None,
                g["frames"][0].get("line") if g["frames"] else None) for g in imp["mapped"]["groups"]]
        torn = [(g["bytes"], g["kind"], g["api"], g["teardown"]) for g in imp["teardown_leaks"]["groups"]]
        want = [(3000000, 1, "ipc", open_api, "%s_leak_mapping" % pre, line)]
        if how == "driver-reset":
            expect((got, torn, imp["invalid_frees"]["count"]),
                   ([], [(3000000, "ipc", open_api, "cuDevicePrimaryCtxReset_v2")], 0),
                   how + ": the open mapping went with the context, the pool pointer's free was valid")
        else:
            expect((got, torn), (want, []), how + ": the mapping never closed")
            mid = report_json(ctx, d, "mapped.snap")
            expect(sorted((g["bytes"], fn(g["frames"][0]) if g["frames"] else None) for g in mid["mapped"]["groups"]),
                   [(500000, pre + "_import"), (1000000, pre + "_open"), (2000000, pre + "_open"),
                    (3000000, pre + "_leak_mapping")], how + ": all four mapped mid-run")
        dv = devs(imp)
        expect((dv[0]["peak_bytes"], dv[0]["live_bytes"], dv[0]["unknown_free_count"]), (4000000, 0, 0),
               how + ": importer's device 0 is its own memory")
        exp = report_json(ctx, d, "gpuleak.%s.0.snap" % pids["exporter"])
        expect((exp["leaks"], exp["mapped"]["groups"], devs(exp)[0]["peak_bytes"]), ([], [], 6500000),
               how + ": exporter freed everything, its peak is its memory")
        notes.append(how)
    return ("%s: 3,000,000 B mapping never closed at its line (kind ipc), exporter untouched; after a context reset "
            "the mapping is torn down and the pool pointer's free valid" % "+".join(notes[:2]))


def check_external(ctx):
    """tests/t_external_memory.sh's core on the real driver.  No Vulkan there:
    the imported descriptors come from cuMemCreate handles exported as POSIX
    fds (EXTMEM_SOURCE=vmm).  A driver that refuses that import (the program
    exits 3) makes this a SKIP, not a pass."""
    src = os.path.join(PROGRAMS, "external_mem.c")
    lines = {k: site_line(src, "LEAK-SITE: " + k) for k in ("leak_import", "leak_buffer", "leak_array")}
    names = {"runtime": ("cudaImportExternalMemory", "cudaExternalMemoryGetMappedBuffer",
                         "cudaExternalMemoryGetMappedMipmappedArray"),
             "procaddr": ("cuImportExternalMemory", "cuExternalMemoryGetMappedBuffer",
                          "cuExternalMemoryGetMappedMipmappedArray")}
    for how in ("runtime", "procaddr"):
        d = check_dir(ctx, "external-" + how)
        rc, _, err = run([prog(ctx, "external_mem"), how], cwd=d,
                         env=traced_env(ctx, os.path.join(d, "final.snap"), extra={"EXTMEM_SOURCE": "vmm"}),
                         timeout=90, log=os.path.join(d, how + ".log"))
        if rc == 3:
            raise Skip("the driver refused the import: " + first_error(err))
        if rc != 0:
            raise Fail("%s exited %d under gpuleak: %s" % (how, rc, first_error(err)))
        r = report_json(ctx, d, "final.snap")
        expect(r["leaks"], [], how + ": no leaks of its own (the exported handles were released)")
        got = [(g["bytes"], g["count"], g["kind"], g["api"], fn(g["frames"][1]) if len(g["frames"]) > 1 else None,
                g["frames"][1].get("line") if len(g["frames"]) > 1 else None) for g in r["mapped"]["groups"]]
        imp, buf, arr = names[how]
        expect(got, [(8 * MiB, 1, "external", imp, "leak_import", lines["leak_import"]),
                     (3000000, 1, "external", buf, "leak_buffer", lines["leak_buffer"]),
                     (1310720, 1, "external", arr, "leak_array", lines["leak_array"])],
               how + ": object never destroyed, buffer and array never freed")
        dv = devs(r)
        # Own memory: three exported handles and one cudaMalloc, all gone.
        expect((dv[0]["alloc_count"], dv[0]["free_count"], dv[0]["live_bytes"], dv[0]["unknown_free_count"]),
               (4, 4, 0, 0), how + ": device 0 counters")
        mid = report_json(ctx, d, "mid.snap")
        got = sorted((g["bytes"], fn(g["frames"][1]) if len(g["frames"]) > 1 else None) for g in mid["mapped"]["groups"])
        expect(got, [(MiB, "balanced"), (1310720, "leak_array"), (2 * MiB, "balanced"), (3000000, "leak_buffer"),
                     (8 * MiB, "leak_import")], how + ": mapped mid-run")
    return ("runtime+procaddr: 8 MiB import never destroyed at leak_import:%d, 3,000,000-byte buffer and "
            "1,310,720-byte array never freed; not in device counters" % lines["leak_import"])


def check_bad_free(ctx):
    """tests/t_bad_free.sh's core on the real driver (without the array)."""
    src = os.path.join(PROGRAMS, "bad_free.c")
    line = lambda k: site_line(src, "BAD-FREE: " + k)
    d = check_dir(ctx, "bad-free")
    # With free stacks: the report also says where the double free's address
    # was first freed (the real runtime's cudaFree unwinds like any call).
    rc, out, err = run([prog(ctx, "bad_free")], cwd=d,
                       env=traced_env(ctx, os.path.join(d, "final.snap"),
                                      extra={"BAD_FREE_NO_ARRAY": "1", "GPULEAK_FREE_STACKS": "1"}),
                       timeout=60, log=os.path.join(d, "bad_free.log"))
    if rc != 0:
        raise Fail("bad_free exited %d (a bad free CUDA accepted?): %s" % (rc, first_error(err)))
    r = report_json(ctx, d, "final.snap")
    b = r["invalid_frees"]
    got = [(s["count"], s["refused"], s["api"], fn(s["frames"][0]) if s["frames"] else None,
            s["frames"][0].get("line") if s["frames"] else None) for s in b["sites"]]
    expect(got, [(2, True, "cudaFree", "double_free", line("double_free")),
                 (1, True, "cudaFree", "interior_free", line("interior_free")),
                 (1, True, "cuMemFree_v2", "bogus_driver_free", line("bogus_driver_free")),
                 (1, True, "cudaFreeHost", "host_double_free", line("host_double_free"))], "invalid free sites")
    addr = [l.split()[1] for l in out.splitlines() if l.startswith("double ")]
    expect(hex(b["sites"][0]["first_ptr"]) if b["sites"] else None, addr[0] if addr else None, "the double free's address")
    expect(r["leaks"], [], "no leaks")
    prev = b["sites"][0].get("previous_free") if b["sites"] else None
    expect((prev["bytes"], fn(prev["frames"][0]), prev["frames"][0].get("line")) if prev else None,
           (1000, "double_free", site_line(src, "ALLOC-SITE: double_free")), "the double free's earlier free")
    fs = prev.get("free_stack") if prev else None
    expect((fn(fs["frames"][0]), fs["frames"][0].get("line")) if fs and fs["frames"] else None,
           ("double_free", site_line(src, "FIRST-FREE: double_free")), "where it was first freed")
    return ("5 bad frees at 4 sites, all refused by CUDA, each at its line; the double free's allocation and "
            "first free found in the history; no leaks")


def check_async(ctx):
    d = check_dir(ctx, "async")
    run_traced(ctx, d, "leak-async", prog(ctx, "scenarios"), ["leak-async"], os.path.join(d, "a.snap"))
    r = report_json(ctx, d, "a.snap")
    line = site_line(os.path.join(PROGRAMS, "scenarios.c"), "LEAK-SITE: leak_async")
    expect(len(r["leaks"]), 1, "leak groups")
    l = r["leaks"][0]
    expect((l["bytes"], l["count"], l["kind"], l["device"], l["api"]), (196608, 3, "pool", 0, "cudaMallocAsync"), "leak")
    expect(frame_str(l["frames"][0]), "leak_async scenarios.c:%d" % line, "top frame")
    return "3 x 65,536 B pool (cudaMallocAsync) at leak_async scenarios.c:%d" % line


def check_peak(ctx):
    d = check_dir(ctx, "peak")
    run_traced(ctx, d, "peak", prog(ctx, "scenarios"), ["peak"], os.path.join(d, "p.snap"))
    r = report_json(ctx, d, "p.snap")
    src = os.path.join(PROGRAMS, "scenarios.c")
    la, lb = site_line(src, "PEAK-SITE: peak_a"), site_line(src, "PEAK-SITE: peak_b")
    dev = devs(r)[0]
    expect(dev["peak_bytes"], 6 * MiB, "peak bytes")
    expect(dev["live_bytes"], 0, "live at exit")
    comp = [(c["bytes"], c["count"], frame_str(c["frames"][0])) for c in dev["peak_composition"]]
    expect(comp, [(4 * MiB, 1, "peak_a scenarios.c:%d" % la), (2 * MiB, 2, "peak_b scenarios.c:%d" % lb)],
           "peak composition")
    expect(r["leaks"], [], "leaks")
    return "peak 6 MiB = 4 MiB peak_a + 2 x 1 MiB peak_b; no leaks"


def check_cublas_workspace(ctx):
    """What cuBLAS allocates itself when the program sets no workspace: on
    fakecuda, its stand-in's documented policy (one default workspace per
    (handle, stream) at its first work, stream-ordered, 32 MiB from compute
    capability 9, else 8 MiB + 128 KiB); on a GPU, whether NVIDIA's cuBLAS
    does the same -- the policy is unverified until this passes there."""
    d = check_dir(ctx, "cublas-workspace")
    out = run_traced(ctx, d, "blas_workspace", prog(ctx, "blas_workspace"), [], os.path.join(d, "w.snap"))
    m = re.search(r"cc_major (\d+)", out)
    if not m:
        raise Fail("blas_workspace printed no compute capability: %r" % out[-200:])
    size = 32 * MiB if int(m.group(1)) >= 9 else (4096 * 2 + 16 * 8) * 1024
    r = report_json(ctx, d, "w.snap")
    # One group per SGEMM's line: each made its stream's workspace.
    groups = [(g["rule"], g["bytes"], g["count"], g["api"]) for g in r["allocator_caches"]["groups"]
              if g["rule"] == "cublas-workspace"]
    expect(groups, [("cublas-workspace", size, 1, "cuMemAllocAsync")] * 2, "cuBLAS's own allocations at exit")
    expect(r["leaks"], [], "leaks")
    return "2 default workspaces of %s B (sm%s0, 2 streams), cuMemAllocAsync, held by cublas-workspace" % (
        fmt(size), m.group(1))


def check_graph(ctx):
    """tests/programs/graph_memory.c (tests/t_graph_memory.sh has the same
    expectations): what the real runtime does underneath -- instantiate and
    launch through the driver's entry points -- is what this checks."""
    d = check_dir(ctx, "graph")
    run_traced(ctx, d, "graph", prog(ctx, "graph_memory"), [], os.path.join(d, "g.snap"))
    r = report_json(ctx, d, "g.snap")
    src = os.path.join(PROGRAMS, "graph_memory.c")
    ll, lg = site_line(src, "LEAK-SITE: graph_leak"), site_line(src, "LEAK-SITE: generic_leak")
    got = [(l["kind"], l["device"], l["api"], l["bytes"], l["count"], frame_str(l["frames"][0]) if l["frames"] else None)
           for l in r["leaks"]]
    # the generic cudaGraphAddNode is caught at the driver: its ABI name is
    # the runtime's choice (cuGraphAddNode_v2 from CUDA 12.3 on)
    generic = got[1][2] if len(got) == 2 and got[1][2] in ("cuGraphAddNode", "cuGraphAddNode_v2") else "cuGraphAddNode_v2"
    expect(got, [("graph", 0, "cudaGraphAddMemAllocNode", 655360, 1, "graph_leak graph_memory.c:%d" % ll),
                 ("graph", 0, generic, 393216, 1, "generic_leak graph_memory.c:%d" % lg)], "leak groups")
    dv = devs(r)[0]
    expect((dv["alloc_count"], dv["free_count"], dv["unknown_free_count"]), (12, 10, 0), "allocs/frees/unknown")
    expect(dv["peak_bytes"], 3 * MiB, "peak bytes")
    expect(sorted(fn(c["frames"][0]) for c in dv["peak_composition"]),
           ["capture_alloc", "generic_leak", "graph_leak"], "peak composition")
    # the graph memory pool in the driver's view: the live 1 MiB used; its
    # reserve is the driver's own (at least that)
    gp = [p for x in r["fragmentation"]["devices"] if x["device"] == 0 for p in x["pools"] if p["graph"]]
    expect([p["used_bytes"] for p in gp], [MiB], "graph memory pool used")
    if gp[0]["reserved_bytes"] < MiB:
        raise Fail("graph memory pool reserve %d below its used 1 MiB" % gp[0]["reserved_bytes"])
    return ("leaks 640 KiB graph_leak:%d + 384 KiB generic_leak:%d (%s); 12 allocs/10 frees; peak 3 MiB; "
            "graph pool reserve %s B" % (ll, lg, generic, fmt(gp[0]["reserved_bytes"])))


def check_threads(ctx):
    d = check_dir(ctx, "threads")
    run_traced(ctx, d, "churn", prog(ctx, "churn"), ["2", "200"], os.path.join(d, "t.snap"))
    r = report_json(ctx, d, "t.snap")
    got = [(l["kind"], l["api"], l["bytes"] // max(l["count"], 1), user_function(l["frames"], "leak_in_thread"))
           for l in r["leaks"]]
    expect(sorted(set(got)), [("device", "cudaMalloc", 1000, "leak_in_thread")], "leak groups")
    expect((sum(l["count"] for l in r["leaks"]), sum(l["bytes"] for l in r["leaks"])), (3, 3000), "leaked count/bytes")
    dv = devs(r)[0]
    expect((dv["alloc_count"], dv["free_count"], dv["unknown_free_count"]), (403, 400, 0), "allocs/frees/unknown")
    calls = [(c["calls"], c["frees"], c["bytes"], fn(c["frames"][0]) if c["frames"] else None)
             for c in r["allocation_calls"]["sites"]]
    expect(calls, [(400, 400, 200 * (4096 + 4097), "worker"), (3, 0, 3000, "leak_in_thread")],
           "allocation calls per stack")
    return ("2 threads x 200 malloc/free; leaks 1+2 x 1,000 B at leak_in_thread; 403/400 allocs/frees; "
            "allocation calls 400 at worker, 3 at leak_in_thread")


def check_oom(ctx):
    d = check_dir(ctx, "oom")
    out = run_traced(ctx, d, "oom", prog(ctx, "scenarios"), ["oom"], "gpuleak.%p.%n.snap")
    expect(out.strip(), "oom 2", "return code of the 1 PiB cudaMalloc")
    snaps = sorted(glob.glob(os.path.join(d, "gpuleak.*.snap")))
    s0 = [s for s in snaps if s.endswith(".0.snap")]
    s1 = [s for s in snaps if s.endswith(".1.snap")]
    if not s0 or not s1:
        raise Fail("expected an OOM snapshot (.0) and a final one (.1): %s" % [os.path.basename(s) for s in snaps])
    o = report_json(ctx, d, os.path.basename(s0[0]))
    expect(o["snapshot"]["reason"], "oom", "reason")
    expect([(l["bytes"], l["count"], fn(l["frames"][0])) for l in o["leaks"]], [(MiB, 1, "leak_runtime")], "live at OOM")
    expect(devs(o)[0]["failed_count"], 1, "failed allocations")
    f = report_json(ctx, d, os.path.basename(s1[0]))
    expect((f["snapshot"]["reason"], f["snapshot"]["final"]), ("exit", True), "final snapshot")
    expect([(l["bytes"], l["count"]) for l in f["leaks"]], [(MiB, 1)], "leaks at exit")
    dv = devs(o)[0]
    mem = " (device %s of %s B free)" % (fmt(dv["mem_free"]), fmt(dv["mem_total"])) if dv.get("mem_total") else ""
    # The exit snapshot's driver's view, sampled when exit() began.
    fv = devs(f)[0]
    if not fv.get("mem_total"):
        raise Fail("the exit snapshot has no driver's view (mem_total 0)")
    expect(fv["mem_total"], dv["mem_total"], "device total memory at exit and at the OOM")
    # The OUT OF MEMORY event: what was asked, the live 1 MiB, and what the
    # driver had in use beyond it (CUDA's own context on a GPU to itself).
    ev = o["out_of_memory"]["events"]
    expect([(e["api"], e["requested_bytes"], e["live_bytes"], e["mem_total"]) for e in ev],
           [("cudaMalloc", 1 << 50, MiB, dv["mem_total"])], "the out-of-memory event")
    return ("1 PiB cudaMalloc -> 2 (no crash); OOM snapshot: 1 MiB live at leak_runtime%s; in use beyond it "
            "(CUDA's own): %s B; exit: %s B free" % (mem, fmt(ev[0]["unaccounted_bytes"]), fmt(fv["mem_free"])))


def check_sigusr1(ctx):
    d = check_dir(ctx, "sigusr1")
    exe = prog(ctx, "churn")
    os.makedirs(os.path.join(d, "snaps"))
    env = traced_env(ctx, None, preload=False)
    outf = open(os.path.join(d, "churn.out"), "w")
    p = subprocess.Popen([ctx.launcher, "run", "--output", "snaps/", "--", exe, "2", "50", "8000"],
                         cwd=d, env=env, stdout=outf, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            if "ready" in open(os.path.join(d, "churn.out")).read():
                break
            time.sleep(0.05)
        else:
            raise Fail("churn never became ready (rc %s)" % p.poll())
        rc, out, err = run([ctx.launcher, "snapshot", str(p.pid)], cwd=d, env=env, timeout=40,
                           log=os.path.join(d, "snapshot.log"))
        if rc != 0:
            raise Fail("gpuleak snapshot %d: exit %d: %s" % (p.pid, rc, first_error(err)))
        name = out.strip().splitlines()[-1] if out.strip() else ""
        path = name if os.path.isabs(name) else os.path.join(d, name)
        if not os.path.isfile(path):
            raise Fail("gpuleak snapshot printed %r, which is not a file" % name)
        r = report_json(ctx, d, os.path.relpath(path, d))
        expect(r["snapshot"]["reason"], "signal", "reason")
        expect(r["leak_summary"]["count"], 3, "live allocations mid-run")
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
        outf.close()
    return "`gpuleak snapshot PID` mid-run: reason signal, 3 live allocations (%s)" % os.path.basename(path)


def check_attach(ctx):
    """tests/t_attach.sh's core: a program started without gpuleak, attached
    to through gdb, made to leak, detached (docs/attach.md)."""
    if shutil.which("gdb") is None:
        raise Skip("no gdb (apt install gdb)")
    src = os.path.join(PROGRAMS, "attach_target.c")
    d = check_dir(ctx, "attach")
    os.makedirs(os.path.join(d, "snaps"))
    env = traced_env(ctx, None, preload=False)
    outf = open(os.path.join(d, "target.out"), "w")
    p = subprocess.Popen([prog(ctx, "attach_target")], cwd=d, env=env, stdin=subprocess.PIPE,
                         stdout=outf, stderr=subprocess.STDOUT)

    def wait_for(text, n=1):
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            if open(os.path.join(d, "target.out")).read().count(text) >= n:
                return
            time.sleep(0.05)
        raise Fail("attach_target: no %r (rc %s)" % (text, p.poll()))

    try:
        wait_for("ready\n")
        rc, out, err = run([ctx.launcher, "attach", "--output", "snaps/", str(p.pid)], cwd=d, env=env, timeout=90,
                           log=os.path.join(d, "attach.log"))
        if rc != 0:
            raise Fail("gpuleak attach %d: exit %d: %s" % (p.pid, rc, first_error(err)))
        for cmd in ("rt 1000", "drv 2000", "early 3000", "late 4000", "free-pre"):
            p.stdin.write((cmd + "\n").encode())
            p.stdin.flush()
            wait_for("ok " + cmd.split()[0] + "\n")
        rc, out, err = run([ctx.launcher, "detach", str(p.pid)], cwd=d, env=env, timeout=90,
                           log=os.path.join(d, "detach.log"))
        if rc != 0:
            raise Fail("gpuleak detach %d: exit %d: %s" % (p.pid, rc, first_error(err)))
        snap = out.strip().splitlines()[-1] if out.strip() else ""
        p.stdin.write(b"quit\n")
        p.stdin.flush()
        if p.wait(timeout=30) != 7:
            raise Fail("attach_target exited %s, not 7" % p.returncode)
        r = report_json(ctx, d, os.path.relpath(snap, d))
        got = sorted((l["bytes"], l["api"], frame_str(l["frames"][0])) for l in r["leaks"])
        line = lambda k: site_line(src, k)
        expect(got, [(1000, "cudaMalloc", "leak_rt attach_target.c:%d" % line("LEAK_RT")),
                     (2000, "cuMemAlloc_v2", "leak_drv attach_target.c:%d" % line("LEAK_DRV")),
                     (3000, "cuMemAlloc_v2", "leak_early attach_target.c:%d" % line("LEAK_EARLY")),
                     (4000, "cuMemAlloc_v2", "leak_late attach_target.c:%d" % line("LEAK_LATE"))], "leaks")
        expect(r["devices"][0]["unknown_free_count"], 0, "frees of unknown pointers")
        b = r["ledger"][0]["before_attach"] if r["ledger"] else None
        expect((b["freed_bytes"], b["frees"]) if b else None, (2 << 20, 1), "memory made before the attach, freed")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        outf.close()
    return ("attached through gdb: 4 leaks at their lines (runtime, driver, dlsym before and after), the 2 MiB "
            "made before freed without a bad free; detached")


def check_kernels(ctx):
    d = check_dir(ctx, "kernels")
    out = run_traced(ctx, d, "kernels", prog(ctx, "kernels"), [], os.path.join(d, "k.snap"))
    if "ok" not in out:
        raise Fail("kernels did not print ok")
    r = report_json(ctx, d, "k.snap")
    got = [(l["kind"], l["device"], l["api"], l["bytes"], l["count"], user_function(l["frames"]))
           for l in r["leaks"] if l["kind"] != "mempool"]
    # the created pool is never destroyed: a leak of its own, its size the
    # driver's reserve for it, at least its live allocation
    pools = [(l["device"], l["api"], l["count"]) for l in r["leaks"] if l["kind"] == "mempool"]
    expect(pools, [(0, "cuMemPoolCreate", 1)], "the created pool, never destroyed")
    if [l["bytes"] for l in r["leaks"] if l["kind"] == "mempool"][0] < MiB + 512:
        raise Fail("the created pool's reserve is less than its live allocation")
    want = [
        ("device", 0, "cudaMalloc", 2 * MiB + 4096, 1, "leak_kernel_device"),
        ("managed", 0, "cudaMallocManaged", 3 * MiB, 1, "leak_managed_touched"),
        ("pool", 0, "cudaMallocFromPoolAsync", MiB + 512, 1, "leak_from_created_pool"),
        ("pool", 0, "cudaMallocAsync", 512 * 1024, 1, "leak_async"),
        ("host-pinned", -1, "cudaMallocHost", 256 * 1024, 1, "leak_pinned"),
        ("device", 0, "cudaMalloc", 140000, 2, "leak_in_thread"),
    ]
    compare_sets(got, want, "leak groups")
    dv = devs(r)
    expect(dv[0]["unknown_free_count"], 0, "unknown frees")
    return "6 leak groups exact after kernels, created pool, managed/pinned, 2 threads; dev0 peak %s B" % fmt(
        dv[0]["peak_bytes"])


# ------------------------------------------------------------ PyTorch

TRAIN = os.path.join(GPU_DIR, "train_leak.py")
TORCH_MODES = {
    "caching": {},
    "uncached": {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"},
    "async": {"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync"},
    "expandable": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
}


class TorchRuns:
    """Runs the training script once per configuration, on demand, caching
    the results; the torch-* checks read them."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.runs = {}
        self.probe = None

    def available(self):
        if self.probe is None:
            if self.ctx.args.no_torch:
                self.probe = "--no-torch"
            else:
                rc, out, err = run([self.ctx.python, "-c",
                                    "import torch, sys; print(torch.__version__, torch.version.cuda, "
                                    "torch.cuda.is_available())"],
                                   timeout=120, log=os.path.join(self.ctx.out, "torch-probe.log"))
                if rc != 0:
                    self.probe = "torch not importable by %s (%s)" % (self.ctx.python, first_error(err))
                elif not out.strip().endswith("True"):
                    self.probe = "torch %s sees no CUDA device" % out.split()[0]
                else:
                    self.probe = ""
                    self.version = out.strip()
        if self.probe:
            raise Skip(self.probe)

    def get(self, mode, traced=True, memviz=False):
        key = (mode, traced, memviz)
        if key in self.runs:
            r = self.runs[key]
            if isinstance(r, Exception):
                raise r
            return r
        self.available()
        try:
            r = self._run(mode, traced, memviz)
        except (Fail, Skip) as e:
            self.runs[key] = e
            raise
        self.runs[key] = r
        return r

    def _run(self, mode, traced, memviz):
        ctx = self.ctx
        name = "torch-%s%s%s" % ("" if traced else "base-", mode, "-memviz" if memviz else "")
        d = check_dir(ctx, os.path.join("torch", name))
        snaps = os.path.join(d, "snaps")
        os.makedirs(snaps)
        jpath = os.path.join(d, "run.json")
        cmd = [ctx.python, TRAIN, "--steps", str(ctx.args.steps), "--json", jpath]
        if traced:
            cmd += ["--mid-file", os.path.join(d, "mid.json"), "--go-file", os.path.join(d, "go"),
                    "--end-snap", os.path.join(d, "end.snap")]
        if memviz:
            cmd += ["--record-history", "--torch-snap", os.path.join(d, "torch.pickle")]
        env = traced_env(ctx, snaps + "/", preload=traced, extra=TORCH_MODES[mode])
        if ctx.mode == "fake":  # fakecuda is no place for torch
            env["LD_LIBRARY_PATH"] = ctx.deps_dir or ""
        log = open(os.path.join(d, "train.log"), "w")
        log.write("$ %s\n" % " ".join(cmd))
        log.flush()
        ctx.log("torch run %s" % name)
        p = subprocess.Popen(cmd, cwd=d, env=env, stdout=log, stderr=subprocess.STDOUT)
        res = {"dir": d, "name": name, "mid_snap": None, "mid_error": None}
        try:
            deadline = time.time() + 150
            if traced:
                while time.time() < deadline and p.poll() is None and not os.path.exists(os.path.join(d, "mid.json")):
                    time.sleep(0.02)
                if os.path.exists(os.path.join(d, "mid.json")):
                    rc, out, err = run([ctx.launcher, "snapshot", str(p.pid)], cwd=d,
                                       env=traced_env(ctx, None, preload=False), timeout=40,
                                       log=os.path.join(d, "snapshot.log"))
                    if rc == 0 and out.strip():
                        nm = out.strip().splitlines()[-1]
                        res["mid_snap"] = nm if os.path.isabs(nm) else os.path.join(d, nm)
                    else:
                        res["mid_error"] = "gpuleak snapshot exit %d: %s" % (rc, first_error(err))
                    open(os.path.join(d, "go"), "w").close()
            rc = p.wait(timeout=max(5, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise Fail("%s timed out (see %s)" % (name, os.path.relpath(d, ctx.out)))
        finally:
            log.close()
        try:
            res["json"] = json.load(open(jpath))
        except (OSError, ValueError):
            raise Fail("%s exited %d without its JSON (see train.log)" % (name, rc))
        if rc != 0 or "error" in res["json"]:
            raise Fail("%s exited %d: %s" % (name, rc, res["json"].get("error", "?")))
        return res

    def report(self, res, which):
        """Parsed report of the run's 'end', 'mid' or 'exit' snapshot."""
        key = "report_" + which
        if key not in res:
            d = res["dir"]
            if which == "end":
                path = os.path.join(d, "end.snap")
            elif which == "mid":
                if not res["mid_snap"]:
                    raise Fail("no mid-run snapshot: %s" % (res["mid_error"] or "the script never paused"))
                path = res["mid_snap"]
            else:
                cands = [s for s in sorted(glob.glob(os.path.join(d, "snaps", "*.snap")))
                         if s != res["mid_snap"]]
                if not cands:
                    raise Fail("no final snapshot in %s" % os.path.relpath(os.path.join(d, "snaps"), self.ctx.out))
                path = cands[-1]
            res[key] = report_json(self.ctx, os.path.dirname(path), os.path.basename(path), text=which == "end",
                                   whole_stacks=True)
        return res[key]


def is_torch_frames(frames):
    for f in frames:
        if (f.get("module") or "").startswith("libc10_cuda") or "CUDACachingAllocator" in (f.get("function") or ""):
            return True
    return False


def all_groups(r):
    """(where, group) for every live group: leaks, allocator caches, suppressed."""
    out = [("leaks", g) for g in r["leaks"]]
    for key in ("allocator_caches", "suppressed"):
        if isinstance(r.get(key), dict):
            out += [(key, g) for g in r[key].get("groups", [])]
    return out


def torch_live(r, device=0):
    """Live bytes on device in groups made by torch's allocator, and the rest."""
    t = o = 0
    for _, g in all_groups(r):
        if g["device"] != device:
            continue
        if is_torch_frames(g["frames"]):
            t += g["bytes"]
        else:
            o += g["bytes"]
    return t, o


def peak_split(r, device=0):
    dev = devs(r).get(device)
    if not dev:
        raise Fail("no device %d in the report" % device)
    t = sum(c["bytes"] for c in dev["peak_composition"] if is_torch_frames(c["frames"]))
    return dev["peak_bytes"], t


def outside(r):
    """One line on device-0 memory not made by torch's allocator at the peak."""
    dev = devs(r).get(0)
    others = [c for c in dev["peak_composition"] if not is_torch_frames(c["frames"])]
    if not others:
        return ""
    c = others[0]
    where = next((frame_str(f) for f in c["frames"] if f.get("function")), "?")
    return " (+%s B at the peak outside torch's allocator, e.g. %s)" % (fmt(sum(x["bytes"] for x in others)), where)


def has_python_frames(*reports):
    for r in reports:
        for _, g in all_groups(r):
            for f in g["frames"]:
                if (f.get("file") or "").endswith(".py"):
                    return True
    return False


def leak_groups(res, r):
    """Groups holding the per-step leak: allocations of exactly LEAK_BYTES."""
    each = res["json"]["leak_bytes_each"]
    return [(w, g) for w, g in all_groups(r)
            if g["device"] == 0 and g["count"] and g["bytes"] == g["count"] * each]


def check_leak(res, r, what):
    j = res["json"]
    groups = leak_groups(res, r)
    count = sum(g["count"] for _, g in groups)
    nbytes = sum(g["bytes"] for _, g in groups)
    expect((count, nbytes), (j["kept"], j["kept_bytes"]), what + ": leaked allocations of %d B (count, bytes)"
           % j["leak_bytes_each"])
    where = sorted(set(w for w, _ in groups))
    if where != ["leaks"]:
        raise Fail("%s: the leak (%d x %s B) is reported under %s, not as a leak" % (
            what, count, fmt(j["leak_bytes_each"]), "+".join(where)))
    line = site_line(TRAIN, "LEAK-SITE")
    if has_python_frames(r):
        for _, g in groups:
            if not any(os.path.basename(f.get("file") or "") == "train_leak.py" and f.get("line") == line
                       for f in g["frames"]):
                raise Fail("%s: leak group without train_leak.py:%d: %s" % (
                    what, line, [frame_str(f) for f in g["frames"][:6]]))
        loc = "at train_leak.py:%d" % line
    else:
        g = groups[0][1]
        named = [fn(f) for f in g["frames"] if f.get("function") and not re.match(
            r"lib(c10_cuda|cudart|cuda|gpuleak)\b", f.get("module") or "")]
        loc = "native stack (no Python frames yet): %s" % " < ".join(named[:3] or ["?"])
    return "leak %d x %s B %s, api %s" % (count, fmt(j["leak_bytes_each"]), loc, groups[0][1]["api"])


def within_rounding(gl, torch_bytes):
    return 0 <= torch_bytes - gl < ROUNDING_SLACK


def check_torch_segments(ctx, tr, mode):
    res = tr.get(mode)
    r = tr.report(res, "end")
    c = res["json"]["end"]["counters"]
    peak, tpeak = peak_split(r)
    want = c["max_reserved"]
    if peak == want:
        how = "gpuleak peak %s B == max_memory_reserved" % fmt(peak)
    elif tpeak == want:
        how = "torch's part of the gpuleak peak %s B == max_memory_reserved%s" % (fmt(tpeak), outside(r))
    else:
        raise Fail("gpuleak peak %s B (torch's allocator: %s B) != max_memory_reserved %s B%s" % (
            fmt(peak), fmt(tpeak), fmt(want), outside(r)))
    tl, other = torch_live(r)
    expect(tl, c["reserved"], "live bytes from torch's allocator at the end vs memory_reserved")
    return "%s; live %s B == memory_reserved (%d steps, %s)" % (how, fmt(tl), res["json"]["steps"],
                                                                 res["json"].get("allocator_backend"))


def check_torch_uncached(ctx, tr):
    res = tr.get("uncached")
    j = res["json"]
    r = tr.report(res, "end")
    leak = check_leak(res, r, "uncached")
    # torch keeps no counters when caching is off; compare with its counters
    # in the same training run with the caching allocator (same tensors).
    ref = j
    if j["end"]["counters"]["max_allocated"] == 0:
        ref = tr.get("caching")["json"]
        src = "torch's counters of the caching run (torch counts nothing uncached)"
    else:
        src = "torch's counters"
    mid = tr.report(res, "mid")
    live, other = torch_live(mid)
    want_live = ref["mid"]["counters"]["allocated"]
    expect(live, want_live, "live bytes of torch's allocator at step %d vs %s" % (j["mid"]["step"], src))
    peak, tpeak = peak_split(r)
    tmax = ref["end"]["counters"]["max_allocated"]
    if not within_rounding(peak, tmax):
        if not within_rounding(tpeak, tmax):
            raise Fail("peak %s B (torch's allocator: %s B) vs max_memory_allocated %s B (%s): more than rounding "
                       "apart%s" % (fmt(peak), fmt(tpeak), fmt(tmax), src, outside(r)))
        peak = tpeak
    return "%s; live mid %s B == memory_allocated%s; peak %s B vs max_memory_allocated %s B (-%s B rounding); " \
        "ref: %s" % (leak, fmt(live), " (+%s B other)" % fmt(other) if other else "", fmt(peak), fmt(tmax),
                     fmt(tmax - peak), src)


def check_torch_async(ctx, tr):
    res = tr.get("async")
    j = res["json"]
    r = tr.report(res, "end")
    leak = check_leak(res, r, "cudaMallocAsync")
    peak, tpeak = peak_split(r)
    tmax = j["end"]["counters"]["max_allocated"]
    if not within_rounding(peak, tmax):
        if not within_rounding(tpeak, tmax):
            raise Fail("peak %s B (torch's allocator: %s B) vs max_memory_allocated %s B: more than rounding apart%s"
                       % (fmt(peak), fmt(tpeak), fmt(tmax), outside(r)))
        peak = tpeak
    mid = tr.report(res, "mid")
    live, other = torch_live(mid)
    expect(live, j["mid"]["counters"]["allocated"], "live bytes of torch's allocator mid-run vs memory_allocated")
    return "%s; peak %s B vs max_memory_allocated %s B%s; live mid %s B == memory_allocated" % (
        leak, fmt(peak), fmt(tmax), "" if peak == tmax else " (-%s)" % fmt(tmax - peak), fmt(live))


def check_torch_caches(ctx, tr):
    parts = []
    for mode in ("caching", "expandable"):
        res = tr.get(mode)
        r = tr.report(res, "end")
        if not isinstance(r.get("allocator_caches"), dict):
            raise Skip("gpuleak-report has no allocator-cache section (no 'allocator_caches' in --json)")
        cached = sum(g["bytes"] for g in r["allocator_caches"].get("groups", []) if g["device"] == 0)
        leaked = sum(g["bytes"] for g in r["leaks"] if g["device"] == 0 and is_torch_frames(g["frames"]))
        reserved = res["json"]["end"]["counters"]["reserved"]
        if leaked or cached != reserved:
            raise Fail("%s: %s B held by allocator caches, %s B of torch's reported as leaks; memory_reserved %s B" % (
                mode, fmt(cached), fmt(leaked), fmt(reserved)))
        parts.append("%s %s B == memory_reserved" % (mode, fmt(cached)))
        # The pinned block the script let go is kept by torch's caching host
        # allocator: under allocator caches, never a leak.
        pinned = res["json"].get("pinned_bytes")
        host_cached = sum(g["bytes"] for g in r["allocator_caches"].get("groups", [])
                          if g["device"] == -1 and g.get("rule") == "pytorch-caching-host-allocator")
        host_leaked = [g for g in r["leaks"] if g["device"] == -1 and any(
            "HostAllocator" in (f.get("function") or "") for f in g["frames"])]
        if pinned and (host_cached < pinned or host_leaked):
            raise Fail("%s: pinned %s B: %s B under pytorch-caching-host-allocator, %d host leak group(s) from it" % (
                mode, fmt(pinned), fmt(host_cached), len(host_leaked)))
    return "held by allocator caches: " + ", ".join(parts) + "; 0 B of torch's segments as leaks; pinned block cached"


def check_torch_sigusr1(ctx, tr):
    res = tr.get("caching")
    j = res["json"]
    r = tr.report(res, "mid")
    expect(r["snapshot"]["reason"], "signal", "reason")
    tl, other = torch_live(r)
    expect(tl, j["mid"]["counters"]["reserved"], "live bytes of torch's allocator vs memory_reserved at step %d"
           % j["mid"]["step"])
    return "step %d of %d: reason signal, live %s B == memory_reserved%s" % (
        j["mid"]["step"], j["steps"], fmt(tl), "" if not other else " (+%s B other)" % fmt(other))


def check_torch_blocks(ctx, tr):
    """The TORCH record (docs/pytorch.md): asked through a pending call on the
    SIGUSR1 snapshot, on the requesting thread for the end one."""
    res = tr.get("caching")
    j = res["json"]
    line = site_line(TRAIN, "LEAK-SITE")
    parts = []
    for which, key in (("mid", "mid"), ("end", "end")):
        r = tr.report(res, which)
        t = r.get("torch") or {}
        expect(t.get("status"), "answered", which + ": PyTorch's view in the snapshot")
        c = j[key]["counters"]
        expect((t["allocated_bytes"], t["reserved_bytes"]), (c["allocated"], c["reserved"]),
               which + ": PyTorch's (allocated, reserved) in the snapshot vs memory_allocated/memory_reserved")
        kept = sum(x["count"] for g in t["segments"] for x in g["tensors"]
                   if os.path.basename(x.get("file") or "") == "train_leak.py" and x.get("line") == line)
        want = j["mid"]["kept"] if which == "mid" else j["kept"]
        expect(kept, want, which + ": tensors at train_leak.py:%d (the kept ones)" % line)
        parts.append("%s: %s B in %d tensors, %d at the leak line" % (which, fmt(t["allocated_bytes"]),
                                                                    t["tensor_count"], kept))
    return "; ".join(parts)


def check_torch_exit(ctx, tr):
    n = 0
    for mode in TORCH_MODES:
        res = tr.get(mode)
        r = tr.report(res, "exit")
        expect((r["snapshot"]["reason"], r["snapshot"]["final"]), ("exit", True), mode + ": final snapshot")
        # The driver's view, sampled when exit() began: the device's total
        # as torch.cuda.mem_get_info() gave it at the end of the loop.
        dv = devs(r).get(0, {})
        if not dv.get("mem_total") or not dv.get("mem_free"):
            raise Fail("%s: the exit snapshot has no driver's view for device 0" % mode)
        info = res.get("json", {}).get("end", {}).get("mem_get_info")
        if info:
            expect(dv["mem_total"], info[1], mode + ": device total at exit vs torch.cuda.mem_get_info()")
        n += 1
    return "%d runs: final snapshot written at exit, with the driver's view (%s B total)" % (n, fmt(dv["mem_total"]))


def check_torch_overhead(ctx, tr):
    parts = []
    ratio_c = None
    for mode in ("caching", "uncached"):
        base = tr.get(mode, traced=False)["json"]["step_ms_median"]
        gl = tr.get(mode)["json"]["step_ms_median"]
        ratio = gl / base if base else float("inf")
        if mode == "caching":
            ratio_c = ratio
        parts.append("%s %.2fx (%.3f vs %.3f ms/step)" % (mode, ratio, gl, base))
    detail = "median step time with/without gpuleak: " + ", ".join(parts)
    if ratio_c > 1.5:
        raise Fail(detail + "; caching allocator overhead above 1.5x")
    return detail


def check_torch_memviz(ctx, tr):
    tr.available()
    env = dict(os.environ)
    if ctx.deps_dir:
        env["LD_LIBRARY_PATH"] = ctx.deps_dir
    help_text = report_help(ctx)
    if "--torch-snapshot" not in help_text:
        raise Skip("gpuleak-report has no --torch-snapshot")
    rc, out, err = run([ctx.python, "-c", "import torch.cuda._memory_viz"], timeout=120)
    if rc != 0:
        raise Skip("torch.cuda._memory_viz not importable: " + first_error(err))
    res = tr.get("caching", memviz=True)
    d = res["dir"]
    gl_pickle = os.path.join(d, "gpuleak.pickle")
    takes_arg = re.search(r"--torch-snapshot[ =]([A-Z]+)", help_text)
    cmd = [ctx.report] + (["--torch-snapshot", gl_pickle] if takes_arg else
                          ["--torch-snapshot", "--output", gl_pickle]) + [os.path.join(d, "end.snap")]
    rc, out, err = run(cmd, env=env, timeout=120, log=os.path.join(d, "torch-snapshot.log"))
    if rc != 0:
        raise Fail("%s: exit %d: %s" % (" ".join(cmd[1:3]), rc, first_error(err)))
    rc, out, err = run([ctx.python, os.path.join(GPU_DIR, "memviz_compare.py"), gl_pickle,
                        os.path.join(d, "torch.pickle"), str(res["json"]["end"]["counters"]["max_reserved"])],
                       timeout=120, log=os.path.join(d, "memviz_compare.log"))
    if rc != 0:
        raise Fail(first_error(err or out))
    return out.strip().splitlines()[-1] if out.strip() else "ok"


# ------------------------------------------------------------------ plan

# What `gpuleak plan` needs beside the launcher: its own files and fakecuda.
PLAN_FILES = (["libexec/gpuleak/plan/" + f for f in ("gpuleak-plan", "sitecustomize.py", "plan_html.py")]
              + ["fakecuda/" + f for f in ("fakecuda-run", "gpus.tsv", "libcudart.so.13", "libcuda.so.1",
                                           "libcublas.so.13", "libcublasLt.so.13", "libnvidia-ml.so.1",
                                           "libcudnn.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9",
                                           "libcudnn_adv.so.9", "libcudnn_graph.so.9", "libcudnn_heuristic.so.9",
                                           "libcudnn_engines_precompiled.so.9",
                                           "libcudnn_engines_runtime_compiled.so.9")])
PLAN_GPT = os.path.join(PROGRAMS, "plan_gpt.py")
PLAN_STEPS = 3
# issue 44, item 6: how close a plan must come to the card
PLAN_TARGETS = {"reserved": 1.0, "nvml": 5.0}


def pct(plan, card):
    """The plan's difference from the card, in % of the card's figure."""
    if plan is None or card is None or not card:
        return None
    return 100.0 * (plan - card) / card


def plan_compare(card, plan):
    """The side-by-side table of a card's runs (card: {"name", "runs": [{"batch",
    "allocated", "reserved", "nvml_used"}]}) and gpuleak plan's JSON of the
    same batches; returns (lines, misses): misses says each target missed,
    a batch the plan lacks, and a plan's run that failed or ran out of
    memory (each counts against the reserved target)."""
    runs = {r["values"].get("b", r["values"].get("batch")): r for r in plan["runs"]}
    gpu = plan["gpu"]
    lines = ["plan vs card: %s; plan profile %s (%s), context %s MiB (estimate); %d optimizer steps" % (
        card["name"], gpu["profile"], gpu["name"], fmt(gpu["context_bytes"] >> 20), plan["steps"])]
    if card["name"] != gpu["name"]:
        lines.append("  note: the profile's name is not the card's")
    head = "%-6s %15s %15s %8s %15s %15s %8s %15s %15s %8s" % (
        "batch", "alloc card", "alloc plan", "diff", "reserved card", "reserved plan", "diff",
        "NVML used card", "used plan", "diff")
    lines.append(head)
    misses, reserved_ok, nvml_ok = [], True, True
    for c in card["runs"]:
        b = c["batch"]
        p = runs.get(b)
        if p is None:
            misses.append("batch %s: no plan run" % b)
            reserved_ok = False
            continue
        if p.get("oom") or p.get("exit_status"):
            reserved_ok = False
            misses.append("batch %s: the plan's run %s" % (b, "ran out of memory" if p.get("oom") else
                                                           "exited %s" % p.get("exit_status")))
        d_a, d_r, d_u = (pct(p.get("peak_allocated"), c["allocated"]), pct(p.get("peak_reserved"), c["reserved"]),
                         pct(p.get("device_used"), c.get("nvml_used")))
        cell = lambda n: "-" if n is None else fmt(n)
        diff = lambda d: "-" if d is None else "%+.2f%%" % d
        lines.append("%-6s %15s %15s %8s %15s %15s %8s %15s %15s %8s" % (
            b, cell(c["allocated"]), cell(p.get("peak_allocated")), diff(d_a), cell(c["reserved"]),
            cell(p.get("peak_reserved")), diff(d_r), cell(c.get("nvml_used")), cell(p.get("device_used")), diff(d_u)))
        if d_r is None or abs(d_r) > PLAN_TARGETS["reserved"]:
            reserved_ok = False
            misses.append("batch %s: reserved %s" % (b, diff(d_r)))
        if d_u is not None and abs(d_u) > PLAN_TARGETS["nvml"]:
            nvml_ok = False
            misses.append("batch %s: NVML used %s" % (b, diff(d_u)))
    nvml_known = any(c.get("nvml_used") is not None for c in card["runs"])
    lines.append("targets (issue 44, item 6): reserved within %.0f%%: %s; NVML used within %.0f%%: %s" % (
        PLAN_TARGETS["reserved"], "met" if reserved_ok else "MISSED", PLAN_TARGETS["nvml"],
        "not measured (no pynvml, no nvidia-smi)" if not nvml_known else "met" if nvml_ok else "MISSED"))
    return lines, misses


def card_profile(fakecuda_dir, card_name):
    """The gpus.tsv profile whose name is the card's, or None."""
    with open(os.path.join(fakecuda_dir, "gpus.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(cols) >= 2 and cols[1] == card_name:
                return cols[0]
    return None


def on_card(ctx, fc_run, cmd):
    """cmd as it runs on the card: itself, or under fakecuda with the
    --plan-stand-in profile playing the card (no GPU: NOT hardware)."""
    if ctx.args.plan_stand_in:
        return [fc_run, "--gpu", ctx.args.plan_stand_in, "--devices", "1", "--"] + cmd
    return cmd


def card_run(ctx, fc_run, d, batch):
    """plan_gpt.py on the card itself: PyTorch's peaks and NVML's used."""
    cmd = on_card(ctx, fc_run, [ctx.python, PLAN_GPT, "--batch", str(batch), "--steps", str(PLAN_STEPS), "--nvml"])
    rc, out, err = run(cmd, env=traced_env(ctx, None, preload=False), timeout=300,
                       log=os.path.join(d, "card-b%d.log" % batch))
    words = dict((l.split()[0], l.split()[1:]) for l in out.splitlines() if l.split())
    if rc != 0 or "peaks" not in words:
        raise Fail("plan_gpt.py --batch %d on the card: exit %d: %s" % (batch, rc, first_error(err)))
    used = words.get("nvml_used", ["-"])[0]
    return {"batch": batch, "allocated": int(words["peaks"][0]), "reserved": int(words["peaks"][1]),
            "nvml_used": None if used == "-" else int(used)}


def plan_tools(ctx):
    """fakecuda-run beside the build's launcher (gpuleak plan's too)."""
    root = os.path.dirname(os.path.dirname(ctx.launcher))
    fc_run = os.path.join(root, "fakecuda", "fakecuda-run")
    planner = os.path.join(root, "libexec", "gpuleak", "plan", "gpuleak-plan")
    for f in (fc_run, planner):
        if not os.path.exists(f):
            raise Skip("%s is not in the build (--pack it, or make it)" % os.path.relpath(f, root))
    return fc_run


def card_and_profile(ctx, fc_run):
    """The card's name as PyTorch gives it, and the profile of that name."""
    rc, out, err = run(on_card(ctx, fc_run, [ctx.python, "-c", "import torch; print(torch.cuda.get_device_name(0))"]),
                       timeout=120, env=traced_env(ctx, None, preload=False))
    if rc != 0 or not out.strip():
        raise Skip("torch names no CUDA device: %s" % first_error(err))
    name = out.strip().splitlines()[-1]
    profile = card_profile(os.path.dirname(fc_run), name)
    if not profile:
        raise Skip("no fakecuda profile is named %r (tools/fakecuda/gpus.tsv)" % name)
    return name, profile


def plan_run(ctx, fc_run, d, profile, batches):
    """gpuleak plan of the same batches on the card's profile: its JSON."""
    pjson = os.path.join(d, "plan.json")
    cmd = [ctx.launcher, "plan", "--gpu", profile, "--steps", str(PLAN_STEPS), "--json", pjson,
           "--keep", os.path.join(d, "runs"), "--sweep", "b=" + ",".join(map(str, batches)),
           "--", ctx.python, PLAN_GPT, "--batch", "{b}", "--steps", str(PLAN_STEPS)]
    env = traced_env(ctx, None, preload=False)
    env["GPULEAK_FAKECUDA_RUN"] = fc_run
    rc, out, err = run(cmd, env=env, timeout=600, log=os.path.join(d, "plan.log"))
    try:
        return json.load(open(pjson))
    except (OSError, ValueError):
        raise Fail("gpuleak plan exit %d: %s" % (rc, first_error(err)))


def check_plan(ctx):
    if ctx.mode != "hw" and not ctx.args.plan_stand_in:
        raise Skip("compares gpuleak plan with a real card: needs one")
    if ctx.args.no_torch:
        raise Skip("--no-torch")
    fc_run = plan_tools(ctx)
    name, profile = card_and_profile(ctx, fc_run)
    d = check_dir(ctx, "plan")
    batches = [int(b) for b in ctx.args.plan_batches.split(",")]
    card = {"name": name, "runs": [card_run(ctx, fc_run, d, b) for b in batches]}
    if ctx.args.plan_stand_in:
        card["stand_in"] = ctx.args.plan_stand_in
    with open(os.path.join(d, "card.json"), "w") as f:
        json.dump(card, f, indent=1)
    lines, misses = plan_compare(card, plan_run(ctx, fc_run, d, profile, batches))
    if ctx.args.plan_stand_in:
        lines.insert(0, "(--plan-stand-in %s: the card is fakecuda, NOT hardware)" % ctx.args.plan_stand_in)
    with open(os.path.join(d, "compare.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    detail = "%s as %s, batches %s: %s" % (name, profile, ctx.args.plan_batches, lines[-1])
    if misses:
        raise Fail(detail + "; " + "; ".join(misses))
    return detail


def do_plan_compare(card_path, plan_path):
    """--plan-compare CARD.json PLAN.json: the table alone, from given
    figures (for tests, and for runs made by hand)."""
    try:
        lines, misses = plan_compare(json.load(open(card_path)), json.load(open(plan_path)))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("gpu-check: --plan-compare: %s" % e, file=sys.stderr)
        return 2
    print("\n".join(lines))
    for m in misses:
        print("missed: " + m)
    return 1 if misses else 0


# ------------------------------------------------------------------ pack

def do_pack(args):
    src = os.path.abspath(args.build_dir or os.path.join(ROOT, "build"))
    dest = os.path.abspath(args.pack)
    lib, rep, launcher = layout(src)
    for f in (lib, rep, launcher):
        if not os.path.exists(f):
            print("gpu-check: %s missing: run make first (or give --build-dir)" % f, file=sys.stderr)
            return 2
    if os.path.exists(dest):
        shutil.rmtree(dest)
    for sub in ("lib", "bin", "deps", "lib/python", "fakecuda"):
        os.makedirs(os.path.join(dest, sub))
    shutil.copy2(lib, os.path.join(dest, "lib"))
    shutil.copy2(rep, os.path.join(dest, "bin"))
    shutil.copy2(launcher, os.path.join(dest, "bin"))
    tgkill = os.path.join(src, "libexec", "gpuleak", "gpuleak-tgkill")  # for `gpuleak snapshot`
    if os.path.exists(tgkill):
        os.makedirs(os.path.join(dest, "libexec", "gpuleak"))
        shutil.copy2(tgkill, os.path.join(dest, "libexec", "gpuleak"))
    py = os.path.join(src, "lib", "python", "gpuleak_memory.py")
    if os.path.exists(py):
        shutil.copy2(py, os.path.join(dest, "lib", "python"))
    for f in glob.glob(os.path.join(src, "fakecuda", "lib*.so*")):
        shutil.copy2(f, os.path.join(dest, "fakecuda"), follow_symlinks=False)
    for f in PLAN_FILES:  # the plan check's `gpuleak plan`, where the build has it
        if os.path.exists(os.path.join(src, f)) and not os.path.exists(os.path.join(dest, f)):
            os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
            shutil.copy2(os.path.join(src, f), os.path.join(dest, f))
    deps = {}
    for elf in (lib, rep):
        for name, path in ldd_deps(elf):
            deps[name] = path
    for name, path in sorted(deps.items()):
        shutil.copy2(os.path.realpath(path), os.path.join(dest, "deps", name))
    rc, glibc, _ = run(["ldd", "--version"], timeout=10)
    rc, rev, _ = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], timeout=10)
    with open(os.path.join(dest, "MANIFEST"), "w") as f:
        f.write("gpuleak build packed by scripts/gpu-check.sh --pack\nfrom: %s\ngit: %s (plus working tree)\n"
                "host glibc: %s\ndeps: %s\n" % (src, rev.strip(), glibc.splitlines()[0] if glibc else "?",
                                                " ".join(sorted(deps))))
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(dest) for f in fs
               if not os.path.islink(os.path.join(dp, f)))
    print("packed %s -> %s (%.1f MiB): lib/libgpuleak.so bin/gpuleak-report bin/gpuleak deps/{%s}" % (
        src, dest, size / MiB, ",".join(sorted(deps))))
    if size > 60 * MiB:
        print("gpu-check: warning: %.1f MiB is close to the 64 MiB a carry may hold" % (size / MiB), file=sys.stderr)
    return 0


# ------------------------------------------------------------------ main

def parse(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/gpu-check.sh",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Prove gpuleak on a real GPU (or, without one, on fakecuda): real CUDA programs built "
                    "with nvcc and a PyTorch training loop run under gpuleak and every report is checked "
                    "exactly.  Prints one line per check, PASS|FAIL|SKIP, then "
                    "'gpu-check: N passed, N failed, N skipped'.",
        epilog="Checks: " + " ".join(ALL_CHECKS) + "\n\n"
               "On the GPU machine, with a build carried from here:\n"
               "  here:   make && scripts/gpu-check.sh --pack build/gpu-pack\n"
               "  there:  scripts/gpu-check.sh --prebuilt build/gpu-pack\n"
               "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage.")
    m = ap.add_mutually_exclusive_group()
    m.add_argument("--fake", action="store_true", help="run against fakecuda (default when no /dev/nvidia* exists)")
    m.add_argument("--hw", action="store_true", help="require real hardware")
    ap.add_argument("--prebuilt", metavar="DIR", help="use the build packed into DIR by --pack (falls back to make)")
    ap.add_argument("--build-dir", metavar="DIR", help="use an existing make build (lib/, bin/, fakecuda/)")
    ap.add_argument("--no-make", action="store_true", help="never fall back to building with make")
    ap.add_argument("--pack", metavar="DIR", help="copy the build (--build-dir, default build/) and the non-glibc "
                    "libraries it needs into DIR, then exit")
    ap.add_argument("--out", metavar="DIR", help="logs, snapshots, reports (default $OUT, else build/gpu-check/out)")
    ap.add_argument("--only", metavar="LIST", help="comma-separated checks; 'cuda', 'torch' or a prefix ending in '*'")
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch checks")
    ap.add_argument("--steps", type=int, default=200, help="training steps per PyTorch run (default 200)")
    ap.add_argument("--python", metavar="EXE", help="python with torch (default: this python3)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2, help="parallel build jobs")
    ap.add_argument("--budget", type=float, default=330, help="seconds; later checks SKIP once spent (default 330)")
    ap.add_argument("--plan-batches", metavar="B,B,...", default="16,64,128",
                    help="plan_gpt.py's batch sizes in the plan check (default 16,64,128)")
    ap.add_argument("--plan-stand-in", metavar="PROFILE",
                    help="the plan check without a GPU: fakecuda with this card profile plays the card (a test of"
                         " the check, NOT hardware)")
    ap.add_argument("--plan-compare", nargs=2, metavar=("CARD.json", "PLAN.json"),
                    help="print the plan check's table for given figures and exit (1: a target missed)")
    ap.add_argument("--list", action="store_true", help="list the checks and exit")
    ap.add_argument("--dry-run", action="store_true", help="show what would run, run nothing")
    ap.add_argument("--verbose", "-v", action="store_true", help="progress on stderr")
    a = ap.parse_args(argv)
    if a.steps < 4:
        ap.error("--steps must be at least 4")
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    if not re.fullmatch(r"[1-9][0-9]*(,[1-9][0-9]*)*", a.plan_batches):
        ap.error("--plan-batches wants positive integers separated by commas")
    if a.only:
        for w in a.only.split(","):
            w = w.strip()
            if w not in ALL_CHECKS and w not in ("cuda", "torch") and not (
                    w.endswith("*") and any(c.startswith(w[:-1]) for c in ALL_CHECKS)):
                ap.error("--only: unknown check %r (see --list)" % w)
    return a


def main(argv):
    args = parse(argv)
    if args.list:
        for c in ALL_CHECKS:
            print("%-16s %s" % (c, DESCRIPTIONS[c]))
        return 0
    if args.pack:
        return do_pack(args)
    if args.plan_compare:
        return do_plan_compare(*args.plan_compare)
    ctx = Ctx(args)
    ctx.mode = detect_mode(args)
    ctx.nvcc, ctx.cuda_home = find_nvcc()
    ctx.out = os.path.abspath(args.out or os.environ.get("OUT") or os.path.join(CACHE, "out"))
    if args.dry_run:
        print("mode:    %s%s" % (ctx.mode, "" if args.fake or args.hw else " (auto: %s)" % (
            "/dev/nvidia* present" if ctx.mode == "hw" else "no /dev/nvidia*")))
        print("gpuleak: %s" % ("prebuilt " + args.prebuilt if args.prebuilt else
                               "build dir " + args.build_dir if args.build_dir else
                               "make -j%d BUILD=build/gpu-check/make" % args.jobs))
        print("nvcc:    %s" % (ctx.nvcc or "none found"))
        print("python:  %s (steps %d)" % (ctx.python, args.steps))
        print("out:     %s" % ctx.out)
        print("checks:  %s" % " ".join(c for c in ALL_CHECKS if ctx.wanted(c)))
        return 0
    os.makedirs(ctx.out, exist_ok=True)
    open(os.path.join(ctx.out, "gpu-check.log"), "w").close()
    ctx.log("mode %s, nvcc %s, out %s, argv %s" % (ctx.mode, ctx.nvcc, ctx.out, argv))
    if ctx.mode == "hw" and not (glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/nvidiactl")):
        print("gpu-check: --hw: no /dev/nvidia* on this machine", file=sys.stderr)
        return 2

    tr = TorchRuns(ctx)
    checks = [("build", lambda: check_build(ctx)), ("nvcc", lambda: check_nvcc(ctx)),
              ("rt-shared", lambda: check_runtime_kinds(ctx, "shared")),
              ("rt-static", lambda: check_runtime_kinds(ctx, "static")),
              ("reset", lambda: check_reset(ctx)),
              ("ctx-teardown", lambda: check_ctx_teardown(ctx)),
              ("green", lambda: check_green(ctx)),
              ("cross-device", lambda: check_cross_device(ctx)),
              ("drv-direct", lambda: check_driver(ctx, "direct")),
              ("drv-dlsym", lambda: check_driver(ctx, "dlsym")),
              ("drv-procaddr", lambda: check_driver(ctx, "procaddr")),
              ("drv-entry", lambda: check_driver(ctx, "entry")),
              ("vmm", lambda: check_vmm(ctx)),
              ("vmm-import", lambda: check_vmm_import(ctx)), ("multicast", lambda: check_multicast(ctx)),
              ("vmm-host", lambda: check_vmm_host(ctx)),
              ("managed-pool", lambda: check_managed_pool(ctx)),
              ("pool-owner", lambda: check_pool_owner(ctx)),
              ("module", lambda: check_module(ctx)),
              ("ledger", lambda: check_ledger(ctx)),
              ("ipc", lambda: check_ipc(ctx)),
              ("external", lambda: check_external(ctx)),
              ("bad-free", lambda: check_bad_free(ctx)),
              ("async", lambda: check_async(ctx)),
              ("peak", lambda: check_peak(ctx)), ("threads", lambda: check_threads(ctx)),
              ("oom", lambda: check_oom(ctx)), ("sigusr1", lambda: check_sigusr1(ctx)),
              ("attach", lambda: check_attach(ctx)),
              ("kernels", lambda: check_kernels(ctx)), ("graph", lambda: check_graph(ctx)),
              ("cublas-workspace", lambda: check_cublas_workspace(ctx)),
              ("torch-caching", lambda: check_torch_segments(ctx, tr, "caching")),
              ("torch-uncached", lambda: check_torch_uncached(ctx, tr)),
              ("torch-async", lambda: check_torch_async(ctx, tr)),
              ("torch-expandable", lambda: check_torch_segments(ctx, tr, "expandable")),
              ("torch-caches", lambda: check_torch_caches(ctx, tr)),
              ("torch-sigusr1", lambda: check_torch_sigusr1(ctx, tr)),
              ("torch-blocks", lambda: check_torch_blocks(ctx, tr)),
              ("torch-exit", lambda: check_torch_exit(ctx, tr)),
              ("torch-overhead", lambda: check_torch_overhead(ctx, tr)),
              ("torch-memviz", lambda: check_torch_memviz(ctx, tr)),
              ("plan", lambda: check_plan(ctx))]
    assert [c[0] for c in checks] == ALL_CHECKS
    have_build = False
    for name, f in checks:
        # build always runs; nvcc whenever a CUDA check does
        if name == "nvcc" and not (ctx.wanted("nvcc") or any(ctx.wanted(c) for c in CUDA_CHECKS)):
            continue
        if name not in ("build", "nvcc") and not ctx.wanted(name):
            continue
        if name not in ("build", "nvcc") and not have_build:
            ctx.add("SKIP", name, "no usable gpuleak build")
            continue
        if name in CUDA_CHECKS and ctx.mode == "fake" and not ctx.fakecuda:
            ctx.add("SKIP", name, "no fakecuda in the build")
            continue
        if ctx.elapsed() > args.budget:
            ctx.add("SKIP", name, "time budget of %.0f s used up" % args.budget)
            continue
        t = time.time()
        ctx.log("start %s" % name)
        try:
            detail = f()
            ctx.add("PASS", name, detail)
            if name == "build":
                have_build = True
        except Skip as e:
            ctx.add("SKIP", name, str(e))
        except Fail as e:
            ctx.add("FAIL", name, str(e))
        except Exception as e:  # a bug here, or an unexpected report: a failure
            import traceback
            ctx.log(traceback.format_exc())
            ctx.add("FAIL", name, "%s: %s" % (type(e).__name__, e))
        ctx.log("end %s (%.1f s)" % (name, time.time() - t))

    npass = sum(1 for s, _, _ in ctx.results if s == "PASS")
    nfail = sum(1 for s, _, _ in ctx.results if s == "FAIL")
    nskip = sum(1 for s, _, _ in ctx.results if s == "SKIP")
    device = ""
    if ctx.mode == "hw":
        rc, out, _ = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], timeout=30)
        device = out.strip().splitlines()[0] if rc == 0 and out.strip() else "GPU"
    lines = ["", "gpu-check on %s: %s, %.0f s, out %s" % (
        os.uname().nodename, "hardware (%s)" % device if ctx.mode == "hw" else "fakecuda (no GPU: NOT hardware)",
        ctx.elapsed(), ctx.out)]
    for s, n, dt in ctx.results:
        lines.append("%-4s  %-16s %s" % (s, n, dt))
    lines.append("gpu-check: %d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(ctx.out, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(ctx.out, "results.json"), "w") as f:
        json.dump({"mode": ctx.mode, "device": device, "seconds": ctx.elapsed(),
                   "results": [{"status": s, "check": n, "detail": dt} for s, n, dt in ctx.results]}, f, indent=1)
    sys.stdout.write(text)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
