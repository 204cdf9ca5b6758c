// Lowering: the typed AST (infer.h) to the C++ IR (cir.h). Decides every
// conversion, which helper of kiln/jit.h implements Python's semantics, and
// how each builtin rule is spelled; prints nothing (emit.cpp does).
//
//   CModule cm = lower(typed_module);
//   std::string source = emit(cm);
//
// Note [Names in generated code]
// A Python local or parameter `x` is `x_` in C++ (so no Python name can
// collide with a C++ keyword, a CUDA builtin or a host-prelude macro);
// transpiler temporaries are `kt<N>` and never end in `_`. A parameter whose
// local widens (Note [Local types]) arrives as `x_in` and is copied into `x_`.
//
// Note [Python semantics in C++]
// Arithmetic happens in the NEP 50 result type of its operands (infer.cpp),
// operands converted first; narrow integer results are cast back (C++
// promotes them to int). `/` of integers is float64 division; `//` and `%`
// round toward -inf (kiln::jit::floordiv/pymod); `**` of integers is exact;
// `and`/`or` return an operand, as Python, short-circuiting; chained
// comparisons evaluate each operand once. Stores into array elements convert
// with NumPy's casts (kiln::numpy_cast), as `a[i] = v` does in NumPy.
#pragma once

#include "transpiler/cir.h"
#include "transpiler/infer.h"

namespace kiln::transpiler {

CModule lower(const TypedModule& tm);

// The C++ literal for `v` as dtype `d` ("2.0f", "5LL", "kiln::half(1.5f)").
std::string c_literal(const ConstValue& v, DType d);

}  // namespace kiln::transpiler
