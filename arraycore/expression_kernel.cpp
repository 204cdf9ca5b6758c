#include "arraycore/expression_kernel.h"

#include <stdexcept>

#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/indexing.h"
#include "arraycore/promotion.h"
#include "arraycore/record_dtype.h"
#include "arraycore/transfer.h"
#include "arraycore/ufunc.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr const char* kPreamble = "#include <kiln/ufunc_math.h>\n";


// A shape as Python prints a tuple: "(2, 3)", "(3,)", "()".
std::string python_shape(const Shape& s) {
  std::string t = "(";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");
}

Value local(std::string name, DType dtype) {
  Value r;
  r.name = std::move(name);
  r.dtype = dtype;
  return r;
}

}  // namespace

Value weak_float(double v) {
  Value r;
  r.weak = true;
  r.weak_value = ScalarValue::python_float(v);
  return r;
}

Value ExpressionKernel::input(const UfuncInput& x) {
  if (!x.array && x.scalar.kind != ScalarValue::Kind::Typed) {
    Value r;
    r.weak = true;
    r.weak_value = x.scalar;
    return r;
  }
  return input(x, x.array ? x.array->dtype() : x.scalar.dtype);
}

Value ExpressionKernel::input(const UfuncInput& x, DType dtype) {
  require_not_record(x.array ? x.array->dtype() : dtype, "this operation");
  require_not_record(dtype, "this operation");
  const Value r = local("in" + std::to_string(params_.size()), dtype);
  Arg a;
  if (x.array) {
    params_.push_back(input_param(r.name, dtype, c_type(x.array->dtype())));
    a.array = x.array;
  } else {
    params_.push_back(input_param(r.name, dtype));
    a.scalar = scalar_arg_as(x.scalar, dtype);
  }
  args_.push_back(a);
  return r;
}

Value ExpressionKernel::scalar(const ScalarValue& v, DType dtype) {
  const Value r = local("in" + std::to_string(params_.size()), dtype);
  params_.push_back(input_param(r.name, dtype));
  Arg a;
  scalar_bytes(v, dtype, dtype, a.scalar.scalar.data());
  args_.push_back(a);
  return r;
}

Value ExpressionKernel::expr(DType dtype, const std::string& text) {
  const Value r = local("v" + std::to_string(body_.size()), dtype);
  body_.push_back("const " + c_type(dtype) + " " + r.name + " = " + text + ";");
  return r;
}

Value ExpressionKernel::as_type(const Value& v, DType dtype) {
  if (v.weak) return scalar(v.weak_value, dtype);
  if (v.dtype == dtype) return v;
  return expr(dtype, "kiln::numpy_cast<" + c_type(dtype) + ">(" + v.name + ")");
}

Value ExpressionKernel::call(const std::string& ufunc_name, const std::vector<Value>& vals,
                             std::optional<DType> out_dtype) {
  std::vector<Operand> ops;
  for (const Value& v : vals) {
    if (v.weak) {
      UfuncInput in;
      in.scalar = v.weak_value;
      ops.push_back(operand_of(in));
    } else {
      ops.push_back({v.dtype, WeakScalar::None_});
    }
  }
  std::vector<std::optional<DType>> outs;
  if (out_dtype) outs.push_back(*out_dtype);
  LoopChoice c = resolve_loop(ufunc(ufunc_name), ops, std::nullopt, Casting::SameKind, outs);
  std::string args;
  for (size_t k = 0; k < vals.size(); ++k) args += (k ? ", " : "") + as_type(vals[k], c.in[k]).name;
  Value r = expr(c.out[0], "kiln::ufn::" + ufunc_name + "(" + args + ")");
  return out_dtype ? as_type(r, *out_dtype) : r;
}

Shape ExpressionKernel::shape() const {
  std::vector<Shape> shapes;
  for (const Arg& a : args_)
    if (a.array) shapes.push_back(a.array->shape());
  return broadcast_shapes(shapes);
}

void ExpressionKernel::launch(std::vector<EwParam> params, const std::string& operation, const Shape& shape,
                              const NDArray& extra) {
  std::string key = name_ + "\n" + operation + "\n";
  for (const EwParam& p : params) key += p.name + "," + p.ctype + "," + p.storage + "," + std::to_string(p.role) + ";";
  const EwSpec& spec = generated_spec(key, [&] {
    EwSpec s = exact_spec(name_, kPreamble);
    s.params = std::move(params);
    s.operation = operation;
    return s;
  });
  bool empty = false;
  for (int64_t n : shape) empty = empty || n == 0;
  if (empty) return;
  std::vector<NDArray> views;
  views.reserve(args_.size());
  std::vector<EwArg> args;
  for (const Arg& a : args_) {
    if (a.array) {
      // An input sharing memory with out= (not as the very same view) is read
      // from a copy: Note [Overlapping copies] in copy.cpp.
      NDArray in = overlaps_partially(*a.array, extra) ? astype(*a.array, a.array->dtype(), Order::C) : *a.array;
      views.push_back(in.shape() == shape ? in : broadcast_to(in, shape));
      args.push_back(EwArg::of(views.back()));
    } else {
      args.push_back(a.scalar);
    }
  }
  args.push_back(EwArg::of(extra));
  elementwise_launch(spec, args, shape);
}

NDArray ExpressionKernel::run(const Value& result, const NDArray* out, const std::string& what) {
  Shape s = shape();
  if (out && out->shape() != s) {
    // The inputs broadcast to a larger out=, as a ufunc's do.
    bool fits = false;
    try {
      fits = broadcast_shapes({s, out->shape()}) == out->shape();
    } catch (const std::invalid_argument&) {
    }
    if (fits) s = out->shape();
  }
  if (out && out->shape() != s)
    throw std::invalid_argument("non-broadcastable output operand with shape " + python_shape(out->shape()) +
                                " doesn't match the broadcast shape " + python_shape(s));
  if (out && !can_cast(result.dtype, out->dtype(), Casting::SameKind))
    throw UfuncTypeError(UfuncTypeError::Kind::OutputCasting,
                         "Cannot cast ufunc '" + (what.empty() ? name_ : what) + "' output from " +
                             dtype_repr(result.dtype) + " to " + dtype_repr(out->dtype()) +
                             " with casting rule 'same_kind'");
  NDArray target = out ? *out : NDArray::empty(s, result.dtype);
  std::vector<EwParam> params = params_;
  params.push_back(output_param("out", result.dtype, c_type(target.dtype())));
  std::string operation;
  for (const std::string& line : body_) operation += line + "\n";
  operation += "out = " + result.name + ";";
  launch(std::move(params), operation, s, target);
  return target;
}

bool ExpressionKernel::run_all(const Value& condition) {
  const Shape s = shape();
  NDArray flag = NDArray::empty({1}, DType::Int32);
  int one = 1;
  copy_from_host(flag, &one, runtime::current_stream());
  std::vector<EwParam> params = params_;
  params.push_back(raw_param("flag", "int"));
  std::string operation;
  for (const std::string& line : body_) operation += line + "\n";
  operation += "if (!" + condition.name + ") flag[0] = 0;";
  launch(std::move(params), operation, s, flag);
  int result = 1;
  read_back(flag, &result);
  return result != 0;
}

}  // namespace kiln::arraycore
