"""kiln.jit.cub (cupyx.jit.cub): CUB's WarpReduce and BlockReduce in kernels,
against NumPy's sum, max and min over dtypes, warp and block sizes, the
aggregate read from the first thread. On CUDA the kernels run CUB itself, on
the host kiln/jit_cub.h's implementation in CUB's order of operations."""
import numpy
import pytest

import kiln
from kiln import jit
from conftest import random_array

# (dtype, threads per block): 80 leaves the block's last warp partial (the
# warps' collectives run in the two full ones). One kernel per case: on the
# GPU each is an NVRTC compile of CUB's headers.
CASES = [(numpy.int8, 128), (numpy.uint16, 80), (numpy.float16, 128), (numpy.float32, 80), (numpy.float64, 256),
         (numpy.complex64, 64)]


def check(got, expected, dtype):
    """float16 sums reduce in float32 and round once, as NumPy's: equal bits;
    other float sums run in another order than NumPy's: within a few ulps."""
    rtol = {"f4": 1e-6, "c8": 1e-6, "f8": 1e-13, "c16": 1e-13}.get(numpy.dtype(dtype).str[1:], 0)
    numpy.testing.assert_allclose(kiln.asnumpy(got), expected, rtol=rtol, atol=0)


def reduce_kernel(dtype, threads):
    @jit.rawkernel()
    def reduce(x, warp_out, block_out):
        WarpReduce = jit.cub.WarpReduce[dtype]
        BlockReduce = jit.cub.BlockReduce[dtype, threads]
        warp_storage = jit.shared_memory(dtype=WarpReduce.TempStorage, size=8)   # one per warp
        block_storage = jit.shared_memory(BlockReduce.TempStorage, 1)
        t = jit.threadIdx.x
        b = jit.blockIdx.x
        v = x[b, t]
        w = t // 32
        if (w + 1) * 32 <= threads:          # every lane of a whole warp
            warp = WarpReduce(warp_storage[w])
            total = warp.Sum(v)
            total2 = warp.Reduce(v, jit.cub.Sum())
            hi = warp.Reduce(v, jit.cub.Max())
            lo = WarpReduce(warp_storage[w]).Reduce(v, jit.cub.Min())
            count = warp.Sum(1)
            if jit.laneid() == 0:
                warp_out[0, b, w] = total
                warp_out[1, b, w] = total2
                warp_out[2, b, w] = hi
                warp_out[3, b, w] = lo
                warp_out[4, b, w] = count
        block = BlockReduce(block_storage[0])
        total = block.Sum(v)
        jit.syncthreads()                    # CUB: a barrier before the storage is reused
        hi = block.Reduce(v, jit.cub.Max())
        jit.syncthreads()
        lo = BlockReduce(block_storage[0]).Reduce(v, jit.cub.Min())
        if t == 0:
            block_out[0, b] = total
            block_out[1, b] = hi
            block_out[2, b] = lo
    return reduce


@pytest.mark.parametrize("dtype, threads", CASES, ids=lambda c: str(c) if isinstance(c, int) else numpy.dtype(c).name)
def test_warp_and_block_reduce(rng, dtype, threads):
    x = random_array(rng, (3, threads), dtype)
    if numpy.dtype(dtype).kind == "f":
        x[1, 40] = numpy.nan                 # NaN wins max and min, as NumPy's
    warps = threads // 32
    warp_out = kiln.zeros((5, 3, warps), dtype=dtype)
    block_out = kiln.zeros((3, 3), dtype=dtype)
    reduce = reduce_kernel(dtype, threads)
    reduce[3, threads](kiln.asarray(x), warp_out, block_out)
    rows = x[:, :warps * 32].reshape(3, warps, 32)
    check(warp_out[0], rows.sum(axis=2, dtype=dtype), dtype)
    check(warp_out[1], rows.sum(axis=2, dtype=dtype), dtype)
    check(warp_out[2], rows.max(axis=2), dtype)
    check(warp_out[3], rows.min(axis=2), dtype)
    check(warp_out[4], numpy.full((3, warps), 32, dtype=dtype), dtype)
    check(block_out[0], x.sum(axis=1, dtype=dtype), dtype)
    check(block_out[1], x.max(axis=1), dtype)
    check(block_out[2], x.min(axis=1), dtype)
    src = reduce.cached_code
    assert "#include <kiln/jit_cub.h>" in src and "cub::BlockReduce<" in src and ", %d>" % threads in src
    assert dtype != numpy.float16 or "cub::WarpReduce<float>" in src     # reduced in float32


@jit.rawkernel()
def keyword_shared_memory(x, out):
    buf = jit.shared_memory(dtype=kiln.float32, size=32)
    aligned = jit.shared_memory(kiln.float64, 32, 16)       # alignment by position
    t = jit.threadIdx.x
    buf[t] = x[t]
    aligned[t] = x[t] * 2.0
    jit.syncthreads()
    out[t] = buf[31 - t] + aligned[t]


def test_shared_memory_arguments_by_keyword_and_position():
    x = numpy.arange(32, dtype=numpy.float32)
    out = kiln.zeros(32, dtype=kiln.float32)
    keyword_shared_memory[1, 32](kiln.asarray(x), out)
    numpy.testing.assert_array_equal(kiln.asnumpy(out), x[::-1] + 2 * x)
    assert "__align__(16)" in keyword_shared_memory.cached_code


@jit.rawkernel()
def wrong_storage(x):
    s = jit.shared_memory(jit.cub.WarpReduce[numpy.float64].TempStorage, 1)
    x[0] = jit.cub.WarpReduce[numpy.float32](s[0]).Sum(x[0])


@jit.rawkernel()
def no_block_threads(x):
    s = jit.shared_memory(jit.cub.BlockReduce[numpy.float32].TempStorage, 1)


@jit.rawkernel()
def bad_operator(x):
    s = jit.shared_memory(jit.cub.WarpReduce[numpy.float32].TempStorage, 1)
    x[0] = jit.cub.WarpReduce[numpy.float32](s[0]).Reduce(x[0], 3)


@jit.rawkernel()
def store_into_storage(x):
    s = jit.shared_memory(jit.cub.WarpReduce[numpy.float32].TempStorage, 1)
    s[0] = x[0]


@jit.rawkernel()
def bool_collective(x):
    s = jit.shared_memory(jit.cub.WarpReduce[numpy.bool_].TempStorage, 1)


@pytest.mark.parametrize("kernel, message", [
    (wrong_storage, "jit.cub.WarpReduce[float32](temp_storage) takes one jit.cub.WarpReduce[float32].TempStorage"),
    (no_block_threads, "jit.cub.BlockReduce[dtype, block_threads] takes a dtype and a constant number of threads"),
    (bad_operator, "the operator must be jit.cub.Sum(), jit.cub.Max() or jit.cub.Min(), got int64"),
    (store_into_storage, "a TempStorage element is used only to construct its collective"),
    (bool_collective, "the dtype must be a numeric dtype such as numpy.float32, got the dtype bool"),
], ids=["wrong_storage", "no_block_threads", "bad_operator", "store_into_storage", "bool"])
def test_errors(kernel, message):
    with pytest.raises(TypeError) as info:
        kernel[1, 32](kiln.zeros(1, dtype=kiln.float32))
    assert message in str(info.value)


def test_outside_a_kernel():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        jit.cub.WarpReduce[numpy.float32]
    with pytest.raises(RuntimeError, match="inside a kernel"):
        jit.cub.Sum()
