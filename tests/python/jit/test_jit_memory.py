"""kiln.jit memory and synchronisation: shared memory (static and dynamic),
local memory, atomics with exact totals, warp operations and cooperative
groups."""
import numpy
import pytest

import kiln
from kiln import jit


@jit.rawkernel()
def block_sum(x, out, n):
    buf = jit.shared_memory(kiln.float64, 128)
    tid = jit.threadIdx.x
    i = jit.blockIdx.x * jit.blockDim.x + tid
    buf[tid] = x[i] if i < n else 0.0
    jit.syncthreads()
    step = 64
    while step > 0:
        if tid < step:
            buf[tid] += buf[tid + step]
        jit.syncthreads()
        step //= 2
    if tid == 0:
        out[jit.blockIdx.x] = buf[0]


def test_shared_memory_block_reduction(rng):
    n = 1000
    x = rng.random(n)
    out = kiln.zeros(8, dtype=kiln.float64)
    block_sum[8, 128](kiln.asarray(x), out, n)
    expected = numpy.add.reduceat(numpy.concatenate([x, numpy.zeros(24)]), numpy.arange(0, 1024, 128))
    numpy.testing.assert_allclose(kiln.asnumpy(out), expected, rtol=1e-13)


@jit.rawkernel()
def reverse_block(x, out):
    buf = jit.shared_memory(kiln.int32, None)   # sized at launch
    t = jit.threadIdx.x
    base = jit.blockIdx.x * jit.blockDim.x
    buf[t] = x[base + t]
    jit.syncthreads()
    out[base + t] = buf[jit.blockDim.x - 1 - t]


def test_dynamic_shared_memory():
    x = kiln.arange(96, dtype=kiln.int32)
    out = kiln.zeros(96, dtype=kiln.int32)
    reverse_block((3,), (32,), (x, out), shared_mem=32 * 4)
    expected = numpy.arange(96).reshape(3, 32)[:, ::-1].ravel()
    numpy.testing.assert_array_equal(kiln.asnumpy(out), expected)
    assert "extern __shared__" in reverse_block.cached_code


@jit.rawkernel()
def local_sort(x, out, n):
    i = jit.grid(1)
    if i < n:
        v = jit.local_memory(kiln.float32, 8)
        for k in range(8):
            v[k] = x[i, k]
        for a in range(8):           # insertion sort in thread-private memory
            for b in range(a, 0, -1):
                if v[b] < v[b - 1]:
                    v[b], v[b - 1] = v[b - 1], v[b]
        for k in range(8):
            out[i, k] = v[k]


def test_local_memory(rng):
    x = rng.random((37, 8)).astype(numpy.float32)
    out = kiln.zeros((37, 8), dtype=kiln.float32)
    local_sort[2, 32](kiln.asarray(x), out, 37)
    numpy.testing.assert_array_equal(kiln.asnumpy(out), numpy.sort(x, axis=1))


@jit.rawkernel()
def atomics(counts, fsum, ivals, uvals, lvals, hvals, n):
    i = jit.grid(1)
    if i < n:
        jit.atomic_add(counts, i % 4, 1)
        jit.threadfence()
        jit.threadfence_block()
        jit.atomic_add(fsum, 0, i * 0.5)
        jit.atomic_sub(ivals, 0, 2)
        jit.atomic_max(ivals, 1, i)
        jit.atomic_min(ivals, 2, -i)
        jit.atomic_or(ivals, 3, 1 << (i % 31))
        jit.atomic_xor(ivals, 4, i)
        jit.atomic_and(ivals, 5, ~(1 << (i % 16)))
        jit.atomic_exch(ivals, 6, 7)
        jit.atomic_cas(ivals, 7, 0, i + 1)       # exactly one thread swaps 0 out
        jit.atomic_cas(hvals, 0, 0, i + 1)       # the same on 16 bits
        jit.atomic_inc(uvals, 0, 9)               # wraps to 0 after 9
        jit.atomic_dec(uvals, 1, 100)
        jit.atomic_add(lvals, 0, kiln.int64(i) * 1000000000)   # i is uint32: widen first
        jit.atomic_max(lvals, 1, i)
        jit.atomic_add(fsum, 1, kiln.float32(1.0) if i % 2 == 0 else 0.0)


def test_atomics_exact_totals():
    n = 1000
    counts = kiln.zeros(4, dtype=kiln.int32)
    fsum = kiln.zeros(2, dtype=kiln.float64)
    ivals = kiln.asarray(numpy.array([0, -5, 5, 0, 0, -1, 0, 0], dtype=numpy.int32))
    uvals = kiln.zeros(2, dtype=kiln.uint32)
    lvals = kiln.zeros(2, dtype=kiln.int64)
    hvals = kiln.zeros(1, dtype=kiln.uint16)
    atomics[8, 128](counts, fsum, ivals, uvals, lvals, hvals, n)
    assert 1 <= int(hvals[0]) <= n
    assert kiln.asnumpy(counts).tolist() == [250] * 4
    i = numpy.arange(n)
    assert kiln.asnumpy(fsum).tolist() == [float((i * 0.5).sum()), 500.0]   # halves: exact in any order
    iv = kiln.asnumpy(ivals)
    assert iv[0] == -2 * n and iv[1] == n - 1 and iv[2] == -(n - 1)
    assert iv[3] == numpy.int32(numpy.bitwise_or.reduce((1 << (i % 31)).astype(numpy.int64)).astype(numpy.uint32).view(numpy.int32))
    assert iv[4] == numpy.bitwise_xor.reduce(i) and iv[5] == -1 & ~0xFFFF and iv[6] == 7
    assert 1 <= iv[7] <= n
    uv = kiln.asnumpy(uvals)
    assert uv[0] == n % 10 and uv[1] == (0 - n) % 101
    assert kiln.asnumpy(lvals).tolist() == [int((i * 1000000000).sum()), n - 1]


@jit.rawkernel()
def warp_ops(x, out):
    t = jit.threadIdx.x
    lane = jit.laneid()
    v = x[t]
    s = v
    off = 16
    while off > 0:
        s += jit.shfl_down_sync(0xFFFFFFFF, s, off)
        off //= 2
    out[0, t] = s                                   # lane 0 holds the warp's sum
    out[1, t] = jit.shfl_sync(0xFFFFFFFF, v, 3)     # broadcast of lane 3
    out[2, t] = jit.shfl_up_sync(0xFFFFFFFF, v, 1)
    out[3, t] = jit.shfl_xor_sync(0xFFFFFFFF, v, 1)
    out[4, t] = jit.ballot_sync(0xFFFFFFFF, v > 10)
    out[5, t] = jit.all_sync(0xFFFFFFFF, v >= 0) + 2 * jit.any_sync(0xFFFFFFFF, v > 40)
    jit.syncwarp()
    jit.syncwarp(0xFFFFFFFF)
    out[6, t] = lane
    if lane == 0:
        w = v * 2
    w = jit.shfl_sync(0xFFFFFFFF, w, 0)             # only lane 0 assigns w: the broadcast reads it there
    out[7, t] = w
    if lane < 16:
        jit.syncwarp(mask=0xFFFF)                   # the lanes in the mask only


def test_warp_operations():
    x = kiln.arange(64, dtype=kiln.int64)
    out = kiln.zeros((8, 64), dtype=kiln.int64)
    warp_ops[1, 64](x, out)
    got = kiln.asnumpy(out)
    v = numpy.arange(64)
    assert got[0, 0] == v[:32].sum() and got[0, 32] == v[32:].sum()
    assert (got[1, :32] == 3).all() and (got[1, 32:] == 35).all()
    up = v - 1
    up[[0, 32]] = [0, 32]
    numpy.testing.assert_array_equal(got[2], up)
    numpy.testing.assert_array_equal(got[3], v ^ 1)
    b0 = sum(1 << k for k in range(32) if v[k] > 10)
    assert (got[4, :32] == b0).all() and (got[4, 32:] == 0xFFFFFFFF).all()
    assert (got[5, :32] == 1).all() and (got[5, 32:] == 3).all()
    numpy.testing.assert_array_equal(got[6], v % 32)
    numpy.testing.assert_array_equal(got[7], numpy.repeat([0, 64], 32))


@jit.rawkernel()
def grid_two_phase(x, out, n):
    i = jit.grid(1)
    g = jit.cg.this_grid()
    b = jit.cg.this_thread_block()
    if i < n:
        x[i] = x[i] + 1
    b.sync()
    g.sync()
    # every thread now sees every other block's increment
    if i < n:
        out[i] = x[(i + jit.blockDim.x) % n]


def _host_workers():
    import os
    return int(os.environ.get("KILN_HOST_THREADS") or 0) or os.cpu_count() or 1


def test_grid_sync():
    # The host backend runs one block per worker at a time: a grid barrier
    # works there for grids of at most that many blocks (Note [Grid barrier]).
    blocks = min(4, _host_workers()) if kiln.get_backend() == "host" else 8
    n = blocks * 64
    x = kiln.arange(n, dtype=kiln.int32)
    out = kiln.zeros(n, dtype=kiln.int32)
    for _ in range(3):      # the barrier's counters are reused launch after launch
        grid_two_phase[blocks, 64](x, out, n)
        x -= 1
    i = numpy.arange(n)
    numpy.testing.assert_array_equal(kiln.asnumpy(out), (i + 64) % n + 1)


def test_grid_sync_of_a_grid_that_cannot_be_resident_is_refused():
    if kiln.get_backend() == "host":
        blocks = _host_workers() + 1
    else:
        blocks = 1 << 16      # far more than any GPU holds at once
    if kiln.get_backend() != "host":
        x = kiln.zeros(64 * blocks, dtype=kiln.int32)
        with pytest.raises(ValueError, match="needs all its blocks running at once"):
            grid_two_phase[blocks, 64](x, kiln.zeros(64 * blocks, dtype=kiln.int32), 64 * blocks)
        return
    x = kiln.zeros(64 * blocks, dtype=kiln.int32)
    with pytest.raises(Exception, match="needs every block of the grid running at once"):
        grid_two_phase[blocks, 64](x, kiln.zeros(64 * blocks, dtype=kiln.int32), 64 * blocks)


def fill_all(buf, v):
    for k in range(len(buf)):
        buf[k] = v
    return len(buf)


@jit.rawkernel()
def two_buffers(out):
    a = jit.shared_memory(kiln.int32, 4)
    b = jit.local_memory(kiln.int32, 8)
    na = fill_all(a, 1)     # one device-function instance per array size
    nb = fill_all(b, 2)
    jit.syncthreads()
    if jit.threadIdx.x == 0:
        out[0] = na * 100 + nb
        s = 0
        for k in range(4):
            s += a[k]
        for k in range(8):
            s += b[k]
        out[1] = s


def test_device_function_instances_per_array_size():
    out = kiln.zeros(2, dtype=kiln.int64)
    two_buffers[1, 2](out)
    assert kiln.asnumpy(out).tolist() == [408, 20]


@jit.rawkernel()
def cas_max(x, best, prev, n):
    i = jit.grid(1)
    if i < n:
        while True:                     # a compare-and-swap loop: `seen` is assigned at the break
            cur = best[0]
            seen = jit.atomic_cas(best, 0, cur, max(cur, x[i]))
            if seen == cur:
                break
        prev[i] = seen


def test_compare_and_swap_loop(rng):
    n = 500
    x = rng.integers(-1000, 1000, n).astype(numpy.int32)
    best = kiln.asarray(numpy.array([-2000], dtype=numpy.int32))
    prev = kiln.zeros(n, dtype=kiln.int32)
    cas_max[4, 128](kiln.asarray(x), best, prev, n)
    assert int(kiln.asnumpy(best)[0]) == x.max()
    assert (kiln.asnumpy(prev) <= x.max()).all()


SHUFFLE_DTYPES = [numpy.int32, numpy.uint32, numpy.int64, numpy.uint64, numpy.float16, numpy.float32,
                  numpy.float64, numpy.complex64, numpy.complex128]


@jit.rawkernel()
def shuffles_of(x, out, width):
    t = jit.threadIdx.x
    v = x[t]
    out[0, t] = jit.shfl_sync(0xFFFFFFFF, v, 3)
    out[1, t] = jit.shfl_up_sync(0xFFFFFFFF, v, 1)
    out[2, t] = jit.shfl_down_sync(0xFFFFFFFF, v, 2)
    out[3, t] = jit.shfl_xor_sync(0xFFFFFFFF, v, 5)
    out[4, t] = jit.shfl_sync(0xFFFFFFFF, v, 1, width)
    out[5, t] = jit.shfl_down_sync(0xFFFFFFFF, v, 3, width=width)


@pytest.mark.parametrize("dtype", SHUFFLE_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_shuffles_move_every_dtype_bit_exact(dtype):
    rng = numpy.random.default_rng(11)
    dt = numpy.dtype(dtype)
    if dt.kind in "iu":
        v = rng.integers(numpy.iinfo(dt).min, numpy.iinfo(dt).max, 64, dtype=dt, endpoint=True)
    elif dt.kind == "f":
        v = (rng.standard_normal(64) * 1e3).astype(dt)
        v[7] = numpy.nan
        v[9] = -0.0
    else:
        v = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(dt)
    out = kiln.zeros((6, 64), dtype=dtype)
    shuffles_of[1, 64](kiln.asarray(v), out, 8)
    got = kiln.asnumpy(out)
    lane = numpy.arange(64) % 32
    warp = numpy.arange(64) - lane
    want = numpy.stack([
        v[warp + 3],
        v[numpy.where(lane >= 1, numpy.arange(64) - 1, numpy.arange(64))],
        v[numpy.where(lane + 2 < 32, numpy.arange(64) + 2, numpy.arange(64))],
        v[warp + (lane ^ 5)],
        v[numpy.arange(64) - lane % 8 + 1],
        v[numpy.where(lane % 8 + 3 < 8, numpy.arange(64) + 3, numpy.arange(64))],
    ])
    # bits, not values: NaN and -0.0 must come through unchanged
    assert got.tobytes() == want.astype(dt).tobytes()


@jit.rawkernel()
def add_and_exchange(addto, olds, swap, swapped, n):
    i = jit.grid(1)
    if i < n:
        olds[i] = jit.atomic_add(addto, 0, olds[i])
        swapped[i] = jit.atomic_exch(swap, 0, swapped[i])


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.complex64, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).name)
def test_atomic_add_and_exch_of_float16_float64_and_complex(dtype):
    n = 1000
    dt = numpy.dtype(dtype)
    step = numpy.array(0.5 + (0.25j if dt.kind == "c" else 0), dtype=dt)
    total = kiln.zeros(1, dtype=dtype)
    olds = kiln.full(n, step, dtype=dtype)        # each thread adds `step` and gets the old total back
    swap = kiln.full(1, -1, dtype=dtype)
    values = (numpy.arange(n) % 512).astype(dt)   # distinct in float16 too (all below 2048)
    swapped = kiln.asarray(values)
    if dt.kind == "c":                            # complex has no exchange: add only
        add_only[4, 256](total, olds, n)
    else:
        add_and_exchange[4, 256](total, olds, swap, swapped, n)
    # halves and quarters: every partial sum is exact, whatever the order
    assert kiln.asnumpy(total)[0] == step * n
    old = kiln.asnumpy(olds)
    parts = [old.real, old.imag] if dt.kind == "c" else [old]
    for part, s in zip(parts, [step.real, step.imag] if dt.kind == "c" else [step]):
        # each part is one atomic: its old values are 0, s, 2s, ... in some order
        numpy.testing.assert_array_equal(numpy.sort(part), numpy.arange(n) * s)
    if dt.kind != "c":
        # the exchanges hand the initial -1 and every value but one along a chain
        seen = numpy.concatenate([kiln.asnumpy(swapped), kiln.asnumpy(swap)])
        numpy.testing.assert_array_equal(numpy.sort(seen), numpy.sort(numpy.concatenate([[-1], values]).astype(dt)))


@jit.rawkernel()
def add_only(addto, olds, n):
    i = jit.grid(1)
    if i < n:
        olds[i] = jit.atomic_add(addto, 0, olds[i])


def test_atomic_exch_of_complex_is_refused():
    @jit.rawkernel()
    def k(x):
        jit.atomic_exch(x, 0, x[1])

    with pytest.raises(TypeError, match="`kiln.jit.atomic_exch` is not available for complex64 arrays"):
        k[1, 1](kiln.zeros(2, dtype=kiln.complex64))
