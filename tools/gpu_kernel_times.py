"""Per-kernel GPU times of kiln and CuPy calls, through PyTorch's profiler
(CUPTI sees every kernel of the process, whatever library launched it).
Run on the GPU machine: KILN_BACKEND=cuda python3 tools/gpu_kernel_times.py [case ...]

Prints, for each case, the kernels each library ran per call and their mean
device time: where a call's time goes, for the benchmarks of benchmarks/run.py.
"""
import collections
import sys

import numpy
import torch
from torch.profiler import ProfilerActivity, profile

import kiln

try:
    import cupy
except ImportError:  # pragma: no cover - the GPU machine has it
    cupy = None


def cases():
    rng = numpy.random.default_rng(5)
    # benchmarks/run.py's *_batched_us inputs (Note [Batched primitives])
    spd = rng.standard_normal((4096, 16, 16))
    yield "inv_batched", rng.standard_normal((4096, 8, 8)) + 8 * numpy.eye(8), lambda m, x: m.linalg.inv(x)
    yield "cholesky_batched", spd @ spd.transpose(0, 2, 1) + 16 * numpy.eye(16), lambda m, x: m.linalg.cholesky(x)
    yield "solve_batched", rng.standard_normal((4096, 4, 4)) + 4 * numpy.eye(4), \
        lambda m, x: m.linalg.solve(x, x[..., :1])
    normal = rng.standard_normal(1 << 26, dtype=numpy.float32)
    bits = rng.integers(0, 1 << 32, 1 << 26, dtype=numpy.uint32)
    big = rng.standard_normal(1 << 28, dtype=numpy.float32)
    mat = rng.standard_normal((32768, 8192), dtype=numpy.float32)
    yield "sort_f32_normal", normal, lambda m, x: m.sort(x)
    yield "sort_u32_uniform", bits, lambda m, x: m.sort(x)
    yield "sum_f32", big, lambda m, x: x.sum()
    yield "argmax_f32", big, lambda m, x: m.argmax(x)
    yield "sum_axis1", mat, lambda m, x: x.sum(axis=1)


def kernel_times(fn, calls=3):
    fn()
    torch.cuda.synchronize()
    kiln.cuda.runtime.deviceSynchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        kiln.cuda.runtime.deviceSynchronize()
        torch.cuda.synchronize()
    totals = collections.OrderedDict()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            name = e.name[:70]
            t, c = totals.get(name, (0.0, 0))
            totals[name] = (t + e.device_time_total, c + 1)
    return [(name, t / calls, c / calls) for name, (t, c) in totals.items()]


def main(wanted):
    torch.zeros(1, device="cuda")
    for label, host, fn in cases():
        if wanted and not any(w in label for w in wanted):
            continue
        for lib in (kiln, cupy):
            if lib is None:
                continue
            x = lib.asarray(host)
            rows = kernel_times(lambda: fn(lib, x))
            total = sum(t for _, t, _ in rows)
            print("%s [%s]: %.1f us of kernels a call" % (label, lib.__name__, total))
            for name, t, c in rows:
                print("    %9.1f us  x%-4g %s" % (t, c, name))
            del x
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
