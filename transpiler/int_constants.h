// Python integer constants in kernels (int_constants.cpp): their exact
// values, and NumPy 2's rule where one meets a typed value.
//
//   check_int_constant(e);              // 2**100: OverflowError (Diag Overflow)
//   check_int_fits(e, DType::Int8, e);  // x[0] = 300 on int8: OverflowError
//
// Note [Python integer constants]
// Python computes `2**100` or `1 << 70` exactly; a kernel computes a Python
// integer expression in int64 (a literal above 2**63 - 1 in uint64), where
// they wrap to 0 without a word. So an integer constant expression (int
// literals, captured Python ints, unary - + ~ and the binary operators over
// them) is evaluated exactly at compile time, and one whose value the
// kernel's type cannot hold is a compile error, as is one that meets a typed
// integer it does not fit (an element store, or an operand of a binary
// operator): NumPy 2 raises "OverflowError: Python integer 300 out of bounds
// for int8" for `a[0] = 300` and `numpy.int8(1) + 300`, and so does the
// transpiler, with the caret under the constant. Each operation of a
// constant expression is checked, as the kernel computes each one: `2**63 - 1`
// is refused (write 9223372036854775807). Only compile-time constants
// are checked: a Python int reaching the kernel as an argument is int64 by
// then (pyfrontend refuses one that does not fit), and values computed at run
// time wrap as C++ integers do.
#pragma once

#include <optional>
#include <string>

#include "arraycore/dtype.h"
#include "transpiler/ast.h"

namespace kiln::transpiler {

// The exact value of an integer constant expression (Note [Python integer
// constants]); nullopt when `e` is not one, or Python would raise evaluating
// it (division by zero, a negative shift count or power).
struct ExactInt {
  bool huge = false;   // |value| >= 2**126: no kernel type holds it
  __int128 value = 0;  // when !huge
};
std::optional<ExactInt> exact_int(const Expr& e);

// Throws TranspileError (Overflow) at `e` when `e` is an integer constant
// expression whose value the type the kernel computes it in cannot hold.
void check_int_constant(const Expr& e);

// Throws TranspileError (Overflow) at `e` when `e` is an integer constant
// expression that does not fit the integer dtype `typed` (other dtypes: no
// check).
void check_int_fits(const Expr& e, arraycore::DType typed);

}  // namespace kiln::transpiler
