"""<cooperative_groups.h> in RawModules: thread blocks, tiles with their shuffles and
cg::reduce, and grid.sync() with enable_cooperative_groups=True, against NumPy."""
import numpy
import pytest

import kiln

COOPERATIVE = r'''
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_sums(const float* x, float* out, int* info) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);
    const unsigned r = block.thread_rank();
    float v = x[blockIdx.x * block.size() + r];
    for (int d = warp.size() / 2; d > 0; d /= 2) v += warp.shfl_down(v, d);
    __shared__ float partial[32];
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = v;
    block.sync();
    if (r == 0) {
        float s = 0;
        for (unsigned w = 0; w < (block.size() + 31) / 32; ++w) s += partial[w];
        out[blockIdx.x] = s;
    }
    const int tile_sum = cg::reduce(eight, (int)r, cg::plus<int>());
    const int any5 = warp.any(r == 5);
    if (blockIdx.x == 0) info[r] = tile_sum * 1000 + (int)eight.thread_rank() * 10 + any5;
}

extern "C" __global__ void grid_passes(const float* x, float* y, float* z, int n) {
    cg::grid_group grid = cg::this_grid();
    const unsigned long long first = grid.thread_rank(), stride = grid.size();
    for (unsigned long long k = first; k < (unsigned long long)n; k += stride) y[k] = 2.0f * x[k];
    grid.sync();
    for (unsigned long long k = first; k < (unsigned long long)n; k += stride) z[k] = y[(k + 1) % n] + y[k];
    cg::sync(grid);
    for (unsigned long long k = first; k < (unsigned long long)n; k += stride) y[k] = z[n - 1 - k];
}
'''


def test_block_and_tiles():
    mod = kiln.RawModule(code=COOPERATIVE)
    blocks, threads = 3, 96
    x = numpy.arange(blocks * threads, dtype=numpy.float32)
    out = kiln.zeros(blocks, numpy.float32)
    info = kiln.zeros(threads, numpy.int32)
    mod.get_function('tile_sums')((blocks,), (threads,), (kiln.asarray(x), out, info))
    numpy.testing.assert_array_equal(out.get(), x.reshape(blocks, threads).sum(axis=1))
    r = numpy.arange(threads)
    numpy.testing.assert_array_equal(info.get(), (r // 8 * 64 + 28) * 1000 + (r % 8) * 10 + (r < 32))


@pytest.mark.parametrize("grid,block", [(1, 64), (4, 32), (7, 128)])
def test_grid_sync_with_cooperative_launch(grid, block):
    """Each pass reads what other blocks wrote before the barrier."""
    mod = kiln.RawModule(code=COOPERATIVE, enable_cooperative_groups=True)
    n = 1000
    x = numpy.arange(n, dtype=numpy.float32)
    y, z = kiln.zeros(n, numpy.float32), kiln.zeros(n, numpy.float32)
    mod.get_function('grid_passes')((grid,), (block,), (kiln.asarray(x), y, z, numpy.int32(n)))
    zz = 2 * numpy.roll(x, -1) + 2 * x
    numpy.testing.assert_array_equal(z.get(), zz)
    numpy.testing.assert_array_equal(y.get(), zz[::-1])


def test_grid_sync_rawkernel_and_pickle():
    import pickle
    kern = kiln.RawKernel(COOPERATIVE, 'grid_passes', enable_cooperative_groups=True)
    kern = pickle.loads(pickle.dumps(kern))
    n = 300
    x = numpy.linspace(-1, 1, n).astype(numpy.float32)
    y, z = kiln.zeros(n, numpy.float32), kiln.zeros(n, numpy.float32)
    kern((3,), (64,), (kiln.asarray(x), y, z, numpy.int32(n)))
    numpy.testing.assert_array_equal(y.get(), (2 * numpy.roll(x, -1) + 2 * x)[::-1])


def test_grid_sync_without_cooperative_launch_fails_on_host():
    """Several blocks that are not all resident cannot meet at a grid barrier: the host
    backend fails the launch with the way out (on a GPU it is undefined behaviour)."""
    if kiln.get_backend() != "host":
        pytest.skip("the host backend's message; CUDA does not check")
    kern = kiln.RawKernel(COOPERATIVE, 'grid_passes')
    y, z = kiln.zeros(64, numpy.float32), kiln.zeros(64, numpy.float32)
    with pytest.raises(Exception, match="enable_cooperative_groups=True"):
        kern((2,), (32,), (kiln.zeros(64, numpy.float32), y, z, numpy.int32(64)))
    kern((1,), (32,), (kiln.ones(64, numpy.float32), y, z, numpy.int32(64)))   # one block: fine
    numpy.testing.assert_array_equal(z.get(), numpy.full(64, 4, numpy.float32))
