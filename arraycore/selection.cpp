#include "arraycore/selection.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/indexing.h"
#include "arraycore/promotion.h"

namespace kiln::arraycore {
namespace {

constexpr const char* kPreamble = "#include <kiln/ufunc_math.h>\n";

std::string dtype_name(DType d) { return std::string(dtype_info(d).name); }

// The broadcast shape of the array operands among `groups`.
Shape broadcast_of(std::initializer_list<std::span<const UfuncInput>> groups, const NDArray* also = nullptr) {
  std::vector<Shape> shapes;
  if (also) shapes.push_back(also->shape());
  for (auto group : groups)
    for (const UfuncInput& v : group)
      if (v.array) shapes.push_back(v.array->shape());
  return broadcast_shapes(shapes);
}

// One input param and argument per value (Note [Selection kernels]); the
// arrays stay in `keep` (broadcast views) while the launch runs.
void value_params(std::span<const UfuncInput> values, DType dtype, const Shape& shape, EwSpec* spec,
                  std::vector<EwArg>& args, std::vector<NDArray>& keep) {
  for (size_t k = 0; k < values.size(); ++k) {
    const UfuncInput& v = values[k];
    if (spec) spec->params.push_back(input_param("c" + std::to_string(k), dtype, v.array ? c_type(v.array->dtype()) : ""));
    if (v.array) {
      keep.push_back(broadcast_to(*v.array, shape));
      args.push_back(EwArg::of(keep.back()));
    } else {
      args.push_back(scalar_arg_as(v.scalar, dtype));
    }
  }
}

std::string value_key(std::span<const UfuncInput> values) {
  std::string key;
  for (const UfuncInput& v : values) key += "_" + (v.array ? dtype_name(v.array->dtype()) : std::string("s"));
  return key;
}

const char* mode_name(ChooseMode m) {
  return m == ChooseMode::Raise ? "raise" : m == ChooseMode::Wrap ? "wrap" : "clip";
}

// The index's range rule for n choices, on the local `j`.
std::string mode_text(ChooseMode m, size_t n) {
  const std::string s = std::to_string(n);
  switch (m) {
    case ChooseMode::Raise: return "if (j < 0 || j >= " + s + ") { atomicOr(&bad[0], 1ULL); j = 0; }";
    case ChooseMode::Wrap: return "j %= " + s + ";\nif (j < 0) j += " + s + ";";
    case ChooseMode::Clip: return "j = j < 0 ? 0 : (j >= " + s + " ? " + s + " - 1 : j);";
  }
  return {};
}

}  // namespace

NDArray choose(const NDArray& index, std::span<const UfuncInput> choices, ChooseMode mode) {
  if (dtype_info(index.dtype()).kind == 'f' || dtype_info(index.dtype()).kind == 'c')
    throw TypeError("Cannot cast array data from dtype('" + dtype_name(index.dtype()) +
                    "') to dtype('int64') according to the rule 'safe'");
  if (choices.empty()) throw std::invalid_argument("0-length sequence.");
  const DType dtype = result_type_of(choices);
  const Shape shape = broadcast_of({choices}, &index);
  const std::string name = std::string("choose_") + mode_name(mode) + "_" + dtype_name(index.dtype()) + "_" +
                           dtype_name(dtype) + value_key(choices);
  const size_t n = choices.size();
  std::vector<EwArg> args;
  std::vector<NDArray> keep;
  keep.reserve(n + 2);
  keep.push_back(broadcast_to(index, shape));
  args.push_back(EwArg::of(keep.back()));
  value_params(choices, dtype, shape, nullptr, args, keep);
  NDArray result = NDArray::empty(shape, dtype);
  args.push_back(EwArg::of(result));
  std::optional<NDArray> bad;
  if (mode == ChooseMode::Raise) {
    bad = NDArray::zeros({1}, DType::UInt64);
    args.push_back(EwArg::of(*bad));
  }
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    s.params.push_back(input_param("idx", "long long", c_type(index.dtype())));
    std::vector<EwArg> unused;
    std::vector<NDArray> unused_keep;
    value_params(choices, dtype, shape, &s, unused, unused_keep);
    s.params.push_back(output_param("y", dtype));
    if (mode == ChooseMode::Raise) s.params.push_back(raw_param("bad", "unsigned long long"));
    std::string cases;
    for (size_t k = 0; k < n; ++k) cases += "  case " + std::to_string(k) + ": y = c" + std::to_string(k) + "; break;\n";
    s.operation = "long long j = idx;\n" + mode_text(mode, n) + "\nswitch (j) {\n" + cases + "}";
    return s;
  });
  elementwise_launch(spec, args, shape);
  if (bad && result.size()) {
    unsigned long long flag = 0;
    read_back(*bad, &flag);
    if (flag) throw std::invalid_argument("invalid entry in choice array");
  }
  return result;
}

NDArray select(std::span<const UfuncInput> conditions, std::span<const UfuncInput> values) {
  if (values.size() != conditions.size() + 1)
    throw std::invalid_argument("list of cases must be same length as list of conditions");
  if (conditions.empty()) throw std::invalid_argument("select with an empty condition list is not possible");
  for (size_t k = 0; k < conditions.size(); ++k) {
    const UfuncInput& c = conditions[k];
    const bool is_bool = c.array ? c.array->dtype() == DType::Bool
                                 : c.scalar.kind == ScalarValue::Kind::Bool ||
                                       (c.scalar.kind == ScalarValue::Kind::Typed && c.scalar.dtype == DType::Bool);
    if (!is_bool)
      throw TypeError("invalid entry " + std::to_string(k) + " in condlist: should be boolean ndarray");
  }
  const DType dtype = result_type_of(values);
  // NumPy copies each choice into the result under same_kind casting, a
  // Python scalar as an array of its default dtype (so an int choice cannot
  // go into an unsigned result); the default is cast unsafely.
  for (size_t k = 0; k + 1 < values.size(); ++k) {
    Operand o = operand_of(values[k]);
    DType from = o.weak == WeakScalar::None_ ? o.dtype
                 : values[k].scalar.kind == ScalarValue::Kind::UInt ? DType::UInt64
                                                                    : default_dtype(o.weak);
    if (!can_cast(from, dtype, Casting::SameKind))
      throw TypeError("Cannot cast array data from dtype('" + dtype_name(from) + "') to dtype('" + dtype_name(dtype) +
                      "') according to the rule 'same_kind'");
  }
  const Shape shape = broadcast_of({conditions, values});
  const size_t n = conditions.size();
  std::string name = "select_" + dtype_name(dtype) + value_key(values);
  for (const UfuncInput& c : conditions) name += c.array ? "_a" : "_s";
  std::vector<EwArg> args;
  std::vector<NDArray> keep;
  keep.reserve(values.size() + n);
  value_params(values, dtype, shape, nullptr, args, keep);
  for (const UfuncInput& c : conditions) {
    if (c.array) {
      keep.push_back(broadcast_to(*c.array, shape));
      args.push_back(EwArg::of(keep.back()));
    } else {
      args.push_back(scalar_arg_as(c.scalar, DType::Bool));
    }
  }
  NDArray result = NDArray::empty(shape, dtype);
  args.push_back(EwArg::of(result));
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    std::vector<EwArg> unused;
    std::vector<NDArray> unused_keep;
    value_params(values, dtype, shape, &s, unused, unused_keep);
    for (size_t k = 0; k < n; ++k) s.params.push_back(input_param("w" + std::to_string(k), "bool"));
    s.params.push_back(output_param("y", dtype));
    for (size_t k = 0; k < n; ++k)
      s.operation += std::string(k ? "else " : "") + "if (w" + std::to_string(k) + ") y = c" + std::to_string(k) + ";\n";
    s.operation += "else y = c" + std::to_string(n) + ";";
    return s;
  });
  elementwise_launch(spec, args, shape);
  return result;
}

}  // namespace kiln::arraycore
