"""Programs written for CuPy's kernels, run unchanged (issue 24): a k-means step whose
ReductionKernel output is named `out`, an option pricer with `T` in the preamble and its own
uint64_t, structs and vector types passed by value, a tiled SGEMM launched with args= and
shared_mem=, and a kernel whose own typedefs and helpers clash with nothing on the host."""
import math

import numpy
import pytest

import kiln


def test_kmeans_step_reduction_output_named_out(rng):
    # CuPy's k-means example: the masked sum's output is called `out`.
    sum_kernel = kiln.ReductionKernel('T x, S mask', 'T out', 'mask ? x : 0', 'a + b', 'out = a', '0',
                                      'sum_kernel')
    count_kernel = kiln.ReductionKernel('T mask', 'float32 out', 'mask ? 1.0 : 0.0', 'a + b', 'out = a',
                                        '0.0', 'count_kernel')
    x = rng.standard_normal((64, 2)).astype(numpy.float32)
    centers = x[:3].copy()
    labels = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
    dx, dlabels = kiln.asarray(x), kiln.asarray(labels)
    mask = dlabels == kiln.arange(3)[:, None]                     # (3, 64) bool
    sums = sum_kernel(dx, mask[:, :, None], axis=1)               # (3, 2)
    counts = count_kernel(mask, axis=1, keepdims=True)            # (3, 1)
    want_mask = labels == numpy.arange(3)[:, None]
    want_sums = numpy.where(want_mask[:, :, None], x, 0).sum(axis=1)
    numpy.testing.assert_allclose(sums.get(), want_sums, rtol=1e-5, atol=1e-5)
    numpy.testing.assert_array_equal(counts.get(), want_mask.sum(axis=1, keepdims=True).astype(numpy.float32))
    numpy.testing.assert_allclose((sums / counts).get(), want_sums / want_mask.sum(axis=1)[:, None], rtol=1e-5)


# The preamble names the placeholder T (typedef'd before it, as in CuPy) and
# declares its own uint64_t, as NVRTC code must (Note [Host prelude names]).
PRICER_PREAMBLE = r'''
typedef unsigned long long uint64_t;
__device__ inline uint64_t mix64(uint64_t z) {
    z ^= z >> 33; z *= 0xff51afd7ed558ccdULL; z ^= z >> 33; return z;
}
__device__ inline T std_normal_cdf(T d) { return (T)0.5 * erfc(-d * (T)0.7071067811865476); }
__device__ inline T call_value(T s, T x, T t, T r, T v) {
    T sq = sqrt(t);
    T d1 = (log(s / x) + (r + (T)0.5 * v * v) * t) / (v * sq);
    return s * std_normal_cdf(d1) - x * exp(-r * t) * std_normal_cdf(d1 - v * sq);
}
'''


def _mix64(z):
    z = z ^ (z >> numpy.uint64(33))
    z = z * numpy.uint64(0xff51afd7ed558ccd)
    return z ^ (z >> numpy.uint64(33))


def test_option_pricer_placeholder_in_preamble_and_own_uint64():
    pricer = kiln.ElementwiseKernel('T s, T x, T t, T r, T v, uint64 seed', 'T call, uint64 tag',
                                    'call = call_value(s, x, t, r, v); tag = mix64(seed + i)',
                                    'bs_call', preamble=PRICER_PREAMBLE)
    s = numpy.array([90.0, 100.0, 110.0, 120.0])
    x, t, r, v = 100.0, 0.5, 0.02, 0.3
    sq = math.sqrt(t)
    d1 = (numpy.log(s / x) + (r + 0.5 * v * v) * t) / (v * sq)
    cdf = numpy.vectorize(lambda d: 0.5 * math.erfc(-d / math.sqrt(2.0)))
    want = s * cdf(d1) - x * math.exp(-r * t) * cdf(d1 - v * sq)
    seed = numpy.uint64(0x1234_5678_9abc_def0)
    with numpy.errstate(over='ignore'):
        want_tag = _mix64(seed + numpy.arange(4, dtype=numpy.uint64))
    # One kernel object, two instantiations: T is float64, then float32 (prices
    # of 100-unit inputs: float32's 6e-8 times 100 times a few operations).
    for dtype, rtol, atol in ((numpy.float64, 1e-12, 0), (numpy.float32, 0, 1e-4)):
        call, tag = pricer(kiln.asarray(s.astype(dtype)), dtype(x), dtype(t), dtype(r), dtype(v), seed)
        assert call.dtype == dtype
        numpy.testing.assert_allclose(call.get(), want, rtol=rtol, atol=atol)
        numpy.testing.assert_array_equal(tag.get(), want_tag)


def test_reduction_placeholder_in_preamble():
    norm = kiln.ReductionKernel('T x', 'T y', 'square(x)', 'a + b', 'y = sqrt(a)', '0', 'l2norm',
                                preamble='__device__ inline T square(T v) { return v * v; }')
    a = numpy.arange(1, 9, dtype=numpy.float32).reshape(2, 4)
    numpy.testing.assert_allclose(norm(kiln.asarray(a), axis=1).get(), numpy.sqrt((a * a).sum(axis=1)), rtol=1e-6)


# ---- structs and vector types by value (Note [Structs by value]) ----

STRUCTS = r'''
struct Particle { double mass; float charge; int id; };        // 16 bytes, align 8
struct __align__(16) Mat4 { float m[16]; };                     // a packed 4x4 matrix, 64 bytes
extern "C" __global__ void axpy3(double3 a, const double3* x, double3* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = make_double3(a.x * x[i].x + y[i].x, a.y * x[i].y + y[i].y, a.z * x[i].z + y[i].z);
}
extern "C" __global__ void weigh(Particle p, double* out) {
    out[0] = p.mass * p.charge;
    out[1] = p.id;
}
extern "C" __global__ void transform(Mat4 m, const float4* v, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = v[i];
    float r[4];
    for (int k = 0; k < 4; ++k)
        r[k] = m.m[4 * k] * p.x + m.m[4 * k + 1] * p.y + m.m[4 * k + 2] * p.z + m.m[4 * k + 3] * p.w;
    out[i] = make_float4(r[0], r[1], r[2], r[3]);
}
'''
DOUBLE3 = numpy.dtype({'names': ['x', 'y', 'z'], 'formats': [numpy.float64] * 3})
PARTICLE = numpy.dtype({'names': ['mass', 'charge', 'id'], 'formats': [numpy.float64, numpy.float32, numpy.int32]},
                       align=True)
MAT4 = numpy.dtype({'names': ['m'], 'formats': [(numpy.float32, (4, 4))]})


@pytest.fixture(scope='module')
def structs():
    return kiln.RawModule(code=STRUCTS)


def test_double3_by_value(structs, rng):
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    a = numpy.array([2.0, -1.0, 0.5])
    dy = kiln.asarray(y)
    axpy3 = structs.get_function('axpy3')
    want = y
    # The three ways CuPy programs pass a double3; the GPU may fuse a * x + y
    # into one fma, hence the tolerance of an ulp or two.
    for value in (a.view(DOUBLE3), a.view(DOUBLE3)[0], a.view(DOUBLE3).reshape(())):  # (1,), numpy.void, 0-d
        axpy3((1,), (8,), (value, kiln.asarray(x), dy, numpy.int32(5)))
        want = a * x + want
        numpy.testing.assert_allclose(dy.get(), want, rtol=1e-15, atol=1e-15)


def test_user_struct_and_packed_matrix_by_value(structs, rng):
    out = kiln.zeros(2, dtype=kiln.float64)
    p = numpy.array((2.5, -3.0, 7), dtype=PARTICLE)
    structs.get_function('weigh')((1,), (1,), (p, out))
    assert out.get().tolist() == [-7.5, 7.0]

    m = rng.standard_normal((4, 4)).astype(numpy.float32)
    v = rng.standard_normal((6, 4)).astype(numpy.float32)
    dout = kiln.zeros((6, 4), dtype=kiln.float32)
    structs.get_function('transform')((1,), (8,), (numpy.array([(m,)], dtype=MAT4), kiln.asarray(v), dout, 6))
    numpy.testing.assert_allclose(dout.get(), v @ m.T, rtol=1e-5, atol=1e-6)


def test_struct_argument_errors(structs):
    weigh = structs.get_function('weigh')
    out = kiln.zeros(2, dtype=kiln.float64)
    short = numpy.dtype({'names': ['mass', 'charge'], 'formats': [numpy.float64, numpy.float32]})   # 12 bytes
    with pytest.raises(TypeError, match=r"argument 0 .*12 bytes, the parameter 16.*align=True"):
        weigh((1,), (1,), (numpy.zeros(1, dtype=short), out))
    with pytest.raises(TypeError, match=r"argument 0 .*NumPy .*void has 12 bytes, the parameter 16"):
        weigh((1,), (1,), (numpy.zeros(1, dtype=short)[0], out))
    with pytest.raises(TypeError, match=r"argument 0 .*structured array of one element.*size 2"):
        weigh((1,), (1,), (numpy.zeros(2, dtype=PARTICLE), out))
    with pytest.raises(TypeError, match=r"argument 1 .*numpy.ndarray is host memory.*kiln.asarray"):
        weigh((1,), (1,), (numpy.zeros(1, dtype=PARTICLE), numpy.zeros(2)))


def test_vector_types_have_the_devices_layout():
    src = r'''
extern "C" __global__ void sizes(unsigned* out) {
    out[0] = sizeof(double3); out[1] = alignof(double3); out[2] = sizeof(float4); out[3] = alignof(float4);
    out[4] = sizeof(int2); out[5] = alignof(int2); out[6] = sizeof(char3); out[7] = alignof(double2);
    out[8] = sizeof(longlong2); out[9] = alignof(longlong2); out[10] = sizeof(ushort4); out[11] = alignof(ushort4);
}'''
    out = kiln.zeros(12, dtype=kiln.uint32)
    kiln.RawKernel(src, 'sizes')((1,), (1,), (out,))
    assert out.get().tolist() == [24, 8, 16, 16, 8, 8, 3, 16, 16, 16, 8, 8]


# ---- launch keywords (Note [Launch keywords]) ----

SGEMM = r'''
#define TILE 8
extern "C" __global__ void sgemm(const float* A, const float* B, float* C, int m, int n, int k) {
    extern __shared__ float tiles[];
    float* As = tiles;
    float* Bs = tiles + TILE * TILE;
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y * TILE + threadIdx.x] = (row < m && ka < k) ? A[row * k + ka] : 0.0f;
        Bs[threadIdx.y * TILE + threadIdx.x] = (kb < k && col < n) ? B[kb * n + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < TILE; ++q) acc += As[threadIdx.y * TILE + q] * Bs[q * TILE + threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = acc;
}'''


def test_tiled_sgemm_with_args_and_shared_mem_keywords(rng):
    m, n, k = 11, 13, 10
    a = rng.standard_normal((m, k)).astype(numpy.float32)
    b = rng.standard_normal((k, n)).astype(numpy.float32)
    c = kiln.zeros((m, n), dtype=kiln.float32)
    kern = kiln.RawKernel(SGEMM, 'sgemm')
    grid, block = ((n + 7) // 8, (m + 7) // 8), (8, 8)
    args = (kiln.asarray(a), kiln.asarray(b), c, m, n, k)
    kern(grid, block, args=args, shared_mem=2 * 8 * 8 * 4)
    numpy.testing.assert_allclose(c.get(), a @ b, rtol=1e-5, atol=1e-5)
    c.fill(0)
    kern.kernel(grid, block, args=args, shared_mem=2 * 8 * 8 * 4, stream=kiln.cuda.Stream.null,
                enable_cooperative_groups=False)
    numpy.testing.assert_allclose(c.get(), a @ b, rtol=1e-5, atol=1e-5)


def test_enable_cooperative_groups_at_launch():
    src = r'''
#include <cooperative_groups.h>
extern "C" __global__ void ring(int* x, int* y) {
    cooperative_groups::grid_group g = cooperative_groups::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    x[i] = i + 1;
    g.sync();
    y[i] = x[(i + 1) % n];
}'''
    x, y = kiln.zeros(8, dtype=kiln.int32), kiln.zeros(8, dtype=kiln.int32)
    kiln.RawKernel(src, 'ring')((2,), (4,), (x, y), enable_cooperative_groups=True)
    assert y.get().tolist() == [2, 3, 4, 5, 6, 7, 8, 1]


# ---- the host prelude's names (Note [Host prelude names]) ----

OWN_NAMES = r'''
typedef unsigned long long uint64_t;
typedef long long int64_t;
typedef int int32_t;
typedef long long intptr_t;
typedef long long ssize_t;
typedef unsigned int uint;
template <typename T> __device__ T min(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ T max(T a, T b) { return a < b ? b : a; }
__device__ float lerp(float a, float b, float t) { return a + t * (b - a); }
__device__ double beta(double a, double b) { return exp(lgamma(a) + lgamma(b) - lgamma(a + b)); }
__device__ float hypot(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }   // a 3-D norm
static_assert(sizeof(hypot(3.0f, 4.0f)) == 4 && sizeof(sqrt(2.0f)) == 4, "float overloads as CUDA's");
extern "C" __global__ void own_names(const int64_t* x, uint64_t* big, float* f, double* d, int32_t n) {
    ssize_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    big[i] = (uint64_t)x[i] * 0x9e3779b97f4a7c15ULL;
    uint k = (uint)min<intptr_t>(x[i], 3);
    f[i] = lerp(0.0f, 10.0f, 0.25f * k) + max(1.5f, 0.5f) + hypot(2.0f * k, 3.0f * k, 6.0f * k);
    d[i] = beta(1.0 + k, 2.0);
}'''


def test_kernel_with_its_own_stdint_typedefs_and_helpers():
    x = numpy.array([0, 1, 2, 5, 7], dtype=numpy.int64)
    big, f, d = kiln.zeros(5, dtype=kiln.uint64), kiln.zeros(5, dtype=kiln.float32), kiln.zeros(5, dtype=kiln.float64)
    kiln.RawKernel(OWN_NAMES, 'own_names')((1,), (8,), (kiln.asarray(x), big, f, d, 5))
    with numpy.errstate(over='ignore'):
        numpy.testing.assert_array_equal(big.get(), x.astype(numpy.uint64) * numpy.uint64(0x9e3779b97f4a7c15))
    k = numpy.minimum(x, 3).astype(numpy.uint32).astype(numpy.float64)
    numpy.testing.assert_allclose(f.get(), (9.5 * k + 1.5).astype(numpy.float32), rtol=1e-6)   # hypot: 7k
    want = [math.exp(math.lgamma(1 + kk) + math.lgamma(2) - math.lgamma(3 + kk)) for kk in k]
    numpy.testing.assert_allclose(d.get(), want, rtol=1e-10)   # the device's lgamma: a few ulps


def test_libcudacxx_cstdint_on_both_backends():
    # NVRTC code gets the fixed-width types from <cuda/std/cstdint>, 64-bit ones as long long;
    # the kernel's own typedef of the same type is then a harmless redeclaration.
    src = r'''
#include <cuda/std/cstdint>
typedef unsigned long long uint64_t;
extern "C" __global__ void widen(const cuda::std::int32_t* x, uint64_t* y, intptr_t n) {
    intptr_t i = threadIdx.x;
    if (i < n) y[i] = (uint64_t)(int64_t)x[i] << 33;
}'''
    x = numpy.array([1, -1, 7], dtype=numpy.int32)
    y = kiln.zeros(3, dtype=kiln.uint64)
    kiln.RawKernel(src, 'widen')((1,), (4,), (kiln.asarray(x), y, 3))
    numpy.testing.assert_array_equal(y.get(), x.astype(numpy.int64).astype(numpy.uint64) << numpy.uint64(33))
