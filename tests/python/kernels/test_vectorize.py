"""kiln.vectorize against numpy.vectorize on the same inputs: values and dtypes.

Note [Vectorize tolerances]
numpy.vectorize calls the function on Python objects (a float32 element
becomes a Python float, computed in double) and casts the results to the
output dtype at the end; kiln computes in the dtype NEP 50 gives the code
(float32 stays float32, as NumPy's own float32 arithmetic does; float16 is
carried in float32 and rounded once, Note [Vectorize typing] in
transpiler/infer.h). So float results may differ by the rounding of each
intermediate operation: a few ulps of the output dtype (float16: its ulp
is 2**-10, and a float32 rounding may tip its last bit). Integer and bool
results must be equal.
"""
import math

import numpy
import pytest

import kiln

ALL_DTYPES = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64,
              numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64,
              numpy.float16, numpy.float32, numpy.float64,
              numpy.complex64, numpy.complex128]

_RTOL = {"e": 4e-3, "f": 4e-6, "F": 4e-6, "d": 1e-14, "D": 1e-14}


def check(got, want):
    """kiln result(s) against numpy.vectorize's: same dtype and shape, values
    within Note [Vectorize tolerances]."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    assert isinstance(got, kiln.ndarray)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    g = kiln.asnumpy(got)
    rtol = _RTOL.get(want.dtype.char)
    if rtol is None:
        numpy.testing.assert_array_equal(g, want)
    else:
        numpy.testing.assert_allclose(g, want, rtol=rtol, atol=rtol)


def data(shape, dtype, rng, lo=-8, hi=8):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, hi, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(lo, hi, shape).astype(dtype)
    x = rng.uniform(lo, hi, shape)
    if dtype.kind == "c":
        x = x + 1j * rng.uniform(lo, hi, shape)
    return x.astype(dtype)


@pytest.fixture
def rng():
    return numpy.random.default_rng(7)


# ---- the seeds' example -------------------------------------------------------------------

def func_while(x):
    y = 0
    while x > 0:
        y += x
        x -= 1
    return y


def test_func_while_seed_example():
    a = kiln.arange(100, dtype=kiln.int32)
    b = kiln.vectorize(func_while)(a)
    want = numpy.vectorize(func_while)(numpy.arange(100, dtype=numpy.int32))
    numpy.testing.assert_array_equal(kiln.asnumpy(b), want)
    # NumPy's dtype comes from the first element: func_while(0) returns the
    # Python int 0 (int64); from element 1 on, y is int32 as kiln infers it.
    assert b.dtype == numpy.int32
    check(kiln.vectorize(func_while)(a[1:]), numpy.vectorize(func_while)(numpy.arange(1, 100, dtype=numpy.int32)))


# ---- branches, loops, math ------------------------------------------------------------------

def branchy(v):
    if v > 0:
        return v * v
    elif v < -4:
        return 1            # an int literal on one branch, floats on the others: float
    return v + 0.5


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_branches_unify_to_float(dtype, rng):
    x = data((257,), dtype, rng)
    x[0] = 3   # numpy.vectorize takes the dtype from the first element's result
    check(kiln.vectorize(branchy)(kiln.asarray(x)), numpy.vectorize(branchy)(x))


def test_conditional_expression_lambda(rng):
    x = data((1000,), numpy.float32, rng)
    f = kiln.vectorize(lambda v: (v * v if v > 0 else v) + 1)
    check(f(kiln.asarray(x)), numpy.vectorize(lambda v: (v * v if v > 0 else v) + 1)(x))


def series(x, n):
    s = 0.0
    k = 0
    while k < n:
        s += math.sin(x * k) / (k + 1)
        k += 1
    for j in range(3):
        if j == 1:
            continue
        s -= math.sqrt(abs(x) + j)
    return s


def test_loops_and_math(rng):
    x = data((6, 7), numpy.float64, rng)
    n = rng.integers(0, 12, (6, 7))
    check(kiln.vectorize(series)(kiln.asarray(x), kiln.asarray(n)), numpy.vectorize(series)(x, n))


def square_plus(v, c):
    return helper(v) + c


def helper(v):
    return v * v


def test_calls_other_functions_and_float32_stays(rng):
    x = data((100,), numpy.float32, rng)
    f = kiln.vectorize(square_plus, excluded={"c"})
    got = f(kiln.asarray(x), c=1.5)      # the excluded Python float is weak: float32 result
    want = numpy.vectorize(square_plus, excluded={"c"})(x, c=1.5)
    assert want.dtype == numpy.float32
    check(got, want)


def test_math_float32_stays_float32(rng):
    x = data((300,), numpy.float32, rng, 0.1, 5)
    f = lambda v: math.exp(v) * 2 if v < 3 else math.log(v)   # noqa: E731
    got = kiln.vectorize(f)(kiln.asarray(x))
    assert got.dtype == numpy.float32
    # NumPy's math.* return Python floats (float64); kiln keeps float32 (NEP 50 for its math).
    numpy.testing.assert_allclose(kiln.asnumpy(got), numpy.vectorize(f, otypes="d")(x), rtol=4e-6)


# ---- outputs and otypes ------------------------------------------------------------------------

def sum_and_product(a, b):
    return a + b, a * b


def test_several_outputs(rng):
    a = data((5, 4), numpy.int32, rng)
    b = data((4,), numpy.float32, rng)
    got = kiln.vectorize(sum_and_product)(kiln.asarray(a), kiln.asarray(b))
    check(got, numpy.vectorize(sum_and_product)(a, b))


def test_otypes(rng):
    x = data((50,), numpy.float64, rng)
    check(kiln.vectorize(branchy, otypes="f")(kiln.asarray(x)), numpy.vectorize(branchy, otypes="f")(x))
    check(kiln.vectorize(branchy, otypes=[numpy.int16])(kiln.asarray(x)),
          numpy.vectorize(branchy, otypes=[numpy.int16])(x))
    f = kiln.vectorize(sum_and_product, otypes=[numpy.float32, numpy.int64])
    a, b = data((3, 1), numpy.float64, rng), data((4,), numpy.int64, rng)
    check(f(kiln.asarray(a), kiln.asarray(b)),
          numpy.vectorize(sum_and_product, otypes=[numpy.float32, numpy.int64])(a, b))
    with pytest.raises(TypeError, match="no real conversion"):
        kiln.vectorize(poly, otypes="d")(kiln.asarray(numpy.array([1 + 2j])))
    with pytest.raises(TypeError):
        numpy.vectorize(poly, otypes="d")(numpy.array([1 + 2j]))
    with pytest.raises(ValueError, match="otypes gives 1 output"):
        kiln.vectorize(sum_and_product, otypes="f")(kiln.asarray(a), kiln.asarray(b))


# ---- excluded ---------------------------------------------------------------------------------

def scaled(x, scale, shift):
    return x * scale + shift


@pytest.mark.parametrize("excluded, keywords", [({1, 2}, False), ({"scale", "shift"}, True), ({1, "shift"}, True)])
def test_excluded_positional_and_named(excluded, keywords, rng):
    x = data((40,), numpy.float32, rng)
    # As in NumPy, an int excludes a positional argument, a str a keyword argument.
    kwargs = {"shift": 0.25} if keywords else {}
    args = (3,) if 1 in excluded or not keywords else ()
    if keywords and not args:
        kwargs["scale"] = 3
    if not keywords:
        args = (3, 0.25)
    got = kiln.vectorize(scaled, excluded=excluded)(kiln.asarray(x), *args, **kwargs)
    want = numpy.vectorize(scaled, excluded=excluded)(x, *args, **kwargs)
    assert want.dtype == numpy.float32   # the Python numbers stay weak
    check(got, want)


def test_named_exclusion_needs_a_keyword(rng):
    x = data((8,), numpy.float32, rng)
    f = kiln.vectorize(scaled, excluded={"shift"})
    got = f(kiln.asarray(x), 2, 0.5)     # passed by position: an input (float64), as in NumPy
    want = numpy.vectorize(scaled, excluded={"shift"})(x, 2, 0.5)
    assert want.dtype == numpy.float64
    check(got, want)


def test_excluded_by_keyword_and_array_rejected(rng):
    x = data((10,), numpy.float64, rng)
    f = kiln.vectorize(scaled, excluded={"shift"})
    check(f(kiln.asarray(x), scale=kiln.asarray(x), shift=2),
          numpy.vectorize(scaled, excluded={"shift"})(x, scale=x, shift=2))
    with pytest.raises(TypeError, match="excluded argument 2 is an array"):
        f(kiln.asarray(x), 1.0, shift=kiln.asarray(x))


# ---- broadcasting, scalars, layouts --------------------------------------------------------------

def mix3(a, b, c):
    if a > b:
        return a - c
    return b * c + a


def test_broadcast_three_inputs(rng):
    a = data((4, 1, 3), numpy.int16, rng)
    b = data((5, 1), numpy.float32, rng)
    c = data((3,), numpy.int64, rng)
    a[0, 0, 0], b[0, 0] = -8, 7   # numpy.vectorize types from the first element: take the float branch
    check(kiln.vectorize(mix3)(kiln.asarray(a), kiln.asarray(b), kiln.asarray(c)), numpy.vectorize(mix3)(a, b, c))


def test_scalar_inputs(rng):
    f = kiln.vectorize(mix3)
    g = numpy.vectorize(mix3)
    x = data((6,), numpy.float32, rng)
    # Python scalars are inputs converted as numpy.asarray converts them (strong int64/float64).
    check(f(kiln.asarray(x), 2.0, 3), g(x, 2.0, 3))
    check(f(1, 2, 3), g(1, 2, 3))                                       # all scalars: a 0-d array
    check(f(numpy.float32(1.5), kiln.asarray(numpy.float32(4)), 2), g(numpy.float32(1.5), numpy.float32(4), 2))


def test_layouts(rng):
    f = kiln.vectorize(lambda v: v * 3 if v > 0 else -v)
    g = numpy.vectorize(lambda v: v * 3 if v > 0 else -v)
    x = data((6, 8), numpy.float64, rng)
    x[0, 0] = 1
    kx = kiln.asarray(x)
    check(f(kiln.asfortranarray(kx)), g(numpy.asfortranarray(x)))
    check(f(kx[::-2, 1::3]), g(x[::-2, 1::3]))
    check(f(kx.T), g(x.T))
    empty = f(kiln.zeros((0, 3)))     # NumPy needs otypes for empty inputs; kiln knows the types
    assert empty.shape == (0, 3) and empty.dtype == numpy.float64


# ---- every dtype ------------------------------------------------------------------------------

def poly(v):
    return v * v + v


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_every_dtype(dtype, rng):
    x = data((33,), dtype, rng, -6, 6)
    check(kiln.vectorize(poly)(kiln.asarray(x)), numpy.vectorize(poly)(x))


# ---- API ---------------------------------------------------------------------------------------

def test_decorator_doc_and_signature():
    @kiln.vectorize
    def twice(v):
        """Twice v."""
        return 2 * v

    assert twice.__doc__ == "Twice v." and twice.__name__ == "twice"
    assert kiln.asnumpy(twice(kiln.arange(3))).tolist() == [0, 2, 4]
    assert kiln.vectorize(poly, doc="p").__doc__ == "p"
    with pytest.raises(NotImplementedError, match="signature"):
        kiln.vectorize(poly, signature="(n)->()")


def test_device_function_and_decorator_arguments():
    @kiln.vectorize(otypes="f")
    @kiln.jit.rawkernel(device=True)
    def half_of(v):
        return v / 2

    got = half_of(kiln.arange(4))
    check(got, numpy.vectorize(lambda v: v / 2, otypes="f")(numpy.arange(4)))


SCALE = 2


def scaled_by_global(v):
    return v * SCALE


def test_changed_global_compiles_again():
    global SCALE
    f = kiln.vectorize(scaled_by_global)
    x = kiln.arange(3)
    assert kiln.asnumpy(f(x)).tolist() == [0, 2, 4]
    SCALE = 3
    try:
        assert kiln.asnumpy(f(x)).tolist() == [0, 3, 6]
    finally:
        SCALE = 2
    assert kiln.asnumpy(f(x)).tolist() == [0, 2, 4]


def test_specializations_cached(rng):
    f = kiln.vectorize(poly)
    x = kiln.asarray(data((5,), numpy.float64, rng))
    f(x)
    f(x[::2])
    f(2.5)                                     # float64 too
    assert len(f._specializations) == 1


def test_errors_point_at_the_line():
    def bad(v):
        s = "text"
        return v + s

    with pytest.raises(TypeError) as info:
        kiln.vectorize(bad)(kiln.arange(3))
    assert "test_vectorize.py:%d:13" % (bad.__code__.co_firstlineno + 1) in str(info.value)
    assert 's = "text"' in str(info.value)


def test_lambda_error_points_into_the_lambda():
    f = kiln.vectorize(lambda v: v @ v)
    with pytest.raises(NotImplementedError) as info:
        f(kiln.arange(3.0))
    assert "`@` is not supported" in str(info.value)
    assert "lambda v: v @ v" in str(info.value)


def test_no_return_value_is_an_error():
    def nothing(v):
        v + 1

    with pytest.raises(TypeError, match="returns no value"):
        kiln.vectorize(nothing)(kiln.arange(3))


def test_lambdas_found_by_line_column_and_closure(rng):
    k = 3
    f, g = kiln.vectorize(lambda v: v * k), kiln.vectorize(lambda v: v - k)   # two alike on one line
    h = kiln.vectorize(
        lambda a,
        b: a
        if a > b else b)
    x = data((9,), numpy.int32, rng)
    y = data((9,), numpy.int32, rng)
    kx, ky = kiln.asarray(x), kiln.asarray(y)
    check(f(kx), numpy.vectorize(lambda v: v * k)(x))
    check(g(kx), numpy.vectorize(lambda v: v - k)(x))
    check(h(kx, ky), numpy.maximum(x, y))


def _clamp_positive(v):
    if v > 0:
        return v


def _clamp_every_path(v):
    while True:
        if v > 0:
            return v
        v = v + 10


def test_function_that_can_fall_off_its_end_is_a_type_error():
    # issue 21: Python returns None where such a function falls off; the
    # kernel returned the argument. Note [Missing return] in transpiler/infer.h.
    with pytest.raises(TypeError) as info:
        kiln.vectorize(_clamp_positive)(kiln.asarray([-5, -3, 2]))
    lines = str(info.value).splitlines()
    assert lines[0].endswith("`_clamp_positive` returns a value on some paths but can reach its end without a "
                             "`return`, where Python returns None and a kernel has no value to give; return a "
                             "value on every path")
    assert lines[1].strip() == "def _clamp_positive(v):" and lines[2].strip().startswith("^")
    assert kiln.vectorize(_clamp_every_path)(kiln.asarray([-5, -3, 2])).tolist() == [5, 7, 2]
