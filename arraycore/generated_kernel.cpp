#include "arraycore/generated_kernel.h"

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "arraycore/promotion.h"

#include "arraycore/transfer.h"
#include "runtime/stream.h"

namespace kiln::arraycore {

const EwSpec& generated_spec(const std::string& key, const std::function<EwSpec()>& make) {
  static std::mutex mutex;
  static std::map<std::string, EwSpec, std::less<>> specs;   // node-based: references stay valid
  std::lock_guard<std::mutex> lock(mutex);
  auto it = specs.find(key);
  if (it != specs.end()) return it->second;
  return specs.emplace(key, make()).first->second;
}

EwSpec exact_spec(std::string name, std::string preamble) {
  EwSpec s;
  s.name = std::move(name);
  s.preamble = std::move(preamble);
  s.options = exact_fp_options();
  return s;
}

std::string c_type(DType d) { return std::string(dtype_info(d).c_type); }

std::string storage_ctype(DType d) { return d == DType::Bool ? "unsigned char" : c_type(d); }

std::string load_text(const std::string& ctype, DType d, const std::string& at) {
  if (d == DType::Bool) return ctype == "bool" ? "(bool)(" + at + " != 0)" : "kiln::numpy_cast<" + ctype + ">((bool)(" + at + " != 0))";
  if (storage_ctype(d) == ctype) return at;
  return "kiln::numpy_cast<" + ctype + ">(" + at + ")";
}

std::string store_text(const std::string& ctype, DType d, const std::string& value) {
  if (d == DType::Bool) return "(unsigned char)(bool)(" + value + ")";
  if (storage_ctype(d) == ctype) return value;
  return "kiln::numpy_cast<" + storage_ctype(d) + ">(" + value + ")";
}

EwParam input_param(std::string name, DType ctype, std::string storage) {
  return {std::move(name), c_type(ctype), std::move(storage), EwParam::Input};
}
EwParam input_param(std::string name, std::string ctype, std::string storage) {
  return {std::move(name), std::move(ctype), std::move(storage), EwParam::Input};
}
EwParam raw_param(std::string name, std::string ctype) { return {std::move(name), std::move(ctype), "", EwParam::Raw}; }
EwParam output_param(std::string name, DType ctype, std::string storage) {
  return {std::move(name), c_type(ctype), std::move(storage), EwParam::Output};
}

EwArg scalar_arg_as(const ScalarValue& v, DType to) {
  DType from = DType::Int64;
  switch (v.kind) {
    case ScalarValue::Kind::Typed: from = v.dtype; break;
    case ScalarValue::Kind::Bool: from = DType::Bool; break;
    case ScalarValue::Kind::Int: from = DType::Int64; break;
    case ScalarValue::Kind::UInt: from = DType::UInt64; break;
    case ScalarValue::Kind::BigInt:
    case ScalarValue::Kind::Float: from = DType::Float64; break;
    case ScalarValue::Kind::Complex: from = DType::Complex128; break;
  }
  EwArg a;
  scalar_bytes(v, from, to, a.scalar.data());
  return a;
}

EwArg scalar_arg_bytes(const void* src, DType d) {
  EwArg a;
  std::memcpy(a.scalar.data(), src, itemsize(d));
  return a;
}

DType result_type_of(std::span<const UfuncInput> operands) {
  std::vector<DType> strong;
  std::vector<WeakScalar> weak;
  for (const UfuncInput& v : operands) {
    Operand o = operand_of(v);
    if (o.weak == WeakScalar::None_) strong.push_back(o.dtype);
    else weak.push_back(o.weak);
  }
  return result_type(strong, weak);
}

void read_back(const NDArray& a, void* dst) { copy_to_host(a, dst, runtime::current_stream(), true); }

}  // namespace kiln::arraycore
