"""kiln.profiler: timing a function on the host and on the device, as
cupyx.profiler.benchmark does.

    from kiln.profiler import benchmark
    r = benchmark(kiln.add, (x, x), n_repeat=100)
    print(r)                       # add : CPU: 5.1 us +/- 0.3 (min: ... / max: ...) us  GPU-0: ...
    r.gpu_times.mean()             # seconds, per device (rows) and run (columns)

The CPU time of a run is the host time of the call; the GPU time is the
time between two events recorded on the current stream around it, so it
counts the device work the call queued (on the host backend, the kernels
it ran). ``profile()`` starts and stops the CUDA profiler around a block
(a no-op on the host backend).
"""
import contextlib
import math
import time

import numpy

from kiln import cuda

__all__ = ["benchmark", "profile"]


class _PerfCaseResult:
    """What benchmark() measured: ``name``, ``cpu_times`` (seconds, one per
    run) and ``gpu_times`` (seconds, one row per device, one column per run)."""

    def __init__(self, name, cpu_times, gpu_times, devices):
        self.name = name
        self._devices = list(devices)
        self.cpu_times = numpy.asarray(cpu_times, dtype=numpy.float64)
        self.gpu_times = numpy.asarray(gpu_times, dtype=numpy.float64).reshape(len(self._devices), -1)

    @staticmethod
    def _line(label, times):
        us = times * 1e6
        return (f"{label}:{us.mean():9.3f} us   +/-{us.std():7.3f} "
                f"(min:{us.min():9.3f} / max:{us.max():9.3f}) us")

    def to_str(self, show_gpu=False):
        parts = [f"{self.name:<20s}:", self._line("    CPU", self.cpu_times)]
        if show_gpu:
            parts += [self._line(f"    GPU-{d}", t) for d, t in zip(self._devices, self.gpu_times)]
        return "".join(parts)

    def __str__(self):
        return self.to_str(show_gpu=True)

    def __repr__(self):
        return f"<_PerfCaseResult {self.name}: {len(self.cpu_times)} runs>"


def benchmark(func, args=(), kwargs={}, n_repeat=10000, *, name=None, n_warmup=10, max_duration=math.inf,
              devices=None):
    """Calls func(*args, **kwargs) n_warmup times, then up to n_repeat times
    (stopping early once the measured runs took max_duration seconds of
    host time), and returns their CPU and GPU times (a _PerfCaseResult).
    `devices`: the device ids whose current streams are timed (default:
    the current device)."""
    if n_repeat < 1:
        raise ValueError(f"n_repeat must be at least 1, got {n_repeat}")
    devices = [cuda.Device().id] if devices is None else [int(d) for d in devices]
    name = name if name is not None else getattr(func, "__name__", repr(func))
    for _ in range(n_warmup):
        func(*args, **kwargs)
    for d in devices:
        cuda.Device(d).synchronize()
    cpu, events = [], []
    total = 0.0
    for _ in range(n_repeat):
        pairs = []
        for d in devices:
            with cuda.Device(d):
                start, end = cuda.Event(), cuda.Event()
                start.record()
                pairs.append((d, start, end))
        t0 = time.perf_counter()
        func(*args, **kwargs)
        t1 = time.perf_counter()
        for d, _, end in pairs:
            with cuda.Device(d):
                end.record()
        cpu.append(t1 - t0)
        events.append(pairs)
        total += t1 - t0
        if total >= max_duration:
            break
    gpu = numpy.empty((len(devices), len(cpu)))
    for run, pairs in enumerate(events):
        for row, (d, start, end) in enumerate(pairs):
            end.synchronize()
            gpu[row, run] = cuda.get_elapsed_time(start, end) / 1e3
    return _PerfCaseResult(name, cpu, gpu, devices)


@contextlib.contextmanager
def profile():
    """Starts the CUDA profiler (cudaProfilerStart) for the block and stops it
    after; on the host backend it does nothing."""
    from kiln import get_backend
    if get_backend() != "cuda":
        yield
        return
    cuda.runtime.profilerStart()
    try:
        yield
    finally:
        cuda.runtime.profilerStop()
