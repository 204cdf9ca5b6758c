"""Hand-written row-softmax kernel shapes on (16384, 4096) float32 under CuPy, and kiln.fuse's, on one GPU:
effective GB/s = 2 x bytes of x / time (the measurements behind Note [Row modes] in arraycore/fusion_rows.cpp).

    KILN_BACKEND=cuda python tools/softmax_probe.py
"""
import time

import cupy
import numpy
rows, n = 16384, 4096
x = cupy.random.standard_normal((rows, n), dtype=cupy.float32)

COMMON = r'''
__device__ __forceinline__ float warp_max(float v) { for (int d = 16; d; d >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d)); return v; }
__device__ __forceinline__ float warp_sum(float v) { for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d); return v; }
template <int B> __device__ float block_max(float v, float* buf) {
  v = warp_max(v); __syncthreads(); if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v; __syncthreads();
  float r = buf[0]; for (int w = 1; w < B / 32; ++w) r = fmaxf(r, buf[w]); return r; }
template <int B> __device__ float block_sum(float v, float* buf) {
  v = warp_sum(v); __syncthreads(); if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v; __syncthreads();
  float r = buf[0]; for (int w = 1; w < B / 32; ++w) r += buf[w]; return r; }
'''
SRC = COMMON + r'''
// A: registers, float4, B threads, n = 4096
template <int B>
__device__ void reg(const float* __restrict__ x, float* __restrict__ y, long long n) {
  __shared__ float buf[32];
  constexpr int V = 4096 / 4 / B;
  const float4* xr = reinterpret_cast<const float4*>(x + blockIdx.x * n);
  float4 v[V];
  float m = -__int_as_float(0x7f800000);
  #pragma unroll
  for (int k = 0; k < V; ++k) { v[k] = xr[threadIdx.x + k * B]; m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w))); }
  m = block_max<B>(m, buf);
  float s = 0;
  #pragma unroll
  for (int k = 0; k < V; ++k) { v[k].x = expf(v[k].x - m); v[k].y = expf(v[k].y - m); v[k].z = expf(v[k].z - m); v[k].w = expf(v[k].w - m); s += v[k].x + v[k].y + v[k].z + v[k].w; }
  s = block_sum<B>(s, buf);
  float4* yr = reinterpret_cast<float4*>(y + blockIdx.x * n);
  #pragma unroll
  for (int k = 0; k < V; ++k) { float4 o = v[k]; o.x /= s; o.y /= s; o.z /= s; o.w /= s; yr[threadIdx.x + k * B] = o; }
}
extern "C" __global__ void reg256(const float* x, float* y, long long n) { reg<256>(x, y, n); }
extern "C" __global__ void reg512(const float* x, float* y, long long n) { reg<512>(x, y, n); }
extern "C" __global__ void reg1024(const float* x, float* y, long long n) { reg<1024>(x, y, n); }

// B: float4 staged in dynamic shared memory, general n (multiple of 4), exp recomputed
template <int B>
__device__ void smemv(const float* __restrict__ x, float* __restrict__ y, long long n) {
  __shared__ float buf[32];
  extern __shared__ float4 st[];
  const float4* xr = reinterpret_cast<const float4*>(x + blockIdx.x * n);
  const long long n4 = n / 4;
  float m = -__int_as_float(0x7f800000);
  #pragma unroll 4
  for (long long j = threadIdx.x; j < n4; j += B) { float4 v = xr[j]; st[j] = v; m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w))); }
  m = block_max<B>(m, buf);
  float s = 0;
  #pragma unroll 4
  for (long long j = threadIdx.x; j < n4; j += B) { float4 v = st[j]; s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m); }
  s = block_sum<B>(s, buf);
  float4* yr = reinterpret_cast<float4*>(y + blockIdx.x * n);
  #pragma unroll 4
  for (long long j = threadIdx.x; j < n4; j += B) { float4 v = st[j]; float4 o; o.x = expf(v.x - m) / s; o.y = expf(v.y - m) / s; o.z = expf(v.z - m) / s; o.w = expf(v.w - m) / s; yr[j] = o; }
}
extern "C" __global__ void smemv256(const float* x, float* y, long long n) { smemv<256>(x, y, n); }
extern "C" __global__ void smemv512(const float* x, float* y, long long n) { smemv<512>(x, y, n); }
extern "C" __global__ void smemv1024(const float* x, float* y, long long n) { smemv<1024>(x, y, n); }

// C: scalar staged, general n, exp recomputed (today's shape without strides)
template <int B>
__device__ void smems(const float* __restrict__ x, float* __restrict__ y, long long n) {
  __shared__ float buf[32];
  extern __shared__ float sts[];
  const float* xr = x + blockIdx.x * n;
  float m = -__int_as_float(0x7f800000);
  #pragma unroll 4
  for (long long j = threadIdx.x; j < n; j += B) { float v = xr[j]; sts[j] = v; m = fmaxf(m, v); }
  m = block_max<B>(m, buf);
  float s = 0;
  #pragma unroll 4
  for (long long j = threadIdx.x; j < n; j += B) s += expf(sts[j] - m);
  s = block_sum<B>(s, buf);
  float* yr = y + blockIdx.x * n;
  #pragma unroll 4
  for (long long j = threadIdx.x; j < n; j += B) yr[j] = expf(sts[j] - m) / s;
}
extern "C" __global__ void smems256(const float* x, float* y, long long n) { smems<256>(x, y, n); }
extern "C" __global__ void smems512(const float* x, float* y, long long n) { smems<512>(x, y, n); }
extern "C" __global__ void smems1024(const float* x, float* y, long long n) { smems<1024>(x, y, n); }

// D: copy only (bandwidth ceiling)
extern "C" __global__ void copy4(const float4* __restrict__ x, float4* __restrict__ y, long long n4) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n4; j += (long long)gridDim.x * blockDim.x) y[j] = x[j]; }
'''
mod = cupy.RawModule(code=SRC, options=("-std=c++17",))
y = cupy.empty_like(x)
ref = cupy.exp(x - x.max(axis=1, keepdims=True)); ref /= ref.sum(axis=1, keepdims=True)

def timeit(f, reps=30):
    f(); cupy.cuda.Device().synchronize()
    s, e = cupy.cuda.Event(), cupy.cuda.Event()
    s.record()
    for _ in range(reps): f()
    e.record(); e.synchronize()
    return cupy.cuda.get_elapsed_time(s, e) / reps / 1e3

bytes2 = 2 * x.nbytes
print("card:", cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
for name, B, shm in [("reg256", 256, 0), ("reg512", 512, 0), ("reg1024", 1024, 0),
                     ("smemv256", 256, n * 4), ("smemv512", 512, n * 4), ("smemv1024", 1024, n * 4),
                     ("smems256", 256, n * 4), ("smems512", 512, n * 4), ("smems1024", 1024, n * 4)]:
    k = mod.get_function(name)
    f = lambda: k((rows,), (B,), (x, y, numpy.int64(n)), shared_mem=shm)
    t = timeit(f)
    err = float(cupy.abs(y - ref).max())
    print(f"{name:10s} {bytes2 / t / 1e9:8.0f} GB/s  maxerr {err:.2e}")
k = mod.get_function("copy4")
t = timeit(lambda: k((132 * 16,), (256,), (x, y, numpy.int64(x.size // 4))))
print(f"copy4      {bytes2 / t / 1e9:8.0f} GB/s")
try:
    import kiln
    kx = kiln.asarray(x.get())
    def sm(v):
        e = kiln.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    f = kiln.fuse(sm)
    f(kx); kiln.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(30): f(kx)
    kiln.cuda.Device().synchronize()
    t = (time.perf_counter() - t0) / 30
    print(f"kiln.fuse  {bytes2 / t / 1e9:8.0f} GB/s")
except Exception as ex:
    print("kiln part failed:", type(ex).__name__, ex)
