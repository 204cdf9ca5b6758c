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


def protocol_costs(xp, name, calls=20000):
    """Per-call host cost of the protocol entry points Numba reads, timed
    without the profiler (which inflates Python-level functions only)."""
    import timeit
    a = xp.arange(1024, dtype=xp.float32)
    cases = {
        "__dlpack_device__()": lambda: a.__dlpack_device__(),
        "__dlpack__(stream=None)": lambda: a.__dlpack__(stream=None),
        "__dlpack__(stream=-1, max_version=(1, 0))": lambda: a.__dlpack__(stream=-1, max_version=(1, 0)),
        "__dlpack__(stream=1, max_version=(1, 0))": lambda: a.__dlpack__(stream=1, max_version=(1, 0)),
        "__cuda_array_interface__": lambda: a.__cuda_array_interface__,
    }
    for what, f in cases.items():
        best = min(timeit.repeat(f, number=calls, repeat=5)) / calls * 1e6
        print(f"{name:5s} {what:45s} {best:6.3f} us", flush=True)


def alternating_launch_costs(libraries, rounds=4, calls=5000):
    """The benchmark's launch, timed in alternating rounds (kiln, CuPy,
    kiln, ...), to tell a real difference from an order or drift effect."""
    import time
    setups = {}
    for xp, name in libraries:
        a = xp.arange(1024, dtype=xp.float32)
        setups[name] = (a, a * 2, xp.zeros_like(a))
        add[4, 256](*setups[name])
    cuda.synchronize()
    for r in range(rounds):
        for _, name in libraries:
            args = setups[name]
            t0 = time.perf_counter()
            for _ in range(calls):
                add[4, 256](*args)
            cuda.synchronize()
            print(f"round {r} {name:5s} launch {(time.perf_counter() - t0) / calls * 1e6:7.2f} us", flush=True)


def record_kiln_calls():
    """The arguments Numba passes to kiln's protocol methods in one launch."""
    seen, originals = [], {}
    for attr in ("__dlpack__", "__dlpack_device__"):
        original = originals[attr] = getattr(kiln.ndarray, attr)

        def spy(self, *args, _original=original, _attr=attr, **kwargs):
            seen.append((_attr, args, kwargs))
            return _original(self, *args, **kwargs)
        setattr(kiln.ndarray, attr, spy)
    a = kiln.arange(1024, dtype=kiln.float32)
    add[4, 256](a, a, kiln.zeros_like(a))
    cuda.synchronize()
    for attr, original in originals.items():
        setattr(kiln.ndarray, attr, original)
    print("kiln protocol calls in one launch:", *seen, sep="\n  ", flush=True)


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
    try:
        import cupy
    except ImportError:
        cupy = None
    for xp, name in ((kiln, "kiln"), (cupy, "cupy")):
        if xp is not None:
            protocol_costs(xp, name)
    libraries = [(xp, name) for xp, name in ((kiln, "kiln"), (cupy, "cupy")) if xp is not None]
    alternating_launch_costs(libraries)
    alternating_launch_costs(libraries[::-1])
    for xp, name in libraries:
        profile(xp, name)
    record_kiln_calls()
