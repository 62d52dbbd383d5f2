"""Debian 12's numba 0.56 predates CUDA 13.0, which gave two names numba
binds a new ABI: cuCtxGetDevice_v2(device, ctx) and cuCtxSynchronize_v2(ctx)
name the context.  numba looks every driver function up as NAME_v2 first, so
against a CUDA 13 driver (NVIDIA's, and fakecuda's, which exports both as
13.0 does) it would call them with the old arguments and read a stray
register as the context.  Later numba-cuda releases bind these by exact name;
this does the same for 0.56, and nothing else.  Import it before numba.cuda
is used."""
from numba.cuda.cudadrv import driver as _driver

_CUDA13_V2 = frozenset(("cuCtxGetDevice", "cuCtxSynchronize"))
_find_api = _driver.Driver._find_api


def _find_api_pre13(self, fname):
    if fname in _CUDA13_V2:
        return getattr(self.lib, fname)
    return _find_api(self, fname)


_driver.Driver._find_api = _find_api_pre13
