// NumPy's ufuncs as data: each one's name, arity, identity and type loops
// (ufunc_table.cpp), and the choice of a loop for given operands under NumPy
// 2's rules, NEP 50's weak Python scalars included (ufunc_types.cpp).
//
//   const UfuncDef& add = ufunc("add");            // add.nin == 2, add.loops[k].in[0] ...
//   Operand ops[] = {{DType::Int8}, {DType::Int64, WeakScalar::Int}};   // int8 array + Python int
//   LoopChoice c = resolve_loop(add, ops, {});     // c.in == {Int8, Int8}, c.out == {Int8}
//
// The kernels themselves are built by the elementwise engine (elementwise.h)
// from `device_fn`, a function of stdlib_kernels/kiln/ufunc_math.h.
#pragma once

#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arraycore/dtype.h"
#include "arraycore/promotion.h"

namespace kiln::arraycore {

// One type loop: NumPy's "ff->f" (in order of ufunc.types).
struct UfuncLoop {
  std::vector<DType> in, out;
};

// The ufunc's reduction identity (ufunc.identity): none, or a value.
enum class Identity { None_, Zero, One, MinusOne, True_, False_, NegInf, PosInf, AllOnes };

// How the loop is picked when NumPy's own resolver is not the plain linear
// search over `loops` (first loop every input casts to safely).
enum class Resolver {
  Default,
  TrueDivide,    // integer and bool inputs use the float64 loop (true_divide, divide, and the like)
  Comparison,    // as Default; a weak Python int outside an integer loop's range compares exactly
                 // (uint8_array > -1 is all True, == 300 all False) instead of OverflowError
  Logical,       // logical_and/or/xor: the all-bool loop, unless both inputs already have one dtype
  Promoted,      // gcd, lcm, positive, sign: the inputs' result_type must have its own loop
                 // (no bool loop is borrowed); NoLoop error naming the DTypes otherwise
  NoBoolArithmetic,  // subtract, negative: as Default, but all-bool inputs raise NumPy's TypeError
  MixedInputs,   // ldexp: loops whose inputs differ; a weak Python int matches any integer input
  Absolute,      // absolute: as Default, but under dtype= a non-complex input takes dtype= for its loop
                 // (NumPy's uniform resolver), a complex one searches (Note [dtype= as a signature])
};

struct UfuncDef {
  std::string name;          // "add"
  int nin = 0, nout = 0;
  Identity identity = Identity::None_;
  std::vector<UfuncLoop> loops;
  // The first `user_loops` loops are ml_dtypes' bfloat16 ones (Note [Bfloat16
  // loops], ufunc_table.cpp); NumPy's ufunc.types lists only the others.
  size_t user_loops = 0;
  std::string device_fn;     // "kiln::ufn::add": out = fn(in...) when nout == 1, fn(in..., out&...) otherwise
  Resolver resolver = Resolver::Default;
  std::string doc;           // first line of NumPy's docstring, in kiln's words
};

// The table. ufunc(name) throws std::out_of_range for an unknown name. Names
// that are one object in NumPy (divide is true_divide, mod is remainder, conj
// is conjugate, bitwise_not is invert, abs is absolute) give the same
// definition; all_ufuncs() lists each definition once.
const UfuncDef& ufunc(std::string_view name);
const std::vector<UfuncDef>& all_ufuncs();

// One input as loop resolution sees it: an array's (or NumPy scalar's) dtype,
// or a Python scalar (weak != None_; dtype is then its default dtype).
struct Operand {
  DType dtype;
  WeakScalar weak = WeakScalar::None_;
};

struct LoopChoice {
  const UfuncLoop* loop = nullptr;
  std::vector<DType> in;           // what each input is cast to (== loop->in)
  std::vector<DType> out;          // what each output is computed in (== loop->out)
  std::vector<DType> weak_dtypes;  // per input: the dtype a weak scalar takes (its value must fit:
                                   // OverflowError otherwise, as NumPy); the input's dtype for others
};

// Picks the loop NumPy 2 would for `inputs`, with `dtype=` (the outputs'
// dtype, as NumPy's ufunc dtype= argument) and `casting=` (which also governs
// the cast of each result to the matching `out_dtypes` entry, when given).
// Throws UfuncTypeError (below) with NumPy's message when no loop fits or a
// cast is not allowed.
LoopChoice resolve_loop(const UfuncDef& uf, std::span<const Operand> inputs, std::optional<DType> dtype,
                        Casting casting = Casting::SameKind,
                        std::span<const std::optional<DType>> out_dtypes = {});

// numpy._core._exceptions._UFuncNoLoopError / _UFuncInputCastingError /
// _UFuncOutputCastingError: all are TypeError subclasses in NumPy
// (numpy.exceptions ... UFuncTypeError); the front end raises
// numpy._core._exceptions' classes with `what()` as the message.
struct UfuncTypeError : std::exception {
  enum class Kind { NoLoop, InputCasting, OutputCasting } kind;
  std::string message;
  UfuncTypeError(Kind k, std::string m) : kind(k), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

}  // namespace kiln::arraycore
