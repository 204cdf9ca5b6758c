"""kiln.jit builtins: the math module and kiln ufuncs on scalars, Python's
abs/min/max/round, thread indices, print, assert, jit.range(unroll=) and
compiler options."""
import math

import numpy
import pytest

import kiln
from kiln import jit

MATH1 = ["sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
         "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "fabs", "cbrt", "exp2", "gamma",
         "lgamma"]


@jit.rawkernel()
def math_kernel(x, y, out, n):
    i = jit.grid(1)
    if i < n:
        v = x[i]
        w = y[i]
        out[0, i] = math.sqrt(v)
        out[1, i] = math.exp(v)
        out[2, i] = math.expm1(v)
        out[3, i] = math.log(v)
        out[4, i] = math.log2(v)
        out[5, i] = math.log10(v)
        out[6, i] = math.log1p(v)
        out[7, i] = math.sin(v)
        out[8, i] = math.cos(v)
        out[9, i] = math.tan(v)
        out[10, i] = math.asin(w)
        out[11, i] = math.acos(w)
        out[12, i] = math.atan(v)
        out[13, i] = math.sinh(v)
        out[14, i] = math.cosh(v)
        out[15, i] = math.tanh(v)
        out[16, i] = math.asinh(v)
        out[17, i] = math.acosh(v + 1)
        out[18, i] = math.atanh(w)
        out[19, i] = math.erf(v)
        out[20, i] = math.erfc(v)
        out[21, i] = math.fabs(-v)
        out[22, i] = math.cbrt(v)
        out[23, i] = math.exp2(v)
        out[24, i] = math.gamma(v)
        out[25, i] = math.lgamma(v)
        out[26, i] = math.atan2(v, w)
        out[27, i] = math.pow(v, w)
        out[28, i] = math.hypot(v, w)
        out[29, i] = math.fmod(v, w)
        out[30, i] = math.copysign(v, -w)
        out[31, i] = math.floor(v * 3) + math.ceil(v * 3) * 10 + math.trunc(-v * 3) * 100
        out[32, i] = math.isnan(v) + 2 * math.isinf(v / 0.5) + 4 * math.isfinite(v)
        out[33, i] = math.pi * v + math.e + math.tau
        out[34, i] = kiln.sqrt(v) + kiln.arctan2(v, w) + kiln.maximum(v, w) - kiln.minimum(v, w)
        out[35, i] = abs(-v) + min(v, w, 0.5) + max(v, w)
        out[36, i] = round(v * 7) + round(v, 2)


def math_reference(x, y):
    rows = []
    for name in MATH1:
        f = getattr(math, name)
        src = y if name in ("asin", "acos", "atanh") else x
        if name == "acosh":
            src = x + 1
        if name == "fabs":
            src = -x
        rows.append([f(float(v)) for v in src])
    rows.append([math.atan2(a, b) for a, b in zip(x, y)])
    rows.append([math.pow(a, b) for a, b in zip(x, y)])
    rows.append([math.hypot(a, b) for a, b in zip(x, y)])
    rows.append([math.fmod(a, b) for a, b in zip(x, y)])
    rows.append([math.copysign(a, -b) for a, b in zip(x, y)])
    rows.append([math.floor(a * 3) + math.ceil(a * 3) * 10 + math.trunc(-a * 3) * 100 for a in x])
    rows.append([4.0 for a in x])
    rows.append([math.pi * a + math.e + math.tau for a in x])
    rows.append([math.sqrt(a) + math.atan2(a, b) + max(a, b) - min(a, b) for a, b in zip(x, y)])
    rows.append([abs(-a) + min(a, b, 0.5) + max(a, b) for a, b in zip(x, y)])
    rows.append([round(a * 7) + round(a, 2) for a in x])
    return numpy.array(rows)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32])
def test_math_module_and_ufuncs_on_scalars(rng, dtype):
    n = 40
    x = (rng.random(n) * 2 + 0.1).astype(dtype)
    y = (rng.random(n) * 1.6 - 0.8).astype(dtype)
    out = kiln.zeros((37, n), dtype=kiln.float64)
    math_kernel[1, 64](kiln.asarray(x), kiln.asarray(y), out, n)
    got = kiln.asnumpy(out)
    expected = math_reference(x.astype(numpy.float64), y.astype(numpy.float64))
    # float32: each function is computed in float32 (as the kiln ufunc would),
    # so it agrees with the float64 value to float32's precision; tolerances of
    # CUDA's float32 functions are up to 4 ulp (gamma 5, lgamma 6)
    rtol = 1e-13 if dtype == numpy.float64 else 4e-6
    atol = 1e-13 if dtype == numpy.float64 else 4e-6
    round_rows = [36]
    for r in range(37):
        if r in round_rows and dtype == numpy.float32:
            continue   # round() of float32 products may round a tie differently from float64
        numpy.testing.assert_allclose(got[r], expected[r], rtol=rtol, atol=atol, err_msg="row %d" % r)
    src = math_kernel.cached_code
    if dtype == numpy.float32:
        assert "float v_;" in src     # float32 stays float32 through math functions


@jit.rawkernel()
def indices(out):
    tx = jit.threadIdx.x
    ty = jit.threadIdx.y
    bx = jit.blockIdx.x
    by = jit.blockIdx.y
    i, j = jit.grid(2)
    gx, gy = jit.gridsize(2)
    k = i + j * gx
    out[0, k] = tx + 10 * ty
    out[1, k] = bx + 10 * by
    out[2, k] = jit.blockDim.x * 100 + jit.blockDim.y * 10 + jit.blockDim.z
    out[3, k] = jit.gridDim.x * 100 + jit.gridDim.y * 10 + jit.gridDim.z
    out[4, k] = i * 1000 + j
    out[5, k] = gx * 1000 + gy
    out[6, k] = jit.laneid()
    out[7, k] = jit.warpsize
    out[8, k] = jit.threadIdx.z + jit.blockIdx.z


def test_thread_indices_grid_and_lanes():
    out = kiln.zeros((9, 12 * 6), dtype=kiln.int64)
    indices[(3, 2), (4, 3)](out)
    got = kiln.asnumpy(out)
    i, j = numpy.meshgrid(numpy.arange(12), numpy.arange(6), indexing="xy")
    i, j = i.ravel(), j.ravel()
    k = i + j * 12
    order = numpy.argsort(k)
    i, j = i[order], j[order]
    tx, ty, bx, by = i % 4, j % 3, i // 4, j // 3
    numpy.testing.assert_array_equal(got[0], tx + 10 * ty)
    numpy.testing.assert_array_equal(got[1], bx + 10 * by)
    assert (got[2] == 431).all() and (got[3] == 321).all()
    numpy.testing.assert_array_equal(got[4], i * 1000 + j)
    assert (got[5] == 12006).all()
    numpy.testing.assert_array_equal(got[6], (tx + 4 * ty) % 32)
    assert (got[7] == 32).all() and (got[8] == 0).all()


@jit.rawkernel()
def printer(x):
    if jit.threadIdx.x == 1:
        print("value", x[1], 3, True, sep=":")
        print(x[0] * 2)


def test_print_is_printf(capfd):
    if kiln.get_backend() != "host":
        pytest.skip("device printf output reaches the terminal, not the captured stream")
    printer[1, 2](kiln.asarray(numpy.array([1.5, -2.0])))
    kiln.cuda.Device().synchronize()
    out = capfd.readouterr().out
    assert "value:-2:3:True\n3\n" in out


@jit.rawkernel()
def checked(x, n):
    i = jit.grid(1)
    if i < n:
        assert x[i] >= 0, "negative input"
        x[i] = x[i] * 2


def test_device_assert():
    x = kiln.asarray(numpy.array([1.0, 2.0, 3.0]))
    checked[1, 4](x, 3)
    assert kiln.asnumpy(x).tolist() == [2.0, 4.0, 6.0]
    assert 'kiln::jit::assert_fail("negative input"' in checked.cached_code
    if kiln.get_backend() == "host":
        y = kiln.asarray(numpy.array([1.0, -2.0, 3.0]))
        with pytest.raises(Exception, match="negative input"):
            checked[1, 4](y, 3)


@jit.rawkernel(options=("-use_fast_math", "-lineinfo"))
def unrolled(x, out):
    i = jit.grid(1)
    s = 0.0
    for k in jit.range(8, unroll=True):
        s += x[i * 8 + k]
    for k in jit.range(0, 8, 2, unroll=4):
        s += x[i * 8 + k] * 10
    out[i] = s


def test_jit_range_unroll_and_options(rng):
    x = rng.random(64)
    out = kiln.zeros(8, dtype=kiln.float64)
    unrolled[1, 8](kiln.asarray(x), out)
    xr = x.reshape(8, 8)
    numpy.testing.assert_allclose(kiln.asnumpy(out), xr.sum(1) + xr[:, ::2].sum(1) * 10, rtol=1e-12)
    src = unrolled.cached_code
    assert "#pragma unroll\n" in src and "#pragma unroll(4)\n" in src   # CuPy's spelling
    assert unrolled.options == ("-use_fast_math", "-lineinfo")


@jit.rawkernel()
def ufuncs_on_scalars(z, h, out, hout):
    i = jit.grid(1)
    if i < z.size:
        out[0, i] = kiln.exp(z[i])
        out[1, i] = kiln.sqrt(z[i])
        out[2, i] = kiln.log(z[i])
        out[3, i] = kiln.absolute(z[i])
        hout[0, i] = kiln.logaddexp(h[i], h[i])
        hout[1, i] = kiln.sign(h[i] - 0.5)
        hout[2, i] = kiln.floor_divide(h[i] * 10, 3)


def test_kiln_ufuncs_on_complex_and_half_scalars(rng):
    n = 24
    z = (rng.random(n) * 4 - 2 + 1j * (rng.random(n) * 4 - 2)).astype(numpy.complex64)
    h = rng.random(n).astype(numpy.float16)
    out = kiln.zeros((4, n), dtype=kiln.complex64)
    hout = kiln.zeros((3, n), dtype=kiln.float16)
    ufuncs_on_scalars[1, 32](kiln.asarray(z), kiln.asarray(h), out, hout)
    expected = numpy.stack([numpy.exp(z), numpy.sqrt(z), numpy.log(z), numpy.absolute(z).astype(numpy.complex64)])
    numpy.testing.assert_allclose(kiln.asnumpy(out), expected, rtol=2e-6)
    got = kiln.asnumpy(hout)
    # kiln's float16 logaddexp is within 1 float16 ulp of NumPy's on the GPU
    # (Note [Transcendental accuracy] in kiln/ufunc_transcendental.h)
    numpy.testing.assert_allclose(got[0], numpy.logaddexp(h, h), rtol=2 ** -10)
    numpy.testing.assert_array_equal(got[1], numpy.sign(h - numpy.float16(0.5)))
    numpy.testing.assert_array_equal(got[2], numpy.floor_divide(h * numpy.float16(10), numpy.float16(3)))
    assert "#include <kiln/ufunc_math.h>" in ufuncs_on_scalars.cached_code
