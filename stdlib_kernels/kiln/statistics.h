// Device helpers of the statistics reductions (arraycore/statistics.cpp
// writes the kernels: mean, var, std, their nan-variants, the arg
// reductions):
//
//   out = kiln::numpy_cast<float>(kiln::stat_div(a.value, (float)a.index));   // a mean: sum / count
//   kiln::ValueIndex<float>{kiln::stat_abs2(x - m), 1LL}                         // a squared deviation
//   kiln::stat_greater(b.value, a.value)                                         // NumPy's order
#pragma once

#include "kiln/strided_index.h"   // KILN_DEVICE
#include "kiln/ufunc_math.h"

namespace kiln {

// A sum over a count: 0 for an integer division by 0; complex divides by
// complex(count, 0), as NumPy does (an infinite part then makes a NaN).
template <class T>
KILN_DEVICE T stat_div(T v, T n) {
  return (T)0.5 == (T)0 && n == (T)0 ? (T)0 : v / n;
}
template <class T>
KILN_DEVICE kiln::complex<T> stat_div(kiln::complex<T> v, T n) {
  return v / kiln::complex<T>(n, (T)0);
}

// |d|^2, real for complex d.
template <class T>
KILN_DEVICE T stat_abs2(T d) {
  return d * d;
}
template <class T>
KILN_DEVICE T stat_abs2(kiln::complex<T> d) {
  return d.real() * d.real() + d.imag() * d.imag();
}

// a > b in NumPy's order: complex numbers lexicographically, real part first.
template <class T>
KILN_DEVICE bool stat_greater(const T& a, const T& b) {
  return a > b;
}
template <class T>
KILN_DEVICE bool stat_greater(const kiln::complex<T>& a, const kiln::complex<T>& b) {
  return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
}

}  // namespace kiln
