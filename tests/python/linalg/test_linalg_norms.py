"""kiln.linalg.norm, vector_norm and matrix_norm against NumPy on random
data: every vector and matrix ord, axes (ints, pairs, tuples, negative),
keepdims, NumPy's result dtypes (Note [Norm dtypes] in
kiln/linalg/_norms.py), layouts, empty inputs and NumPy's errors.

Note [Norm tolerances]
Results are compared with the same formula evaluated in long double from
the same inputs, with first-order bounds (u = eps / 2 of the result's
real dtype; n terms per norm; every term is non-negative, so a sum's
rounding error is relative to the sum itself):
- 1-norm and matrix 1 / inf norms: n - 1 additions and |x| (one rounding
  for complex): (n + 1) u relative.
- 2-norm and Frobenius: squares (and re^2 + im^2) and n - 1 additions,
  (n + 2) u relative on the sum; sqrt halves that and adds u.
- p-norms: |x|^p within 1 ulp (2u) each plus p times |x|'s rounding, then
  the sum's (n - 1) u; ^(1/p) divides the sum's relative error by |p|,
  adds 2u, and NumPy's exponent 1/p rounded to the real dtype (as kiln's)
  adds |ln S / p| u, S the sum.
- inf, -inf and 0: exact (the max / min of |x|, a count), save complex
  |x|'s own rounding (2u).
- 2, -2, 'nuc' (singular values): a backward stable SVD's bound
  p(m, n) u ||A||_2 per singular value, taking p(m, n) = 4 m n, times the
  count of values summed for 'nuc'.
Each bound is doubled for second-order terms. float16 sums use float16's u.
"""
import math

import numpy
import pytest

import kiln
from test_linalg_products import exact, operand

AxisError = numpy.exceptions.AxisError
DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int32]
VECTOR_ORDS = [None, 2, 1, 0, numpy.inf, -numpy.inf, 3, 0.5, -2]
MATRIX_ORDS = [None, "fro", 1, -1, numpy.inf, -numpy.inf]
SVD_ORDS = [2, -2, "nuc"]


def _has_svd():
    return hasattr(kiln.linalg, "svdvals") or hasattr(kiln.linalg, "svd")


def _exact_norm(x, ord, axis, keepdims=False):
    """NumPy's norm of x in long double (the reference of Note [Norm tolerances])."""
    x = exact(x)
    if x.dtype.kind in "biu":
        x = x.astype(numpy.longdouble)
    if ord in SVD_ORDS and (axis is None and x.ndim == 2 or numpy.ndim(axis) == 1 and len(axis) == 2):
        # NumPy's svd has no long double: float64 / complex128
        x = x.astype(numpy.complex128 if x.dtype.kind == "c" else numpy.float64)
    return numpy.linalg.norm(x, ord, axis, keepdims)


def _bound(ord, dtype, n, total, matrix_shape=None, largest=None):
    """Note [Norm tolerances]: the relative (or, for singular values,
    absolute) error allowed."""
    u = numpy.finfo(dtype).eps / 2
    if matrix_shape is not None:
        m, k = matrix_shape
        return 2 * 4 * m * k * u * largest * (min(m, k) if ord == "nuc" else 1)
    if ord in (numpy.inf, -numpy.inf, 0):
        return 2 * 2 * u
    if ord in (1, -1):
        return 2 * (n + 1) * u
    if ord in (None, 2, "fro"):
        return 2 * ((n + 2) * u / 2 + u)
    p = abs(float(ord))
    log_s = abs(math.log(total)) if total > 0 and math.isfinite(total) else 0.0
    return 2 * ((2 + p + n - 1) * u / p + 2 * u + log_s * u / p)


def check(got, expected, reference, bound):
    assert isinstance(got, kiln.ndarray)
    g = got.get()
    assert g.dtype == expected.dtype, (g.dtype, expected.dtype)
    assert g.shape == expected.shape, (g.shape, expected.shape)
    ref = numpy.asarray(reference, dtype=numpy.longdouble)
    err = numpy.abs(g.astype(numpy.longdouble) - ref)
    allowed = numpy.where(numpy.isfinite(ref), numpy.asarray(bound, numpy.longdouble), 0)
    same_inf = (g == ref) | (numpy.isnan(g) & numpy.isnan(ref))
    bad = ~same_inf & ~(err <= allowed)
    assert not bad.any(), "max error %r, allowed %r" % (err[bad].max(), numpy.asarray(allowed)[bad].ravel()[0])


def real_dtype(dtype):
    dtype = numpy.dtype(dtype)
    return numpy.dtype(numpy.float64) if dtype.kind in "biu" else numpy.dtype(dtype.type(0).real.dtype)


def compare_vector(kx, x, ord, axis, keepdims=False):
    got = kiln.linalg.norm(kx, ord, axis, keepdims)
    expected = numpy.linalg.norm(x, ord, axis, keepdims)
    ref = _exact_norm(x, ord, axis, keepdims)
    n = x.size if axis is None else x.shape[axis]
    rd = real_dtype(x.dtype)
    p_norm = ord not in VECTOR_ORDS[:6]
    sums = numpy.asarray(ref, dtype=numpy.float64) ** float(ord) if p_norm else numpy.ones(numpy.shape(ref))
    bounds = numpy.vectorize(lambda total, r: _bound(ord, rd, n, total) * abs(r))(sums, ref.astype(numpy.float64))
    check(got, expected, ref, bounds)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_vector_norms(rng, dtype, layout):
    kx, x = operand(rng, (5, 7), dtype, layout)
    for ord in VECTOR_ORDS:
        for axis in (0, 1, -1):
            compare_vector(kx, x, ord, axis)
        compare_vector(kx, x, ord, 0, keepdims=True)
        compare_vector(kx[1], x[1], ord, None)      # 1-d: axis None is the vector norm
    compare_vector(kx, x, None, None)                 # any ndim, flattened
    compare_vector(kx, x, None, None, keepdims=True)


def compare_matrix(kx, x, ord, axis, keepdims=False):
    got = kiln.linalg.norm(kx, ord, axis, keepdims)
    expected = numpy.linalg.norm(x, ord, axis, keepdims)
    ref = numpy.asarray(_exact_norm(x, ord, axis, keepdims))
    axes = (0, 1) if axis is None else axis
    m, k = x.shape[axes[0]], x.shape[axes[1]]
    rd = real_dtype(x.dtype)
    if ord in SVD_ORDS:
        largest = numpy.asarray(_exact_norm(x, 2, axis, keepdims), dtype=numpy.float64)
        bound = _bound(ord, rd, None, None, (m, k), largest)
    else:
        n = m if ord in (1, -1) else k if ord in (numpy.inf, -numpy.inf) else m * k
        bound = _bound(ord, rd, n, None) * numpy.abs(ref.astype(numpy.float64))
    check(got, expected, ref, bound)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_matrix_norms(rng, dtype, layout):
    kx, x = operand(rng, (4, 6), dtype, layout)
    k3, x3 = operand(rng, (3, 2, 5), dtype, layout)
    for ord in MATRIX_ORDS:
        compare_matrix(kx, x, ord, None)
        compare_matrix(kx, x, ord, (1, 0))
        compare_matrix(k3, x3, ord, (0, 2))
        compare_matrix(k3, x3, ord, (-1, 0), keepdims=True)
        compare_matrix(k3, x3, ord, (2, 1))


@pytest.mark.skipif(not _has_svd(), reason="the 2, -2 and 'nuc' matrix norms need kiln.linalg.svdvals (or svd), "
                                           "which this kiln does not have yet")
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128])
def test_matrix_norms_of_singular_values(rng, dtype):
    kx, x = operand(rng, (4, 6), dtype, "F")
    k3, x3 = operand(rng, (3, 2, 5), dtype, "negative")
    for ord in SVD_ORDS:
        compare_matrix(kx, x, ord, None)
        compare_matrix(k3, x3, ord, (0, 2))
        compare_matrix(k3, x3, ord, (2, 1), keepdims=True)
        check(kiln.linalg.matrix_norm(k3, ord=ord), numpy.linalg.matrix_norm(x3, ord=ord),
              _exact_norm(x3, ord, (-2, -1)), _bound(ord, real_dtype(dtype), None, None, (2, 5),
                                                     numpy.linalg.norm(x3.astype(numpy.complex128), 2, (-2, -1))))


def test_result_dtypes_follow_numpy():
    for dtype in (numpy.bool_, numpy.int8, numpy.uint16, numpy.int64, numpy.float16, numpy.float32, numpy.complex64):
        x = numpy.ones((2, 3), dtype)
        kx = kiln.asarray(x)
        for ord, axis in ((None, None), (None, 1), (1, 0), (numpy.inf, None), (3, 1), ("fro", None)):
            assert kiln.linalg.norm(kx, ord, axis).dtype == numpy.linalg.norm(x, ord, axis).dtype, (dtype, ord)


def test_float16(rng):
    kx, x = operand(rng, (3, 8), numpy.float16, "C")
    for ord in (None, 1, numpy.inf, 3):
        compare_vector(kx, x, ord, 1)
    compare_matrix(kx, x, "fro", None)


def test_the_seeds_example():
    """seeds/003: the L2 norm of a small array, as NumPy's."""
    x_cpu = numpy.array([1, 2, 3])
    x_gpu = kiln.array([1, 2, 3])
    l2_gpu = kiln.linalg.norm(x_gpu)
    assert l2_gpu.dtype == numpy.float64 and l2_gpu.shape == ()
    assert abs(float(l2_gpu) - numpy.linalg.norm(x_cpu)) <= 4 * numpy.finfo(numpy.float64).eps * math.sqrt(14)
    f32 = kiln.linalg.norm(kiln.asarray(numpy.array([3, 4], numpy.float32)))
    assert f32.dtype == numpy.float32 and float(f32) == 5.0


def test_vector_norm_and_matrix_norm(rng):
    kx, x = operand(rng, (2, 3, 4), numpy.float64, "strided")
    for ord in (2, 1, numpy.inf, 0, -numpy.inf, 3):
        for axis in (None, 1, (0, 2), (2, 0), (-1,), (0, 1, 2)):
            for keepdims in (False, True):
                got = kiln.linalg.vector_norm(kx, axis=axis, keepdims=keepdims, ord=ord)
                expected = numpy.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
                assert got.shape == expected.shape and got.dtype == expected.dtype
                numpy.testing.assert_allclose(got.get(), expected, rtol=2 * 30 * numpy.finfo(numpy.float64).eps)
    assert kiln.linalg.vector_norm(kiln.asarray(numpy.float32(-3.0))).get() == 3.0     # 0-d
    for ord in MATRIX_ORDS:
        for keepdims in (False, True):
            got = kiln.linalg.matrix_norm(kx, keepdims=keepdims, ord=ord if ord is not None else "fro")
            expected = numpy.linalg.matrix_norm(x, keepdims=keepdims, ord=ord if ord is not None else "fro")
            assert got.shape == expected.shape
            numpy.testing.assert_allclose(got.get(), expected, rtol=2 * 14 * numpy.finfo(numpy.float64).eps)


def test_empty_inputs():
    for ord, axis in ((None, None), (numpy.inf, None), (1, None), (2, 0), (0, 0)):
        x = numpy.zeros(0)
        got = kiln.linalg.norm(kiln.asarray(x), ord, axis)
        assert got.get() == numpy.linalg.norm(x, ord, axis) == 0
    m = numpy.zeros((0, 3))
    for ord in (None, "fro", 1, numpy.inf):
        assert kiln.linalg.norm(kiln.asarray(m), ord).get() == numpy.linalg.norm(m, ord) == 0
    for module in (numpy, kiln):
        with pytest.raises(ValueError, match="zero-size array"):
            module.linalg.norm(module.zeros(0), -numpy.inf)


def test_errors_as_numpy():
    for module in (numpy, kiln):
        v, m, t = module.ones(3), module.ones((3, 3)), module.ones((2, 2, 2))
        with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
            module.linalg.norm(v, "fro")
        with pytest.raises(ValueError, match="Invalid norm order 'nuc' for vectors"):
            module.linalg.norm(m, "nuc", axis=0)
        with pytest.raises(ValueError, match="Invalid norm order for matrices."):
            module.linalg.norm(m, 3)
        with pytest.raises(ValueError, match="Invalid norm order for matrices."):
            module.linalg.norm(m, "bogus")
        with pytest.raises(ValueError, match="Improper number of dimensions to norm."):
            module.linalg.norm(t, 2)
        with pytest.raises(ValueError, match="Improper number of dimensions to norm."):
            module.linalg.norm(t, axis=(0, 1, 2))
        with pytest.raises(ValueError, match="Duplicate axes given."):
            module.linalg.norm(m, axis=(0, -2))
        with pytest.raises(AxisError, match="axis 3 is out of bounds for array of dimension 2"):
            module.linalg.norm(m, axis=(0, 3))
        with pytest.raises(AxisError):
            module.linalg.norm(v, axis=1)
        with pytest.raises(TypeError, match="'axis' must be None, an integer or a tuple of integers"):
            module.linalg.norm(v, axis=[0])
        with pytest.raises(ValueError, match="repeated axis"):
            module.linalg.vector_norm(m, axis=(0, 0))
        with pytest.raises(AxisError):
            module.linalg.matrix_norm(v)


def test_numpy_dispatch(rng):
    kx, x = operand(rng, (3, 4), numpy.float32)
    for f in (numpy.linalg.norm, numpy.linalg.vector_norm, numpy.linalg.matrix_norm):
        got = f(kx)
        assert isinstance(got, kiln.ndarray)
        numpy.testing.assert_allclose(got.get(), f(x), rtol=2 * 14 * numpy.finfo(numpy.float32).eps)
