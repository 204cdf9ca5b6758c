"""<cuda_fp16.h> in RawKernels (the toolkit's under NVRTC, kiln's on the host backend) and
cuda_fp16.h's names over float16 params in ElementwiseKernel and ReductionKernel, against NumPy."""
import numpy
import pytest

import kiln

HALF_OPS = r'''
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const __half* a, const __half* b, __half scale, __half* out, float* f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i];
    __half* o = out + 12 * i;
    o[0] = __hadd(x, y); o[1] = __hsub(x, y); o[2] = __hmul(x, y); o[3] = __hdiv(x, y);
    o[4] = __hfma(x, y, scale); o[5] = __hneg(x); o[6] = __habs(y);
    __half2 p = __halves2half2(x, y);
    __half2 q = __hmul2(p, __float2half2_rn(2.0f));
    o[7] = __low2half(q); o[8] = __high2half(q);
    o[9] = __float2half(__half2float(x) * 3.0f);
    o[10] = hsqrt(__habs(x));
    o[11] = __hmax(x, y);
    f[3 * i] = (__hlt(x, y) ? 1.0f : 0.0f) + (__heq(x, y) ? 2.0f : 0.0f) + (__hge(x, y) ? 4.0f : 0.0f)
               + (__hisnan(x) ? 8.0f : 0.0f);
    f[3 * i + 1] = __low2float(p) + __high2float(p);
    f[3 * i + 2] = (float)__half2int_rz(x);
}
'''


def test_cuda_fp16_intrinsics_match_numpy():
    a = numpy.array([1.5, -2.25, 3.0, 0.1, 65504, 7, 1e-7, -0.0, 2049, numpy.nan], numpy.float16)
    b = numpy.array([0.5, 4.0, 3.0, 0.3, 2, -0.7, 3e-5, 1.0, 3, 1], numpy.float16)
    n = a.size
    scale = numpy.float16(0.25)
    out = kiln.zeros((n, 12), numpy.float16)
    f = kiln.zeros((n, 3), numpy.float32)
    kern = kiln.RawKernel(HALF_OPS, 'half_ops')
    kern((1,), (32,), (kiln.asarray(a), kiln.asarray(b), scale, out, f, numpy.int32(n)))
    with numpy.errstate(all='ignore'):
        expected = numpy.stack([
            a + b, a - b, a * b, a / b, (a.astype(numpy.float64) * b + scale).astype(numpy.float16), -a, abs(b),
            a * numpy.float16(2), b * numpy.float16(2), (a.astype(numpy.float32) * 3).astype(numpy.float16),
            numpy.sqrt(abs(a)), numpy.fmax(a, b)], axis=1)
        got = out.get()
        flags = (a < b) * 1.0 + (a == b) * 2.0 + (a >= b) * 4.0 + numpy.isnan(a) * 8.0
        ints = numpy.where(numpy.isnan(a), 0, numpy.trunc(a.astype(numpy.float32)))
    # Correctly rounded: NumPy's bits; hsqrt within an ulp (the GPU's may be approximate).
    numpy.testing.assert_array_equal(numpy.delete(got, 10, axis=1), numpy.delete(expected, 10, axis=1))
    numpy.testing.assert_allclose(got[:, 10], expected[:, 10], rtol=1e-3)
    numpy.testing.assert_array_equal(f.get()[:, 0], flags)
    numpy.testing.assert_array_equal(f.get()[:, 1], a.astype(numpy.float32) + b.astype(numpy.float32))
    numpy.testing.assert_array_equal(f.get()[:, 2], ints)


HALF_AXPY = kiln.ElementwiseKernel(
    'T x, T y, float16 a', 'T z',
    'float16 t = __hmul(a, x); z = __hadd(t, y) + (__hlt(x, y) ? x : y)',
    'test_cuda_fp16_axpy')


@pytest.mark.parametrize("layout", ["contiguous", "strided", "negative"])
def test_elementwise_kernel_float16_intrinsics(rng, layout):
    """__hadd on float16 params is binary16 addition (it was the integer halving add)."""
    base = rng.uniform(-8, 8, (5, 6)).astype(numpy.float16)
    view = {"contiguous": lambda v: v, "strided": lambda v: v[:, ::2], "negative": lambda v: v[::-1, ::-1]}[layout]
    x, y = view(base), view(base.T.copy().T[::-1])
    a = numpy.float16(1.5)
    got = HALF_AXPY(kiln.asarray(x), kiln.asarray(y), a)
    expected = (a * x + y) + numpy.where(x < y, x, y)
    assert got.dtype == numpy.float16
    numpy.testing.assert_array_equal(got.get(), expected)


def test_elementwise_kernel_hadd_is_half_addition():
    x = numpy.array([1, 2, 0.5], numpy.float16)
    got = kiln.ElementwiseKernel('T x', 'T y', 'y = __hadd(x, x)', 'test_cuda_fp16_hadd')(kiln.asarray(x))
    numpy.testing.assert_array_equal(got.get(), x + x)


def test_reduction_kernel_float16_intrinsics():
    host = numpy.linspace(-3, 3, 24).astype(numpy.float16).reshape(4, 6)
    k = kiln.ReductionKernel('float16 x', 'float32 y', '__half2float(__hmul(x, x))', 'a + b', 'y = a', '0',
                             'test_cuda_fp16_sumsq')
    numpy.testing.assert_allclose(k(kiln.asarray(host), axis=1).get(),
                                  (host * host).astype(numpy.float32).sum(axis=1), rtol=1e-6)
