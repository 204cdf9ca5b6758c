// The reduction engine: one kernel generator and launcher for reductions
// over any set of axes (reduction.cpp); ufunc.reduce runs on it.
//
//   ReductionSpec s;                                 // sum of squares of float32 in float64
//   s.name = "sumsq";
//   s.params = {{"x", "double"}};                    // inputs: ctype; storage is the array's dtype
//   s.map_expr = "x * x";                            // per element, a reduce_type value; `_j` is
//                                                    // its position among the reduced elements
//   s.reduce_expr = "a + b";                         // combines two reduce_type values a, b
//   s.post_map_expr = "out = a;";                    // writes `out` (out_ctype) from the final `a`
//   s.identity = "0.0";                              // a reduce_type expression
//   s.reduce_dtype = DType::Float64;                 // the accumulator (reduce_type is its C type)
//   s.out_ctype = "double";
//   const NDArray* in[] = {&x};
//   int axes[] = {1};
//   reduction_launch(s, in, axes, out);              // out.shape() == x.shape() without axis 1
//
// Note [Reduction kernels]
// The reduced axes are moved last; kept and reduced dimensions are each
// collapsed (Note [Collapsing dimensions]). Then, with m outputs of n elements:
//  - row: the innermost reduced dimension is contiguous (or nothing else is):
//    a block per output (a warp per output when n <= 256), each thread a
//    contiguous chunk of the row, then kiln::block_reduce (warp shuffles, one
//    shared slot per warp). When m is small the row is split over blockIdx.y
//    and a second launch combines the per-split partials;
//  - column: the innermost kept dimension is contiguous: a thread per output,
//    neighbouring threads reading neighbouring elements (coalesced), each
//    looping over its reduced elements in order; the reduced extent is split
//    over blockIdx.y when m alone cannot fill the device, with a second launch
//    (a thread per output, or a block per output when it has 64 pieces or more);
//  - full (m == 1): the row kernel split over many blocks, each writing a
//    partial, then the second launch combines the partials in order.
// An `ordered` spec (the default) combines in element order on every path (a
// bracketing of x0 op x1 op ... op x(n-1) that starts from the identity), so
// maximum/minimum give the first NaN, as NumPy does. Consecutive elements
// per thread leave a warp's loads uncoalesced on the row paths, though: a
// spec whose combine is commutative (sums, products, logical and bitwise
// ops, integer maximum, an argmax that breaks ties by index) sets ordered =
// false, and the row paths then deal elements out round-robin, thread t of
// B taking elements t, t + B, t + 2B, ... of its piece, which a warp reads
// as whole lines. Either way the splits are fixed by the shapes and the
// device, so results are deterministic. The identity must be two-sided
// (combine(identity, x) == combine(x, identity) == x; for add, 0.0 turns a
// -0.0 sum into 0.0, which is NumPy's result too: it starts from 0.0).
//
// Note [Reduction folds]
// A thread always takes its own elements in increasing element order (on
// every path), so it adds each to its accumulator with fold_expr, when the
// spec has one: reduce_expr for a `b` that comes after everything in `a`,
// which may skip the work only an arbitrary pair needs. An argmax's combine
// checks both sides for the identity and breaks ties by index, 35 SASS
// instructions an element; its fold knows `b` is a real element and the
// later one. Warp, block and split partials still meet through reduce_expr.
//
// `_j` in map_expr (long long) numbers an output's reduced elements in C
// order over the reduced axes (the flat C index when every axis is reduced),
// which with an order-keeping combine over kiln::ValueIndex (reduction.h of
// stdlib_kernels) makes argmax-style reductions: the combine sees earlier
// elements in `a`, so ties and NaNs resolve to the first. `_i` (long long, in
// map_expr and post_map_expr) is the output's flat C index over the kept axes
// in their original order (0 for a full reduction).
//
// Note [Reduction raw inputs]
// spec.raw_params are arrays passed whole (ReductionKernel's `raw` inputs):
// not broadcast, not part of the reduction's shape, any layout. Each is a
// kiln::RawArray<ctype> (stdlib_kernels/kiln/elementwise.h, the type and the
// host-side RawArrayArg ElementwiseKernel uses) named by its param in
// map_expr and post_map_expr: w[k] with k a flat C index over w's own shape
// (its strides honoured), w.size(), w.ndim, w.shape[d]. So `x * w[_j]`
// weighs each reduced position and `a + w[_i]` offsets each output. Every
// kernel (row, warp rows, column, column vectors, `_vec`, finish) passes
// them by reference to the map and store functions; the kernel params are
// `_r_<name>`, so user names cannot collide with the kernels' own locals.
// The launch checks nothing about the indices: out of range is undefined, as
// with ElementwiseKernel's raw params.
//
// Note [Reduction rounding]
// The bracketing, and so the rounding, of a float sum of n terms per output:
//  - row / full: the row (or everything) is cut into `splits` pieces of
//    L = ceil(n / splits); each thread of a block of B (256; a warp, B = 32,
//    when n <= 256) sums c = ceil(L / B) terms in order (consecutive ones, or
//    B apart when the spec is not ordered), the
//    block combines its threads' sums by a balanced tree (ceil(log2 B) levels
//    at most, fewer when fewer threads hold terms), and the finish pass adds
//    the pieces in order: rounding depth d = (c - 1) + ceil(log2 min(L, B)) +
//    f, with f = splits - 1 when a thread adds an output's pieces, and, from
//    64 pieces on, where a block of 256 does (runs of ceil(splits / 256) in
//    order, then a tree), f = ceil(splits / 256) - 1 + 8: never more than
//    splits - 1. When c = 1 (n <= 256 in one piece) d = ceil(log2 n):
//    pairwise summation exactly. splits is 1 unless the outputs cannot fill
//    the device, and then at most n / 4096.
//  - column: each output sums its L = ceil(n / splits) terms per piece in
//    order, and the pieces in order: d = (L - 1) + f (f as above), sequential
//    as NumPy's own sums along a non-contiguous axis are. With column vectors
//    (Note [Reduction column vectors] in reduction.cpp) a piece's terms are
//    W = 8 interleaved runs of at most ceil(L / 8), each summed in order,
//    then added in run order: d = (ceil(L / 8) - 1) + 7 + f.
// The computed sum s' of terms x_i then has |s' - s| <= d * u * sum|x_i| to
// first order (u the unit roundoff of reduce_type): products likewise, with
// relative error d * u. Integer, bool, bitwise, maximum and minimum results
// are exact.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "arraycore/elementwise.h"
#include "arraycore/ndarray.h"

namespace kiln::arraycore {

struct ReductionSpec {
  std::string name;                  // kernel base name (an identifier)
  std::vector<EwParam> params;       // the inputs (role Input): name, ctype
  std::vector<EwParam> raw_params;   // raw inputs (role Raw): name, ctype (the array's element type)
                                     //   (Note [Reduction raw inputs])
  std::string map_expr;              // reduce_type value of one element, from the params
  std::string reduce_expr;           // reduce_type value combining `a` and `b`
  std::string fold_expr;             // optional: reduce_expr for a `b` later than every element in `a`
                                     //   (Note [Reduction folds]); empty: reduce_expr
  std::string post_map_expr;         // statements setting `out` (out_ctype) from `a`
  std::string identity;              // reduce_type expression (two-sided identity)
  DType reduce_dtype = DType::Float64;  // the accumulator's dtype (its C type is reduce_type)
  std::string reduce_ctype;          // else: the accumulator's C type (e.g. kiln::ValueIndex<float>)
  size_t reduce_itemsize = 0;        //   and its sizeof (partials buffers), when reduce_ctype is set
  std::string out_ctype;             // type of `out` in post_map_expr
  bool ordered = true;               // combine in element order (else interleaved: Note [Reduction kernels])
  std::string preamble;              // before the kernels (#includes, device functions)
  std::vector<std::string> options;  // compiler options

  // Set by the engine on first launch; the spec is not to be changed after.
  mutable void* cache_slot = nullptr;
};

// Reduces `inputs` (all of one shape, broadcast already; at most 4) over
// `axes` (distinct, in [0, ndim)) into `out`, whose shape is the inputs'
// with the reduced axes removed (any strides, written in place). An empty
// reduction writes post_map(identity). Runs on the current stream; throws
// std::invalid_argument on mismatched arguments, CompileException when the
// spec does not compile. `raw_inputs` are spec.raw_params' arrays, in order
// (Note [Reduction raw inputs]); their dtypes must be their ctypes.
void reduction_launch(const ReductionSpec& spec, std::span<const NDArray* const> inputs, std::span<const int> axes,
                      const NDArray& out, std::span<const NDArray* const> raw_inputs = {});

// The source reduction_launch compiles for these input and output dtypes
// (for tests and NVRTC checks).
std::string reduction_source(const ReductionSpec& spec, std::span<const DType> input_dtypes, DType out_dtype);

}  // namespace kiln::arraycore
