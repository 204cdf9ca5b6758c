"""kiln/half.h and kiln/complex.h: their arithmetic and comparisons in a
kernel on the selected backend against NumPy, and the same source (and one
touching every operator) compiled with NVRTC for sm_90 (needs libnvrtc, not
a GPU). The casts themselves are tested through the copy kernel
(test_copy.py)."""
import os
import warnings

import numpy
import pytest

import kiln

HAVE_NVRTC, WHY_NOT = kiln._core._nvrtc_available()
INCLUDE_DIR = os.path.join(os.path.dirname(kiln.__file__), "include")

HALF_OPS = r'''
#include <kiln/half.h>
extern "C" __global__ void half_ops(const kiln::half* a, const kiln::half* b, kiln::half* out, bool* cmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  kiln::half x = a[i], y = b[i];
  out[4 * i + 0] = x + y;
  out[4 * i + 1] = x - y;
  out[4 * i + 2] = x * y;
  out[4 * i + 3] = x / y;
  cmp[3 * i + 0] = x < y;
  cmp[3 * i + 1] = x == y;
  cmp[3 * i + 2] = x >= y;
}
'''

COMPLEX_OPS = r'''
#include <kiln/complex.h>
template <class T>
__device__ void complex_ops(const kiln::complex<T>* a, const kiln::complex<T>* b, kiln::complex<T>* out,
                            bool* eq, int i) {
  kiln::complex<T> x = a[i], y = b[i];
  out[5 * i + 0] = x + y;
  out[5 * i + 1] = x - y;
  out[5 * i + 2] = x * y;
  out[5 * i + 3] = x / y;
  out[5 * i + 4] = -x + T(2) * kiln::conj(y);
  eq[2 * i + 0] = x == y;
  eq[2 * i + 1] = x != y;
}
extern "C" __global__ void complex64_ops(const kiln::complex<float>* a, const kiln::complex<float>* b,
                                         kiln::complex<float>* out, bool* eq, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) complex_ops(a, b, out, eq, i);
}
extern "C" __global__ void complex128_ops(const kiln::complex<double>* a, const kiln::complex<double>* b,
                                          kiln::complex<double>* out, bool* eq, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) complex_ops(a, b, out, eq, i);
}
'''

# Every operator and conversion the headers declare, instantiated.
EVERYTHING = r'''
#include <kiln/complex.h>
#include <kiln/half.h>
template <class T>
__device__ void use_all(T* sink, double* dsink, bool* bsink) {
  kiln::half h = 1.5f, g = 2.0, k = 3, m = (unsigned long long)4, t = true, u = (signed char)-2, v = (short)7;
  h += g; h -= k; h *= m; h /= t; h = -h; h = +h;
  float f = h + 1.0f; double d = 2.0 * h; kiln::half hi = h + 1; kiln::half ih = 1u - h;
  bsink[0] = h < 1 && h <= 2.0f && 3.0 > h && h >= g && h == k && h != m && 1 == h;
  long long ll = (long long)h; unsigned char uc = (unsigned char)u; bool bb = (bool)v;
  kiln::complex<T> z(T(1), T(2)), w = T(3), zh = h, zb = true, zi = 7u;
  z += w; z -= w; z *= w; z /= w; z = z + 1.0f; z = 2 * z; z = z - h; z = h / z;
  kiln::complex<float> narrow = (kiln::complex<float>)kiln::complex<double>(1.0, 2.0);
  kiln::complex<double> wide = narrow;
  bsink[1] = z == w || z != 1 || 2.0 == z || (bool)z;
  T re = (T)z; int ir = (int)z; kiln::half hz = (kiln::half)z; unsigned long long uz = (unsigned long long)z;
  sink[0] = re + z.real() + z.imag() + kiln::real(z) + kiln::imag(z) + T(ir) + T(uz) + T(float(hz));
  z.real(T(1)); z.imag(T(2));
  dsink[0] = f + d + float(hi) + float(ih) + ll + uc + bb + wide.real() + float(kiln::half::from_bits(h.bits())) +
             zh.real() + zb.real() + zi.real();
}
extern "C" __global__ void probe(float* f, double* d, bool* b) {
  use_all<float>(f, d, b);
  use_all<double>(d, d, b);
}
'''


def launch(kernel, n, *args):
    kernel(((n + 63) // 64,), (64,), args + (numpy.int32(n),))


def half_operands(rng):
    a = numpy.concatenate([(rng.standard_normal(500) * 100), [0.0, -0.0, 65504.0, 6e-8, numpy.inf, numpy.nan, 1.0]])
    b = numpy.concatenate([(rng.standard_normal(500) * 10), [0.0, 1.0, 2.0, -6e-8, 2.0, 1.0, 1.0]])
    return a.astype(numpy.float16), b.astype(numpy.float16)


def test_half_arithmetic_matches_numpy(rng):
    a, b = half_operands(rng)
    n = a.size
    out, cmp = kiln.zeros(4 * n, dtype=kiln.float16), kiln.zeros(3 * n, dtype=kiln.bool_)
    launch(kiln.RawKernel(HALF_OPS, "half_ops"), n, kiln.asarray(a), kiln.asarray(b), out, cmp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = numpy.stack([a + b, a - b, a * b, a / b], axis=1).reshape(-1)
    # float16 arithmetic rounds the exact float result once: bit for bit (NaNs as NaN).
    got = out.get()
    nan = numpy.isnan(expected)
    numpy.testing.assert_array_equal(numpy.isnan(got), nan)
    numpy.testing.assert_array_equal(got[~nan].view(numpy.uint16), expected[~nan].view(numpy.uint16))
    numpy.testing.assert_array_equal(cmp.get(), numpy.stack([a < b, a == b, a >= b], axis=1).reshape(-1))


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=lambda d: numpy.dtype(d).name)
def test_complex_arithmetic_matches_numpy(rng, dtype):
    n = 300
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b[:3] = [1e30 + 1e-30j, 1e-30 + 1e30j, 0.5]
    a[10] = b[10]
    out, eq = kiln.zeros(5 * n, dtype=dtype), kiln.zeros(2 * n, dtype=kiln.bool_)
    name = numpy.dtype(dtype).name + "_ops"
    launch(kiln.RawKernel(COMPLEX_OPS, name), n, kiln.asarray(a), kiln.asarray(b), out, eq)
    expected = numpy.stack([a + b, a - b, a * b, a / b, -a + 2 * numpy.conj(b)], axis=1).reshape(-1)
    # Multiplication and division may be contracted to FMAs on a GPU: a few ulp.
    tol = 1e-5 if dtype == numpy.complex64 else 1e-13
    numpy.testing.assert_allclose(out.get(), expected, rtol=tol, atol=0)
    numpy.testing.assert_array_equal(eq.get(), numpy.stack([a == b, a != b], axis=1).reshape(-1))


@pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC not loadable: %s" % WHY_NOT)
@pytest.mark.parametrize("source", [HALF_OPS, COMPLEX_OPS, EVERYTHING], ids=["half_ops", "complex_ops", "everything"])
def test_headers_compile_with_nvrtc_for_sm90(source):
    binary = kiln._core._nvrtc_compile(source, ["-I" + INCLUDE_DIR], [], "sm_90")
    assert binary[:4] == b"\x7fELF"


def test_everything_compiles_with_the_host_compiler():
    if kiln.get_backend() != "host":
        pytest.skip("the host compiler is the host backend's")
    kiln.RawKernel(EVERYTHING, "probe").compile()


SCALAR_PARAMS = r'''
#include <kiln/complex.h>
extern "C" __global__ void scalars(kiln::half h, kiln::complex<float> z, kiln::complex<double> w,
                                   kiln::half* h_out, kiln::complex<float>* z_out, kiln::complex<double>* w_out) {
  h_out[0] = h * 2;
  z_out[0] = z * 2.0f;
  w_out[0] = w * 2.0;
}
'''


def test_half_and_complex_scalar_parameters():
    k = kiln.RawKernel(SCALAR_PARAMS, "scalars")
    h, z, w = kiln.zeros(1, dtype=kiln.float16), kiln.zeros(1, dtype=kiln.complex64), kiln.zeros(1, dtype=kiln.complex128)
    k((1,), (1,), (numpy.float16(1.5), numpy.complex64(1 - 2j), numpy.complex128(0.5 + 4j), h, z, w))
    assert (h.get()[0], z.get()[0], w.get()[0]) == (3.0, 2 - 4j, 1 + 8j)
    if kiln.get_backend() == "host":
        # The host prelude tells the launcher their kinds, so Python scalars work too.
        k((1,), (1,), (2.5, 3j, 1.25 + 0j, h, z, w))
        assert (h.get()[0], z.get()[0], w.get()[0]) == (5.0, 6j, 2.5)
