// The sort engine: stable LSD radix sort of the rows of an (m, n) array, keys
// and/or the permutation (argsort), for every dtype (sort.cpp; device side in
// stdlib_kernels/kiln/sort.h).
//
//   sort_rows(x, &y, nullptr);     // x: (m, n), any strides; y: x's shape and dtype: rows sorted
//   sort_rows(x, nullptr, &idx);   // idx: (m, n) int64: x[r, idx[r, j]] ascends with j, ties in order
//
// Note [Sort engine]
// Keys are sorted by the bits of Note [Radix keys] (NumPy's order: NaNs last,
// -0.0 equal to 0.0, complex lexicographic), 8 bits a pass, least
// significant first, each pass one onesweep launch (Note [Onesweep pass]).
// One histogram launch first counts every digit of every pass; its 256 counts
// a pass come to the host (a few KiB), where passes whose digit is the same
// for every key are dropped (small ints, rows of a float column with one
// exponent) and each pass's digit starts are scanned and sent back. Rows
// sort as the composite key (row, key): after the key passes, passes by the
// bytes of the row (the flat index carried as value, divided by n; their
// counts are known on the host) reorder the rows, and stability keeps each
// row's key order; the last writes indices modulo n. So m rows cost the key
// passes plus ceil(log256 m) passes over all m n elements.
// Buffers: a C-contiguous input is read in place, anything else is copied
// first; passes alternate between two buffers, arranged so that the last
// pass writes straight into a C-contiguous result (also when the result is
// the input: ndarray.sort). Work O(passes * m n); launches: histogram, a
// memset, one per pass, plus copies for non-contiguous operands. A launch
// takes at most 2^30 - 2^16 elements (the look-back counts have 30 bits):
// more run each pass as one launch per segment of that many (Note [Sort
// segments] in stdlib_kernels/kiln/sort.h), up to 2^32 - 1 elements a call
// (digit starts and output positions have 32 bits).
#pragma once

#include <string>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// The most elements sort_rows takes (Note [Sort engine]).
inline constexpr int64_t kSortMaxElements = (int64_t{1} << 32) - 1;

// The most elements one launch of a pass takes: a segment (Note [Sort engine]).
inline constexpr int64_t kSortSegmentElements = (int64_t{1} << 30) - (int64_t{1} << 16);

// For tests: later sorts use segments of n elements (1 <= n <=
// kSortSegmentElements; 0: kSortSegmentElements, the default), so that small
// inputs sort in many segments. Returns the previous value.
int64_t set_sort_segment_elements(int64_t n);

// Sorts each row of the 2-D `in` stably (along axis 1). keys_out (in's shape
// and dtype) gets the sorted rows; index_out (in's shape, int64) the index
// within the row of each sorted element. Either may be null, not both; they
// may have any strides and keys_out may be `in` itself. Throws
// std::invalid_argument on mismatched arguments or too many elements.
void sort_rows(const NDArray& in, const NDArray* keys_out, const NDArray* index_out);

// The key type and digit functor of `dtype` (Note [Radix keys]): `_key_t`
// (the raw bits) and struct kiln_sort_<dtype name>_digit, whose kBytes
// digits, compared from kBytes - 1 down, order keys as the sort does
// (kiln::sort::key_less). For kernels that search sorted keys.
std::string sort_key_source(DType dtype);

// The source sort_rows compiles for keys of `dtype` (for NVRTC checks).
std::string sort_source(DType dtype);

}  // namespace kiln::arraycore
