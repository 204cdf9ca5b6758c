"""kiln.jit statements and expressions: each kernel here uses only Python, so
the very same function also runs in Python on NumPy arrays and the results
must agree (NumPy scalars follow the NEP 50 rules kernels do)."""
import numpy
import pytest

import kiln
from kiln import jit


def control(x, out, n, step):
    k = 0
    # tuple unpacking and swapping
    a, b = 3, 4
    a, b = b, a
    out[k] = a * 10 + b
    k += 1
    # if / elif / else
    for i in range(n):
        if x[i] < 0.25:
            out[k] = 1
        elif x[i] < 0.5:
            out[k] = 2
        elif not x[i] < 0.75:
            out[k] = 4
        else:
            out[k] = 3
        k += 1
    # while with break and continue
    i = 0
    total = 0.0
    while True:
        i += 1
        if i > 20:
            break
        if i % 3 == 0:
            continue
        total += x[i % n]
    out[k] = total
    k += 1
    # range(start, stop), range(start, stop, step) with a negative and a run-time step
    s = 0
    for j in range(2, n):
        s += j
    for j in range(n, 0, -2):
        s += 10 * j
    for j in range(1, 40, step):
        s += 100 * j
    for j in range(40, 1, -step):
        s -= j
    out[k] = s
    k += 1
    # the loop variable keeps its last value, as in Python
    last = -1
    for j in range(5):
        last = j
    out[k] = last * 1000 + j
    k += 1
    # chained comparisons, conditional expressions, and/or/not
    c = 0
    for j in range(n):
        if 0.2 < x[j] <= 0.8:
            c += 1
        c += 10 if x[j] > 0.5 and j % 2 == 0 else 0
        c += 100 if x[j] < 0.1 or not j < n - 1 else 0
    out[k] = c
    k += 1
    v = x[0] or 7.5
    w = x[1] and 0.0
    out[k] = v + w
    k += 1
    # nested loops, augmented assignment with every operator
    acc = 1
    for p in range(1, 4):
        for q in range(p):
            acc *= 3
            acc -= q
            acc += p
    acc //= 2
    acc %= 1000
    acc **= 2
    acc <<= 1
    acc >>= 1
    acc |= 5
    acc &= 0xFFF
    acc ^= 3
    out[k] = acc
    k += 1
    pass
    out[k] = k


jit_control = jit.rawkernel()(control)


@pytest.mark.parametrize("step", [3, 7])
def test_control_flow_matches_python(rng, step):
    n = 9
    x = rng.random(n)
    expected = numpy.zeros(40)
    control(x, expected, n, step)
    out = kiln.zeros(40, dtype=kiln.float64)
    jit_control[1, 1](kiln.asarray(x), out, n, step)
    numpy.testing.assert_allclose(kiln.asnumpy(out), expected, rtol=1e-15)


def arith(a, b, out, n):
    i = 0
    while i < n:
        x = a[i]
        y = b[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x / y
        out[4, i] = x // y
        out[5, i] = x % y
        out[6, i] = x ** 2
        out[7, i] = -x
        out[8, i] = abs(x)
        out[9, i] = min(x, y)
        out[10, i] = max(x, y, 0)
        out[11, i] = x < y
        out[12, i] = x == y
        out[13, i] = x >= y
        out[14, i] = x * 2 + 1       # weak literals keep x's type
        out[15, i] = x / 4
        i += 1


jit_arith = jit.rawkernel()(arith)


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64, numpy.float32, numpy.float64])
def test_arithmetic_matches_python_on_numpy_scalars(rng, dtype):
    n = 64
    if numpy.dtype(dtype).kind == "i":
        a = rng.integers(-50, 50, n).astype(dtype)
        b = rng.integers(1, 9, n).astype(dtype) * rng.choice([-1, 1], n).astype(dtype)
    else:
        a = (rng.random(n) * 20 - 10).astype(dtype)
        b = (rng.random(n) * 4 + 0.5).astype(dtype) * rng.choice([-1, 1], n).astype(dtype)
    expected = numpy.zeros((16, n))
    with numpy.errstate(all="ignore"):
        arith(a, b, expected, n)
    out = kiln.zeros((16, n), dtype=kiln.float64)
    jit_arith[1, 1](kiln.asarray(a), kiln.asarray(b), out, n)
    got = kiln.asnumpy(out)
    # float32 results pass through float32 as in NumPy; the power and the
    # division are the only rounded operations (CUDA's powf/division are
    # within 2 ulp of the correctly rounded result)
    rtol = {numpy.float32: 3e-7, numpy.float64: 1e-15}.get(dtype, 0)
    numpy.testing.assert_allclose(got, expected, rtol=rtol, atol=0)


def casts(x, out):
    v = x[0]
    out[0] = int(v)
    out[1] = float(v)
    out[2] = bool(v)
    out[3] = kiln.float32(v * 0.1)
    out[4] = kiln.int8(300)          # NumPy's wrap-around cast
    out[5] = kiln.uint8(v)
    out[6] = round(v)
    out[7] = round(2.5)              # half to even
    out[8] = v * 0.1                 # float32 arithmetic (weak 0.1)
    c = 1 + 2j
    out[9] = (c * c).imag
    out[10] = abs(3 + 4j) + complex(v, 2.0).imag
    s = 0
    for i in range(3):
        s += x[i]                    # s = 0 then float32 values: s is float32
    out[11] = s / 3


jit_casts = jit.rawkernel()(casts)


def test_casts_and_weak_literals():
    x = numpy.array([7.7, 2.25, -1.5], dtype=numpy.float32)
    out = kiln.zeros(12, dtype=kiln.float64)
    jit_casts[1, 1](kiln.asarray(x), out)
    got = kiln.asnumpy(out)
    v = x[0]
    expected = [7, float(v), 1, numpy.float32(v * numpy.float32(0.1)), numpy.int8(44), 7, 8, 2,
                numpy.float32(v) * numpy.float32(0.1), 4.0, 7.0, (x[0] + x[1] + x[2]) / numpy.float32(3)]
    numpy.testing.assert_array_equal(got, numpy.array(expected, dtype=numpy.float64))
    src = jit_casts.inspect_source(kiln.asarray(x), out)
    assert "(v_ * 0.100000001f)" in src      # the weak 0.1 next to float32 is a float literal


def add3(a, b, c):
    return add2(a, b) + c


def add2(a, b):
    return a + b


def polar(r, t):
    return r * 2, t + 1


@jit.rawkernel(device=True)
def scaled(v, s):
    if v < 0:
        return -v * s
    return v * s


@jit.rawkernel()
def calls(x, out, n):
    i = jit.grid(1)
    if i < n:
        a, b = polar(x[i], i)
        out[0, i] = add3(x[i], 1.5, i)
        out[1, i] = a + b
        out[2, i] = scaled(x[i] - 0.5, 3.0)
        out[3, i] = scaled(i, 2)          # a second instance: int arguments


def test_device_functions_call_device_functions(rng):
    n = 50
    x = rng.random(n)
    out = kiln.zeros((4, n), dtype=kiln.float64)
    calls[2, 32](kiln.asarray(x), out, n)
    idx = numpy.arange(n)
    expected = numpy.stack([x + 1.5 + idx, x * 2 + idx + 1, numpy.abs(x - 0.5) * 3, idx * 2])
    numpy.testing.assert_allclose(kiln.asnumpy(out), expected, rtol=1e-15)
    src = calls.cached_code
    assert "__device__ double kiln_dev_add2_" in src and "__device__ double kiln_dev_scaled_" in src


@jit.rawkernel()
def arrays(a, b, out):
    i, j = jit.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * b[()] + a.size + a.ndim * 100 + len(a) * 1000


def test_array_attributes_2d_and_0d(rng):
    a = rng.random((5, 7))
    out = kiln.zeros((5, 7), dtype=kiln.float64)
    b = kiln.asarray(numpy.float64(2.5))   # a 0-d array
    arrays[(1, 1), (8, 8)](kiln.asarray(a), b, out)
    numpy.testing.assert_allclose(kiln.asnumpy(out), a * 2.5 + 35 + 200 + 5000, rtol=1e-15)
    # a transposed (non-contiguous) view reads through its strides
    at = kiln.asarray(a.T.copy()).T
    out2 = kiln.zeros((5, 7), dtype=kiln.float64)
    arrays[(1, 1), (8, 8)](at, b, out2)
    numpy.testing.assert_allclose(kiln.asnumpy(out2), a * 2.5 + 35 + 200 + 5000, rtol=1e-15)


@jit.rawkernel()
def strides_of(a, out):
    st = a.strides
    out[0] = st[0]
    out[1] = a.strides[1]
    out[2] = a.shape[0] * 1000 + a.shape[1]


@pytest.mark.parametrize("layout", ["C", "F", "negative"])
def test_array_strides(layout):
    base = numpy.zeros((6, 10), dtype=numpy.float32)
    a = {"C": base, "F": numpy.asfortranarray(base), "negative": base[::-2, ::-1]}[layout]
    out = kiln.zeros(3, dtype=kiln.int64)
    ka = kiln.asarray(base)
    ka = {"C": ka, "F": kiln.asfortranarray(ka), "negative": ka[::-2, ::-1]}[layout]
    assert ka.strides == a.strides
    strides_of[1, 1](ka, out)
    assert kiln.asnumpy(out).tolist() == [a.strides[0], a.strides[1], a.shape[0] * 1000 + a.shape[1]]


def mixed(a, b, out, n):
    i = 0
    while i < n:
        x = a[i]
        y = b[i]
        out[0, i] = x + y
        out[1, i] = x * y - 1
        out[2, i] = x / y
        out[3, i] = x == y
        out[4, i] = abs(x)
        out[5, i] = x * 2.5
        out[6, i] = y ** 2
        i += 1


jit_mixed = jit.rawkernel()(mixed)


@jit.rawkernel()
def complex_powers(a, b, out, n):
    i = jit.grid(1)
    if i < n:
        x = a[i]
        out[0, i] = x ** b[i]
        out[1, i] = x ** 3
        out[2, i] = x ** 0.5
        out[3, i] = x ** -2
        out[4, i] = x ** (1 + 1j)
        y = x
        y **= 0
        out[5, i] = y


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
def test_complex_power_is_numpys(rng, dtype):
    n = 64
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    a[:4] = [0, 0, 1j, -2]       # NumPy's special cases: 0 ** b, a pure imaginary and a negative real base
    b[:4] = [2 + 1j, -1, 2, 0.5]
    out = kiln.zeros((6, n), dtype=dtype)
    complex_powers[1, n](kiln.asarray(a), kiln.asarray(b), out, n)
    with numpy.errstate(all="ignore"):
        want = numpy.stack([a ** b, a ** 3, a ** dtype(0.5), a ** dtype(-2), a ** dtype(1 + 1j),
                            numpy.ones(n, dtype)])
    # kiln.power's complex loop: the same formulas as NumPy's, each libm
    # call correctly rounded only to an ulp or two
    tol = 2e-6 if dtype == numpy.complex64 else 1e-14
    numpy.testing.assert_allclose(kiln.asnumpy(out), want, rtol=tol, atol=0)


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint8, numpy.int16, numpy.uint16, numpy.uint32,
                                   numpy.uint64, numpy.float16, numpy.complex64, numpy.complex128])
def test_every_dtype_matches_python_on_numpy_scalars(rng, dtype):
    n = 16
    kind = numpy.dtype(dtype).kind
    if kind in "iu":
        a, b = rng.integers(1, 20, n).astype(dtype), rng.integers(1, 20, n).astype(dtype)
    elif kind == "b":
        a, b = rng.integers(0, 2, n).astype(dtype), numpy.ones(n, dtype)
    elif kind == "c":
        a, b = (rng.random(n) + 1j * rng.random(n)).astype(dtype), (rng.random(n) + 0.5 - 1j).astype(dtype)
    else:
        a, b = rng.random(n).astype(dtype), (rng.random(n) + 0.5).astype(dtype)
    out_dtype = numpy.complex128 if kind == "c" else numpy.float64
    expected = numpy.zeros((7, n), out_dtype)
    with numpy.errstate(all="ignore"):
        mixed(a, b, expected, n)
    out = kiln.zeros((7, n), dtype=out_dtype)
    jit_mixed[1, 1](kiln.asarray(a), kiln.asarray(b), out, n)
    # float16 arithmetic rounds each result to float16 (as NumPy's scalars
    # do). The GPU compiler may contract a complex product's a*b - c*d into
    # an FMA (the host compiler does not): a few ulps of the O(1) products,
    # absolute where x * y - 1 cancels; complex64 division differs from
    # NumPy's in the last bits.
    tol = {numpy.float16: 0, numpy.complex64: 1e-6, numpy.complex128: 2e-15}.get(dtype, 0)
    numpy.testing.assert_allclose(kiln.asnumpy(out), expected, rtol=tol, atol=tol)


@jit.rawkernel()
def cube(a, out):
    i, j, k = jit.grid(3)
    if i < a.shape[0] and j < a.shape[1] and k < a.shape[2]:
        out[i, j, k] = a[i, j, k] * 2 + a.shape[2]


def test_three_dimensional_and_reversed_views(rng):
    a = rng.random((4, 3, 5))
    view = kiln.asarray(a)[::-1, :, ::2]
    out = kiln.zeros(view.shape, dtype=kiln.float64)
    cube[(1, 1, 1), (4, 4, 4)](view, out)
    numpy.testing.assert_allclose(kiln.asnumpy(out), a[::-1, :, ::2] * 2 + 3, rtol=1e-15)
