# Issue 35: PyTorch's view in the exit and fatal-signal snapshots, and from
# a main thread busy in C.  argv[1]: "exit" (keep a 4 MiB tensor alive to the
# end, after a forked child exits normally), "segv"/"abrt" (after a requested query, die of that signal), "busy"
# (ask SIGUSR1 while the main thread sleeps 3 s inside libc's sleep()),
# "noinit" (import torch only), "fork" (a child that exits normally),
# "osexit" (os._exit(3) after a signal snapshot).
import ctypes, os, signal, sys, time
import torch

mode = sys.argv[1]
if mode == "noinit":
    print("cuda initialized", torch.cuda.is_initialized(), flush=True)
    sys.exit(0)  # torch imported, CUDA never initialized: nothing to ask
scratch = torch.empty(4096, dtype=torch.uint8, device="cuda")  # torch.cuda initialized
del scratch
kept = torch.empty(4 * 1024 * 1024, dtype=torch.uint8, device="cuda")  # KEPT-LINE
# Let the probe (a pending call) run: a few bytecodes after the allocation.
for _ in range(1000):
    pass
if mode == "exit":
    pid = os.fork()
    if pid == 0:
        sys.exit(0)  # the child's exit: its atexit runs, with no CUDA of its own
    os.waitpid(pid, 0)
    sys.exit(0)
if mode == "osexit":
    os.kill(os.getpid(), signal.SIGUSR1)
    while not any(f.endswith(".0.snap") for f in os.listdir(".")):
        pass
    os._exit(3)  # no atexit: the exit snapshot carries the signal snapshot's view
if mode in ("segv", "abrt"):
    os.kill(os.getpid(), signal.SIGUSR1)  # a signal snapshot: the view it takes is the last one
    while not any(f.endswith(".0.snap") for f in os.listdir(".")):
        pass  # bytecode: the snapshot's pending call runs at once
    time.sleep(1.2)  # the last view is >= 1.2 s old at the crash
    print("before crash", flush=True)
    os.kill(os.getpid(), signal.SIGSEGV if mode == "segv" else signal.SIGABRT)
if mode == "busy":
    libc = ctypes.CDLL(None)
    os.kill(os.getpid(), signal.SIGUSR1)
    libc.sleep(3)  # in C, holding the GIL: no bytecode runs for 3 s
    print("back from C", flush=True)
    time.sleep(1)
