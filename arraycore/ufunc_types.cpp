// resolve_loop (ufunc.h): which of a ufunc's type loops NumPy 2 runs for
// given operands, `dtype=` and `casting=`, and the errors it raises otherwise.
//
//   Operand ops[] = {{DType::UInt8}, {DType::Int64, WeakScalar::Int}};
//   resolve_loop(ufunc("add"), ops, {}).out[0] == DType::UInt8      // uint8 array + 1
//   resolve_loop(ufunc("divide"), ops, {}).out[0] == DType::Float64  // integers divide as float64
//
// Every rule here was read off NumPy 2.4 (`ufunc.resolve_dtypes` and real
// calls); tests/python/core/test_ufunc_types.py checks each ufunc against it for
// every dtype pair and every Python scalar kind.
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "arraycore/record_dtype.h"
#include "arraycore/ufunc.h"

namespace kiln::arraycore {
namespace {


std::string repr(DType d) { return "dtype('" + std::string(dtype_info(d).name) + "')"; }

char kind_of(DType d) { return dtype_info(d).kind; }
bool is_integer_or_bool(DType d) { return kind_of(d) == 'b' || kind_of(d) == 'i' || kind_of(d) == 'u'; }

// Note [Bfloat16 loops] (ufunc_table.cpp): a loop with a bfloat16 input is a
// candidate only when an operand, or dtype=, is bfloat16.
bool bfloat16_loop(const UfuncLoop& loop) {
  return std::find(loop.in.begin(), loop.in.end(), DType::BFloat16) != loop.in.end();
}
bool any_bfloat16(std::span<const Operand> inputs, std::optional<DType> dtype = {}) {
  if (dtype == DType::BFloat16) return true;
  return std::any_of(inputs.begin(), inputs.end(), [](const Operand& op) {
    return op.weak == WeakScalar::None_ && op.dtype == DType::BFloat16;
  });
}

bool all_equal(std::span<const DType> dtypes, DType d) {
  return std::all_of(dtypes.begin(), dtypes.end(), [&](DType x) { return x == d; });
}

// NumPy's DType class of an operand, as its no-loop message prints it.
std::string dtype_class(const Operand& op) {
  if (is_record(op.dtype)) return dtype_repr(op.dtype);
  switch (op.weak) {
    case WeakScalar::Int: return "<class 'numpy.dtypes._PyLongDType'>";
    case WeakScalar::Float: return "<class 'numpy.dtypes._PyFloatDType'>";
    case WeakScalar::Complex: return "<class 'numpy.dtypes._PyComplexDType'>";
    default: break;
  }
  std::string name(dtype_info(op.dtype).name);
  name[0] = char(std::toupper(name[0]));
  if (name.rfind("Uint", 0) == 0) name = "UInt" + name.substr(4);
  return "<class 'numpy.dtypes." + name + "DType'>";
}

[[noreturn]] void no_loop_linear(const UfuncDef& uf) {
  throw UfuncTypeError(UfuncTypeError::Kind::NoLoop,
                       "ufunc '" + uf.name +
                           "' not supported for the input types, and the inputs could not be safely coerced "
                           "to any supported types according to the casting rule ''safe''");
}

// `dtype`: dtype= (the output DType), printed as NumPy prints the signature.
[[noreturn]] void no_loop_promoted(const UfuncDef& uf, std::span<const Operand> inputs,
                                   std::optional<DType> dtype = {}) {
  std::string types;
  for (size_t i = 0; i < inputs.size(); ++i) types += (i ? ", " : "") + dtype_class(inputs[i]);
  if (inputs.size() != 1) types = "(" + types + ")";
  std::string outs = "None";
  if (dtype) {
    outs.clear();
    for (int k = 0; k < uf.nout; ++k) outs += (k ? ", " : "") + dtype_class(Operand{*dtype});
    if (uf.nout != 1) outs = "(" + outs + ")";
  }
  throw UfuncTypeError(UfuncTypeError::Kind::NoLoop,
                       "ufunc '" + uf.name + "' did not contain a loop with signature matching types " + types +
                           " -> " + outs);
}

[[noreturn]] void no_loop_signature(const UfuncDef& uf) {
  throw UfuncTypeError(UfuncTypeError::Kind::NoLoop,
                       "No loop matching the specified signature and casting was found for ufunc " + uf.name);
}

// Note [Bool arithmetic]
// NumPy refuses `-` on booleans with its own messages, pointing at the
// operators that mean what the user likely wants.
[[noreturn]] void no_bool_arithmetic(const UfuncDef& uf) {
  std::string m = uf.name == "negative"
                      ? "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or "
                        "the logical_not function instead."
                      : "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
                        "`^` operator, or the logical_xor function instead.";
  throw UfuncTypeError(UfuncTypeError::Kind::NoLoop, std::move(m));
}

// Note [Weak scalars in loop search]
// NEP 50 as NumPy 2 applies it to ufuncs: every Python int/float/complex
// operand takes result_type(all operands) (int8 + 1 -> int8, int8 + 1.0 ->
// float64, float32 + 1j -> complex64), and the search then sees only dtypes.
// A Python bool is an ordinary bool operand (it never outranks an array).
std::vector<DType> effective_dtypes(std::span<const Operand> inputs) {
  std::vector<DType> strong;
  std::vector<WeakScalar> weak;
  for (const Operand& op : inputs) {
    if (op.weak == WeakScalar::None_ || op.weak == WeakScalar::Bool) {
      strong.push_back(op.weak == WeakScalar::Bool ? DType::Bool : op.dtype);
    } else {
      weak.push_back(op.weak);
    }
  }
  std::vector<DType> out;
  if (weak.empty()) return strong;
  const DType weak_dtype = result_type(strong, weak);
  for (const Operand& op : inputs) {
    if (op.weak == WeakScalar::Bool) out.push_back(DType::Bool);
    else out.push_back(op.weak == WeakScalar::None_ ? op.dtype : weak_dtype);
  }
  return out;
}

// Note [Mixed-input loops]
// ldexp's loops pair a float with an integer (ei->e, eq->e, ...), so one
// common dtype for the weak scalars is meaningless. NumPy's legacy search
// instead lets a Python scalar match any loop input of its kind or above (an
// int: any integer, float or complex input; a float: float or complex), as
// long as some array is of that kind or above, float and complex counting as
// one kind here (a float32 array and 1j search with 1j matching complex64);
// otherwise (only scalars, or an int array with a Python float) scalars count
// as their default dtypes.
int kind_rank(DType d) {
  switch (kind_of(d)) {
    case 'b': return 0;
    case 'i': case 'u': return 1;
    case 'f': return 2;
    default: return 3;
  }
}
int kind_rank(WeakScalar w) { return w == WeakScalar::Int ? 1 : w == WeakScalar::Float ? 2 : 3; }

// With `outputs`, only loops whose outputs are all that dtype are candidates
// (the dtype= search, Note [dtype= as a signature], which NumPy's legacy
// search does the same way for every ufunc).
const UfuncLoop* search_mixed(const UfuncDef& uf, std::span<const Operand> inputs,
                              std::optional<DType> outputs = {}) {
  // Whether "some array is of that kind or above" counts float and complex as one kind.
  auto category = [](int rank) { return std::min(rank, 2); };
  int array_rank = -1, scalar_rank = -1;
  for (const Operand& op : inputs) {
    if (op.weak == WeakScalar::None_ || op.weak == WeakScalar::Bool) {
      array_rank = std::max(array_rank, category(op.weak == WeakScalar::Bool ? 0 : kind_rank(op.dtype)));
    } else {
      scalar_rank = std::max(scalar_rank, category(kind_rank(op.weak)));
    }
  }
  const bool by_kind = array_rank >= 0 && array_rank >= scalar_rank;
  const bool bf16 = any_bfloat16(inputs, outputs);
  for (const UfuncLoop& loop : uf.loops) {
    if (!bf16 && bfloat16_loop(loop)) continue;
    bool fits = !outputs || all_equal(loop.out, *outputs);
    for (size_t i = 0; i < inputs.size() && fits; ++i) {
      const Operand& op = inputs[i];
      if (op.weak == WeakScalar::None_ || op.weak == WeakScalar::Bool) {
        fits = can_cast(op.weak == WeakScalar::Bool ? DType::Bool : op.dtype, loop.in[i], Casting::Safe);
      } else if (by_kind) {
        fits = kind_rank(loop.in[i]) >= kind_rank(op.weak) && kind_rank(loop.in[i]) >= 1;
      } else {
        fits = can_cast(default_dtype(op.weak), loop.in[i], Casting::Safe);
      }
    }
    if (fits) return &loop;
  }
  return nullptr;
}

// The first loop every input casts to safely (NumPy's linear search; it uses
// 'safe' whatever casting= says, which is checked afterwards).
const UfuncLoop* search_safe(const UfuncDef& uf, std::span<const DType> dtypes) {
  const bool bf16 = std::find(dtypes.begin(), dtypes.end(), DType::BFloat16) != dtypes.end();
  for (const UfuncLoop& loop : uf.loops) {
    if (!bf16 && bfloat16_loop(loop)) continue;
    bool fits = true;
    for (size_t i = 0; i < dtypes.size() && fits; ++i) fits = can_cast(dtypes[i], loop.in[i], Casting::Safe);
    if (fits) return &loop;
  }
  return nullptr;
}

const UfuncLoop* loop_with_inputs(const UfuncDef& uf, DType all_in) {
  for (const UfuncLoop& loop : uf.loops)
    if (std::all_of(loop.in.begin(), loop.in.end(), [&](DType d) { return d == all_in; })) return &loop;
  return nullptr;
}

// The loop without dtype=.
const UfuncLoop* pick_loop(const UfuncDef& uf, std::span<const Operand> inputs, std::span<const DType> dtypes) {
  switch (uf.resolver) {
    case Resolver::MixedInputs: {
      const UfuncLoop* loop = search_mixed(uf, inputs);
      if (!loop) no_loop_linear(uf);
      return loop;
    }
    case Resolver::Promoted: {
      const UfuncLoop* loop = loop_with_inputs(uf, result_type(dtypes, {}));
      if (!loop) no_loop_promoted(uf, inputs);
      return loop;
    }
    case Resolver::Logical:
      // Note [Logical ufuncs]: NumPy 2 runs logical_and/or/xor in bool
      // unless the operands already share a dtype that has its own loop.
      if (all_equal(dtypes, dtypes[0]) && std::none_of(inputs.begin(), inputs.end(), [](const Operand& op) {
            return op.weak != WeakScalar::None_;
          })) {
        if (const UfuncLoop* loop = loop_with_inputs(uf, dtypes[0])) return loop;
      }
      return loop_with_inputs(uf, DType::Bool);
    case Resolver::TrueDivide:
      if (std::all_of(dtypes.begin(), dtypes.end(), is_integer_or_bool))
        return loop_with_inputs(uf, DType::Float64);
      break;
    case Resolver::NoBoolArithmetic:
      if (all_equal(dtypes, DType::Bool)) no_bool_arithmetic(uf);
      break;
    case Resolver::Default:
    case Resolver::Comparison:
    case Resolver::Absolute: break;
  }
  const UfuncLoop* loop = search_safe(uf, dtypes);
  if (!loop) no_loop_linear(uf);
  return loop;
}

// Note [Weak scalars in casting checks]
// A Python int/float/complex was never an array of some dtype: it may go to
// any loop input of its kind or above (1 -> int8, 1.0 -> float16, but not
// 1.0 -> int8) whatever casting= says; other targets go by its default dtype.
bool input_castable(const Operand& op, DType from, DType to, Casting casting) {
  if (op.weak == WeakScalar::None_ || op.weak == WeakScalar::Bool) return can_cast(from, to, casting);
  if (kind_rank(to) >= kind_rank(op.weak)) return true;
  return can_cast(default_dtype(op.weak), to, casting);
}

// Note [dtype= as a signature]
// NumPy 2 reads dtype=X as the signature (None, ..., X, ...X), X for every
// output, and resolves it in this order:
//  1. a loop whose inputs are exactly the operands' dtypes and whose outputs
//     are X (absolute(complex64, dtype=float32) runs F->f);
//  2. ufuncs whose NumPy type resolver is "uniform" (subtract, negative,
//     positive, sign, gcd, lcm, and absolute of a non-complex input; add,
//     multiply, maximum, ... too, but they have an all-X loop for every X and
//     so resolve as in 3) take X for every input, and raise NumPy's "did not
//     contain a loop with signature matching types ... -> X" when the ufunc
//     has no all-X loop;
//  3. the others search the loops with outputs X for the first one every
//     input casts to safely, Python scalars as in Note [Mixed-input loops]
//     (signbit(int16, dtype=bool) runs f->?, less(int16_array, 1.0,
//     dtype=bool) dd->?, ldexp(bool_array, 1, dtype=float32) fq->f), then fall
//     back to the all-X loop (divide(f8, f8, dtype=float32) runs ff->f), and
//     raise "No loop matching the specified signature and casting was found"
//     when neither exists.
// The inputs are then cast to the loop under casting=, which may fail.
bool numpy_uniform_resolver(const UfuncDef& uf, std::span<const DType> dtypes) {
  switch (uf.resolver) {
    case Resolver::Promoted:
    case Resolver::NoBoolArithmetic: return true;
    case Resolver::Absolute: return kind_of(dtypes[0]) != 'c';
    default: return false;
  }
}

const UfuncLoop* pick_loop_for_dtype(const UfuncDef& uf, std::span<const Operand> inputs,
                                     std::span<const DType> dtypes, DType dtype) {
  if (uf.resolver == Resolver::Logical) {
    if (dtype != DType::Bool) no_loop_signature(uf);
    return pick_loop(uf, inputs, dtypes);
  }
  for (const UfuncLoop& loop : uf.loops) {
    bool exact = all_equal(loop.out, dtype);
    for (size_t i = 0; i < inputs.size() && exact; ++i)
      exact = (inputs[i].weak == WeakScalar::None_ || inputs[i].weak == WeakScalar::Bool) && loop.in[i] == dtypes[i];
    if (exact) return &loop;
  }
  const UfuncLoop* uniform = loop_with_inputs(uf, dtype);
  if (uniform && !all_equal(uniform->out, dtype)) uniform = nullptr;
  if (numpy_uniform_resolver(uf, dtypes)) {
    // Note [Bool arithmetic]: refused when the loop would be the bool one.
    if (uf.resolver == Resolver::NoBoolArithmetic && dtype == DType::Bool) no_bool_arithmetic(uf);
    if (!uniform) no_loop_promoted(uf, inputs, dtype);
    return uniform;
  }
  if (const UfuncLoop* loop = search_mixed(uf, inputs, dtype)) return loop;
  if (!uniform) no_loop_signature(uf);
  return uniform;
}

}  // namespace

LoopChoice resolve_loop(const UfuncDef& uf, std::span<const Operand> inputs, std::optional<DType> dtype,
                        Casting casting, std::span<const std::optional<DType>> out_dtypes) {
  if (inputs.size() != size_t(uf.nin))
    throw std::invalid_argument(uf.name + " takes " + std::to_string(uf.nin) + " inputs, got " +
                                std::to_string(inputs.size()));
  // Note [Record dtypes]: no ufunc loop takes records (== and != on them are record_compare).
  for (const Operand& in : inputs)
    if (is_record(in.dtype)) no_loop_promoted(uf, inputs, dtype);
  if (!out_dtypes.empty() && out_dtypes.size() != size_t(uf.nout))
    throw std::invalid_argument(uf.name + " has " + std::to_string(uf.nout) + " outputs, got " +
                                std::to_string(out_dtypes.size()) + " output dtypes");
  // Note [A lone Python scalar is strong]
  // NumPy converts the one operand of a one-input ufunc as numpy.asarray
  // would, so a Python int/float/complex there is an int64/float64/complex128
  // like any array (negative(-1, dtype=uint8) is a same_kind casting error,
  // sin(1.0, dtype=float16, casting='safe') too); NEP 50's weak rules apply
  // only among several operands.
  std::vector<Operand> lone;
  if (inputs.size() == 1 && inputs[0].weak != WeakScalar::None_ && inputs[0].weak != WeakScalar::Bool) {
    lone.push_back(Operand{inputs[0].dtype});
    inputs = lone;
  }
  const std::vector<DType> dtypes = effective_dtypes(inputs);
  const UfuncLoop* loop = dtype ? pick_loop_for_dtype(uf, inputs, dtypes, *dtype) : pick_loop(uf, inputs, dtypes);

  for (size_t i = 0; i < dtypes.size(); ++i) {
    // Logical ufuncs read any input as truth values: NumPy checks no cast to their bool loop.
    if (uf.resolver == Resolver::Logical && loop->in[i] == DType::Bool) continue;
    if (!input_castable(inputs[i], dtypes[i], loop->in[i], casting))
      throw UfuncTypeError(UfuncTypeError::Kind::InputCasting,
                           "Cannot cast ufunc '" + uf.name + "' input " + (uf.nin > 1 ? std::to_string(i) + " " : "") + "from " +
                               repr(dtypes[i]) + " to " + repr(loop->in[i]) + " with casting rule '" +
                               casting_name(casting) + "'");
  }
  for (size_t k = 0; k < out_dtypes.size(); ++k) {
    if (out_dtypes[k] && !can_cast(loop->out[k], *out_dtypes[k], casting))
      throw UfuncTypeError(UfuncTypeError::Kind::OutputCasting,
                           "Cannot cast ufunc '" + uf.name + "' output " +
                               (uf.nout > 1 ? std::to_string(uf.nin + k) + " " : std::string()) + "from " +
                               repr(loop->out[k]) + " to " + repr(*out_dtypes[k]) + " with casting rule '" +
                               casting_name(casting) + "'");
  }

  LoopChoice c;
  c.loop = loop;
  c.in = loop->in;
  c.out = loop->out;
  c.weak_dtypes.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    c.weak_dtypes.push_back(inputs[i].weak == WeakScalar::None_ ? inputs[i].dtype : loop->in[i]);
  return c;
}

}  // namespace kiln::arraycore
