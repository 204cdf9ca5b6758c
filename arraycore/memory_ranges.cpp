#include "arraycore/memory_ranges.h"

#include <algorithm>
#include <vector>

#include "arraycore/copy.h"

namespace kiln::arraycore {

std::pair<uintptr_t, uintptr_t> byte_bounds(const NDArray& a) {
  const auto base = reinterpret_cast<uintptr_t>(a.data());
  if (a.size() == 0) return {base, base};
  auto [low, high] = byte_extent(a.shape(), a.strides(), a.itemsize());
  return {base + low, base + high};
}

namespace {

// Addresses of every element of `a`, sorted (addresses: two Memory objects
// may hold the same bytes, shares_bytes in copy.h).
std::vector<int64_t> element_starts(const NDArray& a) {
  std::vector<int64_t> starts;
  starts.reserve(static_cast<size_t>(a.size()));
  const int nd = a.ndim();
  std::vector<int64_t> index(static_cast<size_t>(nd), 0);
  int64_t at = static_cast<int64_t>(reinterpret_cast<intptr_t>(a.data()));
  for (int64_t n = 0; n < a.size(); ++n) {
    starts.push_back(at);
    for (int d = nd - 1; d >= 0; --d) {
      if (++index[d] < a.shape()[d]) {
        at += a.strides()[d];
        break;
      }
      at -= (a.shape()[d] - 1) * a.strides()[d];
      index[d] = 0;
    }
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

bool contiguous_either_order(const NDArray& a) { return a.c_contiguous() || a.f_contiguous(); }

}  // namespace

// Note [Exact overlap]
// Two views of one allocation share a byte when an element [s, s+itemsize)
// of one meets an element of the other. When the byte spans do not meet
// (shares_bytes) the answer is no; when either view is contiguous its span
// is all its bytes, so meeting spans mean yes. Otherwise the element start
// offsets of both views (metadata only, no device reads) are sorted and
// merged: an element of a meets one of b when their intervals intersect.
// The work is the element count of both views, which max_work bounds as
// NumPy's does (its solver counts differently; both are exact).
bool shares_memory_exact(const NDArray& a, const NDArray& b, int64_t max_work) {
  if (!shares_bytes(a, b)) return false;
  if (contiguous_either_order(a) || contiguous_either_order(b)) return true;
  if (max_work >= 0 && a.size() + b.size() > max_work)
    throw TooHardError("Exceeded max_work");
  const std::vector<int64_t> sa = element_starts(a), sb = element_starts(b);
  const auto wa = static_cast<int64_t>(a.itemsize()), wb = static_cast<int64_t>(b.itemsize());
  size_t i = 0, j = 0;
  while (i < sa.size() && j < sb.size()) {
    if (sa[i] + wa <= sb[j]) {
      ++i;
    } else if (sb[j] + wb <= sa[i]) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

}  // namespace kiln::arraycore
