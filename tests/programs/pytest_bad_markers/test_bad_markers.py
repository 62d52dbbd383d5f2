"""Tests with bad gpuleak markers for tests/t_pytest_plugin.sh: each bad one
must fail its own test, with one line naming the marker and its argument,
while the good ones run and are measured."""
import pytest


def test_good_before():
    pass


@pytest.mark.gpu_limit_peak("2 GIG")
def test_peak_bad_unit():
    pass


@pytest.mark.gpu_limit_peak()
def test_peak_no_size():
    pass


@pytest.mark.gpu_limit_leaks(-5)
def test_leaks_negative():
    pass


@pytest.mark.gpu_limit_leaks(0, warmup="two")
def test_leaks_bad_warmup():
    pass


@pytest.mark.gpu_limit_leaks("1 MiBs")
def test_failing_with_bad_marker():
    raise AssertionError("this test's own failure")


@pytest.mark.gpu_limit_peak("1 MiB", "2 MiB")
def test_peak_two_sizes():
    pass


def test_good_after():
    pass
