// kiln/half.h and kiln/complex.h as plain host C++ (no prelude): exhaustive
// binary16 round trips and rounding at every midpoint, and complex's casts.
// (The same headers under NVRTC and through the host prelude:
// tests/python/engines/test_half_complex_headers.py; against NumPy: test_copy.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kiln/complex.h"
#include "kiln/half.h"

namespace {

using kiln::half;

bool is_nan_bits(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

double next_up(double d) { return std::nextafter(d, INFINITY); }
double next_down(double d) { return std::nextafter(d, -INFINITY); }

TEST(Half, EveryValueRoundTripsThroughFloatAndDouble) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    half h = half::from_bits(static_cast<uint16_t>(b));
    float f = h;
    EXPECT_EQ(half(f).bits(), b) << std::hex << b;
    // float -> double quiets a signalling NaN (as in NumPy): the quiet bit appears.
    uint32_t through_double = is_nan_bits(static_cast<uint16_t>(b)) ? (b | 0x200u) : b;
    EXPECT_EQ(half(static_cast<double>(f)).bits(), through_double) << std::hex << b;
    EXPECT_EQ(std::isnan(f), is_nan_bits(static_cast<uint16_t>(b))) << std::hex << b;
  }
}

TEST(Half, MidpointsRoundToEvenAndNeighboursRoundAway) {
  // Consecutive finite positive halves lo < hi: the midpoint ties to the even
  // one; a hair either side goes to the nearer. 0x7bff..inf: the midpoint 65520 overflows.
  for (uint32_t b = 0; b < 0x7c00u; ++b) {
    double lo = float(half::from_bits(static_cast<uint16_t>(b)));
    double hi = b + 1 == 0x7c00u ? 65536.0 : float(half::from_bits(static_cast<uint16_t>(b + 1)));
    double mid = (lo + hi) / 2;
    uint16_t even = (b & 1u) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    ASSERT_EQ(half(mid).bits(), even) << std::hex << b;
    ASSERT_EQ(half(static_cast<float>(mid)).bits(), even) << std::hex << b;  // mid is exact in float
    ASSERT_EQ(half(next_down(mid)).bits(), b) << std::hex << b;
    ASSERT_EQ(half(next_up(mid)).bits(), b + 1) << std::hex << b;
    ASSERT_EQ(half(-next_up(mid)).bits(), (b + 1) | 0x8000u) << std::hex << b;
  }
}

TEST(Half, DoubleRoundsDirectlyNotThroughFloat) {
  double d = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(half(d).bits(), 0x3c01u);
  EXPECT_EQ(half(static_cast<float>(d)).bits(), 0x3c00u);
}

TEST(Half, SpecialValues) {
  EXPECT_EQ(half(65519.0).bits(), 0x7bffu);
  EXPECT_EQ(half(65520.0f).bits(), 0x7c00u);
  EXPECT_EQ(half(1e300).bits(), 0x7c00u);
  EXPECT_EQ(half(-1e300).bits(), 0xfc00u);
  EXPECT_EQ(half(-0.0).bits(), 0x8000u);
  EXPECT_EQ(half(std::ldexp(1.0, -25)).bits(), 0x0000u);
  EXPECT_EQ(half(std::ldexp(1.0, -25) * 1.0001).bits(), 0x0001u);
  EXPECT_EQ(half(1e-300).bits(), 0x0000u);
  EXPECT_EQ(half(std::numeric_limits<double>::denorm_min()).bits(), 0x0000u);
  EXPECT_EQ(half(NAN).bits(), 0x7e00u);
  uint32_t payload = 0x7f800001u;
  float snan;
  std::memcpy(&snan, &payload, 4);
  EXPECT_EQ(half(snan).bits(), 0x7c01u);  // NumPy keeps it a NaN
  EXPECT_EQ(half(65536ull).bits(), 0x7c00u);
  EXPECT_EQ(half(-2049).bits(), half(-2048.0f).bits());
  EXPECT_EQ(half(true).bits(), 0x3c00u);
}

TEST(Half, ToIntegersTruncateAndArithmeticRoundsOnce) {
  EXPECT_EQ(static_cast<int>(half(-2.75f)), -2);
  EXPECT_EQ(static_cast<unsigned char>(half(200.9f)), 200);
  EXPECT_EQ(static_cast<long long>(half(65504.0f)), 65504);
  EXPECT_TRUE(static_cast<bool>(half(NAN)));
  EXPECT_FALSE(static_cast<bool>(half(-0.0f)));
  EXPECT_EQ((half(1.0f) + half(std::ldexp(1.0f, -11))).bits(), 0x3c00u);  // tie to even
  EXPECT_EQ(half(3.0f) / 2, half(1.5f));
  EXPECT_TRUE(half(1.0f) < 2 && half(2.0f) == 2.0 && half(NAN) != half(NAN));
}

TEST(Complex, CastsAreNumPys) {
  kiln::complex<double> z(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), -3.5);
  EXPECT_EQ(static_cast<half>(z).bits(), 0x3c01u);  // the real part, rounded directly
  EXPECT_EQ(static_cast<int>(kiln::complex<float>(-7.9f, 100.0f)), -7);
  EXPECT_TRUE(static_cast<bool>(kiln::complex<float>(0.0f, -0.5f)));
  EXPECT_FALSE(static_cast<bool>(kiln::complex<float>(-0.0f, 0.0f)));
  kiln::complex<float> narrow(kiln::complex<double>(0.1, 0.2));
  EXPECT_EQ(narrow.real(), 0.1f);
  EXPECT_EQ(narrow.imag(), 0.2f);
  kiln::complex<double> wide = narrow;
  EXPECT_EQ(wide.real(), static_cast<double>(0.1f));
  kiln::complex<float> from_half = half(2.5f);
  EXPECT_EQ(from_half, kiln::complex<float>(2.5f, 0.0f));
  EXPECT_EQ(kiln::complex<double>(true), 1.0);
}

TEST(Complex, Arithmetic) {
  kiln::complex<double> a(1, 2), b(3, -4);
  EXPECT_EQ(a + b, kiln::complex<double>(4, -2));
  EXPECT_EQ(a - b, kiln::complex<double>(-2, 6));
  EXPECT_EQ(a * b, kiln::complex<double>(11, 2));
  EXPECT_EQ(a * b / b, a);
  EXPECT_EQ(2 * a, kiln::complex<double>(2, 4));
  EXPECT_EQ(a / 2.0f, kiln::complex<double>(0.5, 1));
  kiln::complex<float> big(1e30f, 1e30f);
  kiln::complex<float> q = big / big;  // Smith's algorithm: no overflow in |b|^2
  EXPECT_FLOAT_EQ(q.real(), 1.0f);
  EXPECT_FLOAT_EQ(q.imag(), 0.0f);
  EXPECT_TRUE(a != b && !(a == b) && a == kiln::complex<double>(1, 2));
}

}  // namespace
