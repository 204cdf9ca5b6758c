"""kiln.ElementwiseKernel against NumPy: the seeds' examples (outputs printed
as the seeds print them), placeholders, scalars, raw params, broadcasting and
layouts over every dtype, outputs given and allocated, CuPy's errors."""
import warnings

import numpy
import pytest

import kiln
from kiln._elementwise_kernel import ElementwiseKernel
from kiln.cuda.compiler import CompileException

from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name, random_array

# One kernel object per definition for the whole module: its plans and
# compiled modules are reused across tests, as in a real program.
add = ElementwiseKernel("T x, T y", "T z", "z = x + y", "add")
squared_diff = ElementwiseKernel("float32 x, float32 y", "float32 z",
                                 "z = (x - y) * (x - y)", "squared_diff")
squared_diff_generic = ElementwiseKernel("T x, T y", "T z", """
    T diff = x - y;
    z = diff * diff;
""", "squared_diff_generic")
squared_diff_super_generic = ElementwiseKernel("X x, Y y", "Z z", "z = (x - y) * (x - y)",
                                               "squared_diff_super_generic")
add_reverse = ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
                                "add_reverse")


def numpy_add(x, y):
    """NumPy's x + y, which C++'s `z = x + y` equals when stored to the dtype
    (bool: nonzero sum is True, NumPy's logical or; integers wrap)."""
    if x.dtype == numpy.bool_:
        return numpy.logical_or(x, y)
    with numpy.errstate(over="ignore"):     # 0-d operands are NumPy scalars, which warn
        return x + y


# --- the seeds' examples, printed output as the seeds show it ---------------

def test_seed_my_kernel():
    x = kiln.arange(6, dtype="f").reshape(2, 3)
    y = kiln.arange(3, dtype="f")
    kernel = ElementwiseKernel(
        "float32 x, float32 y",
        "float32 z",
        """if (x - 2 > y) { z = x * y; }
else { z = x + y; }""",
        "my_kernel")
    assert repr(kernel(x, y)) == ("array([[ 0.,  2.,  4.],\n"
                                  "       [ 0.,  4., 10.]], dtype=float32)")
    assert kernel.name == kernel.__name__ == "my_kernel"


def test_seed_squared_diff():
    x = kiln.arange(10, dtype=numpy.float32).reshape(2, 5)
    y = kiln.arange(5, dtype=numpy.float32)
    assert repr(squared_diff(x, y)) == ("array([[ 0.,  0.,  0.,  0.,  0.],\n"
                                        "       [25., 25., 25., 25., 25.]], dtype=float32)")
    assert repr(squared_diff(x, 5)) == ("array([[25., 16.,  9.,  4.,  1.],\n"
                                        "       [ 0.,  1.,  4.,  9., 16.]], dtype=float32)")
    z = kiln.empty((2, 5), dtype=numpy.float32)
    assert squared_diff(x, y, z) is z
    assert repr(z) == ("array([[ 0.,  0.,  0.,  0.,  0.],\n"
                       "       [25., 25., 25., 25., 25.]], dtype=float32)")


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.uint32, numpy.float64, numpy.complex64],
                         ids=name)
def test_seed_squared_diff_generic(rng, dtype):
    xh, yh = random_array(rng, (4, 5), dtype), random_array(rng, (5,), dtype)
    got = kiln.asnumpy(squared_diff_generic(kiln.asarray(xh), kiln.asarray(yh)))
    d = xh - yh
    if d.dtype.kind == "c":
        # A complex product's real part a*c - b*d may be computed with a fused
        # multiply-add (one rounding fewer than NumPy's): 1 ulp of |d|^2.
        numpy.testing.assert_allclose(got, d * d, rtol=0, atol=4 * numpy.finfo(numpy.float32).eps
                                      * float(numpy.max(numpy.abs(d)) ** 2))
    else:
        assert_same_bits(got, d * d)


def test_seed_squared_diff_super_generic(rng):
    xh = random_array(rng, (3, 4), numpy.float32)
    yh = random_array(rng, (4,), numpy.int32)
    z = kiln.empty((3, 4), dtype=numpy.float64)
    assert squared_diff_super_generic(kiln.asarray(xh), kiln.asarray(yh), z) is z
    # C++: float - int is float, the float square is stored to double.
    d = xh - yh.astype(numpy.float32)
    assert_same_bits(kiln.asnumpy(z), (d * d).astype(numpy.float64))
    with pytest.raises(TypeError, match="output type can't be determined.*Z.*'z'"):
        squared_diff_super_generic(kiln.asarray(xh), kiln.asarray(yh))


def test_seed_add_reverse(rng):
    xh, yh = random_array(rng, (7,), numpy.int32), random_array(rng, (7,), numpy.int32)
    got = add_reverse(kiln.asarray(xh), kiln.asarray(yh))
    assert_same_bits(kiln.asnumpy(got), xh + yh[::-1])


# --- every dtype and layout -------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_placeholder_over_dtypes_and_layouts(rng, dtype, layout):
    x, xh = make(rng, layout, dtype)
    y, yh = make(rng, layout, dtype)
    assert_same_bits(kiln.asnumpy(add(x, y)), numpy_add(xh, yh))
    # A row broadcast against every row, and an output given in the layout.
    rh = random_array(rng, xh.shape[-1:], dtype)
    out, _ = make(rng, layout, dtype)
    assert add(x, kiln.asarray(rh), out) is out
    assert_same_bits(kiln.asnumpy(out), numpy_add(xh, rh))


equal = ElementwiseKernel("T x, T y", "bool z", "z = x == y", "equal")


@pytest.mark.parametrize("layout", ["C", "strided", "0-d"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_typed_bool_output_over_dtypes(rng, dtype, layout):
    x, xh = make(rng, layout, dtype)
    yh = make(rng, layout, dtype)[1].copy()
    yh.reshape(-1)[::2] = xh.reshape(-1)[::2]     # half the elements equal
    y = kiln.asarray(yh)
    assert_same_bits(kiln.asnumpy(equal(x, y)), xh == yh)


def test_typed_params_of_different_dtypes(rng):
    k = ElementwiseKernel("float64 x, int16 n, uint8 b", "float64 z, int16 m",
                          "z = x * n + b; m = n / 3", "mixed_types")
    xh = random_array(rng, (4, 5), numpy.float64)
    nh = random_array(rng, (5,), numpy.int16)
    z, m = k(kiln.asarray(xh), kiln.asarray(nh), numpy.uint8(7))
    # x * n + b may be one fused multiply-add on a GPU: compare within 1 ulp.
    numpy.testing.assert_allclose(kiln.asnumpy(z), xh * nh + 7, rtol=2 ** -52, atol=0)
    assert_same_bits(kiln.asnumpy(m), numpy.broadcast_to((nh / 3).astype(numpy.int16), (4, 5)))


@pytest.mark.parametrize("layout", ["C", "F", "negative"])
def test_inputs_broadcast_against_a_given_output(rng, layout):
    out, _ = make(rng, layout, numpy.int64)
    xh = random_array(rng, (out.shape[0], 1), numpy.int64)
    add(kiln.asarray(xh), 3, out)
    assert_same_bits(kiln.asnumpy(out), numpy.broadcast_to(xh + 3, out.shape))


def test_output_is_read_as_well_as_written(rng):
    acc = ElementwiseKernel("T x", "T z", "z += x", "accumulate")
    zh = random_array(rng, (5, 6), numpy.float64)
    xh = random_array(rng, (6,), numpy.float64)
    z = kiln.asarray(zh)
    acc(kiln.asarray(xh), z)
    assert_same_bits(kiln.asnumpy(z), zh + xh)


def test_element_index_and_count_follow_c_order(rng):
    where = ElementwiseKernel("T x", "int64 z", "z = i * 1000 + _ind.size()", "where")
    for layout in ["C", "F", "strided", "negative"]:
        x, xh = make(rng, layout, numpy.float32)
        got = kiln.asnumpy(where(x))
        expected = numpy.arange(xh.size).reshape(xh.shape) * 1000 + xh.size
        assert_same_bits(got, expected)


# --- scalars ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_python_scalar_takes_the_array_dtype(rng, dtype):
    x, xh = make(rng, "C", dtype)
    value = {"b": True, "i": 7, "u": 7, "f": 2.5, "c": 1.5 - 2j}[numpy.dtype(dtype).kind]
    expected = numpy_add(xh, numpy.dtype(dtype).type(value))
    assert_same_bits(kiln.asnumpy(add(x, value)), expected)
    assert_same_bits(kiln.asnumpy(add(value, x)), expected)


def test_numpy_scalars_are_cast_to_the_param_type(rng):
    x, xh = make(rng, "C", numpy.float32)
    for value in [numpy.float64(2.75), numpy.int64(3), numpy.float32(0.5), numpy.bool_(True)]:
        got = squared_diff(x, value)
        d = xh - value.astype(numpy.float32)
        assert_same_bits(kiln.asnumpy(got), d * d)
        got = squared_diff_generic(x, value)
        assert_same_bits(kiln.asnumpy(got), d * d)


def test_scalars_alone_decide_a_placeholder():
    fill = ElementwiseKernel("T v, raw int8 unused", "T z", "z = v", "fill")
    r = kiln.zeros(1, dtype=numpy.int8)
    for value, dtype in [(2.5, numpy.float64), (7, numpy.int64), (True, numpy.bool_),
                         (1 - 1j, numpy.complex128), (numpy.float16(1.5), numpy.float16),
                         (numpy.uint8(200), numpy.uint8)]:
        got = kiln.asnumpy(fill(value, r, size=3))
        assert_same_bits(got, numpy.full(3, value, dtype=dtype))
    mixed = ElementwiseKernel("T a, T b, raw int8 unused", "T z", "z = a + b", "mixed")
    assert_same_bits(kiln.asnumpy(mixed(1, numpy.float32(0.5), r, size=2)),
                     numpy.full(2, 1.5, numpy.float64))   # result_type(int64, float32)


def test_output_decides_a_placeholder_before_inputs():
    z = kiln.empty(4, dtype=numpy.float32)
    assert squared_diff_generic(3, 1.5, z) is z
    assert_same_bits(kiln.asnumpy(z), numpy.full(4, 2.25, numpy.float32))
    with pytest.raises(TypeError, match="type mismatch.*'x' is float64.*T is already float32"):
        squared_diff_generic(kiln.zeros(4), 1, z)


def test_scalar_conversions_are_numpys():
    x = kiln.zeros(3, dtype=numpy.int8)
    with pytest.raises(OverflowError):
        add(x, 300)
    with pytest.raises(TypeError):
        squared_diff(kiln.zeros(3, dtype=numpy.float32), 1j)   # NumPy: complex to float32


# --- raw parameters and size= -----------------------------------------------

@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative", "0-d"])
def test_raw_indexing_is_flat_c_order(rng, layout):
    y, yh = make(rng, layout, numpy.float64)
    xh = random_array(rng, (yh.size,), numpy.float64)
    got = add_reverse(kiln.asarray(xh), y)
    assert_same_bits(kiln.asnumpy(got), xh + yh.reshape(-1)[::-1])


def test_only_raw_arrays_take_size(rng):
    reverse = ElementwiseKernel("raw T x", "raw T y", "y[i] = x[x.size() - 1 - i]", "reverse")
    xh = random_array(rng, (9,), numpy.uint16)
    y = kiln.zeros(9, dtype=numpy.uint16)
    assert reverse(kiln.asarray(xh), y, size=9) is y
    assert_same_bits(kiln.asnumpy(y), xh[::-1])
    for args in [(kiln.asarray(xh),), (kiln.asarray(xh), y)]:
        with pytest.raises(ValueError, match="loop size is undecided"):
            reverse(*args)
    raw_out = ElementwiseKernel("T x", "raw T y", "y[i] = x", "raw_out")
    with pytest.raises(ValueError, match="size of raw output 'y' is undecided"):
        raw_out(kiln.asarray(xh))
    doubled = ElementwiseKernel("raw T x", "T y", "y = x[i] * 2", "doubled")
    got = doubled(kiln.asarray(xh), size=4)     # output allocated with shape (size,)
    assert_same_bits(kiln.asnumpy(got), xh[:4] * 2)
    with pytest.raises(ValueError, match=r"^Specified 'size' can be given only when every array argument is raw "
                                         r"\(squared_diff: size= can be given only"):
        squared_diff(kiln.zeros(3, dtype=numpy.float32), 1, size=3)


def test_raw_params_need_arrays():
    with pytest.raises(TypeError, match="raw parameter 'y' takes a kiln.ndarray"):
        add_reverse(kiln.zeros(3, dtype=numpy.int32), 5)


# --- several outputs, return forms, preamble, loop_prep, stream -------------

def test_several_outputs_and_return_forms(rng):
    src = ("T x", "T s, T d", "s = x + x; d = x - 1")
    xh = random_array(rng, (4, 3), numpy.int32)
    s, d = ElementwiseKernel(*src, name="sum_diff")(kiln.asarray(xh))
    assert_same_bits(kiln.asnumpy(s), xh + xh)
    assert_same_bits(kiln.asnumpy(d), xh - 1)
    assert ElementwiseKernel(*src, name="none", no_return=True)(kiln.asarray(xh)) is None
    (z,) = ElementwiseKernel("T x", "T z", "z = x", "one", return_tuple=True)(kiln.asarray(xh))
    assert_same_bits(kiln.asnumpy(z), xh)


def test_preamble_loop_prep_and_after_loop(rng):
    k = ElementwiseKernel(
        "T x", "T z, raw int32 flag", "z = twice(x) + offset",
        "with_fragments",
        preamble="template <class V> __device__ V twice(V v) { return v + v; }",
        loop_prep="const T offset = 7;",        # placeholders are typedefs after the preamble
        after_loop="if (threadIdx.x == 0 && blockIdx.x == 0) flag[0] = 42;")
    xh = random_array(rng, (5, 4), numpy.int64)
    z, flag = kiln.empty((5, 4), dtype=numpy.int64), kiln.zeros(1, dtype=numpy.int32)
    k(kiln.asarray(xh), z, flag)
    assert_same_bits(kiln.asnumpy(z), xh + xh + 7)
    assert kiln.asnumpy(flag).tolist() == [42]


def test_stream_argument(rng):
    xh = random_array(rng, (100,), numpy.float32)
    s = kiln.cuda.Stream(non_blocking=True)
    got = add(kiln.asarray(xh), 1.0, stream=s)
    s.synchronize()
    assert_same_bits(kiln.asnumpy(got), xh + numpy.float32(1))
    assert kiln.cuda.get_current_stream() == kiln.cuda.Stream.null


def test_attributes():
    k = ElementwiseKernel("T x, raw float32 y", "int16 z", "z = x", "attrs")
    assert (k.nin, k.nout, k.nargs) == (2, 1, 3)
    assert [(p.name, p.dtype, p.ctype, p.raw, p.is_const) for p in k.params] == [
        ("x", None, "T", False, True), ("y", numpy.float32, "float", True, True),
        ("z", numpy.int16, "short", False, False)]
    assert k.in_params == k.params[:2] and k.out_params == k.params[2:]
    assert k.operation == "z = x" and k.reduce_dims


# --- errors -----------------------------------------------------------------

def test_call_errors():
    x = kiln.zeros(3, dtype=numpy.float32)
    with pytest.raises(TypeError, match="Wrong number of arguments for 'squared_diff': it takes 2 "
                                        r"\(inputs\) or 3 \(with outputs\), got 1"):
        squared_diff(x)
    with pytest.raises(TypeError, match="NumPy array.*kiln.asarray"):
        squared_diff(x, numpy.zeros(3, numpy.float32))
    with pytest.raises(TypeError, match="NumPy array.*kiln.asarray"):
        squared_diff(x, x, numpy.zeros(3, numpy.float32))
    with pytest.raises(TypeError, match="unsupported type list"):
        squared_diff(x, [1, 2, 3])
    with pytest.raises(TypeError, match="output argument 2 must be a kiln.ndarray, got float"):
        squared_diff(x, x, 1.0)
    with pytest.raises(TypeError, match="type mismatch: input 'y' is float64, but the parameter is "
                                        "float32"):
        squared_diff(x, kiln.zeros(3))
    with pytest.raises(TypeError, match="type mismatch: output 'z' is float64"):
        squared_diff(x, x, kiln.zeros(3))
    with pytest.raises(TypeError, match="type mismatch: input 'y' is int32, but placeholder T is "
                                        "already float32"):
        add(x, kiln.zeros(3, dtype=numpy.int32))
    for _ in range(2):     # also once the broadcast of (2, 3) with (3,) is remembered
        assert squared_diff(kiln.zeros((2, 3), dtype=numpy.float32), x).shape == (2, 3)
        with pytest.raises(ValueError, match=r"output 'z' has shape \(3,\); the arguments "
                                             r"broadcast to \(2, 3\)"):
            squared_diff(kiln.zeros((2, 3), dtype=numpy.float32), x, x)
    with pytest.raises(ValueError, match="shape mismatch"):
        squared_diff(x, kiln.zeros(4, dtype=numpy.float32))
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        squared_diff(x, x, axis=0)
    with pytest.raises(ValueError, match="block_size must be greater than zero"):
        squared_diff(x, x, block_size=0)
    with pytest.raises(TypeError, match="longdouble|float128"):
        add(x, numpy.longdouble(1))


@pytest.mark.parametrize("args, error, message", [
    (("float32 x", "float32 y", "y = x", "1bad"), ValueError, "Invalid kernel name"),
    (("float32 x y", "float32 z", "z = x"), ValueError, "syntax error in parameter 'float32 x y'"),
    (("float32", "float32 z", "z = 1"), ValueError, "syntax error in parameter 'float32'"),
    (("float32 i", "float32 z", "z = i"), ValueError, "'i' is reserved"),
    (("float32 _x", "float32 z", "z = _x"), ValueError, "'_x' is reserved"),
    (("float32 x", "float32 x", "x = 1"), ValueError, "'x' is used twice"),
    (("flot32 x", "float32 z", "z = x"), TypeError, "unknown type 'flot32'"),
    (("float32 x", "float128 z", "z = x"), TypeError, "does not support"),
    (("float32 2x", "float32 z", "z = 1"), ValueError, "not a C\\+\\+ identifier"),
    (("float32 x", "1 z", "z = x"), ValueError, "placeholder '1'"),
])
def test_definition_errors(args, error, message):
    with pytest.raises(error, match=message):
        ElementwiseKernel(*args)


def test_compile_error_points_at_the_users_line():
    bad = ElementwiseKernel("T x", "T z", "z = x;\nz = undefined_name + 1;", "bad")
    with pytest.raises(CompileException) as info:
        bad(kiln.zeros(3))
    text = str(info.value)
    assert "<ElementwiseKernel bad operation>" in text
    assert any(mark in text for mark in ["operation>:2:", "operation>(2)"]), text
    assert "undefined_name" in text


# --- caching ------------------------------------------------------------------

def test_plans_and_specs_are_cached(rng):
    k = ElementwiseKernel("T x, T y", "T z", "z = x * y", "cached")
    x = kiln.zeros(4, dtype=numpy.float32)
    k(x, 2)
    compiles = kiln._core._cache_stats()["compiles"]
    k(x, 2.5)            # a new plan (float scalar), the same float32 spec and module
    k(x, numpy.int8(1))
    k(x, x)
    k(x[:2], 2)
    assert k._spec_count == 1
    assert kiln._core._cache_stats()["compiles"] - compiles <= 1   # x, x: array-array module
    k(kiln.zeros(4), 2)
    assert k._spec_count == 2


def test_empty_broadcast_launches_nothing():
    z = squared_diff(kiln.zeros((0, 3), dtype=numpy.float32), 1)
    assert z.shape == (0, 3) and z.dtype == numpy.float32


# --- warm calls (the C++ call path: Note [ElementwiseKernel warm calls]) ------

def test_plans_alternate_over_dtypes_shapes_and_scalars(rng):
    k = ElementwiseKernel("T x, T y", "T z", "z = x - y", "alternate")
    cases = []
    for dtype in [numpy.float32, numpy.int16, numpy.complex128]:
        for shape in [(4,), (2, 3), ()]:
            xh, yh = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
            cases.append(((kiln.asarray(xh), kiln.asarray(yh)), xh - yh))
        xh = random_array(rng, (5,), dtype)
        cases.append(((kiln.asarray(xh), 3), xh - dtype(3)))
        cases.append(((True, kiln.asarray(xh)), dtype(True) - xh))
    for _ in range(3):          # each combination in turn, then again from its plan
        for args, expected in cases:
            assert_same_bits(kiln.asnumpy(k(*args)), expected)
    # One plan per kinds: (array, array), (array, int), (bool, array) per dtype.
    assert k._plan_count == 9 and k._spec_count == 3


def test_warm_call_broadcasts_when_shapes_differ(rng):
    k = ElementwiseKernel("T x, T y", "T z", "z = x - y", "broadcast_sub")
    k(kiln.zeros(3), kiln.zeros(3))
    for xs, ys in [((2, 3), (3,)), ((4, 1), (1, 5)), ((3,), (2, 1, 3)), ((), (3,)),
                   ((2, 1), ()), ((0, 3), (3,))]:
        xh, yh = random_array(rng, xs, numpy.float64), random_array(rng, ys, numpy.float64)
        for _ in range(2):
            assert_same_bits(kiln.asnumpy(k(kiln.asarray(xh), kiln.asarray(yh))), xh - yh)
        out = kiln.empty(numpy.broadcast_shapes(xs, ys), dtype=numpy.float64)
        assert k(kiln.asarray(xh), kiln.asarray(yh), out) is out
        assert_same_bits(kiln.asnumpy(out), xh - yh)
    assert k._plan_count == 2   # inputs alone, inputs and output: shapes are not in the key


def test_warm_call_errors():
    x, y = kiln.zeros(3, dtype=numpy.float32), kiln.zeros((2, 3), dtype=numpy.float32)
    k = ElementwiseKernel("T x, T y", "T z", "z = x - y", "warm_errors")
    k(x, x)
    k(x, 1)
    for _ in range(2):      # the plans are there: these fail in the C++ call
        with pytest.raises(ValueError, match="warm_errors: size= can be given only when every "
                                             "array argument is raw"):
            k(x, x, size=3)
        for bad in [0, -1]:
            with pytest.raises(ValueError, match="^block_size must be greater than zero$"):
                k(x, x, block_size=bad)
        with pytest.raises(TypeError, match=r"__call__\(\) got an unexpected keyword argument 'axis'"):
            k(x, x, axis=0)
        with pytest.raises(ValueError, match=r"^shape mismatch: objects cannot be broadcast to a single "
                                             r"shape.  Mismatch is between arg 0 with shape \(3,\) and "
                                             r"arg 1 with shape \(4,\).$"):
            k(x, 1, kiln.zeros(4, dtype=numpy.float32))
        with pytest.raises(ValueError, match=r"^Out shape is mismatched. warm_errors: output 'z' has shape "
                                             r"\(3,\); the arguments broadcast to \(2, 3\)$"):   # CuPy's words first
            k(y, x, x)
        with pytest.raises(TypeError, match="stream must be a kiln.cuda.Stream"):
            k(x, x, stream=5)
        with pytest.raises(OverflowError):
            k(kiln.zeros(3, dtype=numpy.int8), 300)
        k(kiln.zeros(3, dtype=numpy.int8), 3)
    assert kiln.asnumpy(k(x, x, block_size=128)).tolist() == [0, 0, 0]
    reverse = ElementwiseKernel("raw T x", "raw T y", "y[i] = x[x.size() - 1 - i]", "warm_reverse")
    y = kiln.zeros(3, dtype=numpy.float32)
    reverse(kiln.arange(3, dtype=numpy.float32), y, size=3)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"^Loop size is undecided\. warm_reverse: loop size is undecided"):
            reverse(x, y)
        with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
            reverse(x, y, size=2.0)
    raw_out = ElementwiseKernel("T x", "raw T y", "y[i] = x", "warm_raw_out")
    for _ in range(2):
        with pytest.raises(ValueError, match="size of raw output 'y' is undecided"):
            raw_out(x)


def test_return_forms_on_warm_calls(rng):
    xh = random_array(rng, (4,), numpy.int64)
    x = kiln.asarray(xh)
    both = ElementwiseKernel("T x", "T s, T d", "s = x + x; d = x - 1", "warm_both")
    none = ElementwiseKernel("T x", "T z", "z = x", "warm_none", no_return=True)
    one = ElementwiseKernel("T x", "T z", "z = x", "warm_one", return_tuple=True)
    for _ in range(3):
        s, d = both(x)
        assert_same_bits(kiln.asnumpy(s), xh + xh)
        assert_same_bits(kiln.asnumpy(d), xh - 1)
        s2, d2 = kiln.empty(4, dtype=numpy.int64), kiln.empty(4, dtype=numpy.int64)
        got = both(x, s2, d2)
        assert type(got) is tuple and got[0] is s2 and got[1] is d2
        assert none(x) is None
        (z,) = one(x)
        assert_same_bits(kiln.asnumpy(z), xh)


# Python scalars whose conversion the warm call does itself, and values next
# to every edge where it leaves the conversion to NumPy (ranges, float16,
# float32 overflow warnings, 2**53, complex to real).
_SCALAR_VALUES = [False, True, 0, 1, -1, 127, 128, -129, 255, 256, 65535, 65536, 2 ** 31 - 1,
                  2 ** 31, -2 ** 31 - 1, 2 ** 32, 2 ** 53, 2 ** 53 + 1, -2 ** 53 - 1, 2 ** 63 - 1,
                  -2 ** 63, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 0.5, -2.5, 1e-50, 3.4e38, 3.5e38, 1e300,
                  -1e300, float("inf"), float("-inf"), float("nan"), 65504.0, 65520.0, 1.5 - 2j,
                  1e300j, complex(float("nan"), 1)]


def _outcome(f):
    """f()'s value, or the type of what it raised (warnings raise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return f()
        except Exception as e:      # noqa: BLE001 (the type is the outcome)
            return type(e)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_python_scalar_conversions_are_numpys(dtype):
    """A Python scalar argument arrives as NumPy's dtype(value), bit for bit
    (NaN payloads too: the kernel only copies it, no arithmetic on a GPU
    canonicalises it), with NumPy's errors and warnings."""
    copy_y = ElementwiseKernel("T x, T y", "T z", "z = y", "copy_y")
    x = kiln.zeros(1, dtype=dtype)
    copy_y(x, 0)
    for value in _SCALAR_VALUES:
        expected = _outcome(lambda: numpy.array([dtype(value)], dtype))
        got = _outcome(lambda: kiln.asnumpy(copy_y(x, value)))
        if isinstance(expected, type):
            assert got is expected, (value, got)
        else:
            assert_same_bits(got, expected)


def test_input_overlapping_an_output_is_read_first():
    # As CuPy's _copy_in_args_if_needed: an input sharing memory with an
    # output (other than as the very same view) is copied before the launch.
    k = ElementwiseKernel("T x, T y", "T z", "z = x + y", "overlap_add")
    n = numpy.arange(12.0)
    a = kiln.asarray(n)
    k(a[:-1], a[1:], a[1:])
    n[1:] = n[:-1] + n[1:]
    assert a.get().tolist() == n.tolist()
    b = kiln.arange(6.0).reshape(2, 3)
    k(b[:1], 1.0, b)                            # a broadcast row at the output's own offset
    assert b.get().tolist() == [[1.0, 2.0, 3.0]] * 2
    raw = ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "overlap_reverse")
    c = kiln.arange(5.0)
    raw(c[1:], c[:4])
    assert c.get().tolist() == [4.0, 3.0, 2.0, 1.0, 4.0]
    same = kiln.arange(4.0)
    k(same, same, same)                         # the very same view: in place, no copy needed
    assert same.get().tolist() == [0.0, 2.0, 4.0, 6.0]


@pytest.mark.parametrize("layout", ["C", "F", "negative"])
def test_raw_params_have_cupys_carray_spelling(layout):
    """A raw param reads as CuPy's CArray: x.shape()[d], x.strides()[d] (bytes)
    and x[idx] with one index per axis, over any layout."""
    base = numpy.arange(24, dtype=numpy.int32).reshape(2, 3, 4)
    h, x = {"C": (base, kiln.asarray(base)),
            "F": (numpy.asfortranarray(base), kiln.asarray(numpy.asfortranarray(base))),
            "negative": (base[::-1, :, ::-1], kiln.asarray(base)[::-1, :, ::-1])}[layout]
    assert x.strides == h.strides
    shape = ElementwiseKernel("raw int32 x", "int64 y", "y = x.shape()[i]", "carray_shape")(x, size=3)
    assert shape.get().tolist() == [2, 3, 4]
    strides = ElementwiseKernel("raw int32 x", "int64 y", "y = x.strides()[i]", "carray_strides")(x, size=3)
    assert strides.get().tolist() == list(x.strides)
    by_index = ElementwiseKernel("raw T x", "int32 y", "ptrdiff_t idx[] = {i / 12, i / 4 % 3, i % 4}; y = x[idx]",
                                 "carray_index")(x, kiln.empty((2, 3, 4), numpy.int32))
    numpy.testing.assert_array_equal(by_index.get(), h)
