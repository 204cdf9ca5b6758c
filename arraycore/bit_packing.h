// numpy.packbits and numpy.unpackbits (bit_packing.cpp): bits of integer or
// bool elements packed into uint8 bytes along an axis, and bytes unpacked.
//
//   NDArray p = packbits(mask, 1, /*little=*/false);   // (m, n) -> (m, ceil(n / 8)) uint8
//   NDArray u = unpackbits(p, 1, n, false);            // back to (m, n) of 0 and 1
//
// Note [Bit packing kernels]
// One launch over the result's elements: each output byte (or bit) reads the
// eight elements (or the one byte) it comes from along `axis`. Both sides are
// addressed as kiln::RawArray views with `axis` moved last, so any input
// layout is read in place and the result is written C-contiguous; one module
// per input dtype (packbits) or one in all (unpackbits). Elements beyond the
// axis's end read as 0 (the last byte's padding, and unpackbits' count past
// the bits there are).
#pragma once

#include <cstdint>
#include <optional>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// Nonzero elements of `a` as 1 bits, 8 per uint8 along `axis` (of the
// flattened array when nullopt), the first one the most significant bit
// unless `little`. TypeError unless `a` holds integers or bools; AxisError.
NDArray packbits(const NDArray& a, std::optional<int64_t> axis, bool little);

// The bits of uint8 `a` along `axis` (flattened when nullopt) as uint8 0/1,
// `count` of them per lane (all 8 * n when nullopt; a negative count drops
// that many from the end; beyond 8 * n, zeros). TypeError unless `a` is
// uint8; std::invalid_argument "-count larger than number of elements".
NDArray unpackbits(const NDArray& a, std::optional<int64_t> axis, std::optional<int64_t> count, bool little);

}  // namespace kiln::arraycore
