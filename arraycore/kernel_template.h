// Kernel templates: the parameter lists of ElementwiseKernel and
// ReductionKernel ("T x, raw U y, float32 z"), parsed once, and the type
// resolution of a call (placeholders bound from the argument dtypes), which
// gives the engine spec for those dtypes (kernel_template.cpp).
//
//   KernelTemplate t("axpy", "T x, T y", "T z", KernelTemplate::Elementwise, numpy_lookup);
//   TemplateArg args[] = {TemplateArg::array(DType::Float32), TemplateArg::scalar(DType::Float64)};
//   ResolvedTypes r = t.resolve(args);          // r.dtypes: float32 x3 (the array decides T)
//   std::shared_ptr<EwSpec> s = elementwise_kernel_spec(t, r, {.operation = "z = a * x + y"});
//
// Errors are NumPy/CuPy-shaped: std::invalid_argument (ValueError) for a bad
// parameter list, arraycore::TypeError (TypeError) for bad types,
// KernelTemplateUnsupported (NotImplementedError) for what kiln lacks.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "arraycore/dtype.h"
#include "arraycore/elementwise.h"
#include "arraycore/reduction.h"

namespace kiln::arraycore {

// A feature CuPy has and kiln does not (the bindings raise NotImplementedError).
class KernelTemplateUnsupported : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// How a type name in a parameter list reads (the bindings ask numpy.dtype, so
// every spelling NumPy accepts works: "float32", "f4", "double", "int").
struct TypeName {
  bool known = false;            // false: NumPy does not know the name
  std::optional<DType> dtype;    // a known name kiln supports
  std::string numpy_name;        // known: NumPy's name for it ("float128"), for messages
};
using TypeLookup = std::function<TypeName(std::string_view)>;

struct TemplateParam {
  std::string name;
  std::optional<DType> dtype;    // nullopt: a type placeholder
  std::string placeholder;       // the placeholder's one-letter name, when dtype is nullopt
  bool raw = false;
  bool is_const = false;         // an input
  // The C++ type as written: the dtype's spelling or the placeholder's name.
  std::string_view ctype() const { return dtype ? dtype_info(*dtype).c_type : std::string_view(placeholder); }
};

// What a call passes for one parameter: an array (raw or not) or a scalar,
// with its dtype (a Python scalar: NumPy's default dtype for its type).
struct TemplateArg {
  bool is_array = true;
  DType dtype = DType::Float64;
  static TemplateArg array(DType d) { return {true, d}; }
  static TemplateArg scalar(DType d) { return {false, d}; }
};

struct ResolvedTypes {
  std::vector<DType> dtypes;                                // every parameter's, in order
  std::vector<std::pair<std::string, DType>> placeholders;  // sorted by name
};

class KernelTemplate {
 public:
  enum Kind { Elementwise, Reduction };

  // Parses the lists; the checks and messages of CuPy's kernels (a
  // ReductionKernel also: one non-raw output, 1 to 4 non-raw inputs, and
  // 'a', 'b', 'out' reserved).
  KernelTemplate(std::string name, std::string_view in_params, std::string_view out_params, Kind kind,
                 const TypeLookup& lookup);

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  const std::vector<TemplateParam>& params() const { return params_; }
  size_t nin() const { return nin_; }
  size_t nargs() const { return params_.size(); }

  // Note [Kernel template resolution]
  // `args` are the inputs' (then, when given, the outputs') kinds and dtypes.
  // Placeholders are bound from the outputs given, then the input arrays (raw
  // ones too), in order; a placeholder that only scalars name takes NumPy's
  // result_type of their dtypes (a Python scalar counting as its default
  // dtype, so not NEP 50 weak: CuPy's rule). A fixed-dtype parameter must be
  // given arrays of exactly its dtype; scalars are converted to it. An output
  // placeholder that no argument binds is an error (pass the output).
  ResolvedTypes resolve(std::span<const TemplateArg> args) const;

 private:
  std::string name_;
  Kind kind_;
  std::vector<TemplateParam> params_;
  size_t nin_ = 0;
};

// "typedef <ctype> <placeholder>;\n" per placeholder, sorted: the expressions
// and the preamble name the placeholders.
//
// Note [Placeholders before the preamble]
// The typedefs come before the user's preamble, as in CuPy, so that helper
// functions in the preamble can be written with the placeholders
// (`__device__ T call_value(T s, T x)` in CuPy's option-pricing examples).
// Each call's dtypes give their own kernel source, so one kernel object
// called with float32 and with float64 compiles the preamble once per type.
std::string placeholder_typedefs(const ResolvedTypes& resolved);

struct ElementwiseKernelText {
  std::string operation, preamble, loop_prep, after_loop;
  std::vector<std::string> options;
  bool outputs_write_only = false;
};

// The elementwise engine spec of an ElementwiseKernel for resolved dtypes.
std::shared_ptr<EwSpec> elementwise_kernel_spec(const KernelTemplate& t, const ResolvedTypes& resolved,
                                                const ElementwiseKernelText& text);

struct ReductionKernelText {
  std::string map_expr, reduce_expr, post_map_expr, identity;
  std::string reduce_type;   // a dtype name, a C type of the dtype table, a placeholder; empty: the output's
  std::string preamble;
  std::vector<std::string> options;
};

// The accumulator dtype of a ReductionKernel (text.reduce_type resolved);
// TypeError for a name that is none of the three.
DType reduction_kernel_reduce_dtype(const KernelTemplate& t, const ResolvedTypes& resolved,
                                    const ReductionKernelText& text, const TypeLookup& lookup);

// The reduction engine spec of a ReductionKernel for resolved dtypes.
std::shared_ptr<ReductionSpec> reduction_kernel_spec(const KernelTemplate& t, const ResolvedTypes& resolved,
                                                     const ReductionKernelText& text, const TypeLookup& lookup);

}  // namespace kiln::arraycore
