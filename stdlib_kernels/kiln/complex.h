// kiln::complex<T> (T float or double) for generated kernels: NumPy's
// complex64 and complex128 layout (two T, aligned as T), arithmetic,
// ==/!=, and NumPy's casts. Compiles under NVRTC and hiprtc (no SDK headers)
// and under the host compiler, through the host prelude or as plain C++.
//
//   kiln::complex<float> z(1.0f, 2.0f), w = 3;    // from any real scalar: imaginary part 0
//   z = z * w + 1.5f;                             // complex op real, real op complex
//   kiln::complex<double> d = z;                  // widening; narrowing needs a cast
//   float re = (float)z;                          // real part (NumPy's complex -> real cast)
//   bool nz = (bool)z;                            // either part nonzero
#pragma once

#include "kiln/bfloat16.h"
#include "kiln/half.h"

namespace kiln {
namespace detail {

// The real scalar types a complex converts from and (explicitly) to.
template <class T> struct is_real_scalar { static constexpr bool value = is_half_operand<T>::value; };
template <> struct is_real_scalar<half> { static constexpr bool value = true; };
template <> struct is_real_scalar<bfloat16> { static constexpr bool value = true; };

template <class A, class B> struct is_same_type { static constexpr bool value = false; };
template <class A> struct is_same_type<A, A> { static constexpr bool value = true; };

template <class T> struct is_complex_part { static constexpr bool value = false; };
template <> struct is_complex_part<float> { static constexpr bool value = true; };
template <> struct is_complex_part<double> { static constexpr bool value = true; };

}  // namespace detail

template <class T>
struct complex {
  static_assert(detail::is_complex_part<T>::value, "kiln::complex<T> needs T = float or double");
  typedef T value_type;
  T re_, im_;

  complex() = default;
  KILN_HOST_DEVICE complex(T re, T im) : re_(re), im_(im) {}
  // From a real scalar (half, bfloat16, float, double, an integer, bool): imaginary part 0.
  template <class R, class = typename detail::enable_if<detail::is_real_scalar<R>::value>::type>
  KILN_HOST_DEVICE complex(R re) : re_(static_cast<T>(re)), im_(T(0)) {}
  // Between precisions, each part converted: widening is implicit, narrowing
  // (rounding to nearest) explicit.
  template <class U, typename detail::enable_if<(sizeof(U) < sizeof(T)), int>::type = 0>
  KILN_HOST_DEVICE complex(const complex<U>& z) : re_(static_cast<T>(z.real())), im_(static_cast<T>(z.imag())) {}
  template <class U, typename detail::enable_if<(sizeof(U) > sizeof(T)), int>::type = 0>
  KILN_HOST_DEVICE explicit complex(const complex<U>& z)
      : re_(static_cast<T>(z.real())), im_(static_cast<T>(z.imag())) {}

  // Assignment converts from either precision, narrowing included, as
  // Thrust's (and so CuPy's kernels: `z = complex<double>(...)` into a
  // complex64 output).
  complex& operator=(const complex&) = default;
  template <class U>
  KILN_HOST_DEVICE complex& operator=(const complex<U>& z) {
    re_ = static_cast<T>(z.real());
    im_ = static_cast<T>(z.imag());
    return *this;
  }

  KILN_HOST_DEVICE T real() const { return re_; }
  KILN_HOST_DEVICE T imag() const { return im_; }
  KILN_HOST_DEVICE void real(T v) { re_ = v; }
  KILN_HOST_DEVICE void imag(T v) { im_ = v; }

  // To a real type: the real part, as NumPy's complex -> real cast (NumPy
  // also warns ComplexWarning; that is the caller's business).
  template <class R, class = typename detail::enable_if<detail::is_real_scalar<R>::value &&
                                                         !detail::is_same_type<R, bool>::value>::type>
  KILN_HOST_DEVICE explicit operator R() const {
    return static_cast<R>(re_);
  }
  // To bool: either part nonzero (NaN counts as nonzero).
  KILN_HOST_DEVICE explicit operator bool() const { return re_ != T(0) || im_ != T(0); }

  KILN_HOST_DEVICE complex operator-() const { return complex(-re_, -im_); }
  KILN_HOST_DEVICE complex operator+() const { return *this; }
  KILN_HOST_DEVICE complex& operator+=(const complex& o) { return *this = *this + o; }
  KILN_HOST_DEVICE complex& operator-=(const complex& o) { return *this = *this - o; }
  KILN_HOST_DEVICE complex& operator*=(const complex& o) { return *this = *this * o; }
  KILN_HOST_DEVICE complex& operator/=(const complex& o) { return *this = *this / o; }

  KILN_HOST_DEVICE friend complex operator+(const complex& a, const complex& b) {
    return complex(a.re_ + b.re_, a.im_ + b.im_);
  }
  KILN_HOST_DEVICE friend complex operator-(const complex& a, const complex& b) {
    return complex(a.re_ - b.re_, a.im_ - b.im_);
  }
  KILN_HOST_DEVICE friend complex operator*(const complex& a, const complex& b) {
    return complex(a.re_ * b.re_ - a.im_ * b.im_, a.re_ * b.im_ + a.im_ * b.re_);
  }
  // Smith's algorithm: scales by the larger part of b so |b|^2 cannot
  // overflow or underflow on its own.
  KILN_HOST_DEVICE friend complex operator/(const complex& a, const complex& b) {
    const T abs_br = b.re_ < T(0) ? -b.re_ : b.re_;
    const T abs_bi = b.im_ < T(0) ? -b.im_ : b.im_;
    if (abs_br >= abs_bi) {
      if (abs_br == T(0) && abs_bi == T(0)) return complex(a.re_ / abs_br, a.im_ / abs_bi);
      const T rat = b.im_ / b.re_, scl = T(1) / (b.re_ + b.im_ * rat);
      return complex((a.re_ + a.im_ * rat) * scl, (a.im_ - a.re_ * rat) * scl);
    }
    const T rat = b.re_ / b.im_, scl = T(1) / (b.im_ + b.re_ * rat);
    return complex((a.re_ * rat + a.im_) * scl, (a.im_ * rat - a.re_) * scl);
  }
  KILN_HOST_DEVICE friend bool operator==(const complex& a, const complex& b) {
    return a.re_ == b.re_ && a.im_ == b.im_;
  }
  KILN_HOST_DEVICE friend bool operator!=(const complex& a, const complex& b) { return !(a == b); }
};

static_assert(sizeof(complex<float>) == 8 && sizeof(complex<double>) == 16, "NumPy's complex layout");

// complex<T> op real and real op complex<T>: the real operand converted to
// complex<T> (friends above are found for complex op complex only).
#define KILN_COMPLEX_MIXED(ret, op)                                                                   \
  template <class T, class R, class = typename detail::enable_if<detail::is_real_scalar<R>::value>::type> \
  KILN_HOST_DEVICE ret operator op(const complex<T>& a, R b) { return a op complex<T>(b); }           \
  template <class T, class R, class = typename detail::enable_if<detail::is_real_scalar<R>::value>::type> \
  KILN_HOST_DEVICE ret operator op(R a, const complex<T>& b) { return complex<T>(a) op b; }
KILN_COMPLEX_MIXED(complex<T>, +)
KILN_COMPLEX_MIXED(complex<T>, -)
KILN_COMPLEX_MIXED(complex<T>, *)
KILN_COMPLEX_MIXED(complex<T>, /)
KILN_COMPLEX_MIXED(bool, ==)
KILN_COMPLEX_MIXED(bool, !=)
#undef KILN_COMPLEX_MIXED

template <class T>
KILN_HOST_DEVICE T real(const complex<T>& z) { return z.real(); }
template <class T>
KILN_HOST_DEVICE T imag(const complex<T>& z) { return z.imag(); }
template <class T>
KILN_HOST_DEVICE complex<T> conj(const complex<T>& z) { return complex<T>(z.real(), -z.imag()); }

}  // namespace kiln

// The host backend's launcher checks scalar arguments by kind (host prelude only).
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC__) && !defined(__HIPCC_RTC__) && \
    defined(__global__)
template <> struct kiln_host::param_kind<kiln::complex<float>> {
  static constexpr unsigned char value = kiln_host::kComplex;
};
template <> struct kiln_host::param_kind<kiln::complex<double>> {
  static constexpr unsigned char value = kiln_host::kComplex;
};
#endif
