"""Runs numba's own driver-level tests (numba.cuda.tests.cudadrv) and prints
one line per test: its id and outcome (ok, fail, error, skip), sorted, so
two runs (with and without gpuleak) compare line by line."""
import sys
import unittest

import numba_cuda13  # noqa: F401  (CUDA 13 ABIs numba 0.56 predates)

MODULES = ["test_cuda_memory", "test_host_alloc", "test_pinned", "test_managed_alloc",
           "test_deallocations", "test_context_stack", "test_streams", "test_events"]


class Outcomes(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcome = {}

    def addSuccess(self, test):
        self.outcome.setdefault(test.id(), "ok")

    def addFailure(self, test, err):
        self.outcome[test.id()] = "fail"

    def addError(self, test, err):
        self.outcome[test.id()] = "error"

    def addSkip(self, test, reason):
        self.outcome[test.id()] = "skip"


def main():
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        "numba.cuda.tests.cudadrv." + m for m in MODULES)
    result = Outcomes()
    suite.run(result)
    for tid in sorted(result.outcome):
        print(tid.replace("numba.cuda.tests.cudadrv.", ""), result.outcome[tid])
    return 0


if __name__ == "__main__":
    sys.exit(main())
