// The elementwise engine: one kernel generator and launcher for ufuncs,
// operators, ElementwiseKernel and fuse (elementwise.cpp).
//
//   EwSpec s;                                  // z = x * y + 1 over float32
//   s.name = "axpy";
//   s.params = {{"x", "float"}, {"y", "float"}, {"z", "float", "", EwParam::Output}};
//   s.operation = "z = x * y + 1;";
//   EwArg args[] = {EwArg::of(x), EwArg::of(y), EwArg::of(z)};
//   elementwise_launch(s, args, z.shape());    // broadcasting is the caller's: shapes equal
//                                              // `shape` or broadcast to it (stride 0)
//
// Note [Elementwise kernels]
// A spec becomes one module per (spec, which params are scalars, storage
// types): a contiguous kernel (4 elements per thread with vector loads when
// every array is aligned), a strided one with 32-bit and one with 64-bit
// index arithmetic (ndim is run-time data, dims collapsed first), all
// grid-stride loops sized from the device. In `operation`, an input array
// param is a `const` value of its `ctype`, an output param an lvalue of its
// `ctype`, a scalar param a value, a raw param a kiln::RawArray<T> (x[k],
// x.size()); `i` is the element index and `_ind.size()` the element count.
// When an array's storage dtype differs from ctype, loads and stores convert
// with kiln::numpy_cast.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"
#include "kiln/strided_index.h"

namespace kiln::arraycore {

struct EwParam {
  enum Role { Input, Output, Raw };
  std::string name;     // identifier used in `operation`
  std::string ctype;    // C++ type of the variable in `operation` ("float", "kiln::half", "kiln::complex<double>")
  std::string storage;  // C++ element type in memory when it differs from ctype ("" = ctype); ignored for scalars
  Role role = Input;
};

struct EwSpec {
  std::string name;                  // kernel base name (an identifier)
  std::vector<EwParam> params;
  std::string operation;             // statements, run once per element
  std::string preamble;              // before the kernels (device functions, #includes)
  std::string loop_prep, after_loop; // inside each kernel, before and after the loop
  std::vector<std::string> options;  // compiler options
  // Outputs are only written by `operation`, never read: lets the contiguous
  // kernel store 4 results at once. ufuncs and fuse set it; ElementwiseKernel
  // does not (an output may be read, as with `z += x`).
  bool outputs_write_only = false;
  // Where the user's `operation` starts in the generated source is marked with
  // #line 1 "<operation_file>" when this is set, so compile errors point at it.
  std::string operation_file;

  // Set by the engine on first launch (where this spec's compiled variants
  // are cached); a spec is not to be changed after it has been launched.
  mutable void* cache_slot = nullptr;
};

// One argument: an array (input, output or raw) or, for an input, a scalar
// value already in the param's ctype (bytes, at most 16).
struct EwArg {
  const NDArray* array = nullptr;
  std::array<std::byte, 16> scalar{};
  static EwArg of(const NDArray& a) { EwArg r; r.array = &a; return r; }
  template <class T> static EwArg value(const T& v) {
    static_assert(sizeof(T) <= 16, "scalar arguments are at most 16 bytes");
    EwArg r; std::memcpy(r.scalar.data(), &v, sizeof(T)); return r;
  }
};

// A kiln::RawArray<T> (stdlib_kernels/kiln/elementwise.h) as the host passes
// it to a kernel, for any T (only the pointer's type differs): the raw params
// of ElementwiseKernel and ReductionKernel.
struct RawArrayArg {
  void* data;
  long long n;
  int ndim;
  int contiguous;
  long long shape[kiln::kMaxDims];
  long long strides[kiln::kMaxDims];
};

// `a` as a raw kernel argument; throws std::invalid_argument beyond kMaxDims
// dimensions.
RawArrayArg raw_array_arg(const NDArray& a);

// Note [Exact floating point]
// Kernels that must give NumPy's bits (ufuncs, fuse, functions built on
// ufuncs) compile with these options: no contraction of a * b + c into one
// FMA, which NVRTC does by default and NumPy's separate ufunc calls never do.
// User code (ElementwiseKernel) keeps the compiler's default, as in CuPy.
const std::vector<std::string>& exact_fp_options();

// Blocks of `block` threads for a grid-stride loop over `work_items`: one
// item per thread until the grid holds as many threads as the current device
// keeps resident (2048 per multiprocessor), no more. Every grid-stride kernel
// of arraycore is sized by it.
uint32_t grid_stride_blocks(int64_t work_items, uint32_t block);

// Runs `spec` over every element of `shape` on the current stream. Arrays
// (other than raw ones) must have `shape` exactly, broadcast already (stride
// 0 where a dimension repeats); outputs are written in place. Partially
// overlapping inputs and outputs are the caller's business (ufuncs copy
// first, as NumPy does). Throws CompileException (runtime/errors.h) when the
// operation does not compile, std::invalid_argument on mismatched arguments.
void elementwise_launch(const EwSpec& spec, std::span<const EwArg> args, const Shape& shape);

// The source elementwise_launch compiles for these arguments (for tests and
// for NVRTC checks).
std::string elementwise_source(const EwSpec& spec, std::span<const EwArg> args);

}  // namespace kiln::arraycore
