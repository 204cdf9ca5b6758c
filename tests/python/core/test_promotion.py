"""kiln.promote_types / can_cast / result_type against NumPy 2 itself (NEP 50)."""
import itertools

import numpy
import pytest

import kiln

from conftest import ALL_DTYPES

DTYPES = [numpy.dtype(d) for d in ALL_DTYPES]
PAIRS = list(itertools.product(DTYPES, DTYPES))
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]
PY_SCALARS = [True, 1, 1.0, 1j]


def pair_id(pair):
    return f"{pair[0]}-{pair[1]}"


@pytest.mark.parametrize("a,b", PAIRS, ids=map(pair_id, PAIRS))
def test_promote_types_table(a, b):
    assert kiln.promote_types(a, b) == numpy.promote_types(a, b)


@pytest.mark.parametrize("a,b", PAIRS, ids=map(pair_id, PAIRS))
def test_promote_types_accepts_type_objects_and_strings(a, b):
    got = kiln.promote_types(a.type, b.char)
    assert isinstance(got, numpy.dtype)
    assert got == numpy.promote_types(a, b)


def test_promote_types_associativity_matches_numpy():
    def non_associative(promote):
        return {(a, b, c) for a, b, c in itertools.product(DTYPES, repeat=3)
                if promote(promote(a, b), c) != promote(a, promote(b, c))}
    assert non_associative(kiln.promote_types) == non_associative(numpy.promote_types)


def test_result_type_of_sequences_matches_numpy():
    """Note [Promoting a sequence]: three and four dtypes promote as NumPy's
    result_type does (int8, uint8, float16 -> float16), which is not the
    pairwise fold; with a Python scalar too, and in every argument order."""
    numeric = [d for d in DTYPES if d.kind in "biufc"]
    wrong = [s for n in (3, 4) for s in itertools.combinations_with_replacement(numeric, n)
             if kiln.result_type(*s) != numpy.result_type(*s)]
    assert wrong == []
    for seq in itertools.permutations([numpy.int8, numpy.uint8, numpy.float16, 1.0]):
        assert kiln.result_type(*seq) == numpy.result_type(*seq) == numpy.float16
    assert kiln.result_type(numpy.int16, numpy.uint16, kiln.zeros(2, numpy.complex64)) == numpy.complex64


@pytest.mark.parametrize("casting", CASTINGS)
@pytest.mark.parametrize("a,b", PAIRS, ids=map(pair_id, PAIRS))
def test_can_cast_table(a, b, casting):
    assert kiln.can_cast(a, b, casting) == numpy.can_cast(a, b, casting)


@pytest.mark.parametrize("a,b", PAIRS, ids=map(pair_id, PAIRS))
def test_can_cast_default_is_safe(a, b):
    assert kiln.can_cast(a, b) == numpy.can_cast(a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_can_cast_from_arrays_and_numpy_scalars(dtype):
    for target in DTYPES:
        expected = numpy.can_cast(dtype, target, "same_kind")
        assert kiln.can_cast(kiln.zeros(3, dtype=dtype), target, "same_kind") == expected
        assert kiln.can_cast(numpy.zeros(3, dtype=dtype), target, "same_kind") == expected
        assert kiln.can_cast(dtype.type(0), target, "same_kind") == expected


@pytest.mark.parametrize("scalar", PY_SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_result_type_dtype_and_python_scalar(dtype, scalar):
    expected = numpy.result_type(dtype, scalar)
    assert kiln.result_type(dtype, scalar) == expected
    assert kiln.result_type(scalar, dtype) == expected
    assert kiln.result_type(kiln.zeros(2, dtype=dtype), scalar) == expected


@pytest.mark.parametrize("scalars", list(itertools.combinations_with_replacement(PY_SCALARS, 2)), ids=repr)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_result_type_dtype_and_two_python_scalars(dtype, scalars):
    assert kiln.result_type(dtype, *scalars) == numpy.result_type(dtype, *scalars)


@pytest.mark.parametrize("scalars", [s for n in (1, 2, 3) for s in itertools.product(PY_SCALARS, repeat=n)],
                         ids=repr)
def test_result_type_only_python_scalars(scalars):
    assert kiln.result_type(*scalars) == numpy.result_type(*scalars)


@pytest.mark.parametrize("a,b", PAIRS, ids=map(pair_id, PAIRS))
def test_result_type_pairs(a, b):
    assert kiln.result_type(a, b) == numpy.result_type(a, b)


@pytest.mark.parametrize("scalar", PY_SCALARS, ids=repr)
@pytest.mark.parametrize("a,b", PAIRS, ids=map(pair_id, PAIRS))
def test_result_type_pairs_with_python_scalar(a, b, scalar):
    assert kiln.result_type(a, scalar, b) == numpy.result_type(a, scalar, b)


@pytest.mark.parametrize("scalar", PY_SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_result_type_zero_dim_numpy_arrays_and_scalars_are_strong(dtype, scalar):
    zero_d = numpy.zeros((), dtype=dtype)
    np_scalar = dtype.type(0)
    assert kiln.result_type(zero_d, scalar) == numpy.result_type(zero_d, scalar)
    assert kiln.result_type(np_scalar, scalar) == numpy.result_type(np_scalar, scalar)
    for other in DTYPES:
        assert kiln.result_type(zero_d, other) == numpy.result_type(zero_d, other)


@pytest.mark.parametrize("args", [
    (numpy.float64(1.0), numpy.float32),      # numpy.float64 subclasses float but is strong
    (numpy.complex128(1j), numpy.float32),    # likewise complex
    (numpy.bool_(True), 1),
    (int, numpy.int8),                        # type objects are dtype specs
    (float, numpy.float16),
    ("f2", "i2", 1.0),
    (numpy.dtype("u8"), numpy.dtype("i8")),
], ids=repr)
def test_result_type_mixed_argument_kinds(args):
    assert kiln.result_type(*args) == numpy.result_type(*args)


def test_result_type_returns_numpy_dtype():
    assert type(kiln.result_type(numpy.int8, 1.0)) is type(numpy.dtype("float64"))


def test_result_type_needs_an_argument():
    with pytest.raises(ValueError, match="at least one array or dtype"):
        kiln.result_type()


@pytest.mark.parametrize("bad", [object, numpy.dtype("O"), "U5", numpy.dtype("S3")], ids=repr)
def test_non_numeric_dtypes_raise_value_error(bad):
    with pytest.raises(ValueError, match="Unsupported dtype .*: kiln arrays hold numbers only"):
        kiln.result_type(bad, numpy.int8)
    with pytest.raises(ValueError, match="Unsupported dtype .*: kiln arrays hold numbers only"):
        kiln.promote_types(bad, numpy.int8)
    with pytest.raises(ValueError, match="Unsupported dtype .*: kiln arrays hold numbers only"):
        kiln.can_cast(bad, numpy.int8)


def test_datetime_has_no_common_dtype_with_numbers():   # held as bytes (Note [Record dtypes]): no arithmetic
    with pytest.raises(TypeError):
        numpy.result_type(numpy.dtype("M8[s]"), numpy.int8)
    with pytest.raises(TypeError, match="no common dtype"):
        kiln.result_type(numpy.dtype("M8[s]"), numpy.int8)


def test_result_type_of_object_array_raises_value_error():
    with pytest.raises(ValueError, match="Unsupported dtype .*: kiln arrays hold numbers only"):
        kiln.result_type(numpy.array([None]), 1)


@pytest.mark.parametrize("casting", ["bad", "Safe", "", None, 1])
def test_can_cast_bad_casting_raises_value_error(casting):
    with pytest.raises(ValueError, match="casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe'"):
        kiln.can_cast(numpy.int8, numpy.int16, casting)


@pytest.mark.parametrize("scalar", PY_SCALARS, ids=repr)
def test_can_cast_refuses_python_scalars_like_numpy(scalar):
    with pytest.raises(TypeError):
        numpy.can_cast(scalar, numpy.float64)
    with pytest.raises(TypeError, match="Python ints, floats, and complex"):
        kiln.can_cast(scalar, numpy.float64)


MIN_SCALAR_VALUES = [0, 1, 255, 256, -1, -128, -129, 65535, 65536, -32769, 2**31, -2**31, -2**31 - 1,
                     2**32, 2**63 - 1, 2**63, 2**64 - 1, -2**63, True, False,
                     0.0, -0.0, 1.5, 64999.99, 65000.0, -65000.0, 65504.0, 3.3e38, 3.4e38, 1e300,
                     float("inf"), float("-inf"), float("nan"), 1e-300,
                     1 + 1j, 65504.0 + 0j, 3.4e38 + 0j, complex(0, 3.3e38), complex(float("inf"), 0),
                     complex(float("nan"), 0), 1e300j,
                     numpy.float32(3.0), numpy.int64(-5), numpy.uint16(300), numpy.complex128(2 + 0j)]


@pytest.mark.parametrize("value", MIN_SCALAR_VALUES, ids=repr)
def test_min_scalar_type_matches_numpy(value):
    assert kiln.min_scalar_type(value) == numpy.min_scalar_type(value)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_min_scalar_type_of_arrays(dtype):
    h = numpy.ones(3, dtype)
    assert kiln.min_scalar_type(kiln.asarray(h)) == numpy.min_scalar_type(h) == h.dtype
    h0 = numpy.asarray(h[0] * 3 if dtype is not numpy.bool_ else h[0])
    # A 0-d kiln array keeps its dtype, as in CuPy (its value would need a
    # device read); NumPy's 0-d arrays, and kiln's scalars, go by value.
    assert kiln.min_scalar_type(kiln.asarray(h0)) is kiln.asarray(h0).dtype
    assert kiln.min_scalar_type(h0) == numpy.min_scalar_type(h0) == kiln.min_scalar_type(h0[()])


def test_min_scalar_type_out_of_range():
    with pytest.raises(TypeError, match="range"):
        kiln.min_scalar_type(2**64)
    with pytest.raises(TypeError, match="range"):
        kiln.min_scalar_type(-2**63 - 1)


NUMERIC = [d for d in ALL_DTYPES if d is not numpy.bool_]


@pytest.mark.parametrize("b", NUMERIC, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("a", NUMERIC, ids=lambda d: numpy.dtype(d).name)
def test_common_type_matches_numpy(a, b):
    ha, hb = numpy.zeros(2, a), numpy.zeros(2, b)
    assert kiln.common_type(kiln.asarray(ha), kiln.asarray(hb)) is numpy.common_type(ha, hb)
    assert kiln.common_type(kiln.asarray(ha)) is numpy.common_type(ha)


def test_common_type_errors():
    assert kiln.common_type() is numpy.common_type()
    with pytest.raises(TypeError, match="non-numeric"):
        kiln.common_type(kiln.zeros(2, bool))
    with pytest.raises(TypeError, match="arrays"):
        kiln.common_type(3.0)
