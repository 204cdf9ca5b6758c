"""kiln.jit.cg: the thread block and grid groups' queries (ranks, sizes, dim3
extents), cg.sync, and memcpy_async with wait/wait_prior (Note [kiln.jit.cg]
in kiln/jit.h)."""
import os

import numpy
import pytest

import kiln
from kiln import jit


@jit.rawkernel()
def block_group(x, b, out, info, bout):
    smem = jit.shared_memory(kiln.int32, 64, alignment=16)
    bytes_ = jit.shared_memory(kiln.int8, 8)
    g = jit.cg.this_thread_block()
    r = g.thread_rank()
    jit.cg.memcpy_async(g, smem, 0, x, 0, 4 * 64)       # word copies
    jit.cg.memcpy_async(g, bytes_, 1, b, 3, 5)           # unaligned: byte copies
    jit.cg.wait_prior(g, 1)
    jit.cg.wait(g)
    out[jit.blockIdx.x * 64 + r] = smem[63 - r]
    if r < 5:
        bout[jit.blockIdx.x, r] = bytes_[r + 1]
    if r == 37:
        t = g.thread_index()
        d = g.group_dim()
        k = g.group_index()
        n = g.dim_threads()
        base = jit.blockIdx.x * 10
        info[base], info[base + 1], info[base + 2] = t.x, t.y, t.z
        info[base + 3], info[base + 4], info[base + 5] = d.x, d.y, d.z
        info[base + 6] = k.x
        info[base + 7] = g.size()
        info[base + 8] = g.num_threads()
        info[base + 9] = n.x * n.y * n.z
    jit.cg.sync(g)


def test_thread_block_group():
    x = kiln.arange(100, 164, dtype=kiln.int32)
    b = kiln.arange(16, dtype=kiln.int8)
    out = kiln.zeros(128, dtype=kiln.int32)
    info = kiln.full(20, -1, dtype=kiln.int64)
    bout = kiln.zeros((2, 5), dtype=kiln.int8)
    block_group[2, (16, 4)](x, b, out, info, bout)
    numpy.testing.assert_array_equal(kiln.asnumpy(out), numpy.tile(numpy.arange(163, 99, -1), 2))
    numpy.testing.assert_array_equal(kiln.asnumpy(bout), numpy.tile(numpy.arange(3, 8), (2, 1)))
    # rank 37 of a (16, 4) block is thread (5, 2, 0)
    assert kiln.asnumpy(info).tolist() == [5, 2, 0, 16, 4, 1, 0, 64, 64, 64] + [5, 2, 0, 16, 4, 1, 1, 64, 64, 64]


@jit.rawkernel()
def grid_group(out, seen):
    g = jit.cg.this_grid()
    r = g.thread_rank()
    seen[r] = r + 1
    jit.cg.sync(g)                       # every block's writes are visible after it
    seen[g.size() + r] = seen[g.size() - 1 - r]
    if r == 33:
        d = g.group_dim()
        k = g.block_index()
        n = g.dim_blocks()
        out[0], out[1], out[2] = d.x, d.y, d.z
        out[3], out[4], out[5] = k.x, k.y, k.z
        out[6] = n.x
        out[7] = g.size()
        out[8] = g.num_threads()
        out[9] = g.block_rank()
        out[10] = g.num_blocks()
        out[11] = g.is_valid()


def test_grid_group():
    workers = int(os.environ.get("KILN_HOST_THREADS") or 0) or os.cpu_count() or 1
    if kiln.get_backend() == "host" and workers < 2:
        pytest.skip("the grid barrier needs two blocks running at once (Note [Grid barrier])")
    out = kiln.full(12, 99, dtype=kiln.uint64)
    seen = kiln.zeros(128, dtype=kiln.int64)
    grid_group[2, 32](out, seen)
    assert kiln.asnumpy(out).tolist() == [2, 1, 1, 1, 0, 0, 2, 64, 64, 1, 2, 1]
    s = kiln.asnumpy(seen)
    numpy.testing.assert_array_equal(s[:64], numpy.arange(1, 65))
    numpy.testing.assert_array_equal(s[64:], numpy.arange(64, 0, -1))


def _kernel(body):
    ns = {"jit": jit, "kiln": kiln}
    source = "def k(x):\n" + "".join("    " + line + "\n" for line in body)
    exec(compile(source, "cg_errors.py", "exec"), ns)
    return jit.rawkernel(source=source)(ns["k"])


@pytest.mark.parametrize("body, message", [
    (["jit.cg.sync(x)"], "`kiln.jit.cg.sync` takes a group"),
    (["g = jit.cg.this_grid()", "jit.cg.wait(g)"], "`kiln.jit.cg.wait` takes the block"),
    (["g = jit.cg.this_thread_block()", "jit.cg.memcpy_async(g, x, 0, 1, 0, 4)"],
     "`memcpy_async` copies between 1-d arrays"),
])
def test_cg_errors(body, message):
    with pytest.raises(TypeError, match=message):
        _kernel(body)[1, 1](kiln.zeros(4, dtype=kiln.int32))
