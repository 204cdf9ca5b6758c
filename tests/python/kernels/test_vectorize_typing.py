"""kiln.vectorize's typing where numpy.vectorize's Python execution (and
CuPy's vectorize) differ from a kernel's rules (Note [Vectorize typing] in
transpiler/infer.h), and the transpiler's checks CuPy's vectorize shares:
conditional expressions of two types, compile-time values assigned in
branches, attributes of plain objects, complex casts."""
import warnings

import numpy
import pytest

import kiln
from kiln import jit


def test_shifts_of_bools_are_int8():
    a = numpy.array([True, True, False, False])
    b = numpy.array([True, False, True, False])
    r, l = kiln.vectorize(lambda x, y: (x >> y, x << y))(kiln.asarray(a), kiln.asarray(b))
    want_r, want_l = numpy.vectorize(lambda x, y: (x >> y, x << y))(a, b)
    assert r.dtype == want_r.dtype == numpy.int8 and l.dtype == want_l.dtype == numpy.int8
    assert kiln.asnumpy(r).tolist() == want_r.tolist() == [0, 1, 0, 0]
    assert kiln.asnumpy(l).tolist() == want_l.tolist() == [2, 1, 0, 0]


def running_sum(x):
    y = 0
    for i in range(x):
        y += i
    return y


def plus_loop_indices(x):
    for i in range(3):
        x += i
    return x


def test_range_gives_python_ints():
    # numpy.vectorize: range(numpy.uint64(n)) gives Python ints, so `y` is an int64.
    x = numpy.array([1, 2, 5, 10], dtype=numpy.uint64)
    got = kiln.vectorize(running_sum)(kiln.asarray(x))
    want = numpy.vectorize(running_sum)(x)
    assert got.dtype == want.dtype == numpy.int64
    assert kiln.asnumpy(got).tolist() == want.tolist() == [0, 1, 10, 45]
    # ... and a Python int added to a uint8 keeps uint8 (a weak loop variable, NEP 50).
    u = numpy.array([0, 250], dtype=numpy.uint8)
    got = kiln.vectorize(plus_loop_indices)(kiln.asarray(u))
    assert got.dtype == numpy.uint8 and kiln.asnumpy(got).tolist() == [3, 253]


def test_range_in_a_kernel_keeps_its_argument_type():
    @jit.rawkernel()
    def k(n, out):
        for i in range(n):
            out[0] = i
    out = kiln.zeros(1, dtype=kiln.int64)
    k((1,), (1,), (numpy.uint8(3), out))
    assert "unsigned char" in k.cached_code and kiln.asnumpy(out).tolist() == [2]


def test_half_floats_round_once():
    # 2048 + 1 is not a float16 (11 bits): rounded after every operation it
    # would give 0; carried in float32 it gives 1, as numpy.vectorize (Python floats) does.
    a = numpy.array([1.0, 0.5, 3.0], dtype=numpy.float16)
    b = numpy.array([2048.0, 4096.0, 1.0], dtype=numpy.float16)
    f = lambda x, y: (x + y) - y   # noqa: E731
    got = kiln.vectorize(f)(kiln.asarray(a), kiln.asarray(b))
    want = numpy.vectorize(f)(a, b)
    assert got.dtype == want.dtype == numpy.float16
    assert kiln.asnumpy(got).tolist() == want.tolist() == [1.0, 0.5, 3.0]
    # A cast to float16 rounds where it stands, as numpy.float16(v) does.
    g = lambda x, y: numpy.float16(x + y) - y   # noqa: E731
    got = kiln.vectorize(g)(kiln.asarray(a), kiln.asarray(b))
    assert kiln.asnumpy(got).tolist() == numpy.vectorize(g)(a, b).tolist() == [0.0, 0.0, 3.0]


def test_bfloat16_rounds_once():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = numpy.dtype(ml_dtypes.bfloat16)
    a = numpy.array([1.0, 3.0], dtype=bf16)
    b = numpy.array([256.0, 1.0], dtype=bf16)   # 257 is not a bfloat16 (8 bits)
    got = kiln.vectorize(lambda x, y: (x + y) - y)(kiln.asarray(a), kiln.asarray(b))
    assert got.dtype == bf16 and kiln.asnumpy(got).astype(numpy.float32).tolist() == [1.0, 3.0]


def test_complex_cast_warns_and_keeps_the_real_part():
    z = numpy.array([1.5 + 2j, 0j, -3 + 0.5j])
    to_float = kiln.vectorize(lambda v: numpy.float64(v))
    with pytest.warns(numpy.exceptions.ComplexWarning, match="discards the imaginary part") as record:
        got = to_float(kiln.asarray(z))
    assert record[0].filename == __file__   # attributed to the call
    assert got.dtype == numpy.float64 and kiln.asnumpy(got).tolist() == [1.5, 0.0, -3.0]
    with warnings.catch_warnings():   # as a test suite running with -W error has it
        warnings.simplefilter("error", numpy.exceptions.ComplexWarning)
        with pytest.raises(numpy.exceptions.ComplexWarning, match="numpy.float64"):
            kiln.vectorize(lambda v: numpy.float64(v))(kiln.asarray(z))
        # A bool is whether the number is nonzero: no warning (as NumPy).
        truth = kiln.vectorize(lambda v: numpy.bool_(v))(kiln.asarray(numpy.array([0j, 1j, 2 + 0j])))
    assert kiln.asnumpy(truth).tolist() == [False, True, True]


def test_complex_cast_warns_in_a_kernel_too():
    @jit.rawkernel()
    def real_parts(z, out):
        i = jit.grid(1)
        out[i] = kiln.float32(z[i])
    z = kiln.asarray(numpy.array([2 + 1j, -1j], dtype=numpy.complex64))
    out = kiln.zeros(2, dtype=kiln.float32)
    with pytest.warns(numpy.exceptions.ComplexWarning) as record:
        real_parts((1,), (2,), (z, out))
    assert record[0].filename == __file__
    assert kiln.asnumpy(out).tolist() == [2.0, 0.0]


def test_conditional_expression_of_two_types_is_a_type_error():
    a = kiln.asarray(numpy.array([0.5, -1.5], dtype=numpy.float32))
    relu = kiln.vectorize(lambda x: x if x > 0.0 else numpy.float64(0.0))
    with pytest.raises(TypeError, match=r"Type mismatch in conditional expression: float32 and float64"):
        relu(a)
    # A Python number takes the other value's type.
    got = kiln.vectorize(lambda x: x if x > 0.0 else 0.0)(a)
    assert got.dtype == numpy.float32 and kiln.asnumpy(got).tolist() == [0.5, 0.0]


DEBUG = True


def test_compile_time_local_assigned_in_a_branch_is_a_type_error():
    def in_branch(x):
        if x == 3:
            typecast = numpy.dtype("f").type   # noqa: F841
        return x

    with pytest.raises(TypeError, match=r"`typecast` is assigned .* inside an `if`, `while` or `for`"):
        kiln.vectorize(in_branch)(kiln.arange(5))

    def in_constant_branch(x):   # an `if` on a constant keeps its branch at the top level
        if DEBUG:
            typecast = numpy.dtype("f").type
        return typecast(x)

    got = kiln.vectorize(in_constant_branch)(kiln.arange(3))
    assert got.dtype == numpy.float32 and kiln.asnumpy(got).tolist() == [0.0, 1.0, 2.0]


class _Settings:
    def __init__(self, offset):
        self.offset = offset

    @property
    def fresh(self):   # a new object at every read
        return [self.offset]


def test_attribute_of_a_plain_object_is_read_when_compiled():
    const = _Settings(10)
    f = kiln.vectorize(lambda x: x + const.offset)
    x = kiln.arange(3)
    assert kiln.asnumpy(f(x)).tolist() == [10, 11, 12]
    const.offset = 20   # a captured value: the next call compiles again
    assert kiln.asnumpy(f(x)).tolist() == [20, 21, 22]
    with pytest.raises(TypeError, match="`const` is a _Settings object"):
        kiln.vectorize(lambda x: x + const.fresh)(x)


def test_tuple_local_then_number_names_the_mismatch():
    def pattern(x, y):
        z = x, y
        (a, b), z = z, x
        return a + b

    with pytest.raises(TypeError, match="Data type mismatch of variable: `z`"):
        kiln.vectorize(pattern)(kiln.arange(3), kiln.arange(3))
