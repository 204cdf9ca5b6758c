"""Where a Numba @cuda.jit launch on kiln arrays spends its host time, next
to the same launch on CuPy arrays (benchmarks/run.py's
numba_launch_3arrays_us): cProfile of many launches, the top functions by
own time for each. Run on the GPU machine: python3 tools/profile_numba_launch.py"""
import cProfile
import pstats

import numpy

if not hasattr(numpy, "row_stack"):   # Numba 0.68 still names this alias NumPy 2.5 removed
    numpy.row_stack = numpy.vstack

import kiln
from numba import cuda


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + y[i]


def profile(xp, name, calls=3000):
    a = xp.arange(1024, dtype=xp.float32)
    b, out = a * 2, xp.zeros_like(a)
    add[4, 256](a, b, out)
    cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        add[4, 256](a, b, out)
    prof.disable()
    cuda.synchronize()
    print(f"===== {name}: {calls} launches =====")
    pstats.Stats(prof).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    profile(kiln, "kiln")
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        profile(cupy, "cupy")
