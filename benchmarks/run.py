"""Times kiln and CuPy side by side in one process and prints ratios.

    python benchmarks/run.py            # every benchmark
    python benchmarks/run.py empty      # those whose name contains 'empty'

Each benchmark reports a per-call figure for kiln and, when CuPy is importable,
for CuPy, measured in this run; `ratio` is kiln / CuPy (below 1 = kiln faster
for times in us; above 1 = kiln faster for bandwidths in GB/s). Goals come from the issues; absolute figures from different runs
are noise, ratios from one run are evidence.
"""
import os
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
    return per_call_us_alternating([fn], calls, repeats, sync)[0]


def per_call_us_alternating(fns, calls, repeats=7, sync=None):
    """per_call_us of several functions, their repeats interleaved (a, b, a,
    b, ...): where the machine drifts by more than the difference measured
    (Numba's launches swung 83-166 us between rounds on one H100), each
    function sees the same drift. A list of medians, in the order given."""
    for fn in fns:
        for _ in range(calls // 10 + 1):
            fn()
    if sync:
        sync()
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for fn, out in zip(fns, samples):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            if sync:
                sync()
            out.append((time.perf_counter() - t0) / calls * 1e6)
    return [statistics.median(out) for out in samples]


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


@benchmark("tiny_slice_us", "us", "<= 1.5 (CuPy 3.5)")
def tiny_slice():
    calls = 100000
    x = kiln.zeros(100, dtype=kiln.float32)
    ours = per_call_us(lambda: x[1:50], calls)
    theirs = None
    if cupy is not None:
        cx = cupy.zeros(100, dtype=cupy.float32)
        theirs = per_call_us(lambda: cx[1:50], calls)
    return ours, theirs


def transfer_bytes():
    return (256 << 20) if kiln.get_backend() == "cuda" else (16 << 20)


def gb_per_s(nbytes, fn, repeats=7, sync=None):
    """Median bandwidth over repeats (one warm-up call first)."""
    fn()
    if sync:
        sync()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        samples.append(nbytes / (time.perf_counter() - t0) / 1e9)
    return statistics.median(samples)


@benchmark("asnumpy_256MiB_GBps", "GB/s", ">= CuPy (higher is better)")
def asnumpy_bandwidth():
    n = transfer_bytes() // 4
    host = numpy.random.default_rng(0).random(n, dtype=numpy.float32)
    x = kiln.asarray(host)
    ours = gb_per_s(host.nbytes, lambda: kiln.asnumpy(x))
    theirs = None
    if cupy is not None:
        cx = cupy.asarray(host)
        theirs = gb_per_s(host.nbytes, lambda: cupy.asnumpy(cx))
    return ours, theirs


@benchmark("asnumpy_256MiB_unstaged_GBps", "GB/s", "(kiln without pinned staging: the driver's pageable path)")
def asnumpy_unstaged():
    n = transfer_bytes() // 4
    x = kiln.asarray(numpy.ones(n, numpy.float32))
    previous = kiln._core._set_staging(0, 1 << 23)
    try:
        ours = gb_per_s(x.nbytes, lambda: kiln.asnumpy(x))
    finally:
        kiln._core._set_staging(*previous)
    return ours, None


@benchmark("asarray_256MiB_GBps", "GB/s", ">= CuPy (higher is better)")
def asarray_bandwidth():
    n = transfer_bytes() // 4
    host = numpy.random.default_rng(0).random(n, dtype=numpy.float32)
    ours = gb_per_s(host.nbytes, lambda: kiln.asarray(host), sync=kiln.cuda.runtime.deviceSynchronize)
    theirs = None
    if cupy is not None:
        theirs = gb_per_s(host.nbytes, lambda: cupy.asarray(host), sync=cupy.cuda.runtime.deviceSynchronize)
    return ours, theirs


def astype_elements():
    return (1 << 28) if kiln.get_backend() == "cuda" else (1 << 20)


@benchmark("copy_f32_GBps", "GB/s", "(device copy bandwidth, read + write: astype's yardstick)")
def copy_bandwidth():
    n = astype_elements()
    x = kiln.ones(n, dtype=kiln.float32) if hasattr(kiln, "ones") else kiln.zeros(n, dtype=kiln.float32)
    ours = gb_per_s(2 * 4 * n, lambda: x.copy(), sync=kiln.cuda.runtime.deviceSynchronize)
    theirs = None
    if cupy is not None:
        cx = cupy.ones(n, dtype=cupy.float32)
        theirs = gb_per_s(2 * 4 * n, lambda: cx.copy(), sync=cupy.cuda.runtime.deviceSynchronize)
    return ours, theirs


@benchmark("astype_f32_f16_GBps", "GB/s", ">= 90% of copy_f32_GBps in this run (read 4 + write 2 bytes)")
def astype_bandwidth():
    n = astype_elements()
    x = kiln.zeros(n, dtype=kiln.float32)
    ours = gb_per_s(6 * n, lambda: x.astype(kiln.float16), sync=kiln.cuda.runtime.deviceSynchronize)
    theirs = None
    if cupy is not None:
        cx = cupy.zeros(n, dtype=cupy.float32)
        theirs = gb_per_s(6 * n, lambda: cx.astype(cupy.float16), sync=cupy.cuda.runtime.deviceSynchronize)
    return ours, theirs


def elementwise_elements():
    return (1 << 28) if kiln.get_backend() == "cuda" else (1 << 20)


def sync_kiln():
    kiln.cuda.runtime.deviceSynchronize()


def sync_cupy():
    cupy.cuda.runtime.deviceSynchronize()


@benchmark("add_f32_GBps", "GB/s", ">= 2800 (CuPy 14.2 on H100: 2480; PyTorch 2990; copy 2890)")
def add_bandwidth():
    n = elementwise_elements()
    x, y = kiln.ones(n, dtype=kiln.float32), kiln.ones(n, dtype=kiln.float32)
    ours = gb_per_s(12 * n, lambda: x + y, sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cx, cy = cupy.ones(n, dtype=cupy.float32), cupy.ones(n, dtype=cupy.float32)
        theirs = gb_per_s(12 * n, lambda: cx + cy, sync=sync_cupy)
    return ours, theirs


def softplus(xp):
    def softplus(x):   # named: CuPy's fuse cannot compile a lambda ("Invalid kernel name <lambda>")
        return xp.maximum(0, x) + xp.log1p(xp.exp(-xp.abs(x)))
    return softplus


@benchmark("softplus_fused_GBps", "GB/s", ">= 2500 effective, read 4 + write 4 bytes (CuPy fuse on H100: 1650)")
def softplus_fused():
    n = elementwise_elements()
    x = kiln.asarray(numpy.random.default_rng(1).standard_normal(n, dtype=numpy.float32))
    f = kiln.fuse(softplus(kiln))
    ours = gb_per_s(8 * n, lambda: f(x), sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cf = cupy.fuse(softplus(cupy))
        cx = cupy.asarray(x.get())
        theirs = gb_per_s(8 * n, lambda: cf(cx), sync=sync_cupy)
    return ours, theirs


def row_softmax(xp):
    def softmax(x):
        e = xp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return softmax


def softmax_input():
    """(16384, 4096) float32 on the GPU ((1024, 4096) on the host), for kiln and CuPy."""
    rows = 16384 if kiln.get_backend() == "cuda" else 1024
    x = numpy.random.default_rng(5).standard_normal((rows, 4096), dtype=numpy.float32)
    return kiln.asarray(x), (cupy.asarray(x) if cupy is not None else None)


@benchmark("softmax_fused_GBps", "GB/s", ">= 2500 effective (2 x bytes of x) row softmax of (16384, 4096) float32, "
           "kiln.fuse vs CuPy unfused (H200: kiln unfused 520, CuPy 460)")
def softmax_fused():
    x, cx = softmax_input()
    f = kiln.fuse(row_softmax(kiln))
    if cx is not None:
        numpy.testing.assert_allclose(kiln.asnumpy(f(x)), cupy.asnumpy(row_softmax(cupy)(cx)), rtol=1e-5, atol=1e-7)
    ours = gb_per_s(2 * x.nbytes, lambda: f(x), sync=sync_kiln)
    theirs = gb_per_s(2 * cx.nbytes, lambda: row_softmax(cupy)(cx), sync=sync_cupy) if cx is not None else None
    return ours, theirs


@benchmark("softmax_unfused_GBps", "GB/s", "(the same softmax, kiln and CuPy unfused: what fusing saves)")
def softmax_unfused():
    x, cx = softmax_input()
    ours = gb_per_s(2 * x.nbytes, lambda: row_softmax(kiln)(x), sync=sync_kiln)
    theirs = gb_per_s(2 * cx.nbytes, lambda: row_softmax(cupy)(cx), sync=sync_cupy) if cx is not None else None
    return ours, theirs


BLOCK_SUM_LOOP = r'''
    float acc = 0.0f;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += (long long)gridDim.x * 256) acc += x[i];
'''
CUB_BLOCK_SUM = r'''
#include <cub/block/block_reduce.cuh>
extern "C" __global__ void block_sum(const float* x, float* out, long long n) {
    typedef cub::BlockReduce<float, 256> BlockReduce;
    __shared__ typename BlockReduce::TempStorage storage;
''' + BLOCK_SUM_LOOP + r'''
    const float s = BlockReduce(storage).Sum(acc);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}'''
HAND_BLOCK_SUM = r'''
extern "C" __global__ void block_sum(const float* x, float* out, long long n) {
    __shared__ float warp_sums[8];
''' + BLOCK_SUM_LOOP + r'''
    for (int d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < 8 ? warp_sums[threadIdx.x] : 0.0f;
        for (int d = 4; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
        if (threadIdx.x == 0) out[blockIdx.x] = acc;
    }
}'''
BLOCK_SUM_GRID = 2048


def block_sum_input(xp):
    """2^28 float32 on the GPU (2^20 on the host), the per-block output, the element count."""
    n = 1 << 28 if kiln.get_backend() == "cuda" else 1 << 20
    x = xp.asarray(numpy.random.default_rng(7).random(n, dtype=numpy.float32))
    return x, xp.zeros(BLOCK_SUM_GRID, dtype=numpy.float32), numpy.int64(n)


def block_sum_GBps(xp, launch, x, out, n):
    launch()
    numpy.testing.assert_allclose(float(xp.asnumpy(out).astype(numpy.float64).sum()),
                                  float(xp.asnumpy(x).astype(numpy.float64).sum()), rtol=1e-5)
    return gb_per_s(x.nbytes, launch, sync=sync_kiln if xp is kiln else sync_cupy)


@benchmark("rawkernel_cub_block_sum_GBps", "GB/s", ">= CuPy: a RawKernel summing 2^28 float32 with cub::BlockReduce, "
           "the same source under kiln and CuPy")
def rawkernel_cub_block_sum():
    x, out, n = block_sum_input(kiln)
    k = kiln.RawKernel(CUB_BLOCK_SUM, "block_sum")
    ours = block_sum_GBps(kiln, lambda: k((BLOCK_SUM_GRID,), (256,), (x, out, n)), x, out, n)
    theirs = None
    if cupy is not None:
        cx, cout, _ = block_sum_input(cupy)
        ck = cupy.RawKernel(CUB_BLOCK_SUM, "block_sum")
        theirs = block_sum_GBps(cupy, lambda: ck((BLOCK_SUM_GRID,), (256,), (cx, cout, n)), cx, cout, n)
    return ours, theirs


@benchmark("jit_cub_block_sum_GBps", "GB/s", ">= 0.95 x the hand-written CUDA C++ block sum (the cupy column "
           "here: kiln.RawKernel of warp shuffles + shared memory)")
def jit_cub_block_sum():
    from kiln import jit

    @jit.rawkernel()
    def block_sum(x, out, n):
        BlockReduce = jit.cub.BlockReduce[numpy.float32, 256]
        storage = jit.shared_memory(BlockReduce.TempStorage, 1)
        acc = numpy.float32(0)
        # The grid-stride loop as range(), as cupyx.jit's examples write it. (A `while` over
        # blockIdx.x * 256 + threadIdx.x, a uint32, is not unrolled by NVCC, which must keep its
        # wrap-around: one load in flight a thread, 0.57 x on the H200, as the same loop in CUDA C++.)
        for i in range(jit.blockIdx.x * 256 + jit.threadIdx.x, n, jit.gridDim.x * 256):
            acc += x[i]
        s = BlockReduce(storage[0]).Sum(acc)
        if jit.threadIdx.x == 0:
            out[jit.blockIdx.x] = s

    x, out, n = block_sum_input(kiln)
    ours = block_sum_GBps(kiln, lambda: block_sum((BLOCK_SUM_GRID,), (256,), (x, out, n)), x, out, n)
    hand = kiln.RawKernel(HAND_BLOCK_SUM, "block_sum")
    theirs = block_sum_GBps(kiln, lambda: hand((BLOCK_SUM_GRID,), (256,), (x, out, n)), x, out, n)
    return ours, theirs


@benchmark("tiny_add_us", "us", "<= 5 host time of x + x on one element (CuPy 14.3, PyTorch 11.1)")
def tiny_add():
    calls = 20000 if kiln.get_backend() == "cuda" else 500
    x = kiln.zeros(1, dtype=kiln.float32)
    ours = per_call_us(lambda: x + x, calls, sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cx = cupy.zeros(1, dtype=cupy.float32)
        theirs = per_call_us(lambda: cx + cx, calls, sync=sync_cupy)
    return ours, theirs


@benchmark("tiny_add_out_us", "us", "(x + x into a given out=: tiny_add without the allocation)")
def tiny_add_out():
    calls = 20000 if kiln.get_backend() == "cuda" else 500
    x, y = kiln.zeros(1, dtype=kiln.float32), kiln.zeros(1, dtype=kiln.float32)
    ours = per_call_us(lambda: kiln.add(x, x, out=y), calls, sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cx, cy = cupy.zeros(1, dtype=cupy.float32), cupy.zeros(1, dtype=cupy.float32)
        theirs = per_call_us(lambda: cupy.add(cx, cx, out=cy), calls, sync=sync_cupy)
    return ours, theirs


def reduction_input(shape):
    """float32 data of `shape` (2^28 elements on the GPU, 2^20 on the host) for kiln and CuPy."""
    if kiln.get_backend() != "cuda":
        shape = tuple(max(1, s >> 4) for s in shape) if len(shape) == 2 else (1 << 20,)
    x = numpy.random.default_rng(3).standard_normal(shape, dtype=numpy.float32)
    return kiln.asarray(x), (cupy.asarray(x) if cupy is not None else None)


def reduction_bandwidth(shape, reduce):
    """GB/s of reading the input once, kiln then CuPy, for reduce(xp, x)."""
    x, cx = reduction_input(shape)
    if cx is not None:  # a fast wrong answer is no figure: check against CuPy first
        # sums of up to 32768 standard normals, each ~sqrt(n) in size, rounded
        # in different orders: a few 1e-4 apart where they cancel
        numpy.testing.assert_allclose(kiln.asnumpy(reduce(kiln, x)), cupy.asnumpy(reduce(cupy, cx)),
                                      rtol=1e-4, atol=1e-2)
    ours = gb_per_s(x.nbytes, lambda: reduce(kiln, x), sync=sync_kiln)
    theirs = gb_per_s(cx.nbytes, lambda: reduce(cupy, cx), sync=sync_cupy) if cx is not None else None
    return ours, theirs


@benchmark("sum_f32_GBps", "GB/s", ">= 2800 x.sum() of 2^28 float32 (CuPy 14.2 on H100: 2860)")
def sum_full():
    return reduction_bandwidth((1 << 28,), lambda xp, x: x.sum())


@benchmark("sum_axis0_GBps", "GB/s", ">= 2700 (32768, 8192) float32 .sum(axis=0) (CuPy 1190, PyTorch 2760)")
def sum_columns():
    return reduction_bandwidth((32768, 8192), lambda xp, x: x.sum(axis=0))


@benchmark("sum_axis1_GBps", "GB/s", ">= 2800 (32768, 8192) float32 .sum(axis=1) (CuPy 2910)")
def sum_rows():
    return reduction_bandwidth((32768, 8192), lambda xp, x: x.sum(axis=1))


@benchmark("argmax_f32_GBps", "GB/s", ">= 2700 argmax of 2^28 float32 (CuPy 2670)")
def argmax_full():
    return reduction_bandwidth((1 << 28,), lambda xp, x: xp.argmax(x))


@benchmark("tiny_sum_us", "us", "<= 6 host time of x.sum() on one element (CuPy 17.7, PyTorch 13.0)")
def tiny_sum():
    calls = 20000 if kiln.get_backend() == "cuda" else 500
    x = kiln.zeros(1, dtype=kiln.float32)
    ours = per_call_us(lambda: x.sum(), calls, sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cx = cupy.zeros(1, dtype=cupy.float32)
        theirs = per_call_us(lambda: cx.sum(), calls, sync=sync_cupy)
    return ours, theirs


ADD_LIKE = r'''
extern "C" __global__ void add_like(const float* a, const float* b, float* c, long long n) {
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
}'''


@benchmark("tiny_add_as_rawkernel_us", "us", "(the launch x + x makes, as a RawKernel into a given output: x + x's floor)")
def tiny_add_raw():
    calls = 20000 if kiln.get_backend() == "cuda" else 200
    k = kiln.RawKernel(ADD_LIKE, "add_like")
    x, y = kiln.zeros(1, dtype=kiln.float32), kiln.zeros(1, dtype=kiln.float32)
    ours = per_call_us(lambda: k((1,), (256,), (x, x, y, 1)), calls, sync=sync_kiln)
    return ours, None


def axpy_kernel(xp, constant=1.0):
    return xp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y + %r" % constant, "axpy_bench")


@benchmark("elementwise_warm_call_us", "us", "<= 5 host time of a warm user ElementwiseKernel call (CuPy 13.2)")
def elementwise_warm():
    calls = 20000 if kiln.get_backend() == "cuda" else 500
    x = kiln.zeros(1, dtype=kiln.float32)
    k = axpy_kernel(kiln)
    ours = per_call_us(lambda: k(x, x), calls, sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cx = cupy.zeros(1, dtype=cupy.float32)
        ck = axpy_kernel(cupy)
        theirs = per_call_us(lambda: ck(cx, cx), calls, sync=sync_cupy)
    return ours, theirs


@benchmark("elementwise_cold_compile_s", "s", "<= 0.14 first call of a new ElementwiseKernel, nothing cached (CuPy 0.14)")
def elementwise_cold():
    unique = 1.0 + (time.time_ns() % 1000003) / 1e7   # a source neither cache has seen
    x = kiln.zeros(4, dtype=kiln.float32)
    t0 = time.perf_counter()
    axpy_kernel(kiln, unique)(x, x)
    sync_kiln()
    ours = time.perf_counter() - t0
    theirs = None
    if cupy is not None:
        cx = cupy.zeros(4, dtype=cupy.float32)
        t0 = time.perf_counter()
        axpy_kernel(cupy, unique)(cx, cx)
        sync_cupy()
        theirs = time.perf_counter() - t0
    return ours, theirs


FIRST_ADD = r"""
import sys, time
import numpy
xp = __import__(sys.argv[1])
a = xp.ones(4, dtype=numpy.float32)
xp.cuda.runtime.deviceSynchronize() if hasattr(xp, "cuda") else None
t0 = time.perf_counter()
b = a + a
xp.cuda.runtime.deviceSynchronize() if hasattr(xp, "cuda") else None
print(time.perf_counter() - t0)
"""


def first_add_ms(module, cache_dir):
    import os
    import subprocess
    env = dict(os.environ, KILN_CACHE_DIR=cache_dir, CUPY_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_ADD, module], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1]) * 1e3


@benchmark("first_add_cold_ms", "ms", "a new process's first a + b, empty kernel caches (report)")
def first_add_cold():
    import tempfile
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        return first_add_ms("kiln", d1), (first_add_ms("cupy", d2) if cupy is not None else None)


@benchmark("first_add_warm_ms", "ms", "a new process's first a + b, caches warm: no compiler run")
def first_add_warm():
    import tempfile
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        first_add_ms("kiln", d1)
        ours = first_add_ms("kiln", d1)
        theirs = None
        if cupy is not None:
            first_add_ms("cupy", d2)
            theirs = first_add_ms("cupy", d2)
        return ours, theirs


def indexing_input():
    """x (float32), idx (int64 positions with duplicates) and v: 2^24 elements on the GPU, 2^16 on the
    host, for kiln and CuPy."""
    n = (1 << 24) if kiln.get_backend() == "cuda" else (1 << 16)
    rng = numpy.random.default_rng(5)
    x, idx = rng.standard_normal(n, dtype=numpy.float32), rng.integers(0, n, n)
    v = rng.standard_normal(n, dtype=numpy.float32)
    ours = tuple(kiln.asarray(a) for a in (x, idx, v))
    return ours, (tuple(cupy.asarray(a) for a in (x, idx, v)) if cupy is not None else None)


def indexing_bandwidth(op, **switches):
    """GB/s of op(x, idx, v) counting 4 + 8 + 4 bytes per element, kiln under kiln.config.indexing(**switches),
    CuPy (no such switches: wraps, any duplicate wins) for reference."""
    (x, idx, v), theirs_args = indexing_input()
    with kiln.config.indexing(**switches):
        ours = gb_per_s(16 * x.size, lambda: op(x, idx, v), sync=sync_kiln)
    theirs = gb_per_s(16 * x.size, lambda: op(*theirs_args), sync=sync_cupy) if theirs_args else None
    return ours, theirs


def gather(x, idx, v):
    return x[idx]


def scatter(x, idx, v):
    x[idx] = v


@benchmark("gather_f32_GBps", "GB/s", "x[idx] of 2^24 float32, device int64 idx, default (wrapping)")
def gather_default():
    return indexing_bandwidth(gather)


@benchmark("gather_checked_f32_GBps", "GB/s", "as gather_f32_GBps with kiln.config.check_index_bounds: its cost")
def gather_checked():
    return indexing_bandwidth(gather, check_index_bounds=True)


@benchmark("scatter_f32_GBps", "GB/s", "x[idx] = v of 2^24 float32, device int64 idx, default")
def scatter_default():
    return indexing_bandwidth(scatter)


@benchmark("scatter_checked_f32_GBps", "GB/s", "as scatter_f32_GBps with kiln.config.check_index_bounds: its cost")
def scatter_checked():
    return indexing_bandwidth(scatter, check_index_bounds=True)


@benchmark("scatter_last_wins_f32_GBps", "GB/s", "as scatter_f32_GBps with kiln.config.setitem_last_wins: its cost")
def scatter_last_wins():
    return indexing_bandwidth(scatter, setitem_last_wins=True)


@benchmark("sort_f32_Gkeys", "Gkeys/s", ">= 35 sort of 2^26 float32 (CuPy 14.2 on H100: 35.5, PyTorch 19.0)")
def sort_f32():
    n = (1 << 26) if kiln.get_backend() == "cuda" else (1 << 18)
    host = numpy.random.default_rng(5).standard_normal(n, dtype=numpy.float32)
    x = kiln.asarray(host)
    ours = gb_per_s(n, lambda: kiln.sort(x), sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cx = cupy.asarray(host)
        theirs = gb_per_s(n, lambda: cupy.sort(cx), sync=sync_cupy)
    return ours, theirs


@benchmark("randn_f32_GBps", "GB/s", ">= 2000 (CuPy 14.2: 260) kiln.random.randn(2^28, dtype=float32), bytes written")
def randn_f32():
    n = (1 << 28) if kiln.get_backend() == "cuda" else (1 << 20)
    kiln.random.seed(1)
    ours = gb_per_s(4 * n, lambda: kiln.random.randn(n, dtype=kiln.float32), sync=sync_kiln)
    theirs = None
    if cupy is not None:
        cupy.random.seed(1)
        theirs = gb_per_s(4 * n, lambda: cupy.random.randn(n, dtype=cupy.float32), sync=sync_cupy)
    return ours, theirs


def matmul_tflops(dtype, tol):
    """TFLOP/s (2 n^3 a product) of an n x n x n product, kiln then CuPy,
    after checking kiln's result against CuPy's (a fast wrong answer is no
    figure). n = 8192 on the GPU, 256 on the host backend."""
    n = 8192 if kiln.get_backend() == "cuda" else 256
    rng = numpy.random.default_rng(7)
    ha, hb = (rng.standard_normal((n, n), dtype=numpy.float32).astype(dtype) for _ in range(2))
    a, b = kiln.asarray(ha), kiln.asarray(hb)
    tera = 2.0 * n ** 3 / 1e3   # gb_per_s divides by 1e9: TFLOP/s
    theirs = None
    if cupy is not None:
        ca, cb = cupy.asarray(ha), cupy.asarray(hb)
        numpy.testing.assert_allclose(kiln.asnumpy((a @ b)[:64]).astype(numpy.float32),
                                      cupy.asnumpy((ca @ cb)[:64]).astype(numpy.float32), rtol=tol, atol=tol * n ** 0.5)
        theirs = gb_per_s(tera, lambda: ca @ cb, sync=sync_cupy)
    ours = gb_per_s(tera, lambda: a @ b, sync=sync_kiln)
    return ours, theirs


@benchmark("matmul_f32_TFLOPs", "TFLOP/s", ">= 50 (CuPy 14.2: 50.9) 8192^3 float32 a @ b, no TF32")
def matmul_f32():
    return matmul_tflops(numpy.float32, 1e-4)


@benchmark("matmul_f16_TFLOPs", "TFLOP/s", ">= 720 (CuPy 733) 8192^3 float16 a @ b, float32 accumulation")
def matmul_f16():
    return matmul_tflops(numpy.float16, 1e-2)


@benchmark("fft_c64_ms", "ms", "<= 0.31 (CuPy 0.31) kiln.fft.fft of 2^24 complex64 points, per call")
def fft_c64():
    n = (1 << 24) if kiln.get_backend() == "cuda" else (1 << 16)
    rng = numpy.random.default_rng(9)
    h = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(numpy.complex64)
    x = kiln.asarray(h)
    calls = 200 if kiln.get_backend() == "cuda" else 20
    if cupy is None:
        return per_call_us(lambda: kiln.fft.fft(x), calls, sync=sync_kiln) / 1e3, None
    cx = cupy.asarray(h)   # a fast wrong answer is no figure: check against CuPy first
    ref = cupy.asnumpy(cupy.fft.fft(cx))
    # float32 FFTs of 2^24 points: norm-wise relative errors near 24 * 2^-24 each
    err = numpy.linalg.norm(kiln.asnumpy(kiln.fft.fft(x)) - ref) / numpy.linalg.norm(ref)
    assert err < 1e-5, err

    def sync_both():
        sync_kiln()
        sync_cupy()
    ours, theirs = per_call_us_alternating([lambda: kiln.fft.fft(x), lambda: cupy.fft.fft(cx)], calls,
                                           sync=sync_both)
    return ours / 1e3, theirs / 1e3


@benchmark("small_matmul_us", "us", "< CuPy: host time of a @ b on 16x16 float32")
def small_matmul():
    calls = 20000 if kiln.get_backend() == "cuda" else 300
    h = numpy.random.default_rng(8).standard_normal((16, 16), dtype=numpy.float32)
    a = kiln.asarray(h)
    ours = per_call_us(lambda: a @ a, calls, sync=sync_kiln)
    theirs = None
    if cupy is not None:
        ca = cupy.asarray(h)
        theirs = per_call_us(lambda: ca @ ca, calls, sync=sync_cupy)
    return ours, theirs


def _batched_linalg(make, ours_fn, theirs_fn, check):
    """Per-call microseconds (with a sync) of kiln's and CuPy's batched
    linalg call on inputs make(rng) gives (numpy arrays), after checking
    kiln's result against CuPy's with check(ours, theirs) (a fast wrong
    answer is no figure). The batch is 4096 on the GPU, 64 on the host."""
    batch = 4096 if kiln.get_backend() == "cuda" else 64
    calls = 200 if kiln.get_backend() == "cuda" else 5
    hs = make(numpy.random.default_rng(10), batch)
    ks = [kiln.asarray(h) for h in hs]
    if cupy is None:
        return per_call_us(lambda: ours_fn(*ks), calls, sync=sync_kiln), None
    cs = [cupy.asarray(h) for h in hs]
    check(kiln.asnumpy(ours_fn(*ks)), cupy.asnumpy(theirs_fn(*cs)))

    def sync_both():
        sync_kiln()
        sync_cupy()
    return tuple(per_call_us_alternating([lambda: ours_fn(*ks), lambda: theirs_fn(*cs)], calls, sync=sync_both))


def _spd(rng, batch, n):
    m = rng.standard_normal((batch, n, n))
    return m @ m.transpose(0, 2, 1) + n * numpy.eye(n)


def _allclose(ours, theirs):
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


# Note [Batched primitives] (arraycore/solver.cpp): a stack of small
# matrices goes to cuBLAS's / cuSOLVER's batched routines in one call;
# KILN_SOLVER_BATCHED=0 measures the per-matrix loop instead.
@benchmark("inv_batched_us", "us", "< CuPy: kiln.linalg.inv of a (4096, 8, 8) float64 stack, per call")
def inv_batched():
    return _batched_linalg(lambda rng, b: [rng.standard_normal((b, 8, 8)) + 8 * numpy.eye(8)],
                           kiln.linalg.inv, lambda a: cupy.linalg.inv(a), _allclose)


@benchmark("cholesky_batched_us", "us", "< CuPy: kiln.linalg.cholesky of a (4096, 16, 16) float64 SPD stack")
def cholesky_batched():
    return _batched_linalg(lambda rng, b: [_spd(rng, b, 16)], kiln.linalg.cholesky, lambda a: cupy.linalg.cholesky(a),
                           _allclose)


@benchmark("solve_batched_us", "us", "< CuPy: kiln.linalg.solve of (4096, 4, 4) float64, (4096, 4, 1) right-hand sides")
def solve_batched():
    # The (4096, 4) right-hand sides as (4096, 4, 1): NumPy 2 reads a 2-d b
    # as one matrix, NumPy 1 (and CuPy) as a stack of vectors; this shape
    # means the same to both.
    return _batched_linalg(lambda rng, b: [rng.standard_normal((b, 4, 4)) + 4 * numpy.eye(4),
                                           rng.standard_normal((b, 4, 1))],
                           kiln.linalg.solve, lambda a, b: cupy.linalg.solve(a, b), _allclose)


def _importable(name):
    try:
        return __import__(name)
    except Exception:
        return None


@benchmark("asarray_torch_us", "us", "< CuPy: host cost of kiln.asarray(torch CUDA tensor), zero-copy")
def asarray_torch():
    torch = _importable("torch") if kiln.get_backend() == "cuda" else None
    if torch is None or not torch.cuda.is_available():
        return None
    t = torch.rand((64, 64), device="cuda")
    assert kiln.asarray(t).data.ptr == t.data_ptr()
    ours = per_call_us(lambda: kiln.asarray(t), 20000)
    theirs = per_call_us(lambda: cupy.asarray(t), 20000) if cupy is not None else None
    return ours, theirs


@benchmark("cai_export_us", "us", "< CuPy: reading a.__cuda_array_interface__ (what every consumer does)")
def cai_export():
    if kiln.get_backend() != "cuda":
        return None
    a = kiln.zeros((64, 64), dtype=kiln.float32)
    ours = per_call_us(lambda: a.__cuda_array_interface__, 50000)
    theirs = None
    if cupy is not None:
        c = cupy.zeros((64, 64), dtype=cupy.float32)
        theirs = per_call_us(lambda: c.__cuda_array_interface__, 50000)
    return ours, theirs


@benchmark("numba_launch_3arrays_us", "us", "< CuPy: host cost of a Numba @cuda.jit launch on three arrays")
def numba_launch():
    if not hasattr(numpy, "row_stack"):   # Numba 0.68 still names this alias NumPy 2.5 removed
        numpy.row_stack = numpy.vstack
    numba_cuda = _importable("numba.cuda") if kiln.get_backend() == "cuda" else None
    if numba_cuda is None:
        return None
    from numba import cuda as ncuda

    @ncuda.jit
    def add(x, y, out):
        i = ncuda.grid(1)
        if i < x.shape[0]:
            out[i] = x[i] + y[i]

    def launcher(xp):
        a = xp.arange(1024, dtype=xp.float32)
        b, out = a * 2, xp.zeros_like(a)
        add[4, 256](a, b, out)
        ncuda.synchronize()
        assert float(out[5]) == 15.0
        return lambda: add[4, 256](a, b, out)

    try:
        launchers = [launcher(kiln)]
    except AttributeError as e:  # a Numba older than this NumPy fails in its own compiler
        print(f"(numba_launch_3arrays_us: Numba cannot compile here: {e})", flush=True)
        return None
    if cupy is not None:
        launchers.append(launcher(cupy))
    times = per_call_us_alternating(launchers, 5000, sync=ncuda.synchronize)
    return times[0], (times[1] if cupy is not None else None)


def _cupyx_jit():
    try:
        from cupyx import jit as cjit
        return cjit
    except Exception:
        return None


JIT_STREAM = '''
def stream(x, y, c, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < n:
        y[i] = x[i] * 2 + c
'''


def _jit_kernel(module_jit, name, text):
    """A kernel defined in a real file (both transpilers read the source)."""
    import importlib.util
    import os
    import tempfile
    d = tempfile.mkdtemp(prefix="kiln-bench-jit-")
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.jit = module_jit
    spec.loader.exec_module(mod)
    return module_jit.rawkernel()(getattr(mod, name))


@benchmark("jit_warm_launch_us", "us", "<= 6 (CuPy 14.2's cupyx.jit on H100: 76)")
def jit_warm_launch():
    calls = 20000 if kiln.get_backend() == "cuda" else 2000
    k = _jit_kernel(kiln.jit, "stream", JIT_STREAM)
    x = kiln.zeros(32, dtype=kiln.float32)
    y = kiln.zeros(32, dtype=kiln.float32)
    c = numpy.float32(1.5)
    ours = per_call_us(lambda: k[1, 32](x, y, c, 32), calls, sync=sync_kiln)
    theirs = None
    cjit = _cupyx_jit() if cupy is not None else None
    if cjit is not None:
        ck = _jit_kernel(cjit, "stream", JIT_STREAM)
        cx = cupy.zeros(32, dtype=cupy.float32)
        cy = cupy.zeros(32, dtype=cupy.float32)
        theirs = per_call_us(lambda: ck[1, 32](cx, cy, c, 32), calls, sync=sync_cupy)
    return ours, theirs


JIT_COLD = r"""
import os, sys, time, importlib.util, numpy
t0 = time.perf_counter()
if sys.argv[1] == "kiln":
    import kiln as xp
    from kiln import jit
    sync = xp.cuda.runtime.deviceSynchronize
else:
    import cupy as xp
    from cupyx import jit
    sync = xp.cuda.runtime.deviceSynchronize
x = xp.ones(1024, dtype=xp.float32)
y = xp.zeros(1024, dtype=xp.float32)
sync()
src = os.path.join(sys.argv[2], "cold_kernel.py")
with open(src, "w") as f:
    f.write('''
def cold(x, y, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    s = 0.0
    for k in range(4):
        s += x[(i + k) % n] * k
    if i < n:
        y[i] = s
''')
spec = importlib.util.spec_from_file_location("cold_kernel", src)
mod = importlib.util.module_from_spec(spec)
mod.jit = jit
spec.loader.exec_module(mod)
k = jit.rawkernel()(mod.cold)
t0 = time.perf_counter()
k[4, 256](x, y, numpy.int32(1024))
sync()
print(time.perf_counter() - t0)
"""


def jit_cold_s(module, cache_dir):
    import os
    import subprocess
    env = dict(os.environ, KILN_CACHE_DIR=cache_dir, CUPY_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", JIT_COLD, module, cache_dir], env=env, capture_output=True,
                         text=True)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
        if module != "kiln":  # the yardstick failing leaves kiln's figure standing
            print(f"(jit_cold_compile_s: {module} failed: {last})", flush=True)
            return None
        raise RuntimeError(f"kiln's cold jit process failed: {out.stderr.strip()}")
    return float(out.stdout.split()[-1])


@benchmark("jit_cold_compile_s", "s", "<= 0.4 (CuPy 14.2's cupyx.jit on H100: 1.88): new process, empty caches")
def jit_cold_compile():
    import tempfile
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        ours = jit_cold_s("kiln", d1)
        theirs = jit_cold_s("cupy", d2) if (cupy is not None and _cupyx_jit() is not None) else None
        return ours, theirs


@benchmark("jit_stream_f32_TBps", "TB/s", ">= 2.8 (CuPy 14.2's cupyx.jit on H100: 2.09): y[i] = x[i]*2 + c, 2^28 f32")
def jit_stream():
    n = elementwise_elements()
    threads = 256
    blocks = (n + threads - 1) // threads
    c = numpy.float32(1.5)          # float32 arithmetic, as typed
    k = _jit_kernel(kiln.jit, "stream", JIT_STREAM)
    x = kiln.ones(n, dtype=kiln.float32)
    y = kiln.zeros(n, dtype=kiln.float32)
    k[blocks, threads](x, y, c, n)
    assert float(kiln.asnumpy(y[:1])[0]) == 3.5
    ours = gb_per_s(8 * n, lambda: k[blocks, threads](x, y, c, n), sync=sync_kiln) / 1e3
    theirs = None
    cjit = _cupyx_jit() if cupy is not None else None
    if cjit is not None:
        ck = _jit_kernel(cjit, "stream", JIT_STREAM)
        cx = cupy.ones(n, dtype=cupy.float32)
        cy = cupy.zeros(n, dtype=cupy.float32)
        theirs = gb_per_s(8 * n, lambda: ck[blocks, threads](cx, cy, c, n), sync=sync_cupy) / 1e3
    return ours, theirs


STREAM_CUDA = r'''
extern "C" __global__ void stream_cuda(const float* x, float* y, float c, long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 2.0f + c;
}'''


@benchmark("jit_stream_as_rawkernel_f32_TBps", "TB/s",
           "(jit_stream_f32_TBps's kernel written in CUDA C++ as a RawKernel, same grid: the floor its shape allows)")
def jit_stream_raw():
    n = elementwise_elements()
    threads = 256
    blocks = (n + threads - 1) // threads
    c = numpy.float32(1.5)
    k = kiln.RawKernel(STREAM_CUDA, "stream_cuda")
    x = kiln.ones(n, dtype=kiln.float32)
    y = kiln.zeros(n, dtype=kiln.float32)
    k((blocks,), (threads,), (x, y, c, n))
    assert float(kiln.asnumpy(y[:1])[0]) == 3.5
    ours = gb_per_s(8 * n, lambda: k((blocks,), (threads,), (x, y, c, n)), sync=sync_kiln) / 1e3
    theirs = None
    if cupy is not None:
        ck = cupy.RawKernel(STREAM_CUDA, "stream_cuda")
        cx = cupy.ones(n, dtype=cupy.float32)
        cy = cupy.zeros(n, dtype=cupy.float32)
        theirs = gb_per_s(8 * n, lambda: ck((blocks,), (threads,), (cx, cy, c, n)), sync=sync_cupy) / 1e3
    return ours, theirs


VECTORIZE_FIRST = r"""
import importlib.util, os, sys, time
xp = __import__(sys.argv[1])
x = xp.ones(1024, dtype=xp.float32)
sync = xp.cuda.runtime.deviceSynchronize if hasattr(xp, "cuda") else (lambda: None)
sync()
src = os.path.join(sys.argv[2], "first_vectorize.py")
with open(src, "w") as f:
    f.write('''
def first(v, w):
    s = v
    k = 0
    while k < 3:
        s = s * w + 1 if s < 10 else s - k
        k += 1
    return s
''')
spec = importlib.util.spec_from_file_location("first_vectorize", src)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
t0 = time.perf_counter()
f = xp.vectorize(mod.first)
y = f(x, x)
sync()
print(time.perf_counter() - t0)
"""


def vectorize_first_s(module, cache_dir):
    import os
    import subprocess
    env = dict(os.environ, KILN_CACHE_DIR=cache_dir, CUPY_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", VECTORIZE_FIRST, module, cache_dir], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout.split()[-1])


@benchmark("vectorize_first_call_s", "s", "<= 0.4 (CuPy 14.2 on H100: 1.83): new function, new process, empty caches")
def vectorize_first_call():
    import tempfile
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        ours = vectorize_first_s("kiln", d1)
        theirs = vectorize_first_s("cupy", d2) if cupy is not None else None
        return ours, theirs


def branchy(v):
    return (v * v if v > 0 else v) + 1


@benchmark("vectorize_branchy_f32_TBps", "TB/s",
           ">= 2.7 effective, read 4 + write 4 bytes (CuPy 14.2 on H100: 1.60): (v*v if v > 0 else v) + 1, 2^28 f32")
def vectorize_branchy():
    n = elementwise_elements()
    x = kiln.asarray(numpy.random.default_rng(2).standard_normal(n, dtype=numpy.float32))
    f = kiln.vectorize(branchy)
    y = f(x)
    assert y.dtype == numpy.float32
    ours = gb_per_s(8 * n, lambda: f(x), sync=sync_kiln) / 1e3
    theirs = None
    if cupy is not None:
        cf = cupy.vectorize(branchy)
        cx = cupy.asarray(x.get())
        theirs = gb_per_s(8 * n, lambda: cf(cx), sync=sync_cupy) / 1e3
    return ours, theirs


def _row(name, unit, goal, ours, theirs):
    ratio = "%.2f" % (ours / theirs) if theirs else "-"
    print("%-30s %9.2f %-4s %9s %-4s %8s   %s" % (
        name, ours, unit, "%.2f" % theirs if theirs else "-", unit if theirs else "", ratio, goal), flush=True)


def main(argv):
    """Runs the benchmarks whose names contain one of argv[1:] (all without
    arguments). KILN_BENCH_ROUNDS=N runs the selection N times over (rounds
    spread the machine's swings in time) and ends with each benchmark's
    median over the rounds, kiln's and CuPy's taken separately."""
    wanted = argv[1:]
    rounds = max(1, int(os.environ.get("KILN_BENCH_ROUNDS", "1")))
    print("backend: %s   cupy: %s" % (kiln.get_backend(),
                                       cupy.__version__ if cupy is not None else "absent"))
    print("%-30s %14s %14s %8s   %s" % ("benchmark", "kiln", "cupy", "ratio", "goal"), flush=True)
    seen = {}
    for r in range(rounds):
        if rounds > 1:
            print("-- round %d of %d" % (r + 1, rounds), flush=True)
        for name, unit, goal, fn in BENCHMARKS:
            if wanted and not any(w in name for w in wanted):
                continue
            try:
                result = fn()
            except Exception as e:  # one broken benchmark must not hide the others
                print("%s failed: %s: %s" % (name, type(e).__name__, e), flush=True)
                continue
            if result is None:   # not measurable on this backend
                continue
            # Each row as soon as it is measured: a benchmark that crashes the
            # process leaves the rows before it.
            _row(name, unit, goal, *result)
            seen.setdefault(name, (unit, goal, []))[2].append(result)
            kiln.get_default_memory_pool().free_all_blocks()
            if cupy is not None:
                cupy.get_default_memory_pool().free_all_blocks()
    if rounds > 1:
        print("-- median of %d rounds" % rounds, flush=True)
        for name, (unit, goal, results) in seen.items():
            theirs = [t for _, t in results if t]
            _row(name, unit, goal, statistics.median(o for o, _ in results),
                 statistics.median(theirs) if theirs else None)


if __name__ == "__main__":
    main(sys.argv)
