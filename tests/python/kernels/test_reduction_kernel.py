"""kiln.ReductionKernel (kiln/_reduction_kernel.py): the seeds' l2norm example,
type placeholders, several broadcast inputs, scalars, axis/keepdims/out=,
reduce_type, preamble, _j, and the errors."""
import numpy
import pytest

import kiln
from conftest import LAYOUTS, make

L2NORM = kiln.ReductionKernel(
    'T x',  # input params
    'T y',  # output params
    'x * x',  # map
    'a + b',  # reduce
    'y = sqrt(a)',  # post-reduction map
    '0',  # identity value
    'l2norm'  # kernel name
)


def test_seed_l2norm():
    # seeds/003: the output printed there, exactly.
    x = kiln.arange(10, dtype=numpy.float32).reshape(2, 5)
    assert repr(L2NORM(x, axis=1)) == "array([ 5.477226 , 15.9687195], dtype=float32)"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_l2norm_layouts_axes(rng, dtype, layout):
    k, x = make(rng, layout, dtype)
    axes = [None, 0, 1, -1, (0, 1), ()] if x.ndim == 2 else [None, ()]
    for axis in axes:
        for keepdims in (False, True):
            got = L2NORM(k, axis=axis, keepdims=keepdims)
            expected = numpy.sqrt(numpy.sum(x.astype(numpy.float64) ** 2, axis=axis, keepdims=keepdims))
            assert isinstance(got, kiln.ndarray) and got.dtype == dtype and got.shape == expected.shape
            # a sum of n squares: depth n - 1 (Note [Reduction rounding]) + the squares + sqrt
            n = max(x.size // max(expected.size, 1), 1)
            u = numpy.finfo(dtype).eps / 2
            assert numpy.all(numpy.abs(got.get() - expected) <= 1.01 * (n + 2) * u * expected)


def test_placeholders_broadcast_scalars_out(rng):
    dot = kiln.ReductionKernel('T x, T y, S s', 'U z', 'x * y * s', 'a + b', 'z = a', '0', 'scaled_dot')
    x = rng.standard_normal((4, 5))
    y = rng.standard_normal((5,))
    out = kiln.zeros((4,), numpy.float32)
    got = dot(kiln.asarray(x), kiln.asarray(y), 2, out=out, axis=1)
    assert got is out
    numpy.testing.assert_allclose(out.get(), (x * y * 2).sum(axis=1).astype(numpy.float32), rtol=1e-6)
    z = kiln.zeros((1, 5))
    dot(kiln.asarray(x), kiln.asarray(y), numpy.int8(3), z, axis=0, keepdims=True)   # output positional
    numpy.testing.assert_allclose(z.get(), (x * y * 3).sum(axis=0, keepdims=True), rtol=1e-12)
    with pytest.raises(TypeError, match="output type can't be determined"):
        dot(kiln.asarray(x), kiln.asarray(y), 2)
    with pytest.raises(TypeError, match="type mismatch"):
        dot(kiln.asarray(x), kiln.asarray(y.astype(numpy.float32)), 2, out=out, axis=1)


def test_reduce_type_preamble_and_index(rng):
    # int8 values summed in int64 (reduce_type), a preamble function, and an
    # argmax through _j with a two-sided identity.
    total = kiln.ReductionKernel('int8 x', 'int64 y', 'twice(x)', 'a + b', 'y = a', '0', 'twice_sum',
                                 reduce_type='int64', preamble='KILN_DEVICE long long twice(signed char v) '
                                                                '{ return 2 * (long long)v; }')
    x = rng.integers(-128, 128, (300, 7)).astype(numpy.int8)
    numpy.testing.assert_array_equal(total(kiln.asarray(x), axis=0).get(), 2 * x.astype(numpy.int64).sum(axis=0))
    last_max = kiln.ReductionKernel('T x', 'int64 y', '_j', '(a < 0 || (b >= 0 && b > a)) ? b : a',
                                    'y = a', '-1', 'last_index', reduce_type='int64')
    assert last_max(kiln.asarray(x), axis=0).get().tolist() == [299] * 7
    assert last_max(kiln.asarray(x)).get() == x.size - 1


def test_output_named_out():
    """CuPy lets the output parameter be called `out` (the name kiln's
    reduction engine gives its output), including with the out= argument."""
    my_sum = kiln.ReductionKernel('T x', 'T out', 'x', 'a + b', 'out = a', '0', 'sum_into_out')
    x = numpy.arange(24, dtype=numpy.int8).reshape(4, 6)
    numpy.testing.assert_array_equal(my_sum(kiln.asarray(x), axis=0).get(), x.sum(axis=0, dtype=numpy.int8))
    given = kiln.zeros(4, numpy.int8)
    assert my_sum(kiln.asarray(x.T), axis=0, out=given) is given
    numpy.testing.assert_array_equal(given.get(), x.sum(axis=1, dtype=numpy.int8))


def test_empty_and_errors():
    x = kiln.zeros((0, 3), numpy.float32)
    numpy.testing.assert_array_equal(L2NORM(x, axis=0).get(), numpy.zeros(3, numpy.float32))
    assert L2NORM(x, axis=1).shape == (0,)
    with pytest.raises(numpy.exceptions.AxisError):
        L2NORM(x, axis=2)
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        L2NORM()
    with pytest.raises(TypeError, match="NumPy array"):
        L2NORM(numpy.zeros(3))
    with pytest.raises(ValueError, match="out has shape"):
        L2NORM(kiln.zeros((2, 3)), axis=0, out=kiln.zeros((2,)))
    with pytest.raises(ValueError, match="Invalid kernel name"):
        kiln.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'bad name')
    with pytest.raises(ValueError, match="syntax error"):
        kiln.ReductionKernel('T', 'T y', 'x', 'a + b', 'y = a', '0')
    with pytest.raises(ValueError, match="reserved"):
        kiln.ReductionKernel('T a', 'T y', 'a', 'a + b', 'y = a', '0')
    with pytest.raises(ValueError, match="'out' can only name the output"):
        kiln.ReductionKernel('T out', 'T y', 'out', 'a + b', 'y = a', '0')
    with pytest.raises(TypeError, match="unknown reduce_type"):
        kiln.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', reduce_type='mystruct')(kiln.zeros(3))
    assert repr(L2NORM) == "<kiln.ReductionKernel l2norm>"


# --- raw inputs (Note [Reduction raw inputs] in arraycore/reduction.h) --------

WSUM = kiln.ReductionKernel('T x, raw T w', 'T y', 'x * w[_j]', 'a + b', 'y = a', '0', 'raw_wsum')
# `_i` in map_expr and post_map_expr: sum(x) + n * w[i] + w[i] for output i.
OFFSET = kiln.ReductionKernel('T x, raw T w', 'T y', 'x + w[_i]', 'a + b', 'y = a + w[_i]', '0', 'raw_offset')

RAW_DTYPES = [numpy.int32, numpy.int64, numpy.uint8, numpy.float16, numpy.float32, numpy.float64, numpy.complex64]
RAW_LAYOUTS = ["C", "F", "strided", "negative"]


def small_values(rng, shape, dtype):
    """Integer values in [-3, 3] ([0, 3] unsigned): every sum below is exact
    in every dtype, on every path and in any order, so results compare equal."""
    low = 0 if numpy.dtype(dtype).kind == "u" else -3
    return rng.integers(low, 4, size=shape).astype(dtype)


def raw_array(rng, layout, dtype, size):
    """(kiln array of at least `size` elements in `layout`, of a shape of its
    own, and its values in C order as a flat NumPy array)."""
    rows = max(1, -(-size // 4))
    base = small_values(rng, (2 * rows, 8), dtype)
    k = kiln.asarray(base)
    if layout == "C":
        return kiln.asarray(base[:rows, :4].copy()), base[:rows, :4].reshape(-1)
    if layout == "F":
        return k[:rows, :4].astype(dtype, order="F"), base[:rows, :4].reshape(-1)
    if layout == "strided":
        return k[::2, 1::2], base[::2, 1::2].reshape(-1)
    assert layout == "negative"
    return k[::-2, ::-2], base[::-2, ::-2].reshape(-1)


def reduced_last(x, axis):
    """x with its kept axes first and its reduced ones (in their order) merged
    into one last axis: element [i..., j] is the reduced element `_j` of the
    output at kept index i. Also returns the axes."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(
        a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    kept = [d for d in range(x.ndim) if d not in axes]
    n = int(numpy.prod([x.shape[d] for d in axes], dtype=numpy.int64))
    return numpy.transpose(x, kept + sorted(axes)).reshape([x.shape[d] for d in kept] + [n]), axes


def as_kept(result, x, axes, keepdims):
    return result.reshape([1 if d in axes else s for d, s in enumerate(x.shape)]) if keepdims else result


def axes_for(x):
    return [None, 0, 1, -1, (0, 1), (1, 0), (), (-2,)] if x.ndim == 2 else [None, ()]


@pytest.mark.parametrize("w_layout", RAW_LAYOUTS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", RAW_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_raw_weights_by_reduced_position(rng, dtype, layout, w_layout):
    k, x = make(rng, layout, dtype, base=small_values(rng, (6, 8), dtype))
    w, wf = raw_array(rng, w_layout, dtype, max(x.size, 1))
    for axis in axes_for(x):
        for keepdims in (False, True):
            t, axes = reduced_last(x, axis)
            expected = as_kept((t * wf[:t.shape[-1]]).sum(axis=-1, dtype=dtype), x, axes, keepdims)
            got = WSUM(k, w, axis=axis, keepdims=keepdims)
            assert got.dtype == dtype and got.shape == expected.shape, (axis, keepdims)
            numpy.testing.assert_array_equal(got.get(), expected, err_msg="axis=%r keepdims=%r" % (axis, keepdims))


@pytest.mark.parametrize("w_layout", RAW_LAYOUTS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", RAW_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_raw_offset_by_output(rng, dtype, layout, w_layout):
    k, x = make(rng, layout, dtype, base=small_values(rng, (6, 8), dtype))
    w, wf = raw_array(rng, w_layout, dtype, max(x.size, 1))
    for axis in axes_for(x):
        for keepdims in (False, True):
            t, axes = reduced_last(x, axis)
            n = t.shape[-1]
            wi = wf[:int(numpy.prod(t.shape[:-1]))].reshape(t.shape[:-1])
            # (x0 + w_i) + ... + (x(n-1) + w_i), then + w_i; in dtype's arithmetic
            expected = (t.sum(axis=-1, dtype=dtype) + (wi * dtype(n)).astype(dtype) + wi).astype(dtype)
            expected = as_kept(expected, x, axes, keepdims)
            got = OFFSET(k, w, axis=axis, keepdims=keepdims)
            assert got.dtype == dtype and got.shape == expected.shape, (axis, keepdims)
            numpy.testing.assert_array_equal(got.get(), expected, err_msg="axis=%r keepdims=%r" % (axis, keepdims))


def test_raw_0d_size_shape_and_out(rng):
    # A 0-d raw array (a view at an offset), w.size(), w.ndim and w.shape[d],
    # out= and a placeholder settled by the raw array alone.
    x = small_values(rng, (5, 7), numpy.float64)
    base = kiln.asarray(numpy.arange(20.0))
    s = kiln._core._as_strided(base, (), (), 13 * 8)   # the 0-d value 13.0
    scale = kiln.ReductionKernel('T x, raw T s', 'T y', 'x * s[0]', 'a + b', 'y = a', '0', 'raw_scale')
    numpy.testing.assert_array_equal(scale(kiln.asarray(x), s, axis=0).get(), (x * 13.0).sum(axis=0))
    assert scale(kiln.asarray(x), s).get() == (x * 13.0).sum()
    dims = kiln.ReductionKernel('T x, raw U w', 'U y', 'x', 'a + b',
                                'y = a + w.size() * 1000 + w.ndim * 100 + w.shape[0] * 10 + w.shape[w.ndim - 1]',
                                '0', 'raw_dims')
    w = kiln.zeros((2, 3, 4), numpy.float32)[:, ::-1, 1:]
    got = dims(kiln.asarray(x), w, axis=1)
    assert got.dtype == numpy.float32   # U from the raw array
    numpy.testing.assert_array_equal(got.get(), (x.sum(axis=1) + 18 * 1000 + 3 * 100 + 2 * 10 + 3).astype(numpy.float32))
    out = kiln.zeros((1, 7), numpy.float32)
    assert dims(kiln.asarray(x), w, axis=0, keepdims=True, out=out) is out
    numpy.testing.assert_array_equal(out.get(), (x.sum(axis=0, keepdims=True) + 18323).astype(numpy.float32))
    # an empty raw array is fine when nothing reads it
    numpy.testing.assert_array_equal(dims(kiln.asarray(x), kiln.zeros((0,), numpy.float64), axis=1).get(),
                                     x.sum(axis=1) + 0 * 1000 + 100 + 0 + 0)


def test_raw_gather_mask_and_broadcast(rng):
    # Raw params between and after broadcast ones, of other dtypes (an int32
    # index array, a bool mask) and of other shapes than the inputs.
    k = kiln.ReductionKernel('T x, raw int32 idx, S s, raw T table, raw bool keep', 'T y',
                             'keep[_j] ? x * table[idx[_j]] * s : (T)0', 'a + b', 'y = a', '0', 'raw_gather')
    x = small_values(rng, (4, 6), numpy.float64)
    idx = rng.integers(0, 10, size=(2, 3)).astype(numpy.int32)
    table = small_values(rng, (10,), numpy.float64)
    keep = rng.integers(0, 2, size=(3, 2)).astype(bool)
    s = small_values(rng, (4, 1), numpy.float64)
    got = k(kiln.asarray(x), kiln.asarray(idx), kiln.asarray(s), kiln.asarray(table[::-1].copy())[::-1],
            kiln.asarray(keep.T.copy()).T, axis=1)
    expected = (numpy.where(keep.reshape(-1), x * table[idx.reshape(-1)] * s, 0)).sum(axis=1)
    numpy.testing.assert_array_equal(got.get(), expected)


@pytest.mark.parametrize("ordered", [True, False])
@pytest.mark.parametrize("shape, axis", [
    ((8, 1024), (1,)),     # rows: the `_vec` kernel when unordered (aligned rows)
    ((8, 1023), (1,)),     # rows not 16-byte aligned: the row kernel
    ((64, 100), (1,)),     # short rows: a warp each
    ((1 << 16,), (0,)),    # full: split, partials combined by the finish pass
    ((3000, 32), (0,)),    # columns: column vectors when unordered, split
    ((40, 32), (0,)),      # columns: column vectors, one piece (stored directly)
    ((4096, 5), (0,)),     # columns: the scalar column kernel, split
    ((40, 5), (0,)),       # columns: the scalar column kernel, one piece
    ((64, 40, 3), (0, 2)),  # kept and reduced axes interleaved
], ids=str)
def test_raw_on_every_engine_path(rng, ordered, shape, axis):
    # The engine directly, so unordered specs (the vector paths) run too:
    # `_j` and `_i` in the map, `_i` in the store, a reversed raw array.
    spec = kiln._core._ReductionSpec("raw_paths", [("x", "float")], "x * w[_j] + w[_i]", "a + b",
                                     "out = a + 2 * w[_i];", "0.0f", numpy.float32, "float", ordered=ordered,
                                     raw_params=[("w", "float")])
    x = small_values(rng, shape, numpy.float32)
    size = max(x.size, 4)
    wb = small_values(rng, (size,), numpy.float32)
    w, wf = kiln.asarray(wb)[::-1], wb[::-1]
    kept = tuple(n for d, n in enumerate(shape) if d not in axis)
    out = kiln.empty(kept, numpy.float32)
    kiln._core._reduce(spec, [kiln.asarray(x)], list(axis), out, [w])
    t, _ = reduced_last(x, axis)
    n = t.shape[-1]
    wi = wf[:int(numpy.prod(t.shape[:-1]))].reshape(t.shape[:-1])
    expected = (t.astype(numpy.float64) * wf[:n]).sum(axis=-1) + (n + 2) * wi
    numpy.testing.assert_array_equal(out.get(), expected.astype(numpy.float32))


def test_raw_errors():
    x = kiln.zeros((2, 3), numpy.float32)
    with pytest.raises(NotImplementedError, match="raw output parameter 'y'"):
        kiln.ReductionKernel('T x', 'raw T y', 'x', 'a + b', 'y = a', '0', 'raw_out')
    with pytest.raises(ValueError, match="non-raw input"):
        kiln.ReductionKernel('raw T x', 'T y', 'x[0]', 'a + b', 'y = a', '0', 'only_raw')
    with pytest.raises(TypeError, match="raw parameter 'w' takes a kiln.ndarray, got float"):
        WSUM(x, 1.5)
    with pytest.raises(TypeError, match="raw parameter 'w' takes a kiln.ndarray, got float32"):
        WSUM(x, numpy.float32(1.5))
    with pytest.raises(TypeError, match="NumPy array"):
        WSUM(x, numpy.ones(3, numpy.float32))
    with pytest.raises(TypeError, match="type mismatch"):
        WSUM(x, kiln.ones(3, numpy.float64))
    typed = kiln.ReductionKernel('float32 x, raw float64 w', 'float32 y', 'x * w[_j]', 'a + b', 'y = a', '0', 'raw_typed')
    with pytest.raises(TypeError, match="type mismatch: input 'w' is float32"):
        typed(x, kiln.ones(3, numpy.float32))
    spec = kiln._core._ReductionSpec("raw_count", [("x", "float")], "x * w[_j]", "a + b", "out = a;", "0.0f",
                                     numpy.float32, "float", raw_params=[("w", "float")])
    with pytest.raises(ValueError, match="expected 1 raw inputs, got 0"):
        kiln._core._reduce(spec, [x], [1], kiln.empty((2,), numpy.float32))
