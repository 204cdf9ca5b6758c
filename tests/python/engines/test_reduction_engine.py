"""The reduction engine (arraycore/reduction.h) against NumPy, through
ufunc.reduce and through _core._ReductionSpec directly: each kernel path of
Note [Reduction kernels] (row, warp-per-row, column, full, split over blocks,
several axes, negative strides, Fortran order, 0-d, empty), integers exact,
float32 sums against float64 NumPy within Note [Reduction rounding]'s bound,
NaN rules of maximum/minimum/fmax/fmin.
"""
import math

import numpy
import pytest

import kiln
from conftest import assert_same_bits, assert_same_values

from kiln import _ufunc_methods  # noqa: F401  (attaches ufunc.reduce)


def rng():
    return numpy.random.default_rng(2024)


def ints(shape, dtype=numpy.int64):
    return rng().integers(-1000, 1000, size=shape).astype(dtype)


# (shape, axis): the row path (contiguous reduced axis), warp-per-row (short
# rows), column path (contiguous kept axis), the full reduction, several
# axes, and the split paths (few outputs over long extents).
CASES = [
    ((7, 300), 1),            # row, block per output
    ((50, 33), 1),            # warp per output
    ((33, 50), 0),            # column
    ((4, 5, 6), (0, 2)),      # several axes, not adjacent
    ((4, 5, 6), (1, 2)),      # several axes collapsed into one
    ((4, 5, 6), None),
    ((1000,), 0),
    ((3, 100000), 0),         # column, many outputs
    ((3, 100000), 1),         # row split over blocks
    ((100000, 3), 0),         # column split over blockIdx.y
    ((100000, 3), 1),         # warp per output, many outputs
    ((1000000,), None),       # full: many blocks, then the partials
    ((2, 3, 4, 5), (0, 3)),
]


@pytest.mark.parametrize("shape,axis", CASES, ids=[str(c) for c in CASES])
def test_int_sum_exact(shape, axis):
    x = ints(shape)
    assert_same_bits(kiln.asnumpy(kiln.add.reduce(kiln.asarray(x), axis=axis)), numpy.add.reduce(x, axis=axis))


@pytest.mark.parametrize("shape,axis", CASES[:8], ids=[str(c) for c in CASES[:8]])
@pytest.mark.parametrize("ufunc", ["maximum", "minimum", "bitwise_xor", "multiply", "logical_or"])
def test_int_ufuncs_exact(shape, axis, ufunc):
    x = ints(shape, numpy.int32)
    if ufunc == "logical_or":
        x = (x > 990).astype(numpy.bool_)
    f, g = getattr(kiln, ufunc), getattr(numpy, ufunc)
    assert_same_bits(kiln.asnumpy(f.reduce(kiln.asarray(x), axis=axis)), g.reduce(x, axis=axis))


@pytest.mark.parametrize("layout", ["F", "negative", "strided"])
@pytest.mark.parametrize("axis", [0, 1, 2, None, (0, 2)])
def test_layouts(layout, axis):
    x = ints((6, 7, 8))
    k = kiln.asarray(x)
    if layout == "F":
        k, x = k.astype(numpy.int64, order="F"), numpy.asfortranarray(x)
    elif layout == "negative":
        k, x = k[::-1, :, ::-2], x[::-1, :, ::-2]
    else:
        k, x = k[::2, 1::3, ::3], x[::2, 1::3, ::3]
    assert_same_bits(kiln.asnumpy(kiln.add.reduce(k, axis=axis)), numpy.add.reduce(x, axis=axis))
    assert_same_bits(kiln.asnumpy(kiln.maximum.reduce(k, axis=axis, keepdims=True)),
                     numpy.maximum.reduce(x, axis=axis, keepdims=True))


def test_zero_d_and_empty():
    x = numpy.array(5, dtype=numpy.int16)
    assert_same_bits(kiln.asnumpy(kiln.add.reduce(kiln.asarray(x), axis=None)), numpy.add.reduce(x, axis=None))
    for shape, axis in [((0, 4), 0), ((0, 4), 1), ((3, 0), 1), ((3, 0), None), ((2, 0, 3), (0, 2))]:
        e = numpy.zeros(shape, numpy.float32)
        assert_same_bits(kiln.asnumpy(kiln.add.reduce(kiln.asarray(e), axis=axis)), numpy.add.reduce(e, axis=axis))


def depth_bound(n, column):
    """The largest rounding depth Note [Reduction rounding] allows for a sum
    of n terms, over every split count the engine may choose."""
    if column:
        return max(n - 1, 0)
    worst = 0
    for splits in range(1, max(1, n // 4096) + 1):
        piece = -(-n // splits)
        c = -(-piece // 256)
        worst = max(worst, (c - 1) + math.ceil(math.log2(max(min(piece, 256), 1))) + splits - 1)
    return worst


@pytest.mark.parametrize("shape,axis", [((7, 300), 1), ((300, 7), 0), ((3, 100000), 1), ((100000, 3), 0),
                                        ((1000000,), None), ((40, 50, 60), (0, 2))])
def test_float32_sum_bound(shape, axis):
    x = (rng().standard_normal(shape) * 100).astype(numpy.float32)
    got = kiln.asnumpy(kiln.add.reduce(kiln.asarray(x), axis=axis)).astype(numpy.float64)
    exact = numpy.add.reduce(x.astype(numpy.float64), axis=axis)
    mag = numpy.add.reduce(numpy.abs(x).astype(numpy.float64), axis=axis)
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    n = math.prod(shape[a] for a in axes)
    column = axes[-1] != x.ndim - 1
    u = numpy.finfo(numpy.float32).eps / 2
    bound = 1.01 * (depth_bound(n, column) + 1) * u * mag   # + 1: the final rounding of the exact sum to float32
    assert numpy.all(numpy.abs(got - exact) <= bound)


def test_float32_sum_exact_when_exactly_representable():
    # Integer-valued float32 terms whose partial sums stay below 2**24 sum
    # exactly in any order: every element counted once, whatever the path.
    for shape, axis in CASES:
        x = ints(shape).astype(numpy.float32) % 16
        got = kiln.asnumpy(kiln.add.reduce(kiln.asarray(x), axis=axis))
        assert_same_bits(got, numpy.add.reduce(x.astype(numpy.float64), axis=axis).astype(numpy.float32))


@pytest.mark.parametrize("n,axis", [(1000, None), (200000, None)])
@pytest.mark.parametrize("ufunc", ["maximum", "minimum"])
def test_first_complex_nan(n, axis, ufunc):
    # maximum/minimum return their first argument when it is NaN: the result
    # is the first NaN in element order, which only an order-keeping engine gives.
    x = (rng().standard_normal(n) + 1j * rng().standard_normal(n)).astype(numpy.complex128)
    x[n // 3] = complex(numpy.nan, 2.0)
    x[n // 5] = complex(3.0, numpy.nan)
    x[2 * n // 3] = complex(numpy.nan, numpy.nan)
    f, g = getattr(kiln, ufunc), getattr(numpy, ufunc)
    assert_same_bits(kiln.asnumpy(f.reduce(kiln.asarray(x), axis=axis)), g.reduce(x, axis=axis))
    rows = x.reshape(10, -1)
    assert_same_bits(kiln.asnumpy(f.reduce(kiln.asarray(rows), axis=1)), g.reduce(rows, axis=1))
    cols = numpy.ascontiguousarray(rows.T)
    assert_same_bits(kiln.asnumpy(f.reduce(kiln.asarray(cols), axis=0)), g.reduce(cols, axis=0))


@pytest.mark.parametrize("ufunc", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_float_nan_rules(ufunc, dtype):
    x = (rng().standard_normal((20, 300)) * 10).astype(dtype)
    x[3, 17] = numpy.nan
    x[5, :] = numpy.nan
    x[:, 40] = numpy.nan
    x[7, 100] = -0.0
    f, g = getattr(kiln, ufunc), getattr(numpy, ufunc)
    for axis in (0, 1, None):
        assert_same_values(kiln.asnumpy(f.reduce(kiln.asarray(x), axis=axis)), g.reduce(x, axis=axis))


@pytest.mark.parametrize("ufunc", ["fmax", "fmin"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.complex64])
def test_fmax_all_nan_keeps_first_nan(ufunc, dtype):
    # Note [fmax identity]: all-NaN rows give a data NaN, never the engine's
    # sentinel, over the warp, block, column and split paths; for complex,
    # the first one (NumPy's float SIMD loops pick among real NaNs their own
    # way: Note [NaN in maximum and fmax], so real rows hold one NaN value).
    x = (rng().standard_normal((6, 5000)) * 10).astype(dtype)
    first = numpy.array([complex(numpy.nan, 1.0) if x.dtype.kind == "c" else numpy.nan], dtype)[0]
    x[2, :] = numpy.nan
    x[2, 0] = first
    x[4, 1:] = numpy.nan
    x[4, 4000] = first
    f, g = getattr(kiln, ufunc), getattr(numpy, ufunc)
    for arr, axis in [(x, 1), (numpy.ascontiguousarray(x.T), 0), (x[:, :200], 1), (x[2], None)]:
        assert_same_bits(kiln.asnumpy(f.reduce(kiln.asarray(arr), axis=axis)), g.reduce(arr, axis=axis))


def test_signed_zeros():
    # The engine's identities (-inf, +inf, 0.0) change no zero's sign. (fmax
    # and fmin ties of +-0 follow kiln's ufunc, NumPy's SIMD loop: Note [NaN
    # in maximum and fmax]; NumPy's short-array tail differs, so not here.)
    x = numpy.array([[0.0, -0.0, -0.0], [-0.0, 0.0, -0.0]], numpy.float32)
    for uf in ("maximum", "minimum", "add"):
        for axis in (0, 1, None):
            assert_same_bits(kiln.asnumpy(getattr(kiln, uf).reduce(kiln.asarray(x), axis=axis)),
                             getattr(numpy, uf).reduce(x, axis=axis))


def test_where_large():
    x = ints((300, 1000))
    mask = rng().random((300, 1000)) < 0.3
    for axis in (0, 1, None):
        assert_same_bits(kiln.asnumpy(kiln.add.reduce(kiln.asarray(x), axis=axis, where=kiln.asarray(mask))),
                         numpy.add.reduce(x, axis=axis, where=mask))
        assert_same_bits(kiln.asnumpy(kiln.maximum.reduce(kiln.asarray(x), axis=axis, where=kiln.asarray(mask),
                                                          initial=-5000)),
                         numpy.maximum.reduce(x, axis=axis, where=mask, initial=-5000))


def test_spec_map_and_post_map():
    # The root mean square of float32 rows, accumulated in float64: map,
    # reduce and post_map of a spec written by hand, the output in float32.
    spec = kiln._core._ReductionSpec("test_rms", [("x", "double")], "x * x", "a + b",
                                     "out = (float)sqrt(a / 500.0);", "0.0", numpy.float64, "float")
    x = rng().standard_normal((20, 500)).astype(numpy.float32)
    out = kiln.empty((20,), numpy.float32)
    kiln._core._reduce(spec, [kiln.asarray(x)], [1], out)
    expected = numpy.sqrt(numpy.mean(x.astype(numpy.float64) ** 2, axis=1)).astype(numpy.float32)
    numpy.testing.assert_allclose(kiln.asnumpy(out), expected, rtol=1e-6)
    # A strided output, the kept axes in a different order than out's memory.
    out2 = kiln.empty((20, 2), numpy.float32)[:, 1]
    kiln._core._reduce(spec, [kiln.asarray(x)], [1], out2)
    numpy.testing.assert_allclose(kiln.asnumpy(out2), expected, rtol=1e-6)
    src = kiln._core._reduction_source(spec, [numpy.float32], numpy.float32)
    assert "test_rms_row" in src and "test_rms_col" in src and "test_rms_finish" in src


def test_spec_two_inputs():
    # A dot product: two inputs mapped to one value per element.
    spec = kiln._core._ReductionSpec("test_dot", [("x", "long long"), ("y", "long long")], "x * y", "a + b",
                                     "out = a;", "0LL", numpy.int64, "long long")
    x, y = ints((64, 3000)), ints((64, 3000))
    for axis in ([0], [1], [0, 1]):
        shape = tuple(s for d, s in enumerate(x.shape) if d not in axis)
        out = kiln.empty(shape, numpy.int64)
        kiln._core._reduce(spec, [kiln.asarray(x), kiln.asarray(y)], axis, out)
        assert_same_bits(kiln.asnumpy(out), numpy.sum(x * y, axis=tuple(axis)))


def test_bad_arguments():
    spec = kiln._core._ReductionSpec("test_bad", [("x", "float")], "x", "a + b", "out = a;", "0.0f",
                                     numpy.float32, "float")
    x = kiln.zeros((3, 4), numpy.float32)
    with pytest.raises(ValueError, match="wrong shape"):
        kiln._core._reduce(spec, [x], [1], kiln.empty((4,), numpy.float32))
    with pytest.raises(ValueError, match="axis"):
        kiln._core._reduce(spec, [x], [1, 1], kiln.empty((3,), numpy.float32))
    with pytest.raises(ValueError, match="inputs"):
        kiln._core._reduce(spec, [x, x], [1], kiln.empty((3,), numpy.float32))


def test_value_index_argmax_every_path():
    # `_j` numbers each output's reduced elements in C order over the reduced
    # axes; a kiln::ValueIndex accumulator combined in element order gives
    # NumPy's argmax (first maximum, first NaN) on the row, warp, column and
    # split paths. Few distinct values make ties common.
    combine = ("(b.index >= 0 && (a.index < 0 || b.value > a.value || (isnan(b.value) && !isnan(a.value))))"
               " ? b : a")
    spec = kiln._core._ReductionSpec("test_argmax", [("x", "float")], "kiln::ValueIndex<float>{x, _j}", combine,
                                     "out = a.index;", "kiln::ValueIndex<float>{0.0f, -1LL}", numpy.float32,
                                     "long long", reduce_ctype="kiln::ValueIndex<float>", reduce_itemsize=16)
    for shape, axis in CASES:
        x = rng().integers(0, 7, size=shape).astype(numpy.float32)
        x.flat[::97] = numpy.nan
        axes = list(range(x.ndim)) if axis is None else [axis] if isinstance(axis, int) else list(axis)
        if len(axes) > 1 and len(axes) < x.ndim:
            continue   # numpy.argmax takes one axis or all of them
        out = kiln.empty(tuple(s for d, s in enumerate(shape) if d not in axes), numpy.int64)
        kiln._core._reduce(spec, [kiln.asarray(x)], axes, out)
        expected = numpy.argmax(x, axis=None if len(axes) == x.ndim else axes[0])
        assert_same_bits(kiln.asnumpy(out), numpy.asarray(expected, dtype=numpy.int64))
    with pytest.raises(ValueError, match="reduce_itemsize"):
        bad = kiln._core._ReductionSpec("test_bad_ctype", [("x", "float")], "x", "a", "out = a;", "0",
                                        numpy.float32, "float", reduce_ctype="float")
        kiln._core._reduce(bad, [kiln.zeros((3,), numpy.float32)], [0], kiln.empty((), numpy.float32))


@pytest.mark.parametrize("ordered", [True, False])
def test_unordered_specs_every_path(ordered):
    # A spec that lets the engine deal elements out round-robin (ordered=False)
    # sums exactly like the ordered one on every path, and a non-commutative
    # "first element" combine shows the ordered layout really is in order.
    spec = kiln._core._ReductionSpec("test_sum_%s" % ordered, [("x", "long long")], "x", "a + b", "out = a;", "0LL",
                                     numpy.int64, "long long", ordered=ordered)
    first = kiln._core._ReductionSpec("test_first", [("x", "long long")], "x", "a == -1LL ? b : a", "out = a;",
                                      "-1LL", numpy.int64, "long long")
    for shape, axis in CASES:
        x = ints(shape) + 1000   # no -1
        axes = list(range(x.ndim)) if axis is None else [axis] if isinstance(axis, int) else list(axis)
        out = kiln.empty(tuple(s for d, s in enumerate(shape) if d not in axes), numpy.int64)
        kiln._core._reduce(spec, [kiln.asarray(x)], axes, out)
        assert_same_bits(kiln.asnumpy(out), numpy.sum(x, axis=tuple(axes)))
        kiln._core._reduce(first, [kiln.asarray(x)], axes, out)
        moved = numpy.moveaxis(x, axes, list(range(x.ndim - len(axes), x.ndim)))
        expected = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))[..., 0]
        assert_same_bits(kiln.asnumpy(out), expected)


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.float32,
                                   numpy.complex128])
def test_vector_loads_and_wide_finish(dtype):
    # Note [Reduction vector loads]: aligned contiguous runs are read as
    # 16-byte vectors, pieces rounded to whole vectors, the tail one element
    # a thread; a run that starts off 16 bytes (x[1:], odd rows) takes the
    # scalar path. A full reduction of a million elements has enough pieces
    # on a GPU for the block-per-output finish. Integer-valued data: sums are
    # exact, so every path must agree with NumPy bit for bit, and argmax's
    # ties (few distinct values) must resolve to the first.
    base = rng().integers(0, 5, size=1000003)
    x = base.astype(dtype) if dtype != numpy.complex128 else (base + 1j * base[::-1]).astype(dtype)
    whole = kiln.asarray(x)
    for lo, hi in ((0, None), (1, None), (3, -5)):
        view, k = x[lo:hi], whole[lo:hi]
        assert_same_bits(kiln.asnumpy(k.sum()), numpy.asarray(view.sum()))
        if dtype != numpy.bool_:
            assert_same_bits(kiln.asnumpy(kiln.argmax(k)), numpy.asarray(numpy.argmax(view)))
            assert_same_bits(kiln.asnumpy(k.max()), numpy.asarray(view.max()))
    for cols in (1000, 1001, 4099):
        rows = x[:(len(x) // cols) * cols].reshape(-1, cols)[:300]
        k = kiln.asarray(rows)
        assert_same_bits(kiln.asnumpy(k.sum(axis=1)), rows.sum(axis=1))
        assert_same_bits(kiln.asnumpy(kiln.argmax(k, axis=1)), numpy.argmax(rows, axis=1))
        assert_same_bits(kiln.asnumpy(k[:, 1:].sum(axis=1)), rows[:, 1:].sum(axis=1))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.float16, numpy.int32, numpy.float32, numpy.int64, numpy.float64,
                                   numpy.complex64])
def test_column_vectors(dtype):
    # Note [Reduction column vectors]: column sums whose outputs are a
    # multiple of 16 / itemsize, each row 16-byte aligned, take the vector
    # path (a thread V adjacent outputs, a block's warps taking rows in
    # turn); others the scalar column path. Integer results are NumPy's bits
    # on both; float sums are within Note [Reduction rounding]'s bound
    # d * u * sum|x| of the exact sum (d <= rows + 8 on either path).
    r = rng()
    v = 16 // numpy.dtype(dtype).itemsize
    for rows, cols in ((3000, 8 * v), (37, 2 * v), (70000, v), (5, 4 * v)):
        h = r.integers(-3, 4, size=(rows, cols + 1)).astype(dtype)
        if numpy.dtype(dtype).kind in "fc":
            h = h + r.standard_normal(h.shape).astype(dtype) / 8   # not exact: rounding differs between the paths
        k = kiln.asarray(h)
        vec = kiln.asnumpy(k[:, :cols].copy().sum(axis=0))      # contiguous, cols % v == 0: vectors
        scalar = kiln.asnumpy(k[:, :cols].sum(axis=0))            # rows start cols + 1 apart: scalar
        wide = numpy.complex128 if numpy.dtype(dtype).kind == "c" else numpy.float64
        exact = h[:, :cols].astype(wide).sum(axis=0)
        if numpy.dtype(dtype).kind in "iu":
            assert_same_bits(vec, h[:, :cols].sum(axis=0))
            assert_same_bits(scalar, h[:, :cols].sum(axis=0))
        else:
            # float16 sums accumulate in float32 (NumPy's pairwise float16 sum does too)
            u = numpy.finfo(numpy.float32 if dtype == numpy.float16 else dtype).eps / 2
            bound = (rows + 8) * u * numpy.abs(h[:, :cols].astype(wide)).sum(axis=0)
            out_u = numpy.finfo(dtype).eps / 2 * numpy.abs(exact)     # the final rounding to dtype
            for got in (vec, scalar):
                assert (numpy.abs(got.astype(wide) - exact) <= bound + out_u).all()
        c = kiln.asarray(h[:, :cols].copy())
        # max, argmax (index ties: few distinct values), keepdims, a strided out=
        assert_same_bits(kiln.asnumpy(c.max(axis=0)), h[:, :cols].max(axis=0))
        assert_same_bits(kiln.asnumpy(kiln.argmax(c, axis=0)), numpy.argmax(h[:, :cols], axis=0))
        assert kiln.asnumpy(c.sum(axis=0, keepdims=True)).shape == (1, cols)
        out = kiln.zeros((cols, 2), dtype=vec.dtype)
        kiln.sum(c, axis=0, out=out[:, 1])
        assert_same_bits(kiln.asnumpy(out[:, 1]), vec)
        assert not kiln.asnumpy(out[:, 0]).any()
