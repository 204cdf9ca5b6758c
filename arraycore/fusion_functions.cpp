// FusionTrace's NumPy functions built on ufuncs (kiln.real, imag, angle, i0,
// sinc traced inside kiln.fuse, fusion.h): each is the chain of steps that
// arraycore/math_functions.cpp writes into its own kernel, recorded as trace
// nodes, so a fused call gives the dtypes and values of the eager one.
#include <numbers>

#include "arraycore/fusion.h"
#include "arraycore/axes.h"
#include "arraycore/generated_kernel.h"

namespace kiln::arraycore {
namespace {

char kind_of(DType d) { return dtype_info(d).kind; }

DType real_dtype(DType d) {
  return d == DType::Complex64 ? DType::Float32 : d == DType::Complex128 ? DType::Float64 : d;
}

}  // namespace

int FusionTrace::apply(int id, DType as, DType dtype, const std::function<std::string(const std::string&)>& text) {
  id = operand(id);
  std::set<std::string> uses;
  const std::string e = code(id, node(id).dtype, as, uses);
  const std::string name = temp();
  stmts_.push_back({{name}, std::move(uses), "const " + c_type(dtype) + " " + name + " = " + text(e) + ";"});
  const int ids[] = {id};
  return add(strong_result(ids, dtype, name));
}

int FusionTrace::strong(int id) {
  id = operand(id);
  const DType d = node(id).dtype;
  if (node(id).weak == WeakScalar::None_) return id;
  return apply(id, d, d, [](const std::string& e) { return e; });
}

int FusionTrace::real(int id) {
  id = strong(id);
  const DType d = node(id).dtype;
  if (kind_of(d) != 'c') return id;
  return apply(id, d, real_dtype(d), [](const std::string& e) { return e + ".real()"; });
}

int FusionTrace::imag(int id) {
  id = strong(id);
  const DType d = node(id).dtype;
  if (kind_of(d) != 'c')
    return apply(id, d, d, [&](const std::string&) { return "kiln::numpy_cast<" + c_type(d) + ">(0.0f)"; });
  return apply(id, d, real_dtype(d), [](const std::string& e) { return e + ".imag()"; });
}

int FusionTrace::angle(int id, bool deg) {
  id = strong(id);
  std::vector<int> parts;
  if (kind_of(node(id).dtype) == 'c') parts = {imag(id), real(id)};
  else parts = {constant(ScalarValue::python_int(0)), id};
  int a = ufunc("arctan2", parts, std::nullopt, Casting::SameKind)[0];
  if (deg) {
    const int to_degrees[] = {a, constant(ScalarValue::python_float(180 / std::numbers::pi))};
    a = ufunc("multiply", to_degrees, std::nullopt, Casting::SameKind)[0];
  }
  return a;
}

int FusionTrace::i0(int id) {
  id = strong(id);
  const DType d = node(id).dtype;
  if (kind_of(d) == 'c') throw TypeError("i0 not supported for complex values");
  const DType out = kind_of(d) == 'f' ? d : DType::Float64;
  const DType compute = itemsize(out) == 2 ? DType::Float32 : out;   // float16: computed in float32, rounded once
  return apply(id, compute, out,
               [&](const std::string& e) { return fusion_detail::cast_text("kiln::ufn::i0(" + e + ")", compute, out); });
}

int FusionTrace::sinc(int id) {
  id = operand(id);
  const int pi_x[] = {constant(ScalarValue::python_float(std::numbers::pi)), id};
  const int t = ufunc("multiply", pi_x, std::nullopt, Casting::SameKind)[0];
  const DType d = node(t).dtype;
  if (kind_of(d) == 'f') return apply(id, d, d, [](const std::string& e) { return "kiln::ufn::sinc(" + e + ")"; });
  // where(t, t, 1e-20), then sin(y) / y: NumPy's steps for complex t.
  const int nonzero[] = {t, constant(ScalarValue::python_int(0))};
  const int y = where(ufunc("not_equal", nonzero, std::nullopt, Casting::SameKind)[0], t,
                      constant(ScalarValue::python_float(1e-20)));
  const int sin_y[] = {y};
  const int quotient[] = {ufunc("sin", sin_y, std::nullopt, Casting::SameKind)[0], y};
  return ufunc("divide", quotient, std::nullopt, Casting::SameKind)[0];
}

}  // namespace kiln::arraycore
