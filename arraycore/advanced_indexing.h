// Advanced indexing: integer and boolean index arrays mixed with integers,
// slices, Ellipsis and newaxis (NumPy's rules), and the nonzero compaction.
//
//   std::vector<AdvancedItem> key = {AdvancedItem::basic(IndexItem::slice({}, {}, {})),
//                                    AdvancedItem::array(idx)};         // a[:, idx]
//   NDArray r = advanced_getitem(a, key);                                // a new array
//   advanced_setitem(a, key, v);                                         // a[:, idx] = v
//   NDArray p = nonzero_positions(mask);                                 // flatnonzero
//
// Note [Advanced index plan]
// The basic items make a view as basic indexing does; each index array takes
// the axes it indexes out of that view and becomes a component: int64 values
// that address one axis (a position, wrapped as Note [Index wrapping] in
// stdlib_kernels/kiln/advanced_indexing.h says) or byte offsets over several
// (a boolean mask of k > 1 dims: its nonzero positions turned into offsets).
// Integers count as 0-d index arrays once the key holds an array (NumPy's
// rule) but only move the view's offset. A 0-d boolean is a new length-1 axis
// indexed by [0] (True) or [] (False). The components broadcast to the shape B;
// B replaces the indexed axes in place when the index arrays (and integers)
// are adjacent in the key, and leads the result otherwise. One component is
// read by the gather or scatter kernel itself; several are first summed into
// one int64 array of byte offsets of shape B. The kernels move bytes (one
// module per itemsize); __setitem__ casts the value to the array's dtype
// first.
//
// Note [Device index bounds]
// Index values from the host (AdvancedItem::host) are checked on the host,
// raising NumPy's IndexError before anything runs. Device index arrays are
// not checked by default: out-of-range values wrap, as in CuPy, and checking
// them costs a pass over the indices and a device-to-host sync. With
// IndexingConfig::check_bounds a check kernel records the first bad position
// before the gather or scatter, which then raise NumPy's IndexError with
// nothing written. Duplicate targets in a scatter store one of their values
// (unspecified which) unless IndexingConfig::last_wins asks for NumPy's last
// one (Note [Last write wins]: one more pass and an int64 slot per element of
// the target's span).
#pragma once

#include <optional>
#include <vector>

#include "arraycore/indexing.h"

namespace kiln::arraycore {

struct AdvancedItem {
  IndexItem basic = IndexItem::ellipsis();  // when there is no array
  std::optional<NDArray> array;             // an integer or bool index array on the device
  const int64_t* host = nullptr;   // integer arrays from the host: the same values there
                                   // (C order, valid during the call), checked on the host

  static AdvancedItem of(IndexItem item) {
    AdvancedItem r;
    r.basic = item;
    return r;
  }
  static AdvancedItem of_array(NDArray a, const int64_t* host = nullptr) {
    AdvancedItem r;
    r.array = std::move(a);
    r.host = host;
    return r;
  }
};

// Process-wide switches (kiln.config; Note [Device index bounds]).
struct IndexingConfig {
  bool check_bounds = false;
  bool last_wins = false;
};
IndexingConfig& indexing_config();

// a[key]: a new C-contiguous array. Throws IndexError (NumPy's messages) for
// out-of-bounds indices, bad boolean shapes, unbroadcastable index arrays,
// non-integer arrays and too many indices.
NDArray advanced_getitem(const NDArray& a, const std::vector<AdvancedItem>& key);

// a[key] = value, value broadcast to the result's shape and cast to a's
// dtype. Throws as advanced_getitem, and std::invalid_argument with NumPy's
// "shape mismatch: value array of shape ..." when value does not broadcast
// (Note [Whole-array masks]: NumPy's boolean assignment message for one mask
// of a's shape).
bool whole_array_mask(const NDArray& a, const std::vector<AdvancedItem>& key);
void advanced_setitem(const NDArray& a, const std::vector<AdvancedItem>& key, const NDArray& value);

// The C-order positions of a's nonzero elements (int64, 1-d): a scan of the
// mask, one device-to-host copy of the count, a compaction.
NDArray nonzero_positions(const NDArray& a);

// The coordinates of a's nonzero elements as an int64 (a.ndim, count) array
// (axes_first) or a C-contiguous (count, a.ndim) one. A 0-d a counts as 1-d.
NDArray nonzero_coordinates(const NDArray& a, bool axes_first);

// The kernel sources advanced indexing compiles (for NVRTC checks).
std::vector<std::string> advanced_indexing_sources();

}  // namespace kiln::arraycore
