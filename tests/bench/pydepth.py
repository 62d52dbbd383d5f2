"""The Python workloads of `make bench` run from a stack of a known depth."""


def at_depth(frames, fn, *args):
    """fn(*args), called from `frames` nested frames of this function (at
    least one): the caller adds its own frames below to make the depth."""
    if frames <= 1:
        return fn(*args)
    return at_depth(frames - 1, fn, *args)
