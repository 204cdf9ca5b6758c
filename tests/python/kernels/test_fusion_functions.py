"""kiln.fuse tracing NumPy's functions built on ufuncs (kiln.real, imag, angle,
i0, sinc: arraycore/fusion_functions.cpp) and kiln.get_array_module of a
traced value: fused calls against the same calls made one by one (bit for bit)
and against NumPy."""
import numpy
import pytest

import kiln
from conftest import assert_same_values, make, name


def check(fused, *args, numpy_fn, rtol):
    """fused(*args) equals its function run unfused (bit for bit) and
    numpy_fn on host copies (dtypes, and values to rtol)."""
    got = fused(*args)
    expected = fused.__wrapped__(*args)
    from_numpy = numpy_fn(*[kiln.asnumpy(a) if isinstance(a, kiln.ndarray) else a for a in args])
    for g, e, n in zip(got, expected, from_numpy):
        assert type(g) is kiln.ndarray
        assert_same_values(g.get(), e.get())
        assert g.dtype == n.dtype, (g.dtype, n.dtype)
        numpy.testing.assert_allclose(g.get(), n, rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.complex128], ids=name)
def test_real_imag_angle_sinc(rng, dtype):
    x, _ = make(rng, "strided", dtype)

    def parts(xp, x):
        return (xp.real(x) * 1, xp.imag(x), x.real + x.imag, x.conj(), xp.angle(x), xp.angle(x, deg=True),
                xp.sinc(x / 64))
    # angle of a real array is arctan2(0, x) and sinc is kiln's sine (ulp bounds, Note [i0] and
    # kiln/ufunc_transcendental.h): NumPy's values to a few ulp of the result dtype.
    check(kiln.fuse(lambda x: parts(kiln, x)), x, numpy_fn=lambda x: parts(numpy, x),
          rtol=4 * numpy.finfo(numpy.result_type(dtype, numpy.float16)).eps)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.uint8], ids=name)
def test_i0(rng, dtype):
    x, _ = make(rng, "C", dtype)

    def f(xp, x):
        return (xp.i0(x / 16),) if x.dtype.kind == "f" else (xp.i0(x),)
    # float16 is computed in float32 and rounded once; NumPy sums its series in float16 (overflowing
    # above about 11): a few ulp apart.
    check(kiln.fuse(lambda x: f(kiln, x)), x, numpy_fn=lambda x: f(numpy, x),
          rtol=4e-3 if dtype == numpy.float16 else 16 * numpy.finfo(numpy.float64).eps)


def test_scalar_operands_and_errors():
    x = kiln.asarray(numpy.array([0.5, 2.0]))
    # Python scalars become arrays of their NumPy dtype first, as the unfused calls make them.
    f = kiln.fuse(lambda x, s, c: (x + kiln.real(s), kiln.imag(s), kiln.angle(c), kiln.sinc(s), kiln.i0(s)))
    got = f(x, 3, 1j)
    assert [g.dtype for g in got] == [numpy.float64, numpy.int64, numpy.float64, numpy.float64, numpy.float64]
    for g, e in zip(got, f.__wrapped__(x, 3, 1j)):
        assert_same_values(g.get(), e.get())
    with pytest.raises(TypeError, match="i0 not supported for complex values"):
        kiln.fuse(lambda x: kiln.i0(x))(kiln.asarray(numpy.array([1j])))


def test_get_array_module_of_a_traced_value():
    seen = []

    @kiln.fuse()
    def f(x, s):
        seen.append((kiln.get_array_module(x), kiln.get_array_module(s)))
        return x + 1
    f(kiln.arange(3), 2)
    assert seen == [(kiln, numpy)]
    f(numpy.arange(3), 2)   # no kiln array: the function runs as it is
    assert seen[-1] == (numpy, numpy)


def test_real_of_a_real_array_is_the_array():
    def f(x):
        r = kiln.real(x)   # x itself, as unfused: r += 1 writes x
        r += 1
        return x * 2
    x, y = kiln.arange(3), kiln.arange(3)
    assert_same_values(kiln.fuse(f)(x).get(), f(y).get())
    assert_same_values(x.get(), y.get())
