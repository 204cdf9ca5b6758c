// Basic indexing: integers, slices, Ellipsis and newaxis make views.
//
//   std::vector<IndexItem> key = {IndexItem::slice(1, std::nullopt, 2), IndexItem::integer(-1)};
//   NDArray v = index_view(a, key);   // a[1::2, -1], sharing a's memory
//
// Errors are NumPy's: IndexError for out-of-range integers and too many
// indices (IndexError_ below), ValueError for a zero slice step.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// Thrown for what NumPy reports as IndexError.
class IndexError : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

struct IndexItem {
  enum class Kind { Integer, Slice, Ellipsis, NewAxis } kind;
  int64_t value = 0;                                // Integer
  std::optional<int64_t> start, stop, step;         // Slice (nullopt = None)

  static IndexItem integer(int64_t v) { return {Kind::Integer, v, {}, {}, {}}; }
  static IndexItem slice(std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c) {
    return {Kind::Slice, 0, a, b, c};
  }
  static IndexItem ellipsis() { return {Kind::Ellipsis, 0, {}, {}, {}}; }
  static IndexItem newaxis() { return {Kind::NewAxis, 0, {}, {}, {}}; }
};

NDArray index_view(const NDArray& a, const std::vector<IndexItem>& key);

// NumPy's spelling of a shape in messages: "(2,3)", "(4,)", "()".
std::string shape_text(const Shape& s);

// `value` seen with `shape` (NumPy broadcasting: stride 0 on new or size-1
// dims). Throws std::invalid_argument naming both shapes when impossible.
NDArray broadcast_to(const NDArray& value, const Shape& shape);

// The shape all of `shapes` broadcast to. Throws std::invalid_argument with
// NumPy's "operands could not be broadcast together with shapes (2,3) (4,) ".
Shape broadcast_shapes(const std::vector<Shape>& shapes);

// dst[...] = value with broadcasting and casting; safe when value and dst overlap.
void assign(const NDArray& dst, const NDArray& value);

}  // namespace kiln::arraycore
