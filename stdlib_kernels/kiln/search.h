// Device side of searchsorted, digitize, histogram and histogram2d
// (pyfrontend/kiln/_counting.py): NumPy's sort order and a binary search in
// a sorted sequence.
//
//   bool b = kiln::search::less(x, y);                        // NumPy's sort order, NaNs last
//   long long p = kiln::search::position<true>(at, n, v);     // searchsorted(side='right')
//
// Note [Sort order]
// NumPy sorts (and searchsorted, digitize and histogram compare) with an
// order in which NaN follows every number: x < y, or y is NaN and x is not.
// Complex values fall into four classes, in this order: no NaN part, NaN
// imaginary part only, NaN real part only, both NaN; within a class they
// compare lexicographically on their non-NaN parts (so 1 + nanj follows
// 5 + 0j, and every complex NaN of one class is equal to the others).
#pragma once

#include "kiln/complex.h"
#include "kiln/strided_index.h"

namespace kiln {
namespace search {

template <class T>
KILN_DEVICE bool less(const T& a, const T& b) {
  return a < b || (b != b && a == a);   // integers and bool: a < b
}

template <class T>
KILN_DEVICE bool less(const complex<T>& a, const complex<T>& b) {
  const int ca = (a.real() != a.real()) * 2 + (a.imag() != a.imag());
  const int cb = (b.real() != b.real()) * 2 + (b.imag() != b.imag());
  if (ca != cb) return ca < cb;
  if (!(ca & 2) && a.real() != b.real()) return a.real() < b.real();
  return !(ca & 1) && a.imag() < b.imag();
}

// The first position p in [0, n] with at(p) >= v (Right false: NumPy's
// side='left') or at(p) > v (Right true), in the order of less(), for
// at(0) <= at(1) <= ... <= at(n - 1): at(k) is the sequence's k-th element.
template <bool Right, class T, class At>
KILN_DEVICE long long position(const At& at, long long n, const T& v) {
  long long lo = 0, hi = n;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    const T x = at(mid);
    if (Right ? !less(v, x) : less(x, v))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace search
}  // namespace kiln
