// Set routines on sorted data (sets.cpp): unique (NumPy's and the array
// API's variants), isin, intersect1d, and the compress step setdiff1d and
// setxor1d compose with.
//
//   UniqueResult u = unique_apply(a, std::nullopt, true, false, true, true);   // values, inverse, counts
//   NDArray found = isin_apply(a, b);                // a's shape, bool: a[i] == some b[j]
//   NDArray kept = compress_flat(x, mask);           // x[mask] for 1-d x and bool mask
//
// Note [Unique by sorting]
// unique sorts the flattened input with its permutation (the sort engine),
// marks each sorted element that differs from its predecessor (NaNs equal to
// each other with equal_nan, as NumPy's unique: for complex, any NaN part),
// scans the marks into group numbers (the scan engine) and scatters: the
// values and first indices of group starts, each element's group to its
// original place (inverse), and counts as differences of group starts. With
// an axis, rows (the subarrays along it) are sorted lexicographically by
// stable sorts of their columns, last column first. Only the number of groups
// comes to the host, to size the results. Searches (isin, intersect1d's
// indices) compare keys with the sort's own order (kiln::sort::key_less), so
// NaNs and -0.0 are placed as the sort placed them; membership is then ==,
// so a NaN is never found, as in NumPy.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

struct UniqueResult {
  NDArray values;
  std::optional<NDArray> index, inverse, counts;   // set when asked for
};

// numpy.unique(a, return_index, return_inverse, return_counts, axis,
// equal_nan): values sorted (along `axis`: a view with that axis moved back
// in place), first indices, inverse (a's shape for axis nullopt), counts.
// equal_nan applies to elements only: subarrays holding NaNs are all
// distinct, as NumPy's.
UniqueResult unique_apply(const NDArray& a, std::optional<int64_t> axis, bool equal_nan, bool want_index,
                          bool want_inverse, bool want_counts);

// numpy.isin(element, test_elements) without invert: element's shape of
// bools, compared in the two arrays' promoted dtype.
NDArray isin_apply(const NDArray& element, const NDArray& test_elements);

// numpy.intersect1d of the flattened arrays: (values, first indices in a,
// first indices in b); the indices are computed only with return_indices.
struct IntersectResult {
  NDArray values;
  std::optional<NDArray> index_a, index_b;
};
IntersectResult intersect1d_apply(const NDArray& a, const NDArray& b, bool assume_unique, bool return_indices);

// The elements of 1-d x where the 1-d bool mask is set, in order.
NDArray compress_flat(const NDArray& x, const NDArray& mask);

}  // namespace kiln::arraycore
