"""CuPy's <cupy/complex.cuh> in RawModule, ElementwiseKernel and ReductionKernel code:
complex<float>/complex<double> with CuPy's functions, against NumPy."""
import numpy
import pytest

import kiln

# One module, both precisions (name expressions), every function CuPy's
# header offers, written the way CuPy's users write them.
COMPLEX_FUNCTIONS = r'''
#include <cupy/complex.cuh>

template <typename T>
__global__ void complex_functions(const complex<T>* z, const complex<T>* w, complex<T>* out, T* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    complex<T> a = z[i], b = w[i];
    complex<T>* o = out + 21 * i;
    o[0] = a + b * T(2) - T(1) / a;
    o[1] = exp(a);   o[2] = log(a);   o[3] = log10(a);  o[4] = sqrt(a);
    o[5] = pow(a, b); o[6] = pow(a, T(3)); o[7] = sin(a); o[8] = cos(a); o[9] = tan(a);
    o[10] = sinh(a); o[11] = cosh(a); o[12] = tanh(a); o[13] = asin(a); o[14] = acos(a);
    o[15] = atan(a); o[16] = asinh(a); o[17] = acosh(a); o[18] = atanh(a);
    o[19] = conj(a) * thrust::polar(abs(b), arg(b));
    complex<T> c = a;
    c *= b;
    c -= complex<T>(1, -1);
    c /= b;
    o[20] = c;
    r[3 * i] = abs(a);
    r[3 * i + 1] = norm(b) + real(a) - imag(b);
    r[3 * i + 2] = (isnan(a) ? 100 : 0) + (isfinite(b) ? 10 : 0) + (isinf(a) ? 1 : 0);
}
'''


def _expected(z, w):
    return numpy.stack([
        z + w * 2 - 1 / z, numpy.exp(z), numpy.log(z), numpy.log10(z), numpy.sqrt(z), z ** w, z ** 3,
        numpy.sin(z), numpy.cos(z), numpy.tan(z), numpy.sinh(z), numpy.cosh(z), numpy.tanh(z),
        numpy.arcsin(z), numpy.arccos(z), numpy.arctan(z), numpy.arcsinh(z), numpy.arccosh(z),
        numpy.arctanh(z), numpy.conj(z) * w, (z * w - (1 - 1j)) / w], axis=1)


@pytest.fixture(scope="module")
def complex_module():
    return kiln.RawModule(code=COMPLEX_FUNCTIONS,
                          name_expressions=['complex_functions<float>', 'complex_functions<double>'])


@pytest.mark.parametrize("real,ctype,rtol", [(numpy.float32, numpy.complex64, 2e-5),
                                             (numpy.float64, numpy.complex128, 1e-13)])
def test_complex_functions_match_numpy(complex_module, rng, real, ctype, rtol):
    n = 37
    z = (rng.uniform(-2, 2, n) + 1j * rng.uniform(-2, 2, n)).astype(ctype)
    w = (rng.uniform(-2, 2, n) + 1j * rng.uniform(-2, 2, n)).astype(ctype)
    out = kiln.zeros((n, 21), dtype=ctype)
    r = kiln.zeros((n, 3), dtype=real)
    kern = complex_module.get_function('complex_functions<%s>' % ('float' if real == numpy.float32 else 'double'))
    kern((2,), (32,), (kiln.asarray(z), kiln.asarray(w), out, r, numpy.int32(n)))
    numpy.testing.assert_allclose(out.get(), _expected(z, w), rtol=rtol, atol=0)
    numpy.testing.assert_allclose(r.get(), numpy.stack([abs(z), abs(w) ** 2 + z.real - w.imag, 10 + 0 * z.real], 1),
                                  rtol=rtol)


def test_complex_special_values_are_numpys(complex_module):
    """exp, log, sqrt ... of infinities and NaNs are NumPy's (kiln's ufuncs' own)."""
    specials = numpy.array([complex(numpy.inf, 0), complex(-numpy.inf, 1), complex(0, numpy.inf),
                            complex(numpy.nan, 1), complex(0, 0), complex(-0.0, -0.0)], numpy.complex128)
    n = specials.size
    out = kiln.zeros((n, 21), dtype=numpy.complex128)
    r = kiln.zeros((n, 3), dtype=numpy.float64)
    ones = numpy.ones(n, numpy.complex128)
    complex_module.get_function('complex_functions<double>')((1,), (n,), (kiln.asarray(specials), kiln.asarray(ones),
                                                                           out, r, numpy.int32(n)))
    got = out.get()
    with numpy.errstate(all='ignore'):
        for k, f in [(1, numpy.exp), (2, numpy.log), (4, numpy.sqrt), (10, numpy.sinh), (12, numpy.tanh)]:
            numpy.testing.assert_array_equal(got[:, k], f(specials), err_msg=f.__name__)
    numpy.testing.assert_array_equal(r.get()[:, 2], [11, 11, 11, 110, 10, 10])   # isnan, isfinite, isinf


CONJ_PRODUCT = kiln.ElementwiseKernel(
    'T x, T y', 'T z',
    'z = conj(x) * exp(y) + abs(x) - complex<double>(0, 1)',
    'test_cupy_complex_conj_product')


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "negative", "fortran"])
def test_elementwise_kernel_complex_params(rng, dtype, layout):
    base = (rng.standard_normal((6, 8)) + 1j * rng.standard_normal((6, 8))).astype(dtype)
    view = {"contiguous": lambda a: a, "strided": lambda a: a[::2, 1::3],
            "negative": lambda a: a[::-1, ::-2], "fortran": lambda a: numpy.asfortranarray(a)}[layout]
    x, y = view(base), view(base[::-1])
    got = CONJ_PRODUCT(kiln.asarray(x), kiln.asarray(y))
    expected = (numpy.conj(x) * numpy.exp(y) + abs(x) - 1j).astype(dtype)
    assert got.dtype == dtype
    numpy.testing.assert_allclose(got.get(), expected, rtol=1e-5 if dtype == numpy.complex64 else 1e-12)


def test_elementwise_kernel_complex_zero_d_and_empty():
    z = numpy.array(1 + 2j, numpy.complex128)
    numpy.testing.assert_allclose(CONJ_PRODUCT(kiln.asarray(z), kiln.asarray(z)).get(),
                                  numpy.conj(z) * numpy.exp(z) + abs(z) - 1j)
    assert CONJ_PRODUCT(kiln.zeros((0, 3), numpy.complex128), kiln.zeros((0, 3), numpy.complex128)).shape == (0, 3)


def test_reduction_kernel_complex_norm():
    """Sum of |z|^2 with complex<T> code in the map expression, as CuPy's docs write it."""
    sq = kiln.ReductionKernel('T x', 'float64 y', 'norm(complex<double>(x))', 'a + b', 'y = a', '0',
                              'test_cupy_complex_sq_norm')
    host = (numpy.arange(12) + 1j * numpy.arange(12)[::-1]).reshape(3, 4).astype(numpy.complex64)
    numpy.testing.assert_allclose(sq(kiln.asarray(host), axis=1).get(), (abs(host.astype(complex)) ** 2).sum(axis=1))
