"""Calling kiln ufuncs and ndarray operators, against NumPy 2.4: result
dtypes for array/array, array/Python-scalar and array/NumPy-scalar operands,
out= (other dtypes, tuples, positional), where=, casting=, dtype=, order=,
broadcasting, every layout, in-place and reflected operators, overlapping
inputs and outputs, and the errors (host operands, argument counts, unknown
keywords), messages included.

    pytest tests/python/core/test_ufunc_calls.py -q -n 2

Result dtypes are compared on size-0 arrays (a call with nothing to compute
resolves its loop and allocates, but launches no kernel), values on small
arrays for a sample of cases, so the number of kernels compiled stays small.
"""
import operator
import warnings

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, make, name, random_array
from test_ufuncs import COMPLEX_EPS, complex_mismatches, real_bound, real_mismatches

DTYPES = [numpy.dtype(d) for d in ALL_DTYPES]
NAMES = sorted(kiln._core._ufunc_names())
BINARY = [n for n in NAMES if getattr(numpy, n).nin == 2]
UNARY = [n for n in NAMES if getattr(numpy, n).nin == 1]
REPRESENTATIVE = ["add", "subtract", "multiply", "divide", "floor_divide", "power", "remainder", "maximum",
                  "less", "logical_and", "bitwise_and", "left_shift", "arctan2", "hypot", "copysign", "ldexp"]
# Python scalars on either side of an array: in and out of every dtype's range.
PY_SCALARS = [0, 1, -1, 7, 127, 128, 255, 256, -129, 300, 65536, -40000, 2 ** 31, 2 ** 40, 2 ** 63 - 1,
              2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63, -2 ** 63 - 1, 2 ** 100, 1.5, -0.0, float("inf"),
              float("nan"), 1e300, 70000.0, 2j, 1 + 1j, True, False]


def outcome(fn):
    """fn(), or the exception it raises, with NumPy's warnings silenced."""
    try:
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return e


def assert_same_outcome(got, expected, what):
    """Both raised an exception of the same built-in class (TypeError,
    ValueError, OverflowError, ...: NumPy's and kiln's own subclasses differ)
    with the same message, or both gave results of the same dtypes and shapes."""
    __tracebackhide__ = True
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"{what}: NumPy raises {expected!r}, kiln returns {got!r}"
        base = next(c for c in type(expected).__mro__ if c.__module__ == "builtins")
        assert isinstance(got, base), f"{what}: {got!r} vs NumPy's {expected!r}"
        assert str(got) == str(expected), f"{what}: message {str(got)!r}, NumPy {str(expected)!r}"
        return
    assert not isinstance(got, Exception), f"{what}: NumPy returns {expected!r}, kiln raises {got!r}"
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert [(g.dtype, g.shape) for g in got] == [(numpy.dtype(e.dtype), numpy.shape(e)) for e in expected], what


def assert_values(got, expected, what="", ufunc=None):
    """Same dtype, shape and values; floats compared as values (NaN == NaN,
    -0.0 and 0.0 told apart), or within test_ufuncs' bounds for `ufunc`
    where that is a transcendental function."""
    __tracebackhide__ = True
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected), what
    for g, e in zip(got, expected):
        assert isinstance(g, kiln.ndarray), f"{what}: {type(g)}"
        g, e = g.get(), numpy.asarray(e)
        assert (g.dtype, g.shape) == (e.dtype, e.shape), f"{what}: {g.dtype}{g.shape} vs {e.dtype}{e.shape}"
        if ufunc and e.dtype.kind == "f" and real_bound(ufunc, e.dtype):
            assert not real_mismatches(g, e, real_bound(ufunc, e.dtype))[0].any(), f"{what}: {g} vs {e}"
            continue
        if ufunc in COMPLEX_EPS or (ufunc in ("power", "float_power") and e.dtype.kind == "c"):
            assert not complex_mismatches(g, e, COMPLEX_EPS.get(ufunc, 8))[0].any(), f"{what}: {g} vs {e}"
            continue
        numpy.testing.assert_array_equal(g, e, err_msg=what, strict=True)
        if e.dtype.kind in "fc":
            numpy.testing.assert_array_equal(numpy.signbit(g.real), numpy.signbit(e.real), err_msg=what)


def empty_pair(d):
    return numpy.empty((0, 2), d), kiln.empty((0, 2), d)


# --- result dtypes ---------------------------------------------------------------

@pytest.mark.parametrize("uf", BINARY)
def test_array_array_dtypes(uf):
    """All 14 x 14 dtype pairs: NumPy's result dtypes, or its error."""
    for d1 in DTYPES:
        for d2 in DTYPES:
            (n1, k1), (n2, k2) = empty_pair(d1), empty_pair(d2)
            expected = outcome(lambda: getattr(numpy, uf)(n1, n2))
            got = outcome(lambda: getattr(kiln, uf)(k1, k2))
            assert_same_outcome(got, expected, f"{uf}({d1}, {d2})")


@pytest.mark.parametrize("uf", UNARY)
def test_unary_dtypes(uf):
    for d in DTYPES:
        n, k = empty_pair(d)
        assert_same_outcome(outcome(lambda: getattr(kiln, uf)(k)), outcome(lambda: getattr(numpy, uf)(n)),
                            f"{uf}({d})")


@pytest.mark.parametrize("uf", REPRESENTATIVE)
def test_mixed_dtype_values(uf):
    """Values for 14 mixed pairs per ufunc (each dtype with another, a different
    partner per ufunc): inputs converted to the loop's types on load."""
    rng = numpy.random.default_rng(REPRESENTATIVE.index(uf))
    shift = 1 + REPRESENTATIVE.index(uf) % 13
    for i, d1 in enumerate(DTYPES):
        d2 = DTYPES[(i + shift) % len(DTYPES)]
        a, b = random_array(rng, (7,), d1), random_array(rng, (7,), d2)
        if uf in ("power", "left_shift") and d2.kind in "iu":
            b = numpy.abs(b) % 5  # NumPy raises on negative integer powers
        if uf == "ldexp" and d2.kind in "iu":
            b = b % 20
        expected = outcome(lambda: getattr(numpy, uf)(a, b))
        if isinstance(expected, Exception):
            assert_same_outcome(outcome(lambda: getattr(kiln, uf)(kiln.asarray(a), kiln.asarray(b))), expected,
                                f"{uf}({d1}, {d2})")
            continue
        assert_values(getattr(kiln, uf)(kiln.asarray(a), kiln.asarray(b)), expected, f"{uf}({d1}, {d2})", uf)


@pytest.mark.parametrize("uf", REPRESENTATIVE)
def test_python_scalar_dtypes(uf):
    """Array with a Python scalar on either side (NEP 50: the scalar is weak):
    result dtypes on size-0 arrays; where NumPy raises OverflowError for an
    out-of-range int, kiln must too, checked on a size-1 array (it raises
    before launching; see test_python_int_overflow_on_size_zero)."""
    failures = []
    for d in DTYPES:
        n, k = numpy.zeros(0, d), kiln.zeros(0, d)
        for s in PY_SCALARS:
            for left in (True, False):
                args_n, args_k = ((n, s), (k, s)) if left else ((s, n), (s, k))
                expected = outcome(lambda: getattr(numpy, uf)(*args_n))
                if uf == "logical_and" and isinstance(expected, OverflowError) and isinstance(s, int) \
                        and not -2 ** 63 <= s < 2 ** 63:
                    continue  # test_logical_ufuncs_with_ints_beyond_int64
                if isinstance(expected, OverflowError):
                    one = kiln.zeros(1, d)
                    args_k = (one, s) if left else (s, one)
                got = outcome(lambda: getattr(kiln, uf)(*args_k))
                what = f"{uf}{'(a, s)' if left else '(s, a)'} a: {d}, s: {s!r}"
                try:
                    if isinstance(expected, OverflowError):
                        assert isinstance(got, OverflowError), f"{what}: NumPy raises {expected!r}, kiln {got!r}"
                    else:
                        assert_same_outcome(got, expected, what)
                except AssertionError as e:
                    failures.append(str(e).split("\n")[0])
    assert not failures, f"{len(failures)} differ:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("uf", ["add", "divide", "power", "less", "maximum", "left_shift", "copysign"])
@pytest.mark.parametrize("d", ["bool", "int8", "uint8", "int64", "uint64", "float16", "float32", "complex64"])
def test_python_scalar_values(uf, d):
    """Values with int, float, complex and bool scalars on both sides."""
    rng = numpy.random.default_rng(7)
    a = random_array(rng, (5,), d)
    if uf in ("power", "left_shift") and numpy.dtype(d).kind in "iu":
        a = numpy.abs(a) % 6
    for s in (3, 2.5, 1 - 2j, True):
        for args in ((a, s), (s, a)):
            expected = outcome(lambda: getattr(numpy, uf)(*args))
            kargs = [kiln.asarray(x) if isinstance(x, numpy.ndarray) else x for x in args]
            if isinstance(expected, Exception):
                assert_same_outcome(outcome(lambda: getattr(kiln, uf)(*kargs)), expected, f"{uf}{args}")
            else:
                assert_values(getattr(kiln, uf)(*kargs), expected, f"{uf}({d}, {s!r})", uf)


def test_python_scalars_only():
    """Scalar-only calls give 0-d kiln arrays (NumPy gives NumPy scalars) of
    NumPy's dtype and value."""
    for uf, args in (("add", (1, 2)), ("add", (1, 2.5)), ("multiply", (2, 1j)), ("less", (1.0, 2)),
                     ("sin", (1.0,)), ("logical_not", (0,)), ("divmod", (7, 2)), ("power", (2, 10))):
        expected = getattr(numpy, uf)(*args)
        got = getattr(kiln, uf)(*args)
        if isinstance(expected, tuple):
            assert_values(got, tuple(numpy.asarray(e) for e in expected), uf)
        else:
            assert_values(got, numpy.asarray(expected), uf)


def test_python_int_overflow_on_size_one():
    for d, s in (("int8", 300), ("uint8", -1), ("uint64", -1), ("int64", 2 ** 63), ("int16", 2 ** 70)):
        expected = outcome(lambda: numpy.add(numpy.zeros(1, d), s))
        assert isinstance(expected, OverflowError)
        with pytest.raises(OverflowError):
            kiln.add(kiln.zeros(1, d), s)


def test_python_int_overflow_on_size_zero():
    with pytest.raises(OverflowError):
        numpy.add(numpy.zeros(0, "int8"), 300)
    with pytest.raises(OverflowError):
        kiln.add(kiln.zeros(0, "int8"), 300)


def test_python_int_overflow_messages():
    for d, s in (("int8", 300), ("uint64", -1), ("int64", 2 ** 63), ("int8", 2 ** 64)):
        expected = outcome(lambda: numpy.add(numpy.zeros(1, d), s))
        assert_same_outcome(outcome(lambda: kiln.add(kiln.zeros(1, d), s)), expected, f"{d} + {s}")


def test_logical_ufuncs_with_ints_beyond_int64():
    with pytest.raises(OverflowError):
        numpy.logical_and(numpy.ones(1, "int8"), 2 ** 64)
    with pytest.raises(OverflowError):
        kiln.logical_and(kiln.ones(1, "int8"), 2 ** 64)


@pytest.mark.parametrize("d", ["uint8", "int8", "int64", "uint64", "bool"])
def test_comparison_with_out_of_range_python_int(d):
    """NumPy 2 compares integer arrays with any Python int (no OverflowError)."""
    a = random_array(numpy.random.default_rng(3), (6,), d)
    for s in (-1, 300, -300, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 2 ** 70, 2):
        for uf in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
            for args in ((a, s), (s, a)):
                expected = outcome(lambda: getattr(numpy, uf)(*args))
                kargs = [kiln.asarray(x) if isinstance(x, numpy.ndarray) else x for x in args]
                got = outcome(lambda: getattr(kiln, uf)(*kargs))
                if isinstance(expected, Exception):  # bool arrays with ints beyond int64
                    assert isinstance(got, type(expected)), f"{uf}({d}, {s}): {got!r} vs {expected!r}"
                else:
                    assert not isinstance(got, Exception), f"{uf}{args}: {got!r}"
                    assert_values(got, expected, f"{uf}({d} array, {s})")


@pytest.mark.parametrize("uf", ["add", "divide", "less", "maximum", "bitwise_and", "power"])
def test_numpy_scalar_dtypes(uf):
    """NumPy scalars are strong: they promote like arrays of their dtype."""
    for d in DTYPES:
        n, k = numpy.zeros((0, 2), d), kiln.zeros((0, 2), d)
        for sd in DTYPES:
            s = sd.type(1)
            for args_n, args_k in (((n, s), (k, s)), ((s, n), (s, k))):
                assert_same_outcome(outcome(lambda: getattr(kiln, uf)(*args_k)),
                                    outcome(lambda: getattr(numpy, uf)(*args_n)), f"{uf} {d} {sd}")


def test_numpy_scalar_values():
    a = numpy.arange(-3, 4, dtype=numpy.int16)
    for s in (numpy.float32(1.5), numpy.uint8(200), numpy.int64(-7), numpy.complex64(1 - 1j), numpy.bool_(True),
              numpy.float16(0.5)):
        assert_values(kiln.add(kiln.asarray(a), s), numpy.add(a, s), repr(s))
        assert_values(kiln.asarray(a) * s, a * s, repr(s))
        assert_values(s - kiln.asarray(a), s - a, repr(s))


# --- out= ------------------------------------------------------------------------

def test_out_same_dtype_is_written_and_returned():
    rng = numpy.random.default_rng(1)
    a, b = random_array(rng, (3, 4), "float32"), random_array(rng, (3, 4), "float32")
    out = kiln.zeros((3, 4), "float32")
    r = kiln.add(kiln.asarray(a), kiln.asarray(b), out=out)
    assert_values(out, a + b)
    assert_values(r, a + b)
    r2 = kiln.add(kiln.asarray(a), kiln.asarray(b), out)  # positional
    assert_values(r2, a + b)
    r3 = kiln.add(kiln.asarray(a), kiln.asarray(b), out=(out,))
    assert_values(r3, a + b)
    r4 = kiln.add(kiln.asarray(a), kiln.asarray(b), out=None)
    assert_values(r4, a + b)


def test_out_is_returned_itself():
    out = kiln.zeros(3)
    assert kiln.add(kiln.ones(3), 1, out=out) is out
    q, r = kiln.zeros(3), kiln.zeros(3)
    assert all(x is y for x, y in zip(kiln.divmod(kiln.ones(3), 2, out=(q, r)), (q, r)))


@pytest.mark.parametrize("out_dtype", DTYPES, ids=name)
def test_out_of_another_dtype(out_dtype):
    """The loop's result cast into out (casting='unsafe' so every dtype takes it;
    the default 'same_kind' is checked against NumPy's error)."""
    rng = numpy.random.default_rng(2)
    a = (rng.random((4, 3)) * 50).astype(numpy.float32)
    b = (rng.random((4, 3)) * 50).astype(numpy.float32)
    n_out = numpy.zeros((4, 3), out_dtype)
    k_out = kiln.zeros((4, 3), out_dtype)
    expected = outcome(lambda: numpy.add(a, b, out=n_out))
    got = outcome(lambda: kiln.add(kiln.asarray(a), kiln.asarray(b), out=k_out))
    if isinstance(expected, Exception):
        assert_same_outcome(got, expected, f"out {out_dtype}")
    else:
        assert_values(k_out, n_out, f"out {out_dtype}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numpy.add(a, b, out=n_out, casting="unsafe")
    kiln.add(kiln.asarray(a), kiln.asarray(b), out=k_out, casting="unsafe")
    assert_values(k_out, n_out, f"unsafe out {out_dtype}")


def test_loop_choice_depends_on_every_operand_and_out_dtype():
    """Loop choices are cached per (ufunc, operand dtypes and weak kinds, dtype=,
    casting=, out dtypes): calls that differ only in one of them, in any order,
    must each get their own result dtype and values."""
    a = numpy.arange(1, 7, dtype=numpy.float32).reshape(2, 3) * 1.5
    calls = [
        ({}, None), ({"out": "bool"}, None), ({"out": "bool"}, "unsafe"), ({}, "unsafe"),
        ({"out": "int8"}, "unsafe"), ({"out": "int8"}, None), ({}, None), ({"dtype": "float64"}, None),
        ({"out": "float32"}, None), ({"out": "bool"}, "unsafe"), ({}, None),
    ]
    for kwargs, casting in calls * 2:
        extra = {"casting": casting} if casting else {}
        n_kw, k_kw = dict(extra), dict(extra)
        if "out" in kwargs:
            n_kw["out"] = numpy.zeros((2, 3), kwargs["out"])
            k_kw["out"] = kiln.zeros((2, 3), kwargs["out"])
        if "dtype" in kwargs:
            n_kw["dtype"] = k_kw["dtype"] = kwargs["dtype"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = outcome(lambda: numpy.add(a, a, **n_kw))
        got = outcome(lambda: kiln.add(kiln.asarray(a), kiln.asarray(a), **k_kw))
        if isinstance(expected, Exception):   # float32 into bool/int8 under same_kind
            assert_same_outcome(got, expected, f"add {kwargs} {casting}")
        else:
            assert_values(got, expected, f"add {kwargs} {casting}")
    for weak in (1, 1.0, True, 1j):   # the same dtypes with each kind of Python scalar
        assert_values(kiln.add(kiln.asarray(a), weak), numpy.add(a, weak), f"add {weak!r}")


@pytest.mark.parametrize("uf,d", [("divmod", "int32"), ("divmod", "float64"), ("modf", "float32"),
                                  ("frexp", "float64")])
def test_out_tuples(uf, d):
    rng = numpy.random.default_rng(4)
    args = [random_array(rng, (5,), d) for _ in range(getattr(numpy, uf).nin)]
    if uf == "divmod":
        args[1][args[1] == 0] = 3
    expected = getattr(numpy, uf)(*args)
    kargs = [kiln.asarray(x) for x in args]
    outs = tuple(kiln.empty(5, e.dtype) for e in expected)
    r = getattr(kiln, uf)(*kargs, out=outs)
    assert_values(r, expected, uf)
    assert_values(outs, expected, uf)
    # Positional outputs, and None for an output to allocate.
    outs = tuple(kiln.empty(5, e.dtype) for e in expected)
    assert_values(getattr(kiln, uf)(*kargs, *outs), expected, uf)
    assert_values(outs, expected, uf)
    first = kiln.empty(5, expected[0].dtype)
    assert_values(getattr(kiln, uf)(*kargs, out=(first, None)), expected, uf)
    assert_values(first, expected[0], uf)
    # Errors: a bare array (TypeError), a tuple of the wrong length (ValueError).
    n_first = numpy.empty(5, expected[0].dtype)
    for n_bad, k_bad in ((n_first, first), ((n_first,), (first,))):
        e = outcome(lambda: getattr(numpy, uf)(*args, out=n_bad))
        g = outcome(lambda: getattr(kiln, uf)(*kargs, out=k_bad))
        assert type(g) is type(e), (g, e)


def test_out_broadcasts_inputs_to_its_shape():
    a, b = numpy.arange(3.0), numpy.arange(2.0).reshape(2, 1)
    out = kiln.zeros((4, 2, 3))
    r = kiln.multiply(kiln.asarray(a), kiln.asarray(b), out=out)
    assert_values(r, numpy.multiply(a, b, out=numpy.zeros((4, 2, 3))))


def test_out_errors():
    a = kiln.ones((2, 3))
    for kw, n_kw in ((dict(out=kiln.empty((3,))), dict(out=numpy.empty((3,)))),
                     (dict(out=kiln.empty((1, 3))), dict(out=numpy.empty((1, 3)))),
                     (dict(out=kiln.empty((2, 3, 1))), dict(out=numpy.empty((2, 3, 1))))):
        got = outcome(lambda: kiln.add(a, 1.0, **kw))
        expected = outcome(lambda: numpy.add(numpy.ones((2, 3)), 1.0, **n_kw))
        assert type(got) is type(expected) is ValueError, (got, expected)
    with pytest.raises(TypeError, match="kiln.ndarray"):
        kiln.add(a, 1.0, out=numpy.empty((2, 3)))
    with pytest.raises(TypeError, match="both a positional and keyword"):
        kiln.add(a, 1.0, kiln.empty((2, 3)), out=kiln.empty((2, 3)))
    with pytest.raises(TypeError):
        kiln.add(a, 1.0, out=[kiln.empty((2, 3))])


# --- where= ----------------------------------------------------------------------

@pytest.mark.parametrize("d", ["int32", "float64", "complex64"])
def test_where_with_out(d):
    rng = numpy.random.default_rng(5)
    a, b = random_array(rng, (4, 5), d), random_array(rng, (4, 5), d)
    mask = rng.integers(0, 2, (4, 5)).astype(bool)
    n_out = random_array(rng, (4, 5), d)
    k_out = kiln.asarray(n_out)
    numpy.multiply(a, b, out=n_out, where=mask)
    r = kiln.multiply(kiln.asarray(a), kiln.asarray(b), out=k_out, where=kiln.asarray(mask))
    assert_values(k_out, n_out)
    assert_values(r, n_out)
    # A mask broadcast along rows.
    row = mask[0]
    numpy.subtract(a, b, out=n_out, where=row)
    kiln.subtract(kiln.asarray(a), kiln.asarray(b), out=k_out, where=kiln.asarray(row))
    assert_values(k_out, n_out)


def test_where_without_out_compares_selected_elements():
    rng = numpy.random.default_rng(6)
    a = random_array(rng, (3, 7), "float32")
    mask = rng.integers(0, 2, (3, 7)).astype(bool)
    got = kiln.sqrt(kiln.asarray(a), where=kiln.asarray(mask))
    with numpy.errstate(invalid="ignore"):
        expected = numpy.sqrt(a, where=mask)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_array_equal(got.get()[mask], expected[mask])


def test_where_scalars_and_errors():
    a, out = kiln.ones(4), kiln.zeros(4)
    kiln.add(a, 1, out=out, where=True)
    assert_values(out, numpy.full(4, 2.0))
    kiln.add(a, 5, out=out, where=False)
    assert_values(out, numpy.full(4, 2.0))
    expected = outcome(lambda: numpy.add(numpy.ones(4), 1, where=numpy.ones(4, "int8")))
    got = outcome(lambda: kiln.add(a, 1, where=kiln.ones(4, "int8")))
    assert_same_outcome(got, expected, "int8 mask")
    with pytest.raises(TypeError, match="kiln.ndarray"):
        kiln.add(a, 1, where=numpy.ones(4, bool))
    # The mask takes part in broadcasting.
    assert kiln.add(kiln.ones(3), 1, where=kiln.ones((2, 3), bool)).shape == (2, 3)


# --- casting=, dtype=, order= ------------------------------------------------------

CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.parametrize("casting", CASTINGS)
def test_casting(casting):
    """Input casting under dtype=, output casting into out=: NumPy's success
    or its UFuncTypeError with the same message."""
    cases = [("int8", "int8", None, "int8"), ("int8", "int16", None, "int16"), ("int32", "int32", None, "int64"),
             ("int32", "int32", None, "int16"), ("float64", "float64", None, "float32"),
             ("float32", "float32", None, "int32"), ("int32", "int32", "float64", None),
             ("float32", "float32", "float16", None), ("float64", "float64", "int64", None),
             ("int64", "int64", "float64", "float32"), ("complex64", "complex64", None, "float32"),
             ("uint32", "int32", None, "int64"), ("bool", "bool", "int8", None)]
    for d1, d2, dtype, out in cases:
        a, b = numpy.arange(1, 5).astype(d1), numpy.arange(1, 5).astype(d2)
        kw_n, kw_k = dict(casting=casting), dict(casting=casting)
        if dtype:
            kw_n["dtype"] = kw_k["dtype"] = dtype
        if out:
            kw_n["out"], kw_k["out"] = numpy.zeros(4, out), kiln.zeros(4, out)
        expected = outcome(lambda: numpy.add(a, b, **kw_n))
        got = outcome(lambda: kiln.add(kiln.asarray(a), kiln.asarray(b), **kw_k))
        what = f"add({d1}, {d2}, dtype={dtype}, out={out}, casting={casting})"
        if isinstance(expected, Exception):
            assert_same_outcome(got, expected, what)
        else:
            assert not isinstance(got, Exception), f"{what}: {got!r}"
            assert_values(got, expected, what)


def test_casting_bad_value():
    expected = outcome(lambda: numpy.add(numpy.ones(2), 1, casting="bogus"))
    assert_same_outcome(outcome(lambda: kiln.add(kiln.ones(2), 1, casting="bogus")), expected, "casting")


@pytest.mark.parametrize("uf,d1,d2,dtype", [("add", "int8", "int8", "float32"), ("multiply", "float32", "float32",
                                                                                  "float64"),
                                            ("divide", "int16", "int16", "float32"), ("sin", "float32", None,
                                                                                      "float64"),
                                            ("less", "int8", "int64", "bool"), ("power", "int8", "int8", "int64"),
                                            ("add", "bool", "bool", "bool"), ("add", "int8", "int8", "int8")])
def test_dtype(uf, d1, d2, dtype):
    rng = numpy.random.default_rng(8)
    args = [numpy.abs(random_array(rng, (6,), d)) for d in (d1, d2) if d]
    expected = outcome(lambda: getattr(numpy, uf)(*args, dtype=dtype))
    got = outcome(lambda: getattr(kiln, uf)(*[kiln.asarray(x) for x in args], dtype=dtype))
    if isinstance(expected, Exception):
        assert_same_outcome(got, expected, uf)
    else:
        assert_values(got, expected, f"{uf} dtype={dtype}", uf)


@pytest.mark.parametrize("order", ["C", "F", "A", "K", None, "c", "f"])
@pytest.mark.parametrize("layout", ["C", "F", "strided", "mixed"])
def test_order_flags(order, layout):
    rng = numpy.random.default_rng(9)
    base = random_array(rng, (6, 8), "float32")
    if layout == "mixed":
        (k1, n1), (k2, n2) = make(rng, "C", "float32", base), make(rng, "F", "float32", base)
    else:
        (k1, n1) = (k2, n2) = make(rng, layout, "float32", base)
    expected = numpy.add(n1, n2, order=order)
    got = kiln.add(k1, k2, order=order)
    assert_values(got, expected, f"order={order}")
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == \
        (expected.flags.c_contiguous, expected.flags.f_contiguous)


def test_order_bad_value():
    expected = outcome(lambda: numpy.add(numpy.ones(2), 1, order="X"))
    assert_same_outcome(outcome(lambda: kiln.add(kiln.ones(2), 1, order="X")), expected, "order")


# --- broadcasting and layouts --------------------------------------------------------

@pytest.mark.parametrize("s1,s2", [((4, 1, 3), (2, 1)), ((), (3, 2)), ((5,), (0, 5)), ((1, 1), (3,)),
                                   ((2, 1, 4), (1, 3, 1))])
def test_broadcasting(s1, s2):
    rng = numpy.random.default_rng(10)
    a, b = random_array(rng, s1, "float64"), random_array(rng, s2, "float64")
    assert_values(kiln.subtract(kiln.asarray(a), kiln.asarray(b)), numpy.subtract(a, b))
    assert_values(kiln.asarray(b) - kiln.asarray(a), b - a)


@pytest.mark.parametrize("s1,s2", [((2, 3), (3, 2)), ((4,), (5,)), ((2, 1, 3), (4, 3, 1))])
def test_broadcasting_error_is_a_value_error(s1, s2):
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        kiln.add(kiln.ones(s1), kiln.ones(s2))
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        kiln.ones(s1) + kiln.ones(s2)


def test_broadcasting_error_message_is_numpys():
    for args in (((2, 3), (3, 2)), ((2, 3), 1.0, (2,))):
        n = [numpy.ones(s) if isinstance(s, tuple) else s for s in args]
        k = [kiln.ones(s) if isinstance(s, tuple) else s for s in args]
        expected = outcome(lambda: numpy.add(n[0], n[1], out=numpy.ones(args[2]) if len(args) > 2 else None))
        got = outcome(lambda: kiln.add(k[0], k[1], out=kiln.ones(args[2]) if len(args) > 2 else None))
        assert_same_outcome(got, expected, str(args))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", ["int16", "float32", "complex128"])
def test_layouts(layout, d):
    """Binary (both operands in the layout, and with a C operand), unary and
    two-output ufuncs, into fresh arrays and into out= in the layout."""
    rng = numpy.random.default_rng(11)
    k1, n1 = make(rng, layout, d)
    k2, n2 = make(rng, layout, d)
    n1, n2 = numpy.asarray(n1), numpy.asarray(n2)   # 0-d: arrays, not NumPy scalars
    n_c = numpy.ascontiguousarray(n2)
    assert_values(kiln.add(k1, k2), n1 + n2, "add")
    # NumPy's complex product rounds differently in its vectorised loop (FMA,
    # which kiln follows) and its scalar tail: take the vectorised one.
    wide = numpy.multiply(numpy.broadcast_to(n1, (16,) + n1.shape), numpy.broadcast_to(n2, (16,) + n2.shape))[0]
    assert_values(kiln.multiply(k1, k2), wide, "multiply")
    assert_values(kiln.subtract(k1, kiln.asarray(n_c)), n1 - n_c, "subtract with a C operand")
    assert_values(kiln.negative(k1), numpy.negative(n1), "negative")
    assert_values(kiln.equal(k1, k2), n1 == n2, "equal")
    if numpy.dtype(d).kind != "c":
        with numpy.errstate(all="ignore"):
            expected = numpy.divmod(n1, n2 + 1)
        assert_values(kiln.divmod(k1, k2 + 1), expected, "divmod")
    ko, no = make(rng, layout, d)
    no = numpy.array(no)
    kiln.add(k1, k2, out=ko)
    numpy.add(n1, n2, out=no)
    assert_values(ko, no, "out in layout")


# --- operators -------------------------------------------------------------------------

BINARY_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
              operator.pow, divmod, operator.lshift, operator.rshift, operator.and_, operator.or_, operator.xor,
              operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]
UNARY_OPS = [operator.neg, operator.pos, abs, operator.invert]
TRANSCENDENTAL_OPS = {operator.pow: "power", operator.ipow: "power"}


@pytest.mark.parametrize("op", BINARY_OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("d", ["bool", "int8", "uint16", "int64", "float32", "float64", "complex64"])
def test_binary_operators(op, d):
    rng = numpy.random.default_rng(12)
    a, b = random_array(rng, (3, 4), d), random_array(rng, (3, 4), d)
    if numpy.dtype(d).kind in "iu":
        b[b == 0] = 1
        if op in (operator.pow, operator.lshift, operator.rshift):
            b = numpy.abs(b) % 7
    expected = outcome(lambda: op(a, b))
    got = outcome(lambda: op(kiln.asarray(a), kiln.asarray(b)))
    if isinstance(expected, Exception):
        assert_same_outcome(got, expected, f"{op.__name__} {d}")
    else:
        assert_values(got, expected, f"{op.__name__} {d}", TRANSCENDENTAL_OPS.get(op))


@pytest.mark.parametrize("op", UNARY_OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("d", ["bool", "int8", "uint16", "float16", "float64", "complex128"])
def test_unary_operators(op, d):
    a = random_array(numpy.random.default_rng(13), (3, 4), d)
    expected = outcome(lambda: op(a))
    got = outcome(lambda: op(kiln.asarray(a)))
    if isinstance(expected, Exception):
        assert_same_outcome(got, expected, f"{op.__name__} {d}")
    else:
        assert_values(got, expected, f"{op.__name__} {d}")


@pytest.mark.parametrize("op", BINARY_OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("s", [2, 2.5, 1j, True], ids=repr)
def test_operators_with_python_scalars(op, s):
    """a op s and the reflected s op a (2 - a, 2 ** a, 1 / a, ...); 1j ** 4
    is 1 + 0j as in NumPy, whose integer powers multiply from 1 (kiln's once
    gave 1 - 0j)."""
    rng = numpy.random.default_rng(14)
    for d in ("int32", "float32"):
        a = random_array(rng, (5,), d)
        a[a == 0] = 3
        if d == "int32" and op in (operator.pow, operator.lshift, operator.rshift):
            a = numpy.abs(a) % 7
        for f in (lambda x: op(x, s), lambda x: op(s, x)):
            expected = outcome(lambda: f(a))
            got = outcome(lambda: f(kiln.asarray(a)))
            what = f"{op.__name__} {d} {s!r}"
            if isinstance(expected, Exception):
                assert isinstance(got, type(expected)), f"{what}: {got!r} vs {expected!r}"
            else:
                assert_values(got, expected, what, TRANSCENDENTAL_OPS.get(op))


INPLACE_OPS = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
               operator.ipow, operator.ilshift, operator.irshift, operator.iand, operator.ior, operator.ixor]


@pytest.mark.parametrize("op", INPLACE_OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("d,other", [("int32", "int32"), ("int32", "int8"), ("int32", "float64"),
                                     ("float32", "float64"), ("float64", "int64"), ("int16", 3), ("uint8", -1),
                                     ("float32", 2.5), ("complex64", 1j), ("bool", True)])
def test_inplace_operators(op, d, other):
    """a op= b writes into a (the same object) or raises NumPy's error,
    e.g. int += float: Cannot cast ufunc 'add' output ... 'same_kind'."""
    rng = numpy.random.default_rng(15)
    a = random_array(rng, (2, 5), d)
    b = other if not isinstance(other, str) else random_array(rng, (2, 5), other)
    if isinstance(b, numpy.ndarray) and b.dtype.kind in "iu":
        b = numpy.abs(b) % 5 + 1
    n = a.copy()
    expected = outcome(lambda: op(n, b))
    k = kiln.asarray(a)
    kb = kiln.asarray(b) if isinstance(b, numpy.ndarray) else b
    got = outcome(lambda: op(k, kb))
    what = f"{op.__name__}({d}, {other})"
    if isinstance(expected, Exception):
        assert_same_outcome(got, expected, what)
        assert_values(k, a, what + " leaves a unchanged")
    else:
        assert not isinstance(got, Exception), f"{what}: {got!r}"
        assert_values(k, n, what, TRANSCENDENTAL_OPS.get(op))
        assert got is k, what


def test_inplace_int_plus_float_message():
    a = kiln.ones(3, "int32")
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' output from dtype\('float64'\) to "
                                        r"dtype\('int32'\) with casting rule 'same_kind'"):
        a += kiln.ones(3)


# --- overlap -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["shift_right", "shift_left", "reverse", "inplace_reversed", "divmod"])
def test_overlapping_inputs_and_outputs(case):
    rng = numpy.random.default_rng(16)
    n = random_array(rng, (40,), "int64")
    k = kiln.asarray(n)
    if case == "shift_right":
        numpy.add(n[1:], n[:-1], out=n[1:])
        kiln.add(k[1:], k[:-1], out=k[1:])
    elif case == "shift_left":
        numpy.multiply(n[1:], 3, out=n[:-1])
        kiln.multiply(k[1:], 3, out=k[:-1])
    elif case == "reverse":
        numpy.subtract(n[::-1], n, out=n)
        kiln.subtract(k[::-1], k, out=k)
    elif case == "inplace_reversed":
        n += n[::-1]
        k += k[::-1]
    else:
        n2 = n.reshape(2, 20)
        k2 = k.reshape(2, 20)
        d = numpy.abs(n2[1]) + 1
        numpy.divmod(n2[0], d, out=(n2[1], n2[0]))
        kiln.divmod(k2[0], kiln.asarray(d), out=(k2[1], k2[0]))
    assert_values(k, n, case)


# --- errors -------------------------------------------------------------------------------

def test_host_operands_raise_type_error_naming_asarray():
    x_gpu = kiln.ones(3)
    y_cpu = numpy.ones(3)
    for f in (lambda: x_gpu + y_cpu, lambda: kiln.add(x_gpu, y_cpu), lambda: kiln.add(y_cpu, x_gpu),
              lambda: x_gpu + [1, 2, 3], lambda: kiln.add(x_gpu, [1.0, 2.0, 3.0]), lambda: x_gpu * (1, 2, 3),
              lambda: kiln.sin(y_cpu), lambda: kiln.sin([1.0]), lambda: y_cpu + x_gpu, lambda: x_gpu < y_cpu,
              lambda: [1, 2, 3] - x_gpu):
        with pytest.raises(TypeError, match=r"kiln\.asarray") as info:
            f()
        assert "Unsupported type <class" in str(info.value)
    with pytest.raises(TypeError, match=r"Unsupported type <class 'numpy.ndarray'>"):
        x_gpu + y_cpu


def test_foreign_operands():
    x = kiln.ones(3)
    for f in (lambda: x + None, lambda: x + "a", lambda: None - x, lambda: x < object()):
        with pytest.raises(TypeError):
            f()
    with pytest.raises(TypeError):
        kiln.add(x, None)


class _EqualsTwoOrFour:   # an object whose == is elementwise on arrays
    def __eq__(self, other):
        return (other == 2) | (other == 4)


class _NotEqualsTwoOrFour:
    def __ne__(self, other):
        return (other == 2) | (other == 4)


class _Plain:
    pass


@pytest.mark.parametrize("layout", ["C", "F", "strided", "0-d", "empty"])
def test_equality_with_objects(layout):
    """Note [Comparing with other objects]: == and != with an object kiln
    cannot convert give NumPy's elementwise arrays (all False / all True for
    identity-compared objects, the object's own __eq__ otherwise), in either
    operand order; lists still raise."""
    host = {"C": numpy.arange(6).reshape(2, 3), "F": numpy.asfortranarray(numpy.arange(6).reshape(2, 3)),
            "strided": numpy.arange(12)[::-2], "0-d": numpy.array(4), "empty": numpy.zeros((0, 3))}[layout]
    a = kiln.asarray(host)
    for value in (None, Ellipsis, object(), numpy._NoValue, "a", b"a", {}, _Plain(), _EqualsTwoOrFour(),
                  _NotEqualsTwoOrFour()):
        cases = [(lambda x: x == value, "=="), (lambda x: x != value, "!=")]
        if not isinstance(value, _EqualsTwoOrFour):   # value != x calls object.__ne__: bool() of an array
            cases += [(lambda x: value == x, "r=="), (lambda x: value != x, "r!=")]
        for f, what in cases:
            got, expected = f(a), f(host)
            assert isinstance(got, kiln.ndarray), (value, what)
            assert got.dtype == bool and got.shape == host.shape, (value, what)
            assert got.get().tolist() == numpy.asarray(expected).tolist(), (value, what)
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        a == [1, 2, 3]


class _Overrides(numpy.lib.mixins.NDArrayOperatorsMixin):   # NEP 13: overrides ufuncs
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ufunc.__name__, inputs, kwargs


class _OptsOut:
    __array_ufunc__ = None

    def __radd__(self, other):
        return "radd"

    def __gt__(self, other):
        return "gt"


def test_operator_overrides():
    """Note [Operator overrides]: an operand with __array_ufunc__ gets kiln's
    ufunc for every operator, in both orders (never the reflected ufunc);
    __array_ufunc__ = None leaves it to Python's reflected methods; in-place
    operators with such an operand raise TypeError."""
    x = kiln.asarray([3, 7])
    y = _Overrides()
    for op, name in (("+", "add"), ("-", "subtract"), ("*", "multiply"), ("<", "less"), (">=", "greater_equal"),
                     ("==", "equal"), ("!=", "not_equal"), ("&", "bitwise_and"), ("**", "power")):
        got = eval("x %s y" % op)
        assert got[0] == name and got[1][0] is x and got[1][1] is y, (op, got)
        got = eval("y %s x" % op)
        assert got[0] == name and got[1][0] is y and got[1][1] is x, (op, got)
    assert (x < y)[0] == "less" and kiln.less is not None
    with pytest.raises(TypeError, match="in-place add"):
        x += y
    z = _OptsOut()
    assert x + z == "radd" and (x < z) == "gt"


@pytest.mark.parametrize("uf", ["add", "sin", "divmod", "modf"])
def test_argument_counts(uf):
    n_uf, k_uf = getattr(numpy, uf), getattr(kiln, uf)
    for count in (0, n_uf.nin - 1, n_uf.nargs + 1):
        if count < 0:
            continue
        n_args, k_args = [numpy.ones(2)] * count, [kiln.ones(2)] * count
        expected = outcome(lambda: n_uf(*n_args))
        got = outcome(lambda: k_uf(*k_args))
        assert isinstance(expected, TypeError) and isinstance(got, TypeError), (count, got, expected)


def test_argument_count_message():
    assert_same_outcome(outcome(lambda: kiln.add(kiln.ones(2))), outcome(lambda: numpy.add(numpy.ones(2))), "")


def test_unknown_keywords():
    for kw in ("foo", "axis", "keepdims"):
        expected = outcome(lambda: numpy.add(numpy.ones(2), 1, **{kw: 1}))
        assert_same_outcome(outcome(lambda: kiln.add(kiln.ones(2), 1, **{kw: 1})), expected, kw)
