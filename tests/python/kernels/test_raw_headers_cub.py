"""CUB's block and warp collectives in RawKernels (the CCCL headers under NVRTC, kiln's
host implementation on the host backend), against NumPy."""
import numpy
import pytest

import kiln

CUB_COLLECTIVES = r'''
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

struct MaxOp {
    template <class T> __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

template <class T>
__global__ void collectives(const T* x, T* reduced, T* incl, T* excl, T* warp_sums, T* warp_incl, T* items) {
    typedef cub::BlockReduce<T, 128> BlockReduce;
    typedef cub::BlockScan<T, 128> BlockScan;
    typedef cub::WarpReduce<T> WarpReduce;
    typedef cub::WarpScan<T> WarpScan;
    __shared__ typename BlockReduce::TempStorage reduce_storage;
    __shared__ typename BlockScan::TempStorage scan_storage;
    __shared__ typename WarpReduce::TempStorage warp_reduce_storage[4];
    __shared__ typename WarpScan::TempStorage warp_scan_storage[4];
    const int t = threadIdx.x, base = blockIdx.x * 128, warp = t / 32;
    const T v = x[base + t];
    T sum = BlockReduce(reduce_storage).Sum(v);
    __syncthreads();
    T top = BlockReduce(reduce_storage).Reduce(v, MaxOp());
    if (t == 0) { reduced[3 * blockIdx.x] = sum; reduced[3 * blockIdx.x + 1] = top; }
    T total;
    BlockScan(scan_storage).InclusiveSum(v, incl[base + t]);
    __syncthreads();
    BlockScan(scan_storage).ExclusiveSum(v, excl[base + t], total);
    if (t == 0) reduced[3 * blockIdx.x + 2] = total;
    T warp_sum = WarpReduce(warp_reduce_storage[warp]).Sum(v);
    if (t % 32 == 0) warp_sums[blockIdx.x * 4 + warp] = warp_sum;
    WarpScan(warp_scan_storage[warp]).InclusiveScan(v, warp_incl[base + t], MaxOp());
    T in4[4], out4[4];
    for (int k = 0; k < 4; ++k) in4[k] = v + T(k);
    __syncthreads();
    BlockScan(scan_storage).ExclusiveSum(in4, out4);
    for (int k = 0; k < 4; ++k) items[4 * (base + t) + k] = out4[k];
}
'''


@pytest.fixture(scope="module")
def cub_module():
    return kiln.RawModule(code=CUB_COLLECTIVES, name_expressions=['collectives<int>', 'collectives<double>'])


@pytest.mark.parametrize("dtype,ctype", [(numpy.int32, 'int'), (numpy.float64, 'double')])
def test_block_and_warp_collectives(cub_module, rng, dtype, ctype):
    blocks = 3
    x = rng.integers(-50, 50, blocks * 128).astype(dtype)   # integer values: every order of sums is exact
    reduced = kiln.zeros(3 * blocks, dtype)
    incl, excl, warp_incl = (kiln.zeros(blocks * 128, dtype) for _ in range(3))
    warp_sums = kiln.zeros(4 * blocks, dtype)
    items = kiln.zeros(blocks * 128 * 4, dtype)
    cub_module.get_function('collectives<%s>' % ctype)(
        (blocks,), (128,), (kiln.asarray(x), reduced, incl, excl, warp_sums, warp_incl, items))
    xb = x.reshape(blocks, 128)
    numpy.testing.assert_array_equal(reduced.get().reshape(blocks, 3), numpy.stack([xb.sum(1), xb.max(1), xb.sum(1)], 1))
    numpy.testing.assert_array_equal(incl.get().reshape(blocks, 128), numpy.cumsum(xb, 1))
    numpy.testing.assert_array_equal(excl.get().reshape(blocks, 128), numpy.cumsum(xb, 1) - xb)
    xw = x.reshape(blocks, 4, 32)
    numpy.testing.assert_array_equal(warp_sums.get().reshape(blocks, 4), xw.sum(2))
    numpy.testing.assert_array_equal(warp_incl.get().reshape(blocks, 4, 32), numpy.maximum.accumulate(xw, 2))
    per_item = (x[:, None] + numpy.arange(4)).reshape(blocks, 512)
    numpy.testing.assert_array_equal(items.get().reshape(blocks, 512), numpy.cumsum(per_item, 1) - per_item)


def test_block_reduce_float_sum_in_cubs_order(cub_module, rng):
    """A float sum combines in CUB's order (each warp's shuffle tree, then the warps),
    so it is what the GPU gives, bit for bit."""
    x = rng.standard_normal(128).astype(numpy.float64) * 10.0 ** rng.integers(-8, 8, 128)
    reduced = kiln.zeros(3, numpy.float64)
    scratch = [kiln.zeros(128 * k, numpy.float64) for k in (1, 1, 1, 1, 4)]
    cub_module.get_function('collectives<double>')(
        (1,), (128,), (kiln.asarray(x), reduced, scratch[0], scratch[1], kiln.zeros(4, numpy.float64), scratch[3],
                       scratch[4]))
    tree = x.reshape(4, 32).copy()
    d = 1
    while d < 32:
        tree[:, 0:32:2 * d] = tree[:, 0:32:2 * d] + tree[:, d:32:2 * d]
        d *= 2
    expected = ((tree[0, 0] + tree[1, 0]) + tree[2, 0]) + tree[3, 0]
    assert reduced.get()[0] == expected
