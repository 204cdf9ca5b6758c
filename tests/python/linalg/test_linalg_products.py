"""The matrix-product family (kiln.matmul and @, dot, vdot, inner, outer,
tensordot, kron, vecdot; kiln.linalg's array API names) against NumPy on
random data: every dtype, C / Fortran / strided / negative-stride / empty
operands, 1-D promotion, batches and broadcasting, out=, NumPy's result
dtypes and errors, integer wraparound; the cuBLAS path and its switches
(Note [Matmul paths] in arraycore/matmul.h).

Note [Product tolerances]
Integer and bool products are compared exactly. A float product is
compared with the exact one (NumPy in float64 / complex128 from the same
inputs, or in longdouble for float64 operands) elementwise against the
classical bound for a sum of k products (Higham, Accuracy and Stability of
Numerical Algorithms, 3.1): |computed - exact| <= gamma * (|A| @ |B|) with
gamma = 2 * ((k + 2) * c * eps_acc + eps_out): each of the k additions and
the product rounds by at most eps_acc / 2 in the accumulator (float32 for
float16, as NumPy and cuBLAS's CUBLAS_COMPUTE_32F sum), c = 1 for reals and
4 for complex (a complex product and sum round in both parts, and
|ar br| + |ai bi| <= sqrt(2) |a| |b|), eps_out covers the final rounding to
the result dtype, and the factor 2 leaves room for the reference's own
rounding where it is computed in the operands' precision. Underflow adds
an absolute eta = 2 c (s_out + k s_acc), s the dtype's subnormal spacing
(float16 results near 1e-5 are subnormal, where no relative bound holds). The bound holds
for any summation order (blocking, split-k). It is not loosened anywhere.
"""
import os
import subprocess
import sys

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, name

FLOATS = [numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]
LAYOUTS = ["C", "F", "strided", "negative"]


def values(rng, shape, dtype):
    """Random values of dtype: small integers (products stay exact where
    NumPy's do), standard normals for floats."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return rng.integers(max(info.min, -20), min(info.max, 20), size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def operand(rng, shape, dtype, layout="C"):
    """(kiln array, NumPy array with the same values) of `shape` in `layout`:
    C order, Fortran order, every axis strided (steps 2 and 3 alternating),
    or every axis reversed with the last also stepping by 2."""
    shape = tuple(shape)
    if layout == "C":
        x = values(rng, shape, dtype)
        return kiln.asarray(x), x
    if layout == "F":
        x = numpy.asfortranarray(values(rng, shape, dtype))
        k = kiln.asarray(x).astype(dtype, order="F")
        assert k.flags.f_contiguous
        return k, x
    if layout == "strided":
        steps = [2 + i % 2 for i in range(len(shape))]
        big = values(rng, tuple(n * s for n, s in zip(shape, steps)), dtype)
        index = tuple(slice(None, None, s) for s in steps)
    else:
        big = values(rng, shape[:-1] + (2 * shape[-1],) if shape else (), dtype)
        index = tuple(slice(None, None, -1) for _ in shape[:-1]) + ((slice(None, None, -2),) if shape else ())
    return kiln.asarray(big)[index], big[index]


def exact(x):
    x = numpy.asarray(x)
    if x.dtype.kind == "c":
        return x.astype(numpy.clongdouble)
    if x.dtype.kind == "f":
        return x.astype(numpy.longdouble)
    return x


def tolerance(dtype, k):
    """(gamma, eta) of Note [Product tolerances] for a result of dtype summing k products."""
    dtype = numpy.dtype(dtype)
    acc = numpy.float32 if dtype == numpy.float16 else (dtype.type(0).real.dtype)
    out = dtype.type(0).real.dtype
    c = 4 if dtype.kind == "c" else 1
    gamma = 2 * ((k + 2) * c * numpy.finfo(acc).eps + numpy.finfo(out).eps)
    eta = 2 * c * (numpy.finfo(out).smallest_subnormal + k * numpy.finfo(acc).smallest_subnormal)
    return gamma, eta


def check_product(got, expected, a, b, k, product=numpy.matmul, computed_in=None):
    """got (a kiln array) against NumPy's expected: dtype and shape equal;
    values exactly for integers and bool, within Note [Product
    tolerances]'s bound for floats (|A| @ |B| through `product`), for
    a product computed in `computed_in` (default: the result dtype)."""
    assert isinstance(got, kiln.ndarray)
    g = got.get()
    assert g.dtype == expected.dtype, (g.dtype, expected.dtype)
    assert g.shape == expected.shape, (g.shape, expected.shape)
    if expected.dtype.kind not in "fc":
        numpy.testing.assert_array_equal(g, expected)
        return
    ref = product(exact(a), exact(b))
    scale = numpy.asarray(product(numpy.abs(exact(a)), numpy.abs(exact(b))), dtype=numpy.longdouble)
    err = numpy.abs(exact(g) - ref)
    gamma, eta = tolerance(expected.dtype if computed_in is None else computed_in, k)
    bound = gamma * scale + eta
    bad = err > bound
    assert not bad.any(), "max error %r, bound %r there" % (err[bad].max(), bound[bad][0])


# --- matmul over dtypes, layouts and shapes ----------------------------------

# (shape of a, shape of b): 2-D, 1-D promotion on either side and both,
# several tiles and K steps, batches, broadcast batches.
MATMUL_SHAPES = [((5, 7), (7, 3)), ((7,), (7, 4)), ((6, 7), (7,)), ((9,), (9,)), ((70, 33), (33, 66)),
                 ((2, 3, 4, 5), (2, 3, 5, 2)), ((2, 1, 4, 5), (3, 5, 6)), ((4, 5), (3, 5, 2)), ((5,), (2, 5, 3)),
                 ((2, 3, 4), (4,))]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_matmul(rng, dtype, layout):
    for sa, sb in MATMUL_SHAPES:
        ka, a = operand(rng, sa, dtype, layout)
        kb, b = operand(rng, sb, dtype, "C" if layout == "F" else layout)
        check_product(kiln.matmul(ka, kb), numpy.matmul(a, b), a, b, sa[-1])
        check_product(ka @ kb, a @ b, a, b, sa[-1])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_matmul_mixed_layouts_and_transposes(rng, dtype):
    ka, a = operand(rng, (6, 9), dtype, "F")
    kb, b = operand(rng, (9, 5), dtype, "strided")
    check_product(ka @ kb, a @ b, a, b, 9)
    check_product(ka.T.T @ kb.T.T, a @ b, a, b, 9)
    check_product(kb.T @ ka.T, b.T @ a.T, b.T, a.T, 9)
    kx, x = operand(rng, (3, 4, 5), dtype, "negative")
    check_product(kiln.swapaxes(kx, 0, 2) @ kx[:, 0, :], numpy.swapaxes(x, 0, 2) @ x[:, 0, :],
                  numpy.swapaxes(x, 0, 2), x[:, 0, :], 3)


@pytest.mark.parametrize("pair", [("int8", "uint8"), ("bool", "int8"), ("float16", "int8"), ("int64", "float32"),
                                  ("complex64", "float64"), ("uint64", "int64"), ("bool", "float16"),
                                  ("uint8", "complex64"), ("int16", "uint32")])
def test_matmul_result_dtype(rng, pair):
    ka, a = operand(rng, (4, 5), pair[0])
    kb, b = operand(rng, (5, 3), pair[1])
    expected = numpy.matmul(a, b)
    check_product(kiln.matmul(ka, kb), expected, a.astype(expected.dtype), b.astype(expected.dtype), 5)
    wide = numpy.result_type(expected.dtype, numpy.float64)
    check_product(kiln.matmul(ka, kb, dtype=wide), numpy.matmul(a, b, dtype=wide), a.astype(wide), b.astype(wide), 5)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_integer_wraparound(rng, dtype):
    """Products and sums overflow and wrap modulo 2^bits exactly as NumPy's
    (never through float): full-range values."""
    info = numpy.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(3, 70, 40), endpoint=True, dtype=dtype)
    b = rng.integers(info.min, info.max, size=(40, 20), endpoint=True, dtype=dtype)
    got = kiln.matmul(kiln.asarray(a), kiln.asarray(b)).get()
    with numpy.errstate(over="ignore"):
        numpy.testing.assert_array_equal(got, numpy.matmul(a, b))
    big = numpy.full(64, info.max, dtype)
    numpy.testing.assert_array_equal(kiln.dot(kiln.asarray(big), kiln.asarray(big)).get(), numpy.dot(big, big))


def test_bool_is_or_of_ands(rng):
    a = rng.integers(0, 2, size=(17, 40)).astype(bool)
    b = numpy.zeros((40, 9), bool)
    b[3, ::2] = True
    numpy.testing.assert_array_equal((kiln.asarray(a) @ kiln.asarray(b)).get(), a @ b)


def test_float16_sums_in_float32():
    """4096 ones: a float16 running sum stops at 2048; NumPy (and kiln) sum
    float16 products in float32."""
    a = numpy.ones((1, 4096), numpy.float16)
    got = kiln.asarray(a) @ kiln.asarray(a.T)
    numpy.testing.assert_array_equal(got.get(), a @ a.T)
    assert got.get()[0, 0] == 4096


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex128", "bool"])
def test_empty_operands(rng, dtype):
    for sa, sb in [((0, 3), (3, 4)), ((3, 0), (0, 4)), ((2, 0, 3), (3, 4)), ((0,), (0,)), ((3, 0), (0,)),
                   ((4, 5), (5, 0)), ((0, 2, 3), (1, 3, 2))]:
        ka, a = operand(rng, sa, dtype)
        kb, b = operand(rng, sb, dtype)
        got = kiln.matmul(ka, kb)
        numpy.testing.assert_array_equal(got.get(), numpy.matmul(a, b))
        assert got.get().dtype == numpy.matmul(a, b).dtype and got.shape == numpy.matmul(a, b).shape


def test_matmul_out(rng):
    ka, a = operand(rng, (2, 4, 5), "float32")
    kb, b = operand(rng, (5, 3), "float32")
    out = kiln.empty((2, 4, 3), numpy.float32)
    assert kiln.matmul(ka, kb, out=out) is out
    check_product(out, a @ b, a, b, 5)
    # Another dtype (same_kind cast), a Fortran-ordered out, a strided out, a tuple.
    out64 = kiln.zeros((2, 4, 3), numpy.float64)
    kiln.matmul(ka, kb, out=out64)
    check_product(out64, numpy.matmul(a, b, out=numpy.zeros((2, 4, 3))), a, b, 5, computed_in=numpy.float32)
    outf = kiln.zeros((4, 3), numpy.float32, order="F")
    kiln.matmul(ka[1], kb, out=(outf,))
    check_product(outf, a[1] @ b, a[1], b, 5)
    big = kiln.zeros((8, 9), numpy.float32)
    kiln.matmul(ka[0], kb, out=big[::2, ::3])
    check_product(big[::2, ::3], a[0] @ b, a[0], b, 5)
    assert float(abs(big[1::2]).sum().get()) == 0
    # 1-D results into out.
    outv = kiln.empty((4,), numpy.float32)
    kiln.matmul(ka[0], kb[:, 0], out=outv)
    check_product(outv, a[0] @ b[:, 0], a[0], b[:, 0], 5)


def test_out_overlapping_an_operand(rng):
    """a @= b, and out= one of the operands: computed as if into a new array."""
    ka, a = operand(rng, (5, 5), "float64")
    kb, b = operand(rng, (5, 5), "float64")
    expected = a @ b
    ka @= kb
    check_product(ka, expected, a, b, 5)
    kc, c = operand(rng, (5, 5), "int64")
    kd, d = operand(rng, (5, 5), "int64")
    kiln.matmul(kc, kd, out=kd)
    numpy.testing.assert_array_equal(kd.get(), c @ d)
    ki, i = operand(rng, (4, 4), "int32")
    kiln.matmul(ki, ki.T, out=ki)
    numpy.testing.assert_array_equal(ki.get(), i @ i.T)


def test_matmul_errors(rng):
    a, b = kiln.ones((2, 3)), kiln.ones((4, 5))
    with pytest.raises(ValueError, match=r"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                                         r"with gufunc signature \(n\?,k\),\(k,m\?\)->\(n\?,m\?\) "
                                         r"\(size 4 is different from 3\)"):
        kiln.matmul(a, b)
    with pytest.raises(ValueError, match="Input operand 0 does not have enough dimensions"):
        kiln.matmul(kiln.asarray(2.0), a)
    with pytest.raises(ValueError, match="Input operand 1 does not have enough dimensions"):
        kiln.matmul(a, 2)
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        kiln.matmul(kiln.ones((2, 2, 3)), kiln.ones((3, 3, 2)))
    with pytest.raises(ValueError, match="Output operand 0 has a mismatch in its core dimension 0"):
        kiln.matmul(a, kiln.ones(3), out=kiln.ones(3))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'matmul' output from dtype\\('float64'\\) to "
                                        "dtype\\('int64'\\) with casting rule 'same_kind'"):
        kiln.matmul(a, kiln.ones(3), out=kiln.ones(2, dtype=numpy.int64))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'matmul' input 0"):
        kiln.matmul(a, kiln.ones(3), dtype=numpy.int64)
    with pytest.raises(TypeError):
        kiln.matmul(a, kiln.ones(3), out=numpy.ones(2))
    with pytest.raises(TypeError):
        kiln.matmul(["a"], ["b"])
    with pytest.raises(ValueError, match="inplace matrix multiplication requires"):
        c = kiln.ones((3, 3))
        c @= kiln.ones(3)
    with pytest.raises(TypeError):
        a @ "a"
    # NumPy's exception types, the same calls.
    for f in (lambda x: x.matmul(x.ones((2, 3)), x.ones((4, 5))),
              lambda x: x.matmul(x.ones((2, 2, 3)), x.ones((3, 3, 2))),
              lambda x: x.matmul(x.ones(3), x.asarray(1.0))):
        with pytest.raises(ValueError):
            f(numpy)
        with pytest.raises(ValueError):
            f(kiln)


def test_host_operands_are_refused_as_by_ufuncs(rng):
    """matmul is a ufunc in NumPy: like kiln's ufuncs and operators it takes
    no host arrays or lists (no implicit upload), on either side."""
    ka, a = operand(rng, (3, 4), "float64")
    b = values(rng, (4, 2), "float64")
    for f in (lambda: ka @ b, lambda: b.T @ ka.T, lambda: ka @ [1.0, 2.0, 3.0, 4.0],
              lambda: [[1.0, 2.0, 3.0]] @ ka, lambda: kiln.matmul(ka, b), lambda: numpy.matmul(b.T, ka.T),
              lambda: kiln.vecdot(ka, b.T)):
        with pytest.raises(TypeError, match="kiln.asarray"):
            f()
    # Functions (dot, tensordot, ...) take host data as kiln's functions do.
    check_product(kiln.dot(ka, b), a @ b, a, b, 4, numpy.dot)


# --- dot, vdot, inner, outer, tensordot, kron, vecdot ------------------------

DOT_SHAPES = [((), (3, 4)), ((5,), ()), ((6,), (6,)), ((3, 6), (6, 2)), ((2, 3, 6), (6,)), ((6,), (6, 4)),
              ((6,), (2, 6, 3)), ((2, 3, 6), (4, 6, 5)), ((3, 6), (2, 2, 6, 3))]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_dot(rng, dtype):
    for sa, sb in DOT_SHAPES:
        for layout in ("C", "negative"):
            ka, a = operand(rng, sa, dtype, layout if sa else "C")
            kb, b = operand(rng, sb, dtype, layout if sb else "C")
            k = sa[-1] if sa and sb else 1
            check_product(kiln.dot(ka, kb), numpy.asarray(numpy.dot(a, b)), a, b, k, numpy.dot)


def test_dot_out_and_errors(rng):
    ka, a = operand(rng, (3, 4), "float32")
    kb, b = operand(rng, (4, 5), "float32")
    out = kiln.empty((3, 5), numpy.float32)
    assert kiln.dot(ka, kb, out=out) is out
    check_product(out, a @ b, a, b, 4, numpy.dot)
    for bad in (kiln.empty((3, 5), numpy.float64), kiln.empty((5, 3), numpy.float32).T, kiln.empty((3, 4))):
        with pytest.raises(ValueError, match="output array is not acceptable"):
            kiln.dot(ka, kb, out=bad)
    with pytest.raises(ValueError, match=r"shapes \(3,4\) and \(5,\) not aligned: 4 \(dim 1\) != 5 \(dim 0\)"):
        kiln.dot(ka, kiln.ones(5))
    with pytest.raises(ValueError, match=r"shapes \(3,4\) and \(3,5\) not aligned"):
        kiln.dot(ka, kiln.ones((3, 5)))


@pytest.mark.parametrize("dtype", ["int16", "float32", "complex64", "complex128", "bool"])
def test_vdot_inner_outer(rng, dtype):
    ka, a = operand(rng, (3, 4), dtype, "negative")
    kb, b = operand(rng, (2, 6), dtype, "F")
    got = kiln.vdot(ka, kb)
    assert got.ndim == 0
    check_product(got, numpy.asarray(numpy.vdot(a, b)), numpy.conj(a.ravel()), b.ravel(), 12, numpy.dot)
    kc, c = operand(rng, (2, 3, 4), dtype, "strided")
    check_product(kiln.inner(ka, kc), numpy.inner(a, c), a, c, 4, numpy.inner)
    check_product(kiln.inner(ka[0], ka[1]), numpy.asarray(numpy.inner(a[0], a[1])), a[0], a[1], 4, numpy.inner)
    check_product(kiln.inner(ka, kiln.asarray(a.dtype.type(2))), numpy.inner(a, a.dtype.type(2)), a,
                  a.dtype.type(2), 1, numpy.inner)
    check_product(kiln.outer(ka, kc), numpy.outer(a, c), a, c, 1, numpy.outer)
    out = kiln.empty((12, 24), numpy.outer(a, c).dtype)
    assert kiln.outer(ka, kc, out=out) is out
    check_product(out, numpy.outer(a, c), a, c, 1, numpy.outer)
    with pytest.raises(ValueError):
        kiln.vdot(ka, kiln.ones(5))
    with pytest.raises(ValueError, match="not aligned"):
        kiln.inner(ka, kiln.ones((2, 3)))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float64", "complex64", "float16"])
def test_tensordot(rng, dtype):
    ka, a = operand(rng, (3, 4, 5), dtype, "negative")
    kb, b = operand(rng, (4, 5, 2), dtype, "F")
    kc, c = operand(rng, (5, 3, 6), dtype, "strided")
    for (x, kx), (y, ky), axes, k in [((a, ka), (b, kb), 2, 20), ((a, ka), (b, kb), ([1, 2], [0, 1]), 20),
                                      ((a, ka), (c, kc), ([0, 2], [1, 0]), 15), ((a, ka), (c, kc), (2, 0), 5),
                                      ((a, ka), (c, kc), 0, 1), ((a, ka), (b, kb), ([-2], [-3]), 4)]:
        check_product(kiln.tensordot(kx, ky, axes=axes), numpy.tensordot(x, y, axes=axes), x, y, k,
                      lambda p, q, axes=axes: numpy.tensordot(p, q, axes=axes))
        check_product(kiln.linalg.tensordot(kx, ky, axes=axes), numpy.linalg.tensordot(x, y, axes=axes), x, y, k,
                      lambda p, q, axes=axes: numpy.tensordot(p, q, axes=axes))
    for axes in [([0], [0]), ([1, 2], [0]), 4, ([0, 0], [0, 1])]:
        with pytest.raises(Exception) as theirs:
            numpy.tensordot(a, b, axes=axes)
        with pytest.raises(theirs.type):
            kiln.tensordot(ka, kb, axes=axes)


@pytest.mark.parametrize("dtype", ["int8", "bool", "float32", "complex128"])
def test_kron(rng, dtype):
    for sa, sb in [((3,), (4,)), ((2, 3), (3, 2)), ((2,), (2, 3)), ((2, 2, 3), (3, 1)), ((), (2, 3)),
                   ((2, 0), (3, 3))]:
        ka, a = operand(rng, sa, dtype, "negative" if sa and 0 not in sa else "C")
        kb, b = operand(rng, sb, dtype)
        expected = numpy.kron(a, b)
        got = kiln.kron(ka, kb)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        numpy.testing.assert_array_equal(got.get(), expected)   # one product an element: exact


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32", "complex64"])
def test_vecdot(rng, dtype):
    ka, a = operand(rng, (3, 1, 5), dtype, "negative")
    kb, b = operand(rng, (4, 5), dtype, "F")
    prod = numpy.vecdot
    check_product(kiln.vecdot(ka, kb), numpy.vecdot(a, b), a, b, 5, prod)
    check_product(kiln.linalg.vecdot(ka, kb), numpy.linalg.vecdot(a, b), a, b, 5, prod)
    kc, c = operand(rng, (5, 4), dtype, "strided")
    check_product(kiln.vecdot(kc, kc, axis=0), numpy.vecdot(c, c, axis=0), c, c, 5,
                  lambda p, q: numpy.vecdot(p, q, axis=0))
    out = kiln.empty((3, 4), numpy.vecdot(a, b).dtype)
    assert kiln.vecdot(ka, kb, out=out) is out
    check_product(out, numpy.vecdot(a, b), a, b, 5, prod)
    with pytest.raises(ValueError, match=r"vecdot: Input operand 1 has a mismatch in its core dimension 0, with "
                                         r"gufunc signature \(n\),\(n\)->\(\) \(size 4 is different from 5\)"):
        kiln.vecdot(ka, kiln.ones(4))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        kiln.vecdot(ka, 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_long_and_many_dot_products(rng, dtype):
    """Note [Dot products by reduction]: one long dot product, many short
    ones, a batch of long ones (1 x 1 outputs), full-range integers wrapping."""
    ka, a = operand(rng, (5000,), dtype, "negative")
    kb, b = operand(rng, (5000,), dtype)
    check_product(kiln.dot(ka, kb), numpy.asarray(numpy.dot(a, b)), a, b, 5000, numpy.dot)
    check_product(ka @ kb, numpy.asarray(a @ b), a, b, 5000)
    kc, c = operand(rng, (3000, 3), dtype, "F")
    check_product(kiln.vecdot(kc, kc), numpy.vecdot(c, c), numpy.conj(c), c, 3,
                  lambda p, q: numpy.sum(p * q, axis=-1))
    kd, d = operand(rng, (3, 1, 700), dtype, "strided")
    ke, e = operand(rng, (2, 700), dtype)
    check_product(kiln.vecdot(kd, ke), numpy.vecdot(d, e), numpy.conj(d), e, 700,
                  lambda p, q: numpy.sum(p * q, axis=-1))
    if numpy.dtype(dtype).kind in "iu":
        info = numpy.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=4000, endpoint=True, dtype=dtype)
        with numpy.errstate(over="ignore"):
            numpy.testing.assert_array_equal(kiln.dot(kiln.asarray(x), kiln.asarray(x)).get(), numpy.dot(x, x))


def test_vecdot_conjugates_the_first(rng):
    ka, a = operand(rng, (7,), "complex128")
    kb, b = operand(rng, (7,), "complex128")
    check_product(kiln.vecdot(ka, kb), numpy.asarray(numpy.vecdot(a, b)), numpy.conj(a), b, 7, numpy.dot)


def test_linalg_namespace(rng):
    ka, a = operand(rng, (2, 3, 4), "float64")
    kb, b = operand(rng, (4, 3), "float64")
    check_product(kiln.linalg.matmul(ka, kb), numpy.linalg.matmul(a, b), a, b, 4)
    numpy.testing.assert_array_equal(kiln.linalg.matrix_transpose(ka).get(), numpy.linalg.matrix_transpose(a))
    assert kiln.linalg.matrix_transpose(ka).shape == (2, 4, 3)
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        kiln.linalg.matrix_transpose(kiln.ones(3))
    check_product(kiln.linalg.outer(ka[0, 0], kb[0]), numpy.linalg.outer(a[0, 0], b[0]), a[0, 0], b[0], 1,
                  numpy.outer)
    with pytest.raises(ValueError, match="Input arrays must be one-dimensional"):
        kiln.linalg.outer(ka, kb)
    xp = ka.__array_namespace__()
    check_product(xp.matmul(ka, kb), a @ b, a, b, 4)
    check_product(xp.tensordot(ka, kb, axes=1), numpy.tensordot(a, b, axes=1), a, b, 4,
                  lambda p, q: numpy.tensordot(p, q, axes=1))
    check_product(xp.vecdot(ka, ka), numpy.vecdot(a, a), a, a, 4, numpy.vecdot)
    assert xp.matrix_transpose(ka).shape == (2, 4, 3)


def test_numpy_dispatch(rng):
    """numpy's functions (and the matmul/vecdot gufuncs) on kiln arrays run in kiln."""
    ka, a = operand(rng, (3, 4), "float32")
    kb, b = operand(rng, (4, 2), "float32")
    for f, k in [(numpy.dot, 4), (numpy.matmul, 4), (numpy.linalg.matmul, 4), (numpy.inner, 4),
                 (numpy.tensordot, 4)]:
        y = b.T if f is numpy.inner else b
        ky = kb.T if f is numpy.inner else kb
        if f is numpy.tensordot:
            got, expected = f(ka, ky, axes=1), f(a, y, axes=1)
        else:
            got, expected = f(ka, ky), f(a, y)
        assert isinstance(got, kiln.ndarray)
        check_product(got, expected, a, y, k, (lambda p, q: numpy.tensordot(p, q, axes=1))
                      if f is numpy.tensordot else (numpy.inner if f is numpy.inner else numpy.matmul))
    for f in (numpy.vdot, numpy.vecdot, numpy.outer, numpy.kron):
        got = f(ka[0], ka[1])
        assert isinstance(got, kiln.ndarray)
        numpy.testing.assert_allclose(got.get(), f(a[0], a[1]), rtol=1e-5)
    out = kiln.empty((3, 2), numpy.float32)
    assert numpy.matmul(ka, kb, out=out) is out
    check_product(out, a @ b, a, b, 4)


# --- paths and switches ------------------------------------------------------

def test_config_switches():
    assert kiln.config.allow_tf32 is False      # Note [TF32]: full float32 precision by default
    assert kiln.config.use_cublas is True
    kiln.config.allow_tf32 = True
    try:
        assert kiln.config.allow_tf32 is True
    finally:
        kiln.config.allow_tf32 = False
    assert kiln.config.allow_tf32 is False


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
def test_kernel_path_when_cublas_is_off(rng, dtype):
    ka, a = operand(rng, (2, 33, 17), dtype, "negative")
    kb, b = operand(rng, (17, 65), dtype, "F")
    kiln.config.use_cublas = False
    try:
        got = ka @ kb
        assert kiln._core._last_matmul_path() == "kernel"
    finally:
        kiln.config.use_cublas = True
    check_product(got, a @ b, a, b, 17)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_cublas_path(rng, dtype):
    """On the cuda backend floats go through cuBLAS, any layout (copies
    where cuBLAS cannot read an operand), batched and broadcast."""
    if kiln.get_backend() != "cuda":
        pytest.skip("cuBLAS is the cuda backend's")
    usable, why = kiln._core._blas_usable(dtype)
    assert usable, why
    for la, lb in [("C", "C"), ("F", "C"), ("C", "F"), ("strided", "negative")]:
        for sa, sb in [((130, 257), (257, 70)), ((3, 40, 33), (33, 20)), ((2, 1, 8, 9), (3, 9, 4)), ((9,), (9, 5))]:
            ka, a = operand(rng, sa, dtype, la)
            kb, b = operand(rng, sb, dtype, lb)
            got = ka @ kb
            assert kiln._core._last_matmul_path() == "cublas"
            check_product(got, a @ b, a, b, sa[-1])


def test_float32_is_not_tf32_by_default():
    """1 + 2^-20 is a float32 but not a TF32 value (10 mantissa bits): times
    the identity it must come back whole, which TF32 inputs would round to 1."""
    a = numpy.full((64, 64), 1 + 2.0 ** -20, numpy.float32)
    got = (kiln.asarray(a) @ kiln.asarray(numpy.eye(64, dtype=numpy.float32))).get()
    numpy.testing.assert_array_equal(got, a)


def test_missing_cublas_falls_back(tmp_path):
    """With no loadable libcublas (KILN_CUBLAS_PATH pointing at nothing), float
    products take kiln's kernel and are right; nothing crashes."""
    code = ("import numpy, kiln\n"
            "a = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)\n"
            "got = (kiln.asarray(a) @ kiln.asarray(a.T)).get()\n"
            "assert kiln._core._last_matmul_path() == 'kernel', kiln._core._last_matmul_path()\n"
            "numpy.testing.assert_array_equal(got, a @ a.T)\n"
            "usable, why = kiln._core._blas_usable('float32')\n"
            "assert not usable and why\n"
            "print('ok', why.splitlines()[0])\n")
    env = dict(os.environ, KILN_CUBLAS_PATH=str(tmp_path / "no-libcublas.so"))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ok")
