"""Shared by the attach tests' Python programs (torch_real_attach.py,
torch_real_requests.py): their commands from stdin, one a line."""
import select
import sys


def lines():
    """stdin's lines, waiting in Python (select with a timeout) rather than
    in a blocking read, so that the main thread runs bytecode and can answer
    gpuleak's request for PyTorch's view (docs/pytorch.md)."""
    buf = b""
    while True:
        if not select.select([sys.stdin], [], [], 0.05)[0]:
            continue
        chunk = sys.stdin.buffer.raw.read(4096)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode()
