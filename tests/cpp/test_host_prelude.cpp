// The host prelude (stdlib_kernels/kiln/host_*.h): CUDA's math, integer and
// conversion intrinsics and vector types, run as kernels on the host backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tests/cpp/host_kernel_fixture.h"

namespace kiln::runtime {
namespace {

class HostPreludeTest : public testing::HostKernelTest {};

TEST_F(HostPreludeTest, VectorTypesAndDim3) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(const float4* in, float2* out, int* dims) {
  float4 v = in[threadIdx.x];
  out[threadIdx.x] = make_float2(v.x + v.y, v.z * v.w);
  dim3 b = blockDim;
  uint3 t = threadIdx;
  if (t.x == 0) { dims[0] = b.x; dims[1] = b.y; dims[2] = (int)sizeof(double2) * 100 + (int)alignof(int4); }
}
)");
  float* in = alloc<float>(8);
  float* out = alloc<float>(4);
  int* dims = alloc<int>(3);
  for (int i = 0; i < 8; ++i) in[i] = static_cast<float>(i + 1);
  void* args[] = {&in, &out, &dims};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {2, 3, 1}, 0, nullptr, args);
  EXPECT_EQ(out[0], 3.0f);   // 1 + 2
  EXPECT_EQ(out[1], 12.0f);  // 3 * 4
  EXPECT_EQ(out[2], 11.0f);  // 5 + 6
  EXPECT_EQ(out[3], 56.0f);  // 7 * 8
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  EXPECT_EQ(dims[2], 1616);
  for (void* p : {(void*)in, (void*)out, (void*)dims}) be_->deallocate(p);
}

TEST_F(HostPreludeTest, MathAndBitIntrinsics) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(float* f, double* d, int* i, unsigned* u) {
  f[0] = __fdividef(1.0f, 4.0f);
  f[1] = rsqrtf(16.0f);
  f[2] = __saturatef(1.5f);
  f[3] = fmaf(2.0f, 3.0f, 1.0f);
  float s, c;
  sincosf(0.0f, &s, &c);
  f[4] = s + c;
  f[5] = min(3.0f, 2);
  f[6] = __int_as_float(0x3f800000);
  f[7] = exp10f(2.0f);
  d[0] = rsqrt(4.0);
  d[1] = __longlong_as_double(__double_as_longlong(2.5));
  d[2] = max(1, 2.5);
  i[0] = __popc(0xF0F0u);
  i[1] = __clz(1);
  i[2] = __ffs(8);
  i[3] = __float2int_rn(2.5f);
  i[4] = __mulhi(1 << 30, 8);
  i[5] = __popcll(0xFFFFFFFFFFull);
  i[6] = max(-3, 2u > 1u ? -7 : 0);
  u[0] = __brev(1u);
  u[1] = __umulhi(0x80000000u, 4u);
  u[2] = min(5u, 7u);
  long long t0 = clock64();
  u[3] = clock64() >= t0;
}
)");
  float* f = alloc<float>(8);
  double* d = alloc<double>(3);
  int* i = alloc<int>(7);
  unsigned* u = alloc<unsigned>(4);
  void* args[] = {&f, &d, &i, &u};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {1, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(f[0], 0.25f);
  EXPECT_EQ(f[1], 0.25f);
  EXPECT_EQ(f[2], 1.0f);
  EXPECT_EQ(f[3], 7.0f);
  EXPECT_EQ(f[4], 1.0f);
  EXPECT_EQ(f[5], 2.0f);
  EXPECT_EQ(f[6], 1.0f);
  EXPECT_FLOAT_EQ(f[7], 100.0f);
  EXPECT_EQ(d[0], 0.5);
  EXPECT_EQ(d[1], 2.5);
  EXPECT_EQ(d[2], 2.5);
  EXPECT_EQ(i[0], 8);
  EXPECT_EQ(i[1], 31);
  EXPECT_EQ(i[2], 4);
  EXPECT_EQ(i[3], 2);  // round half to even
  EXPECT_EQ(i[4], 2);
  EXPECT_EQ(i[5], 40);
  EXPECT_EQ(i[6], -3);
  EXPECT_EQ(u[0], 0x80000000u);
  EXPECT_EQ(u[1], 2u);
  EXPECT_EQ(u[2], 5u);
  EXPECT_EQ(u[3], 1u);
  for (void* p : {(void*)f, (void*)d, (void*)i, (void*)u}) be_->deallocate(p);
}

TEST_F(HostPreludeTest, InverseErrorFunctionsRoundingAndIntegerIntrinsics) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(double* d, float* f, long long* i) {
  const double xs[6] = {-1.5, -0.7, 0.0, 1e-3, 0.4, 1.2};  // well-conditioned points
  double worst = 0.0;
  for (double x : xs) worst = fmax(worst, fabs(erfinv(erf(x)) - x));
  d[0] = worst;
  d[1] = erfcinv(erfc(8.0));      // deep tail: erfc(8) ~ 1.1e-29
  d[2] = normcdfinv(0.975);
  d[3] = erfinv(1.0);
  f[0] = erfinvf(0.5f);
  f[1] = erfcinvf(0.5f);
  f[2] = __fadd_rz(1.0f, 1e-8f);  // truncated back to 1
  f[3] = __fadd_ru(1.0f, 1e-8f);  // rounded up to the next float
  f[4] = __fdiv_rd(1.0f, 3.0f);
  f[5] = __fdiv_ru(1.0f, 3.0f);
  i[0] = __float2int_rn(3e9f);    // saturates
  i[1] = __float2uint_rz(-5.0f);  // saturates at 0
  i[2] = __float2ll_rd(-2.5f);
  i[3] = __double2ull_ru(2.1);
  i[4] = __byte_perm(0x33221100u, 0x77665544u, 0x5410u);
  i[5] = __funnelshift_l(0x80000000u, 0x1u, 1u);
  i[6] = __sad(-3, 4, 10u);
  i[7] = __rhadd(3, 4);
  i[8] = __double2hiint(__hiloint2double(123, 456)) * 1000 + __double2loint(__hiloint2double(123, 456));
  i[9] = __float2int_rn(__int_as_float(0x7fc00000));  // NaN -> 0
  i[10] = llmax(-4LL, -9LL) + umin(3u, 8u);
  i[11] = atomicMax_block((int*)&i[11], 5) == 0;
}
)");
  double* d = alloc<double>(4);
  float* f = alloc<float>(6);
  long long* i = alloc<long long>(12);
  std::memset(i, 0, 12 * sizeof(long long));
  void* args[] = {&d, &f, &i};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {1, 1, 1}, 0, nullptr, args);
  EXPECT_LT(d[0], 1e-14);
  EXPECT_NEAR(d[1], 8.0, 1e-12);
  EXPECT_NEAR(d[2], 1.959963984540054, 1e-13);
  EXPECT_TRUE(std::isinf(d[3]) && d[3] > 0);
  EXPECT_FLOAT_EQ(f[0], 0.47693628f);
  EXPECT_FLOAT_EQ(f[1], 0.47693628f);
  EXPECT_EQ(f[2], 1.0f);
  EXPECT_EQ(f[3], std::nextafter(1.0f, 2.0f));
  EXPECT_LT(f[4], f[5]);
  EXPECT_EQ(f[5], std::nextafter(f[4], 1.0f));
  EXPECT_EQ(i[0], 2147483647);
  EXPECT_EQ(i[1], 0);
  EXPECT_EQ(i[2], -3);
  EXPECT_EQ(i[3], 3);
  EXPECT_EQ(i[4], 0x55441100);
  EXPECT_EQ(i[5], 3);
  EXPECT_EQ(i[6], 17);
  EXPECT_EQ(i[7], 4);
  EXPECT_EQ(i[8], 123456);
  EXPECT_EQ(i[9], 0);
  EXPECT_EQ(i[10], -1);
  EXPECT_EQ(i[11], 1);
  for (void* p : {(void*)d, (void*)f, (void*)i}) be_->deallocate(p);
}

}  // namespace
}  // namespace kiln::runtime
