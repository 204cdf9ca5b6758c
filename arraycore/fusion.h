// kiln.fuse's code generation and plans (fusion.cpp). The Python tracer
// (kiln/_fusion.py) calls the function with proxies and records each ufunc
// call, operator, astype and final reduction as a node of a FusionTrace,
// which resolves the node's type loop as the ufunc would and writes its C++
// statement; FusionTrace::plan turns the returned nodes into a FusionPlan,
// what every later call with arguments of the same kinds runs.
//
//   UfuncInput args[] = {UfuncInput::of(x)};               // x: float32 vector (node 0)
//   FusionTrace t("fused_f", args);
//   ScalarValue two;                                       // a Python int 2 (weak)
//   two.i = 2;
//   int y = t.ufunc("multiply", {0, t.constant(two)}, {}, Casting::SameKind)[0];
//   int s = t.reduce(y, "sum", std::nullopt, {}, false);
//   FusionPlan p = t.plan({y, s});                         // p.results(): outputs 0 and 1
//   std::vector<NDArray> outs = p.run(args, {});           // x * 2 and (x * 2).sum()
//
// Note [Fusion plans]
// What a call does depends only on each argument's kind: a kiln array's
// dtype, ndim and whether it is Fortran- (and not C-) contiguous (output
// order, as eager ufuncs choose it), or a scalar's type. The Python side
// keys its plans by that tuple; a warm call runs the plan's host scalar code
// (Python operators between Python scalars, Note [Host scalars] in
// kiln/_fusion.py) and FusionPlan::run, which converts the scalars,
// broadcasts, allocates and launches. Python operators between scalars can
// give a type that depends on values (2 ** -1 is a float), so the Python
// side checks the types they gave at tracing and traces again under a longer
// key on a mismatch.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/elementwise.h"
#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

class FusionPlan;

// Kernel text both fusion.cpp and fusion_rows.cpp write.
namespace fusion_detail {
inline constexpr const char* kPreamble = "#include <kiln/ufunc_math.h>\n";
// `expr` (of dtype `from`) as `to`, by NumPy's cast.
std::string cast_text(const std::string& expr, DType from, DType to);
// The binary ufunc a reduction method combines with ("sum": "add").
const char* reduce_ufunc(const std::string& method);
}  // namespace fusion_detail

// One traced value. Arrays and ufunc results live in the kernel (`expr`, a
// C++ local, param or literal of `dtype`); scalar arguments and results of
// Python operators on scalars live on the host (`weak` says which Python
// type a Python scalar has; a NumPy scalar has its dtype and, once the kernel
// reads it, an `expr`); constants are written into each use.
struct FusionNode {
  enum class Kind { ArrayArg, ScalarArg, Host, Constant, Value, Reduction };
  Kind kind = Kind::Value;
  DType dtype = DType::Bool;           // strong values; a reduction's result dtype
  WeakScalar weak = WeakScalar::None_;  // Python scalars (ScalarArg, Host, Constant)
  int index = -1;                      // ArrayArg/ScalarArg: argument k; Host: host value j
  std::string expr;                    // its C++ spelling in the kernel ("" until read)
  int ndim = 0;
  std::set<int> leaves;                // the array arguments it is computed from
  bool fonly = false;                  // Fortran-ordered (output order, as eager)
  int stored = -1;                     // the array argument this value was stored into (Note [Stores])
  ScalarValue value;                   // Constant
  // Reduction (Note [Fused reductions] in fusion.cpp): `method` (sum, prod,
  // max, min) of node `source` over sorted `axes`, accumulated in `acc`.
  int source = -1;
  std::string method;
  std::vector<int> axes;
  bool keepdims = false;
  DType acc = DType::Bool;
};

class FusionTrace {
 public:
  // Nodes 0..n-1 are the arguments: kiln arrays (their dtype, ndim and
  // order), Python scalars (weak) and NumPy scalars (strong).
  FusionTrace(std::string kernel_name, std::span<const UfuncInput> args);

  // One more argument (of the kind `in` has), given after those before:
  // views of the arguments that the caller makes at each call (x[1:]).
  int argument(const UfuncInput& in);
  // A constant written in the function (a Python or NumPy scalar).
  int constant(const ScalarValue& v);
  // The next host value (a Python operator on scalars, computed by the
  // caller at each call), of the kind `seen` had while tracing.
  int host(const ScalarValue& seen);
  // A ufunc call on nodes, as kiln.<name>(..., dtype=, casting=) would
  // resolve it; with `out_dtypes`, results are checked as ufunc out= of
  // those dtypes. Returns the output nodes. Throws UfuncTypeError and
  // ScalarOverflow as the eager call does.
  std::vector<int> ufunc(const std::string& name, std::span<const int> inputs, std::optional<DType> dtype,
                         Casting casting, std::span<const std::optional<DType>> out_dtypes = {});
  // where(cond, x, y): x's or y's value as their common dtype (NEP 50, as
  // kiln.where's), where cond (as bool) holds.
  int where(int cond, int x, int y);
  // x.astype(dtype) of a kernel value.
  int astype(int node, DType dtype);
  // `target op= other` on a kernel value: its dtype kept under
  // casting='same_kind' as the eager operator does; returns the node the
  // target now names (store). TypeError when the result has other kinds.
  int inplace(const std::string& name, int target, int other);
  // `target[...] = value` (value cast to target's dtype, unsafe): returns
  // the node the target now names. An array argument (or a value stored
  // into one) is written in place by the plan (Note [Stores]); another
  // target may not broadcast to more dimensions (TypeError).
  int store(int target, int value);
  // x.sum/prod/max/min(axis=, dtype=, keepdims=) of a kernel value, which
  // can only be returned. AxisError, ValueError (duplicate axes) as NumPy.
  int reduce(int node, const std::string& method, const std::optional<std::vector<int64_t>>& axis,
             std::optional<DType> dtype, bool keepdims);

  // NumPy's functions built on ufuncs, as kiln.real, imag, angle, i0 and
  // sinc compute them (fusion_functions.cpp): the steps and dtypes of
  // arraycore/math_functions' kernels. real() of a real array is the array
  // itself; imag() of one is zeros of its dtype; i0 of a complex value is
  // a TypeError.
  int real(int id);
  int imag(int id);
  int angle(int id, bool deg);
  int i0(int id);
  int sinc(int id);

  const FusionNode& node(int id) const { return nodes_.at(static_cast<size_t>(id)); }
  const std::string& kernel_name() const { return name_; }
  // Throws the TypeError naming the fused function and `what` cannot be fused.
  [[noreturn]] void cannot(const std::string& what) const;

  // The plan returning `results` (nodes, in order).
  FusionPlan plan(std::span<const int> results) const;

 private:
  friend class FusionPlan;
  struct Param {
    std::string name, ctype;
    char source;  // 'a' array argument, 's' NumPy scalar argument, 'h' host value, 'w' weak scalar, 'c' constant
    int index;
  };
  struct Statement {
    std::vector<std::string> defines;
    std::set<std::string> uses;
    std::string text;
  };
  struct WeakParam {
    int node;
    DType weak, to;
  };

  // `id`, or for a reduction the argument its result is read as (Note
  // [Reductions used inside] in fusion.cpp).
  int operand(int id);
  int add(FusionNode n);
  std::string temp();
  // The C++ expression for node `id` as the loop's input dtype `to` (a
  // weak scalar first taking `weak`), and the names it reads.
  std::string code(int id, DType weak, DType to, std::set<std::string>& uses);
  const std::string& kernel_expr(int id);
  // The statements (in order) computing the names in `needed`, which gains
  // every name they read; names in `given` are known already (not computed).
  std::vector<const std::string*> body(std::set<std::string>& needed, const std::set<std::string>& given = {}) const;
  FusionNode strong_result(std::span<const int> inputs, DType dtype, std::string expr) const;
  // A value of `dtype`: the C++ text `text` makes of node `id`'s expression
  // as dtype `as` (a Python scalar first taking its NEP 50 dtype).
  int apply(int id, DType as, DType dtype, const std::function<std::string(const std::string&)>& text);
  // `id`, or a Python scalar as a value of its NEP 50 dtype (numpy.asarray(s)).
  int strong(int id);

  std::string name_;
  std::vector<FusionNode> nodes_;
  std::vector<Param> params_;
  std::vector<WeakParam> weak_params_;
  std::vector<std::array<std::byte, 16>> consts_;
  std::vector<Statement> stmts_;
  std::map<int, int> stores_;   // array argument -> the last node stored into it
  std::map<int, int> derived_;  // argument -> the reduction whose result it is (Note [Reductions used inside])
  std::map<int, int> reduced_;  // reduction -> the node reading its result
  int ntemps_ = 0, nhost_ = 0, nargs_ = 0;
};

// Thrown by FusionPlan::run, before anything runs, when an argument the plan
// writes shares memory with another argument it reads or writes (Note
// [Arguments sharing memory] in fusion.cpp): the caller runs the function
// another way.
struct FusionArgumentsShareMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class FusionPlan {
 public:
  // Where each result of the traced function comes from: kernel output j,
  // argument j (returned as it is) or host value j.
  struct Result {
    enum class Kind { Output, Arg, Host } kind;
    int index;
  };
  const std::vector<Result>& results() const { return state_->results; }

  // Runs the plan for `args` (of the traced kinds) and the host values of
  // this call; returns the kernel outputs (Result::Output indexes them).
  // Throws std::invalid_argument when array arguments do not broadcast,
  // ScalarOverflow when a Python int argument does not fit its dtype,
  // FusionArgumentsShareMemory when a written argument shares memory with
  // another one.
  std::vector<NDArray> run(std::span<const UfuncInput> args, std::span<const ScalarValue> host) const;

 private:
  friend class FusionTrace;
  struct Output {
    int node;            // the value written (a reduction's source)
    DType dtype;         // written as (a reduction's accumulator dtype)
    int reduction = -1;  // the Reduction node, or -1
    int arg = -1;        // the array argument written in place (Note [Stores]), or -1
    int feeds = -1;      // the argument a reduction's result is read as (Note [Reductions used inside]), or -1
  };
  struct Kernel {
    EwSpec spec;
    std::vector<std::pair<char, int>> sources;   // per param: FusionTrace::Param::source/index, 'o' outputs
  };
  struct RowKernel;   // Note [Row-fused plans] (fusion_rows.cpp)
  struct State {
    FusionTrace trace;
    std::vector<Result> results;
    std::vector<Output> outputs;
    std::vector<int> array_args;
    std::vector<std::pair<int, int>> must_not_overlap;   // (written, other) arguments (Note [Arguments sharing memory])
    std::mutex mutex;
    std::map<std::vector<int>, Kernel> kernels;   // by the outputs one kernel writes
    std::shared_ptr<RowKernel> rows;              // the one-kernel plan, when the trace has its form
  };
  explicit FusionPlan(std::shared_ptr<State> s) : state_(std::move(s)) {}
  const Kernel& kernel(const std::vector<int>& outs) const;
  // Note [Row-fused plans]: the kernel when the plan qualifies (else null),
  // and its run, which returns false (doing nothing) when this call's
  // shapes or layouts suit the staged kernels better.
  static std::shared_ptr<RowKernel> row_kernel(const State& s);
  bool run_rows(std::span<const UfuncInput> in, std::span<const ScalarValue> host, std::span<const EwArg> weak,
                std::vector<NDArray>& results) const;
  std::pair<NDArray, NDArray> allocate(int j, const Shape& shape) const;

  std::shared_ptr<State> state_;
};

}  // namespace kiln::arraycore
