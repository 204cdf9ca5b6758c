"""Times kiln and CuPy side by side in one process and prints ratios.

    python benchmarks/run.py            # every benchmark
    python benchmarks/run.py empty      # those whose name contains 'empty'

Each benchmark reports a per-call figure for kiln and, when CuPy is importable,
for CuPy, measured in this run; `ratio` is kiln / CuPy (below 1 = kiln faster
for times). Goals come from the issues; absolute figures from different runs
are noise, ratios from one run are evidence.
"""
import statistics
import sys
import time

import numpy

import kiln

try:
    import cupy
except Exception:  # no CuPy (e.g. the host backend on a CPU machine)
    cupy = None

BENCHMARKS = []


def benchmark(name, unit, goal):
    def register(fn):
        BENCHMARKS.append((name, unit, goal, fn))
        return fn
    return register


def per_call_us(fn, calls, repeats=7, sync=None):
    """Median over repeats of wall time per call, in microseconds."""
    for _ in range(calls // 10 + 1):
        fn()
    if sync:
        sync()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


NOOP = r'''
extern "C" __global__ void noop(float* x, float a, int n) {
    if (threadIdx.x == 0 && blockIdx.x == 0 && n < 0) x[0] = a;
}'''


@benchmark("rawkernel_launch_us", "us", "<= 4 (CuPy 14.2 on H100: 7.9)")
def rawkernel_launch():
    calls = 20000 if kiln.get_backend() == "cuda" else 200
    k = kiln.RawKernel(NOOP, "noop")
    x = kiln.zeros(16, dtype=kiln.float32)
    ours = per_call_us(lambda: k((1,), (32,), (x, 1.0, 16)), calls,
                       sync=kiln.cuda.runtime.deviceSynchronize)
    theirs = None
    if cupy is not None:
        ck = cupy.RawKernel(NOOP, "noop")
        cx = cupy.zeros(16, dtype=cupy.float32)
        a = numpy.float32(1.0)
        n = numpy.int32(16)
        theirs = per_call_us(lambda: ck((1,), (32,), (cx, a, n)), calls,
                             sync=cupy.cuda.runtime.deviceSynchronize)
    return ours, theirs


@benchmark("driver_launch_floor_us", "us", "(cuLaunchKernel alone, from C++: no goal)")
def driver_floor():
    calls = 20000 if kiln.get_backend() == "cuda" else 200
    k = kiln.RawKernel(NOOP, "noop")
    x = kiln.zeros(16, dtype=kiln.float32)
    ours = per_call_us(lambda: k._launch_loop((x, 1.0, 16), 100), calls // 100,
                       sync=kiln.cuda.runtime.deviceSynchronize) / 100
    return ours, None


@benchmark("empty_alloc_us", "us", "<= 2 (CuPy 14.2 on H100: 4.5)")
def empty_alloc():
    calls = 50000
    ours = per_call_us(lambda: kiln.empty(1024, dtype=kiln.float32), calls)
    theirs = None
    if cupy is not None:
        theirs = per_call_us(lambda: cupy.empty(1024, dtype=cupy.float32), calls)
    return ours, theirs


def main(argv):
    wanted = argv[1:]
    rows = []
    for name, unit, goal, fn in BENCHMARKS:
        if wanted and not any(w in name for w in wanted):
            continue
        ours, theirs = fn()
        rows.append((name, unit, ours, theirs, goal))
    print("backend: %s   cupy: %s" % (kiln.get_backend(),
                                       cupy.__version__ if cupy is not None else "absent"))
    print("%-24s %12s %12s %8s   %s" % ("benchmark", "kiln", "cupy", "ratio", "goal"))
    for name, unit, ours, theirs, goal in rows:
        ratio = "%.2f" % (ours / theirs) if theirs else "-"
        print("%-24s %9.2f %-2s %9s %-2s %8s   %s" % (
            name, ours, unit, "%.2f" % theirs if theirs else "-", unit if theirs else "", ratio, goal))


if __name__ == "__main__":
    main(sys.argv)
