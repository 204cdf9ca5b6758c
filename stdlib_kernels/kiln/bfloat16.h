// kiln::bfloat16: bfloat16 storage (the top 16 bits of an IEEE binary32:
// sign, 8 exponent bits, 7 fraction bits), NumPy's ml_dtypes.bfloat16, with
// arithmetic and comparisons done in float, for generated kernels. Compiles
// under NVRTC and hiprtc (no SDK headers: no cuda_bf16.h) and under the host
// compiler, through the host prelude or as plain C++.
//
//   kiln::bfloat16 b = 1.5f;            // from float, double, half, any integer or bool
//   float f = b;                         // exact
//   b = b * b + kiln::bfloat16(1);       // bfloat16 op bfloat16 -> bfloat16; op float -> float
//
// Note [Bfloat16 conversions are ml_dtypes']
// As ml_dtypes (whose casts NumPy runs for this dtype) converts, bit for bit
// on every backend:
// - float rounds to nearest, ties to even, to the top 16 bits; a NaN becomes
//   the quiet NaN 0x7fc0 with its sign;
// - double, half and the integers convert to float first (so a double is
//   rounded twice, as ml_dtypes does: it has no direct double conversion);
// - bfloat16 -> float is exact (the bits shifted up); to double through float;
//   to integers through float, truncating, as NumPy's casts from float32
//   (kiln/cast.h).
#pragma once

#include "kiln/half.h"

namespace kiln {
namespace detail {

KILN_HOST_DEVICE unsigned short float_to_bfloat16_bits(float f) {
  const unsigned int u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) & 0x8000u) | 0x7fc0u;
  return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
KILN_HOST_DEVICE float bfloat16_bits_to_float(unsigned short b) {
  return bits_float(static_cast<unsigned int>(b) << 16);
}

}  // namespace detail

struct bfloat16 {
  unsigned short bits_;

  bfloat16() = default;
  KILN_HOST_DEVICE bfloat16(float f) : bits_(detail::float_to_bfloat16_bits(f)) {}
  KILN_HOST_DEVICE bfloat16(double d) : bfloat16(static_cast<float>(d)) {}
  KILN_HOST_DEVICE bfloat16(half h) : bfloat16(static_cast<float>(h)) {}
  KILN_HOST_DEVICE bfloat16(bool b) : bits_(b ? 0x3f80u : 0u) {}
  KILN_FLOAT16_MEMBERS(bfloat16)

  // Every other conversion (double, half, integers, bool: nonzero, NaN
  // included) goes through this one.
  KILN_HOST_DEVICE operator float() const { return detail::bfloat16_bits_to_float(bits_); }
};

static_assert(sizeof(bfloat16) == 2, "kiln::bfloat16 is 16-bit storage");

// bfloat16 op T and T op bfloat16, for T float, double, an integer or bool:
// kiln::half's operators (half.h).
KILN_FLOAT16_OPERATORS(bfloat16)

}  // namespace kiln

// The host backend's launcher checks scalar arguments by kind (host prelude
// only): a Python float may be passed for a kiln::bfloat16 parameter.
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC__) && !defined(__HIPCC_RTC__) && \
    defined(__global__)
template <> struct kiln_host::param_kind<kiln::bfloat16> {
  static constexpr unsigned char value = kiln_host::kFloat;
};
#endif
