"""kiln.fuse's one-kernel plans (Note [Row-fused plans] in
arraycore/fusion_rows.cpp): functions whose reductions all reduce the same
axes and reuse their results with keepdims run as one kernel, a block per
row; against NumPy over dtypes and layouts, and the calls that keep the
staged plan (columns, few long rows, empty rows) still right."""
import numpy
import pytest

import kiln
from conftest import assert_same_values, make, name

_counter = [0]


def fused(fn):
    """fuse(fn) under a kernel name no other test uses, and a function telling
    which of its kernels this process loaded since."""
    _counter[0] += 1
    kname = "rows_%s_%d" % (fn.__name__.strip("<>"), _counter[0])
    before = len(kiln._core._recorded_sources())

    def sources():
        return [s for s, _, _ in kiln._core._recorded_sources()[before:] if kname in s]
    return kiln.fuse(kernel_name=kname)(fn), sources


def softmax(x, xp=kiln):
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def close(got, expected, dtype):
    tol = {"e": 2e-3, "f": 2e-6, "d": 1e-13}[numpy.dtype(dtype).char]
    numpy.testing.assert_allclose(kiln.asnumpy(got), expected, rtol=tol, atol=tol)
    assert kiln.asnumpy(got).dtype == expected.dtype


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64], ids=name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
def test_softmax_is_one_kernel_in_every_layout(rng, dtype, layout):
    x, xn = make(rng, layout, dtype, base=(rng.standard_normal((6, 8)) * 4).astype(dtype))
    f, sources = fused(softmax)
    close(f(x), softmax(xn, numpy), dtype)
    # One kernel, a block per row (short rows need not be contiguous).
    src = sources()
    assert len(src) == 1 and "block_reduce" in src[0]
    # A warm call: the same values.
    close(f(x), softmax(xn, numpy), dtype)


@pytest.mark.parametrize("n", [2500, 3000, 7000])   # rows staged in shared memory (2 x 20 KB), rows near the 48 KiB
# a launch gets (its static buffers too: 3000 failed to launch on the GPU), rows too long for it
def test_long_rows_several_reductions_returned_and_reused(rng, n):
    xn = rng.standard_normal((33, n))
    yn = rng.standard_normal(n)

    def f(x, y):
        s = (x * y).sum(axis=-1, keepdims=True)
        centred = x - s / n
        return centred / abs(centred).max(axis=-1, keepdims=True), s, (centred * 2).min(axis=1), (x > 2).any(axis=1)

    g, sources = fused(f)
    got = g(kiln.asarray(xn), kiln.asarray(yn))
    s = (xn * yn).sum(axis=-1, keepdims=True)
    c = xn - s / n
    expected = (c / abs(c).max(axis=-1, keepdims=True), s, (c * 2).min(axis=1), (xn > 2).any(axis=1))
    for a, b in zip(got, expected):
        numpy.testing.assert_allclose(kiln.asnumpy(a), b, rtol=1e-12, atol=1e-12)
        assert a.shape == b.shape and a.dtype == b.dtype
    assert len(sources()) == 1


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int64, numpy.bool_, numpy.complex64], ids=name)
def test_integer_bool_complex_rows(rng, dtype):
    x, xn = make(rng, "C", dtype)

    def f(v):
        return v * 2 - v.sum(axis=1, keepdims=True), v.prod(axis=1), v.any(axis=1), v.all(axis=1, keepdims=True)

    g, sources = fused(f)
    for a, b in zip(g(x), f(xn)):
        assert_same_values(kiln.asnumpy(a), b) if dtype != numpy.complex64 else \
            numpy.testing.assert_allclose(kiln.asnumpy(a), b, rtol=1e-5)
    assert len(sources()) == 1


def _mode(src):
    """The row mode a kernel text was written in (Note [Row modes])."""
    return "vector" if "kiln::Vec16" in src else "strided" if "reduced_offsets" in src else "contiguous"


@pytest.mark.parametrize("dtype,shape,view,mode", [
    (numpy.float32, (5, 16), (slice(None), slice(None)), "vector"),         # 16-byte chunks of 4
    (numpy.int8, (3, 48), (slice(None), slice(None)), "vector"),            # chunks of 16, integer max
    (numpy.float32, (5, 18), (slice(None), slice(None)), "contiguous"),     # n not a multiple of 4
    (numpy.float32, (5, 17), (slice(None), slice(1, None)), "contiguous"),  # rows off the 16-byte boundary
    (numpy.float64, (6, 10), (slice(None, None, 2), slice(None)), "vector"),     # every other row
    (numpy.float32, (5, 16), (slice(None), slice(None, None, -1)), "strided"),   # a reversed row
], ids=str)
def test_row_modes(rng, dtype, shape, view, mode):
    base = (rng.standard_normal(shape) * 20).astype(dtype)
    xn = base[view]
    f, sources = fused(lambda v: (v - v.max(axis=1, keepdims=True), v.min(axis=1)))
    for a, b in zip(f(kiln.asarray(base)[view]), (xn - xn.max(axis=1, keepdims=True), xn.min(axis=1))):
        assert_same_values(kiln.asnumpy(a), b)
    assert [_mode(s) for s in sources()] == [mode]


def test_outputs_of_another_itemsize_are_contiguous_not_vector(rng):
    g, more = fused(lambda v: v / v.sum(axis=1, keepdims=True))
    ints = rng.integers(1, 50, (4, 16)).astype(numpy.int16)
    numpy.testing.assert_allclose(kiln.asnumpy(g(kiln.asarray(ints))), ints / ints.sum(axis=1, keepdims=True), rtol=1e-15)
    assert [_mode(s) for s in more()] == ["contiguous"]


def test_max_min_without_identity_and_nans(rng):
    xn = rng.standard_normal((5, 40)).astype(numpy.float32)
    xn[1, 7] = numpy.nan
    xn[3] = -numpy.inf
    f, sources = fused(lambda v: (v - v.max(axis=1, keepdims=True), v.min(axis=1)))
    for a, b in zip(f(kiln.asarray(xn)), (xn - xn.max(axis=1, keepdims=True), xn.min(axis=1))):
        assert_same_values(kiln.asnumpy(a), b)
    ints = numpy.array([[-128, -128, -128], [5, -3, 127]], numpy.int8)
    g, _ = fused(lambda v: v - v.max(axis=1, keepdims=True))
    assert_same_values(kiln.asnumpy(g(kiln.asarray(ints))), ints - ints.max(axis=1, keepdims=True))


def test_several_axes_broadcast_arguments_and_scalars(rng):
    xn = rng.standard_normal((3, 4, 5, 6))
    wn = rng.standard_normal((5, 1))
    f, sources = fused(lambda x, w, t: kiln.exp((x * w - (x * w).max(axis=(2, 3), keepdims=True)) / t))
    got = f(kiln.asarray(xn), kiln.asarray(wn), 0.5)
    numpy.testing.assert_allclose(kiln.asnumpy(got), numpy.exp((xn * wn - (xn * wn).max(axis=(2, 3), keepdims=True)) / 0.5),
                                  rtol=1e-13)
    assert len(sources()) == 1
    # A whole-array reduction used inside (a 0-d result broadcasts everywhere).
    g, _ = fused(lambda x: x / x.sum())
    numpy.testing.assert_allclose(kiln.asnumpy(g(kiln.asarray(xn[0, 0]))), xn[0, 0] / xn[0, 0].sum(), rtol=1e-13)


def test_calls_that_keep_the_staged_plan(rng):
    # Few long rows, long rows with a stride, different axes, empty rows and no rows: still NumPy's values.
    xn = rng.standard_normal((6, 20000)).astype(numpy.float32)
    f, sources = fused(lambda v: v / v.sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(kiln.asnumpy(f(kiln.asarray(xn))), xn / xn.sum(axis=1, keepdims=True), rtol=1e-4)
    fn = numpy.asfortranarray(rng.standard_normal((40, 3000)))
    numpy.testing.assert_allclose(kiln.asnumpy(f(kiln.asarray(fn))), fn / fn.sum(axis=1, keepdims=True), rtol=1e-12)
    assert not any("block_reduce" in s for s in sources())
    cn = rng.standard_normal((50, 3))
    g, _ = fused(lambda v: v - v.max(axis=0, keepdims=True))
    assert_same_values(kiln.asnumpy(g(kiln.asarray(cn))), cn - cn.max(axis=0, keepdims=True))
    h, _ = fused(lambda v: (v - v.sum(axis=1, keepdims=True), v.max(axis=0)))
    for a, b in zip(h(kiln.asarray(cn)), (cn - cn.sum(axis=1, keepdims=True), cn.max(axis=0))):
        numpy.testing.assert_allclose(kiln.asnumpy(a), b, rtol=1e-13)
    empty = numpy.zeros((3, 0))
    assert_same_values(kiln.asnumpy(f(kiln.asarray(empty))), empty / empty.sum(axis=1, keepdims=True))
    k, _ = fused(lambda v: v - v.max(axis=1, keepdims=True))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        k(kiln.asarray(empty))
    assert kiln.asnumpy(k(kiln.zeros((0, 4)))).shape == (0, 4)
