// One elementwise kernel written as a chain of ufunc steps
// (expression_kernel.cpp): NumPy's functions built on ufuncs (where, clip,
// isclose, around ...) run as one launch with NumPy's bits.
//
//   ExpressionKernel k("kiln_isclose");
//   Value x = k.input(a), y = k.input(b);                 // arrays, NumPy or Python scalars
//   Value d = k.call("absolute", {k.call("subtract", {x, y})});
//   NDArray r = k.run(k.call("less_equal", {d, k.scalar(tol, DType::Float64)}));
//
// Note [One kernel per function]
// NumPy computes these as chains of ufunc calls with temporaries in between;
// kiln writes the same chain as one kernel: ExpressionKernel::call resolves
// each step's type loop exactly as the ufunc would (resolve_loop, NEP 50 weak
// Python scalars included) and emits the matching kiln::ufn function on
// values cast to that loop's types, so each step rounds where NumPy's does
// and the result has NumPy's bits, with one launch and no temporaries.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arraycore/elementwise.h"
#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// A C++ local (or param) of `dtype`, or a Python scalar still weak (typed by
// each use).
struct Value {
  std::string name;
  DType dtype = DType::Bool;
  bool weak = false;
  ScalarValue weak_value;   // when weak
};

// A weak Python float / int as a Value.
Value weak_float(double v);

class ExpressionKernel {
 public:
  explicit ExpressionKernel(std::string name) : name_(std::move(name)) {}

  // x as a value of its own dtype; a Python scalar stays weak.
  Value input(const UfuncInput& x);
  // x as a value of `dtype` (scalars converted as numpy.asarray(x).astype(dtype)).
  Value input(const UfuncInput& x, DType dtype);
  // A scalar param of `dtype` holding `v` as dtype.type(v) converts it (a
  // Python int out of range: ScalarOverflow).
  Value scalar(const ScalarValue& v, DType dtype);
  // A local of `dtype` initialised by the C++ `text`.
  Value expr(DType dtype, const std::string& text);
  Value as_type(const Value& v, DType dtype);
  // kiln::ufn::<ufunc> on `vals` through the type loop the ufunc picks for
  // them (its first output); with `out_dtype`, stored as the ufunc would
  // store into an out= of that dtype (NumPy's casting error when same_kind
  // does not allow it).
  Value call(const std::string& ufunc, const std::vector<Value>& vals, std::optional<DType> out_dtype = {});

  // Writes `result` to `out` (checked as a ufunc named `what` checks it:
  // same_kind casting, the broadcast shape) or to a new array.
  NDArray run(const Value& result, const NDArray* out = nullptr, const std::string& what = {});
  // Whether `condition` holds for every element (true when empty); one sync.
  bool run_all(const Value& condition);

 private:
  struct Arg {
    const NDArray* array = nullptr;
    EwArg scalar;
  };
  Shape shape() const;
  void launch(std::vector<EwParam> params, const std::string& operation, const Shape& shape, const NDArray& extra);

  std::string name_;
  std::vector<EwParam> params_;
  std::vector<Arg> args_;
  std::vector<std::string> body_;
};

}  // namespace kiln::arraycore
