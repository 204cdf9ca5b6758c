"""kiln.matvec and kiln.vecmat (NumPy 2.2's gufuncs), and the gufunc
keywords axes=, axis= and keepdims= of matmul, matvec, vecmat and vecdot
(Note [Gufunc axes] in kiln/linalg/_products.py), against NumPy on random
data; tolerances are Note [Product tolerances]'s (test_linalg_products.py)."""
import numpy
import pytest

import kiln
from test_linalg_products import check_product, operand

AxisError = numpy.exceptions.AxisError
DTYPES = [numpy.bool_, numpy.int8, numpy.int64, numpy.float16, numpy.float32, numpy.float64, numpy.complex64,
          numpy.complex128]


def _matvec(a, b):
    return numpy.matmul(a, b[..., None])[..., 0]


def _vecmat(a, b):
    return numpy.matmul(a[..., None, :], b)[..., 0, :]


# (shape of the matrix, shape of the vector): plain, batched, broadcast, empty.
SHAPES = [((3, 5), (5,)), ((2, 4, 3), (3,)), ((4, 3), (2, 3)), ((2, 1, 4, 6), (3, 6)), ((0, 4), (4,)), ((3, 0), (0,))]


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_matvec_and_vecmat(rng, dtype, layout):
    for sm, sv in SHAPES:
        km, m = operand(rng, sm, dtype, layout)
        kv, v = operand(rng, sv, dtype, "C" if layout == "F" else layout)
        check_product(kiln.matvec(km, kv), numpy.matvec(m, v), m, v, sm[-1], product=_matvec)
        kmt = km.mT if km.ndim >= 2 else km
        mt = numpy.matrix_transpose(m)
        got, expected = kiln.vecmat(kv, kmt), numpy.vecmat(v, mt)
        conj_v = numpy.conj(v) if v.dtype.kind == "c" else v
        check_product(got, expected, conj_v, mt, sm[-1], product=_vecmat)


def test_vecmat_conjugates_the_vector(rng):
    kv, v = operand(rng, (4,), numpy.complex128)
    km, m = operand(rng, (4, 3), numpy.complex128)
    check_product(kiln.vecmat(kv, km), numpy.vecmat(v, m), numpy.conj(v), m, 4, product=_vecmat)
    assert not numpy.allclose(numpy.vecmat(v, m), v @ m)   # the test can tell


def test_matvec_out_dtype_casting(rng):
    km, m = operand(rng, (3, 4), numpy.float32)
    kv, v = operand(rng, (4,), numpy.float32)
    out = kiln.zeros(3, numpy.float64)
    assert kiln.matvec(km, kv, out=out) is out
    check_product(out.astype(numpy.float32), numpy.matvec(m, v), m, v, 4, product=_matvec)
    ki, i = operand(rng, (3, 4), numpy.int8)
    kj, j = operand(rng, (4,), numpy.int8)
    check_product(kiln.matvec(ki, kj, dtype=numpy.float32), numpy.matvec(i, j, dtype=numpy.float32),
                  i.astype(numpy.float32), j.astype(numpy.float32), 4, product=_matvec)
    for module in (numpy, kiln):
        with pytest.raises(TypeError, match="Cannot cast ufunc 'matvec' output"):
            module.matvec(module.ones((3, 4)), module.ones(4), out=module.ones(3, numpy.int32))
        with pytest.raises(ValueError, match=r"matvec: Input operand 1 has a mismatch in its core dimension 0, "
                                             r"with gufunc signature \(m,n\),\(n\)->\(m\) \(size 5 is different"):
            module.matvec(module.ones((2, 3, 4)), module.ones(5))
        with pytest.raises(ValueError, match="vecmat: Input operand 1 does not have enough dimensions"):
            module.vecmat(module.ones(4), module.ones(4))
        with pytest.raises(ValueError, match="matvec: Input operand 1 does not have enough dimensions"):
            module.matvec(module.ones((3, 4)), 1.0)


def test_numpy_dispatch(rng):
    km, m = operand(rng, (3, 4), numpy.float64)
    kv, v = operand(rng, (4,), numpy.float64)
    check_product(numpy.matvec(km, kv), numpy.matvec(m, v), m, v, 4, product=_matvec)
    check_product(numpy.vecmat(kv, km.T), numpy.vecmat(v, m.T), v, m.T, 4, product=_vecmat)
    axes = [(1, 0), (1, 0), (1, 0)]
    got = numpy.matmul(km, km.T, axes=axes)
    check_product(got, numpy.matmul(m, m.T, axes=axes), m, m.T, 3, product=lambda a, b: numpy.matmul(a, b, axes=axes))


# (function, operand shapes, axes) with NumPy's results; the products'
# lengths (k) for the tolerance.
AXES_CASES = [
    ("matmul", [(2, 3, 4), (4, 5)], dict(axes=[(1, 2), (0, 1), (0, 1)]), 4),
    ("matmul", [(3, 4, 2), (5, 4)], dict(axes=[(0, 1), (1, 0), (-1, -2)]), 4),
    ("matmul", [(2, 3, 4), (4,)], dict(axes=[(1, 2), 0, 0]), 4),
    ("matmul", [(4,), (2, 4, 3)], dict(axes=[(0,), (1, 2), (0,)]), 4),
    ("matvec", [(2, 3, 4), (3, 4)], dict(axes=[(0, 2), (1,), (0,)]), 4),
    ("vecmat", [(4, 3), (5, 4, 3)], dict(axes=[0, (1, 0), (-1,)]), 4),
    ("vecdot", [(4, 3), (4, 3)], dict(axes=[0, 0]), 4),
    ("vecdot", [(4, 3), (3, 4)], dict(axes=[0, 1, ()]), 4),
    ("vecdot", [(4, 3), (4, 3)], dict(axis=0, keepdims=True), 4),
    ("vecdot", [(2, 4, 3), (4, 3)], dict(keepdims=True), 3),
    ("vecdot", [(2, 4, 3), (4, 3)], dict(axes=[(1,), (0,), (0,)], keepdims=True), 4),
]


@pytest.mark.parametrize("case", AXES_CASES, ids=lambda c: "%s-%s" % (c[0], c[2]))
def test_gufunc_axes(rng, case):
    name, shapes, kwargs, k = case
    (ka, a), (kb, b) = [operand(rng, s, numpy.float64, "C") for s in shapes]
    expected = getattr(numpy, name)(a, b, **kwargs)
    got = getattr(kiln, name)(ka, kb, **kwargs)
    bound_product = lambda x, y: getattr(numpy, name)(x, y, **kwargs)   # noqa: E731
    check_product(got, expected, a, b, k, product=bound_product)
    out = kiln.zeros(expected.shape[::-1], numpy.float64).T     # out= in any layout, with axes
    assert getattr(kiln, name)(ka, kb, out=out, **kwargs) is out
    check_product(out, expected, a, b, k, product=bound_product)


def test_gufunc_axes_errors():
    for module in (numpy, kiln):
        a, b = module.ones((2, 3, 4)), module.ones((4, 5))
        with pytest.raises(ValueError, match="axes should be a list with an entry for all 3 inputs and outputs"):
            module.matmul(a, b, axes=[(1, 2), (0, 1)])
        with pytest.raises(AxisError, match="matmul: operand 2 has 2 core dimensions, but 1 dimensions are specified"):
            module.matmul(a, b, axes=[(1, 2), (0, 1), (0,)])
        with pytest.raises(AxisError, match="matmul: operand 2 has 2 core dimensions, but the axes item is a single"):
            module.matmul(a, b, axes=[(1, 2), (0, 1), 1])
        with pytest.raises(AxisError, match="axis 5 is out of bounds for array of dimension 3"):
            module.matmul(a, b, axes=[(1, 2), (0, 1), (0, 5)])
        with pytest.raises(ValueError, match="axes item 2 has value 0 repeated"):
            module.matmul(a, b, axes=[(1, 2), (0, 1), (0, 0)])
        with pytest.raises(TypeError, match="axes should be a list."):
            module.matmul(a, b, axes=((1, 2), (0, 1), (0, 1)))
        with pytest.raises(TypeError, match="matmul: axis can only be used with a single shared core dimension"):
            module.matmul(a, b, axis=0)
        with pytest.raises(TypeError, match="vecmat: axis can only be used with a single shared core dimension"):
            module.vecmat(module.ones(4), module.ones((3, 4, 2)), axis=0)
        with pytest.raises(TypeError, match="matmul does not support keepdims"):
            module.matmul(a, b, keepdims=True)
        with pytest.raises(TypeError, match="cannot specify both 'axis' and 'axes'"):
            module.vecdot(a, a, axes=[0, 0], axis=0)
