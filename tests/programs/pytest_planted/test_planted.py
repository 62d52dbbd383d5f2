"""Planted tests for tests/t_pytest_plugin.sh: each one's leaks and peak are
known exactly.  The LEAK-SITE comments name the lines the plugin must report."""
import pytest

from conftest import MiB, gpu_alloc, gpu_free

kept = []
cache = {}


def test_balanced():
    gpu_free(gpu_alloc(4 * MiB))


@pytest.mark.gpu_limit_leaks(0)
def test_leaks_one_mib():
    kept.append(gpu_alloc(MiB))  # LEAK-SITE: one_mib


@pytest.mark.gpu_limit_leaks("1 MiB")
def test_leak_within_limit():
    kept.append(gpu_alloc(MiB))


@pytest.mark.gpu_limit_peak("2M")
def test_peak_over():
    a = gpu_alloc(MiB)
    b = gpu_alloc(2 * MiB)
    gpu_free(b)
    gpu_free(a)


@pytest.mark.gpu_limit_peak("3M")
def test_peak_at_limit():
    a = gpu_alloc(MiB)
    b = gpu_alloc(2 * MiB)
    gpu_free(b)
    gpu_free(a)


def _cached(key):
    if key not in cache:
        cache[key] = gpu_alloc(512 * 1024)  # LEAK-SITE: cached
    return cache[key]


@pytest.mark.gpu_limit_leaks(0, warmup=1)
def test_cache_with_warmup():
    _cached("warm")


@pytest.mark.gpu_limit_leaks(0)
def test_cache_without_warmup():
    _cached("cold")


def test_unmarked_leak():
    kept.append(gpu_alloc(3 * MiB))
