// stdlib_kernels/kiln/philox.h run as kernels on the host backend: Random123's
// known answers for Philox4x32-10, the counter layout of Note [Random
// counters], exact uniforms, and the bounds of kiln::random::bounded.
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/cpp/host_kernel_fixture.h"

namespace kiln::runtime {
namespace {

class PhiloxTest : public testing::HostKernelTest {};

TEST_F(PhiloxTest, KnownAnswers) {
  ModuleHandle m = load(R"(
#include <kiln/philox.h>
extern "C" __global__ void k(const unsigned* in, unsigned* out) {
  const unsigned* c = in + 6 * threadIdx.x;
  unsigned x[4] = {c[0], c[1], c[2], c[3]};
  kiln::random::philox4x32_10(x, c[4], c[5]);
  for (int j = 0; j < 4; ++j) out[4 * threadIdx.x + j] = x[j];
}
)");
  // counter words, key words; then the expected output (Random123's kat_vectors)
  const uint32_t cases[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
       0x5001e420, 0x24126ea1}};
  unsigned* in = alloc<unsigned>(18);
  unsigned* out = alloc<unsigned>(12);
  for (int c = 0; c < 3; ++c)
    for (int j = 0; j < 6; ++j) in[6 * c + j] = cases[c][j];
  void* args[] = {&in, &out};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {3, 1, 1}, 0, nullptr, args);
  for (int c = 0; c < 3; ++c)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[4 * c + j], cases[c][6 + j]) << "case " << c << " word " << j;
  be_->deallocate(in);
  be_->deallocate(out);
}

TEST_F(PhiloxTest, CountersCarryAndDrawsMoveTheHighHalf) {
  ModuleHandle m = load(R"(
#include <kiln/philox.h>
extern "C" __global__ void k(unsigned* out) {
  // unit 1 of a call at counter 2^64 - 1 is counter 2^64: the carry
  unsigned a[4], b[4] = {0, 0, 1, 0};
  kiln::random::block(a, 7u, 9u, ~0ull, 0ull, 1ull, 0ull);
  kiln::random::philox4x32_10(b, 7u, 9u);
  // draw d = 2 of unit 5 at counter 0 is counter 5 + 2 * 2^64
  unsigned c[4], d[4] = {5, 0, 2, 0};
  kiln::random::block(c, 7u, 9u, 0ull, 0ull, 5ull, 2ull);
  kiln::random::philox4x32_10(d, 7u, 9u);
  // a Stream hands out the words of blocks 0, 1, ... in order
  kiln::random::Stream s(7u, 9u, 0ull, 0ull, 5ull);
  unsigned e[4];
  kiln::random::block(e, 7u, 9u, 0ull, 0ull, 5ull, 1ull);
  for (int j = 0; j < 4; ++j) s.next32();
  int same = 0;
  for (int j = 0; j < 4; ++j) same += (a[j] == b[j]) + (c[j] == d[j]) + (s.next32() == e[j]);
  out[0] = same;
}
)");
  unsigned* out = alloc<unsigned>(1);
  void* args[] = {&out};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {1, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(out[0], 12u);
  be_->deallocate(out);
}

TEST_F(PhiloxTest, UniformsAreExactAndInRange) {
  ModuleHandle m = load(R"(
#include <kiln/philox.h>
extern "C" __global__ void k(const unsigned* w, float* f, double* d) {
  const unsigned i = threadIdx.x;
  f[2 * i] = kiln::random::Uniform<float>::co(w + i);
  f[2 * i + 1] = kiln::random::Uniform<float>::oo(w + i);
  d[2 * i] = kiln::random::Uniform<double>::co(w + 2 * i);
  d[2 * i + 1] = kiln::random::Uniform<double>::oo(w + 2 * i);
}
)");
  unsigned* w = alloc<unsigned>(4);
  float* f = alloc<float>(4);
  double* d = alloc<double>(4);
  w[0] = 0;
  w[1] = ~0u;
  w[2] = ~0u;
  w[3] = ~0u;
  void* args[] = {&w, &f, &d};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {2, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(f[0], 0.0f);                    // [0, 1) reaches 0
  EXPECT_EQ(f[1], 0.5f / 8388608.0f);       // (0, 1): half a step above 0
  EXPECT_EQ(f[2], 1.0f - 1.0f / 16777216.0f);   // the largest below 1
  EXPECT_EQ(f[3], 1.0f - 0.5f / 8388608.0f);
  EXPECT_EQ(d[0], static_cast<double>(0xFFFFFFFFull >> 11) * 0x1p-53);   // words 0 and ~0
  EXPECT_EQ(d[2], 1.0 - 0x1p-53);
  EXPECT_EQ(d[3], 1.0 - 0x1p-53);
  be_->deallocate(w);
  be_->deallocate(f);
  be_->deallocate(d);
}

TEST_F(PhiloxTest, BoundedStaysInRangeAndReachesBothEnds) {
  ModuleHandle m = load(R"(
#include <kiln/philox.h>
extern "C" __global__ void k(const unsigned long long* spans, unsigned long long* lo, unsigned long long* hi,
                             int n) {
  const unsigned long long m = spans[threadIdx.x];
  unsigned long long a = ~0ull, b = 0;
  for (int e = 0; e < n; ++e) {
    kiln::random::Stream s(1u, 2u, 0ull, 0ull, (unsigned long long)(e + n * threadIdx.x));
    const unsigned long long v = kiln::random::bounded(s, m);
    a = v < a ? v : a;
    b = v > b ? v : b;
  }
  lo[threadIdx.x] = a;
  hi[threadIdx.x] = b;
}
)");
  const unsigned long long spans[4] = {0, 2, 0xFFFFFFFFull, (1ull << 33) + 1};   // 1, 3, 2^32, 2^33 + 2 values
  unsigned long long* s = alloc<unsigned long long>(4);
  unsigned long long* lo = alloc<unsigned long long>(4);
  unsigned long long* hi = alloc<unsigned long long>(4);
  for (int j = 0; j < 4; ++j) s[j] = spans[j];
  int n = 4000;
  void* args[] = {&s, &lo, &hi, &n};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {4, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(lo[0], 0u);
  EXPECT_EQ(hi[0], 0u);
  EXPECT_EQ(lo[1], 0u);
  EXPECT_EQ(hi[1], 2u);
  for (int j = 2; j < 4; ++j) {
    EXPECT_LE(hi[j], spans[j]);
    EXPECT_GT(hi[j], spans[j] - spans[j] / 500);   // 4000 draws come near both ends
    EXPECT_LT(lo[j], spans[j] / 500);
  }
  be_->deallocate(s);
  be_->deallocate(lo);
  be_->deallocate(hi);
}

}  // namespace
}  // namespace kiln::runtime
