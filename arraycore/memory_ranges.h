// Which bytes a view touches, and whether two views touch the same ones:
// kiln.byte_bounds, kiln.may_share_memory and kiln.shares_memory. All of it
// is arithmetic on shapes, strides and offsets; no device memory is read.
//
//   auto [low, high] = byte_bounds(a);      // device addresses, high exclusive
//   shares_bytes(a, b);                     // arraycore/copy.h: the spans meet
//   shares_memory_exact(a, b, -1);          // some byte is in both views
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// [low, high) device addresses of the bytes `a` spans; (data, data) when empty.
std::pair<uintptr_t, uintptr_t> byte_bounds(const NDArray& a);

// True when some byte belongs to an element of both a and b (NumPy's
// shares_memory; Note [Exact overlap]). max_work < 0 means no bound; a
// bound the answer needs more work than throws TooHardError.
bool shares_memory_exact(const NDArray& a, const NDArray& b, int64_t max_work);

// numpy.exceptions.TooHardError: the exact overlap problem exceeds max_work.
struct TooHardError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kiln::arraycore
