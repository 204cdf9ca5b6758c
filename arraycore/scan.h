// The scan engine: inclusive scans of the rows of an (m, n) problem, with any
// associative operator given as a device expression (scan.cpp; device side in
// stdlib_kernels/kiln/scan.h).
//
//   ScanSpec s;                                   // running sums in int64
//   s.name = "cumsum_int64";
//   s.combine = "kiln::ufn::add(a, b)";
//   s.acc = DType::Int64;
//   s.preamble = "#include <kiln/ufunc_math.h>\n";
//   scan_rows(s, x, y);   // x: (m, n) of any dtype and strides; y: (m, n) int64, any strides
//                         // y[r, j] = a0 op a1 op ... op aj, aj = x[r, j] as int64
//
// Note [Scan engine]
// Rows are cut into tiles of 1024 elements (256 threads, 4 elements each);
// one launch scans every tile of every row (Note [Scan tiles] in
// stdlib_kernels/kiln/scan.h) and writes each tile's total; the (m, tiles)
// totals are scanned in place by the same engine (recursively: 1024 tiles a
// level), and one grid-stride pass combines tile t's results with the scanned
// total of tiles 0..t-1. Rows of at most 128 elements take one warp each, 8 to
// a block, in one launch. Work O(m n), launches 1 + 2 per level: 3 for rows up
// to a million elements. Each operator and dtype combination is one module,
// compiled once (in-memory map, then the on-disk kernel cache).
//
// Note [Scan rounding]
// The operator must be associative: results are a bracketing of
// a0 op a1 op ... op aj, not NumPy's left-to-right fold. Integer, bool,
// bitwise, logical, maximum and minimum scans are therefore exact and equal
// NumPy's. A floating-point sum's result j is a tree of roundings of height
// at most h = 18 L, L = the levels (1 for rows of at most 1024 elements, 2 up
// to 1024^2, ...): per level 3 in a thread's sequential fold, 5 across a
// warp's lanes, 7 across a block's warps, 3 combining prefixes. So
// |computed - exact| <= h u sum_k<=j |a_k| / (1 - h u), u the unit roundoff
// of the accumulator type (2^-24 for float32), against the sequential fold's
// j u sum|a_k|: never worse than NumPy's bound once j > h. Products and
// other floating operators differ from NumPy's by rounding likewise.
#pragma once

#include <string>
#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

struct ScanSpec {
  std::string name;                  // kernel base name (an identifier)
  std::string combine;               // device expression of `a` (earlier) and `b` (later), of type acc
  DType acc = DType::Float64;        // the accumulator's (and the output's) dtype
  std::string preamble;              // #includes and device functions `combine` needs
  std::vector<std::string> options;  // compiler options
};

// Inclusive scan along axis 1 of the 2-D `in` into the 2-D `out` of the same
// shape: in's elements are converted to acc as NumPy casts; out must have
// dtype acc. Any byte strides (negative too); out may be in itself, not
// otherwise overlap it. Throws std::invalid_argument on mismatched arguments,
// CompileException when `combine` does not compile.
void scan_rows(const ScanSpec& spec, const NDArray& in, const NDArray& out);

// The source scan_rows compiles for an input of dtype in_dtype.
std::string scan_source(const ScanSpec& spec, DType in_dtype);

}  // namespace kiln::arraycore
