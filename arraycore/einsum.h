// numpy.einsum and numpy.einsum_path (einsum.cpp): the subscript language
// (explicit and implicit output, ellipsis broadcasting, repeated labels in
// one operand), NumPy's size, broadcast and casting checks and messages,
// the contraction order (Note [Einsum order]) and its execution through the
// views, reductions, multiply and the matmul engine (Note [Einsum plan]).
//
//   EinsumOptions o;                                    // kiln.einsum("ij,jk->ik", a, b)
//   NDArray c = einsum_apply("ij,jk->ik", std::vector<NDArray>{a, b}, o).result;
//   o.optimize.kind = EinsumOptimize::Kind::Greedy;     // optimize=True
//   EinsumPath p = einsum_path("ij,jk,kl->il", shapes, o.optimize);   // p.path == {{1, 2}, {0, 1}}
//
// The sublist form (einsum(a, [0, 1], b, [1, 2], [0, 2])) reaches here as
// subscripts text: each subscript is sublist_letter's letter.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arraycore/ndarray.h"
#include "arraycore/promotion.h"

namespace kiln::arraycore {

// optimize=: False/None (InOrder), True/'greedy'/'optimal' (Greedy), or an
// einsum_path list ['einsum_path', (i, j), ...] (Path: its steps).
struct EinsumOptimize {
  enum class Kind : uint8_t { InOrder, Greedy, Path } kind = Kind::InOrder;
  std::vector<std::vector<int64_t>> path;
};

struct EinsumOptions {
  std::optional<DType> dtype;      // dtype=
  const NDArray* out = nullptr;    // out= (not owned)
  char order = 'K';                // K A C F
  Casting casting = Casting::Safe;
  EinsumOptimize optimize;
};

struct EinsumResult {
  NDArray result;                  // a new array, a view of an operand, or *options.out
  bool discards_imaginary = false; // a complex value was cast to a real dtype (NumPy's ComplexWarning)
};

// numpy.einsum of `operands` (kiln arrays; host data is uploaded by the
// caller). Throws std::invalid_argument (ValueError) and TypeError with
// NumPy's messages, before anything runs, for bad subscripts, sizes,
// casting, out= and optimize paths.
EinsumResult einsum_apply(std::string_view subscripts, std::span<const NDArray> operands,
                          const EinsumOptions& options);

struct EinsumPath {
  std::vector<std::vector<int64_t>> path;   // each step's operand positions
  std::string text;                         // the contraction listed step by step
};

// numpy.einsum_path for operands of these shapes: the order einsum_apply
// follows with `optimize` (Note [Einsum order]) and a text listing each
// step's contraction and its size.
EinsumPath einsum_path(std::string_view subscripts, std::span<const Shape> shapes, const EinsumOptimize& optimize);

// The letter of sublist subscript s: 0..25 'A'..'Z', 26..51 'a'..'z';
// std::invalid_argument ("subscript is not within the valid range [0, 52)") otherwise.
char sublist_letter(int64_t s);

}  // namespace kiln::arraycore
