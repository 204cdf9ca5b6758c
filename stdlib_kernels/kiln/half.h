// kiln::half: IEEE binary16 storage with arithmetic and comparisons done in
// float, for generated kernels. Compiles under NVRTC and hiprtc (no SDK
// headers: no cuda_fp16.h) and under the host compiler, through the host
// prelude or as plain C++.
//
//   kiln::half h = 1.5f;           // from float, double, any integer or bool
//   float f = h;                    // exact
//   int i = (int)h;                 // through float, truncating (NumPy's cast)
//   h = h * 2.0f + kiln::half(1);  // half op float -> float; half op half -> half
//
// Note [Half conversions are NumPy's]
// Every conversion is integer bit manipulation, on device as on host, so the
// results are bit-identical to NumPy's on every backend:
// - float and double round to nearest, ties to even, straight to binary16
//   (a double is NOT rounded through float first: 1 + 2^-11 + 2^-40 rounds up
//   directly but would tie, and round down, through float); values from 65520
//   up overflow to inf; results below 2^-14 are subnormal or zero.
// - NaN stays NaN with its sign and the top 10 bits of its payload, not
//   quieted; a payload that would vanish becomes 1 (0x7fc00000 -> 0x7e00,
//   0x7f800001 -> 0x7c01), as NumPy does. PTX's cvt would give the canonical
//   0x7fff instead, which is why it is not used.
// - binary16 -> float and double is exact, subnormals and payloads included.
// - integers go through float (exact below 2^24; anything above overflows
//   binary16 anyway); to integers through float, truncating, as NumPy does.
#pragma once

#ifndef KILN_HOST_DEVICE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__) || \
    defined(__global__)  // a device compiler, or the host prelude (which defines __host__ __device__)
#define KILN_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define KILN_HOST_DEVICE inline
#endif
#endif

namespace kiln {
namespace detail {

KILN_HOST_DEVICE unsigned int float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  unsigned int u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
#endif
}
KILN_HOST_DEVICE float bits_float(unsigned int u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
#endif
}
KILN_HOST_DEVICE unsigned long long double_bits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned long long>(__double_as_longlong(d));
#else
  unsigned long long u;
  __builtin_memcpy(&u, &d, sizeof u);
  return u;
#endif
}
KILN_HOST_DEVICE double bits_double(unsigned long long u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  __builtin_memcpy(&d, &u, sizeof d);
  return d;
#endif
}

// m >> shift rounded to nearest, ties to even (0 < shift < 64).
KILN_HOST_DEVICE unsigned long long shift_right_rne(unsigned long long m, int shift) {
  unsigned long long q = m >> shift;
  unsigned long long rest = m & ((1ull << shift) - 1ull);
  unsigned long long tie = 1ull << (shift - 1);
  if (rest > tie || (rest == tie && (q & 1ull))) ++q;
  return q;
}

// A finite or infinite/NaN binary floating-point value with `mant_bits`
// fraction bits and exponent bias `bias`, given as (sign, biased exponent,
// fraction), rounded to binary16 bits. See Note [Half conversions are NumPy's].
KILN_HOST_DEVICE unsigned short round_to_half(unsigned int sign, int exp, unsigned long long frac, int mant_bits,
                                              int exp_all_ones, int bias) {
  const unsigned short s = static_cast<unsigned short>(sign << 15);
  if (exp == exp_all_ones) {
    if (frac == 0) return static_cast<unsigned short>(s | 0x7c00u);
    const unsigned short payload = static_cast<unsigned short>((frac >> (mant_bits - 10)) & 0x3ffu);
    return static_cast<unsigned short>(s | 0x7c00u | (payload ? payload : 1u));
  }
  const int e = exp - bias;  // unbiased exponent of a normal input
  if (e >= 16) return static_cast<unsigned short>(s | 0x7c00u);
  if (e >= -14) {
    // Normal binary16 (or rounds up to inf): the carry out of the fraction
    // walks into the exponent field.
    unsigned long long combined = (static_cast<unsigned long long>(e + 15) << mant_bits) | frac;
    unsigned long long h = shift_right_rne(combined, mant_bits - 10);
    if (h >= 0x7c00u) h = 0x7c00u;
    return static_cast<unsigned short>(s | h);
  }
  if (exp == 0) return s;  // input zero or subnormal: far below 2^-25
  // Subnormal binary16: units of 2^-24.
  const unsigned long long m = frac | (1ull << mant_bits);
  const int shift = mant_bits - 24 - e;  // value = m * 2^(e - mant_bits) = (m >> shift) * 2^-24
  if (shift >= 64) return s;
  return static_cast<unsigned short>(s | shift_right_rne(m, shift));
}

KILN_HOST_DEVICE unsigned short float_to_half_bits(float f) {
  const unsigned int u = float_bits(f);
  return round_to_half(u >> 31, static_cast<int>((u >> 23) & 0xffu), u & 0x7fffffu, 23, 0xff, 127);
}
KILN_HOST_DEVICE unsigned short double_to_half_bits(double d) {
  const unsigned long long u = double_bits(d);
  return round_to_half(static_cast<unsigned int>(u >> 63), static_cast<int>((u >> 52) & 0x7ffu),
                       u & 0xfffffffffffffull, 52, 0x7ff, 1023);
}
KILN_HOST_DEVICE float half_bits_to_float(unsigned short h) {
  const unsigned int sign = static_cast<unsigned int>(h & 0x8000u) << 16;
  const unsigned int exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (frac << 13));
  if (exp == 0) {
    const float magnitude = static_cast<float>(frac) * 5.9604644775390625e-08f;  // frac * 2^-24, exact
    return sign ? -magnitude : magnitude;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (frac << 13));
}

template <class T> struct is_half_operand { static constexpr bool value = false; };
#define KILN_HALF_OPERAND(T) \
  template <> struct is_half_operand<T> { static constexpr bool value = true; };
KILN_HALF_OPERAND(bool)
KILN_HALF_OPERAND(char)
KILN_HALF_OPERAND(signed char)
KILN_HALF_OPERAND(unsigned char)
KILN_HALF_OPERAND(short)
KILN_HALF_OPERAND(unsigned short)
KILN_HALF_OPERAND(int)
KILN_HALF_OPERAND(unsigned int)
KILN_HALF_OPERAND(long)
KILN_HALF_OPERAND(unsigned long)
KILN_HALF_OPERAND(long long)
KILN_HALF_OPERAND(unsigned long long)
KILN_HALF_OPERAND(float)
KILN_HALF_OPERAND(double)
#undef KILN_HALF_OPERAND

template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };

}  // namespace detail

// The members a 16-bit float storage type F16 shares (kiln::half here,
// kiln::bfloat16 in bfloat16.h): integers convert through float; its bits;
// negation flips the sign bit; the compound operators compute in float.
#define KILN_FLOAT16_MEMBERS(F16)                                                                         \
  KILN_HOST_DEVICE F16(char v) : F16(static_cast<float>(v)) {}                                             \
  KILN_HOST_DEVICE F16(signed char v) : F16(static_cast<float>(v)) {}                                      \
  KILN_HOST_DEVICE F16(unsigned char v) : F16(static_cast<float>(v)) {}                                    \
  KILN_HOST_DEVICE F16(short v) : F16(static_cast<float>(v)) {}                                            \
  KILN_HOST_DEVICE F16(unsigned short v) : F16(static_cast<float>(v)) {}                                   \
  KILN_HOST_DEVICE F16(int v) : F16(static_cast<float>(v)) {}                                              \
  KILN_HOST_DEVICE F16(unsigned int v) : F16(static_cast<float>(v)) {}                                     \
  KILN_HOST_DEVICE F16(long v) : F16(static_cast<float>(v)) {}                                             \
  KILN_HOST_DEVICE F16(unsigned long v) : F16(static_cast<float>(v)) {}                                    \
  KILN_HOST_DEVICE F16(long long v) : F16(static_cast<float>(v)) {}                                        \
  KILN_HOST_DEVICE F16(unsigned long long v) : F16(static_cast<float>(v)) {}                               \
  static KILN_HOST_DEVICE F16 from_bits(unsigned short b) {                                                \
    F16 h;                                                                                                 \
    h.bits_ = b;                                                                                           \
    return h;                                                                                              \
  }                                                                                                        \
  KILN_HOST_DEVICE unsigned short bits() const { return bits_; }                                           \
  KILN_HOST_DEVICE F16 operator-() const { return from_bits(static_cast<unsigned short>(bits_ ^ 0x8000u)); } \
  KILN_HOST_DEVICE F16 operator+() const { return *this; }                                                 \
  KILN_HOST_DEVICE F16& operator+=(F16 o) { return *this = F16(float(*this) + float(o)); }                 \
  KILN_HOST_DEVICE F16& operator-=(F16 o) { return *this = F16(float(*this) - float(o)); }                 \
  KILN_HOST_DEVICE F16& operator*=(F16 o) { return *this = F16(float(*this) * float(o)); }                 \
  KILN_HOST_DEVICE F16& operator/=(F16 o) { return *this = F16(float(*this) / float(o)); }

struct half {
  unsigned short bits_;

  half() = default;
  KILN_HOST_DEVICE half(float f) : bits_(detail::float_to_half_bits(f)) {}
  KILN_HOST_DEVICE half(double d) : bits_(detail::double_to_half_bits(d)) {}
  KILN_HOST_DEVICE half(bool b) : bits_(b ? 0x3c00u : 0u) {}
  KILN_FLOAT16_MEMBERS(half)

  // Every other conversion (double, integers, bool: nonzero, NaN included)
  // goes through this one.
  KILN_HOST_DEVICE operator float() const { return detail::half_bits_to_float(bits_); }
};

static_assert(sizeof(half) == 2, "kiln::half is binary16 storage");

// The operators of a 16-bit float storage type F16 (kiln::half here,
// kiln::bfloat16 in bfloat16.h), which computes in float: F16 op F16 and
// F16 op (an integer or bool) round the float result back to F16; with
// float or double the result is that type; comparisons compare floats.
#define KILN_FLOAT16_BINARY(F16, op)                                                                    \
  KILN_HOST_DEVICE F16 operator op(F16 a, F16 b) { return F16(float(a) op float(b)); }                  \
  KILN_HOST_DEVICE float operator op(F16 a, float b) { return float(a) op b; }                          \
  KILN_HOST_DEVICE float operator op(float a, F16 b) { return a op float(b); }                          \
  KILN_HOST_DEVICE double operator op(F16 a, double b) { return static_cast<double>(float(a)) op b; }   \
  KILN_HOST_DEVICE double operator op(double a, F16 b) { return a op static_cast<double>(float(b)); }   \
  template <class T, class = typename detail::enable_if<detail::is_half_operand<T>::value>::type>       \
  KILN_HOST_DEVICE F16 operator op(F16 a, T b) { return F16(float(a) op static_cast<float>(b)); }       \
  template <class T, class = typename detail::enable_if<detail::is_half_operand<T>::value>::type>       \
  KILN_HOST_DEVICE F16 operator op(T a, F16 b) { return F16(static_cast<float>(a) op float(b)); }
#define KILN_FLOAT16_COMPARE(F16, op)                                                                   \
  KILN_HOST_DEVICE bool operator op(F16 a, F16 b) { return float(a) op float(b); }                      \
  KILN_HOST_DEVICE bool operator op(F16 a, float b) { return float(a) op b; }                           \
  KILN_HOST_DEVICE bool operator op(float a, F16 b) { return a op float(b); }                           \
  KILN_HOST_DEVICE bool operator op(F16 a, double b) { return static_cast<double>(float(a)) op b; }     \
  KILN_HOST_DEVICE bool operator op(double a, F16 b) { return a op static_cast<double>(float(b)); }     \
  template <class T, class = typename detail::enable_if<detail::is_half_operand<T>::value>::type>       \
  KILN_HOST_DEVICE bool operator op(F16 a, T b) { return float(a) op static_cast<float>(b); }           \
  template <class T, class = typename detail::enable_if<detail::is_half_operand<T>::value>::type>       \
  KILN_HOST_DEVICE bool operator op(T a, F16 b) { return static_cast<float>(a) op float(b); }
#define KILN_FLOAT16_OPERATORS(F16)                                                                     \
  KILN_FLOAT16_BINARY(F16, +) KILN_FLOAT16_BINARY(F16, -) KILN_FLOAT16_BINARY(F16, *)                   \
  KILN_FLOAT16_BINARY(F16, /) KILN_FLOAT16_COMPARE(F16, ==) KILN_FLOAT16_COMPARE(F16, !=)               \
  KILN_FLOAT16_COMPARE(F16, <) KILN_FLOAT16_COMPARE(F16, <=) KILN_FLOAT16_COMPARE(F16, >)               \
  KILN_FLOAT16_COMPARE(F16, >=)

KILN_FLOAT16_OPERATORS(half)

}  // namespace kiln

// The host backend's launcher checks scalar arguments by kind (host prelude
// only): a Python float may be passed for a kiln::half parameter.
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC__) && !defined(__HIPCC_RTC__) && \
    defined(__global__)
template <> struct kiln_host::param_kind<kiln::half> {
  static constexpr unsigned char value = kiln_host::kFloat;
};
#endif
