#include "arraycore/dtype.h"

#include <array>

#include "arraycore/record_dtype.h"

namespace kiln::arraycore {
namespace {

// The one dtype table: the Python layer reads it through _core._dtype_table()
// (kiln/_elementwise_kernel.py's _CTYPES), the engines, kernel templates and
// the transpiler through dtype_info(). (runtime/kernel_signature.cpp parses
// the C types of user RawKernel signatures: a different job, below arraycore.)

// Note [Bfloat16 is a float]
// bfloat16 is NumPy's through ml_dtypes (numpy.dtype(ml_dtypes.bfloat16):
// kind 'V', char 'E', itemsize 2), as CuPy 14 supports it. NumPy files it
// under kind 'V' only because it is a user dtype; every rule in kiln that
// reads `kind` (casting, reductions, printing of errors) must treat it as the
// float it is, so the table says 'f'. Its promotion is ml_dtypes' (promotion.cpp),
// and the Python layer asks ml_dtypes for the NumPy dtype object.

// clang-format off
constexpr std::array<DTypeInfo, kNumDTypes> kTable = {{
  {DType::Bool,       "bool",       'b', '?', 1, "bool"},
  {DType::Int8,       "int8",       'i', 'b', 1, "signed char"},
  {DType::Int16,      "int16",      'i', 'h', 2, "short"},
  {DType::Int32,      "int32",      'i', 'i', 4, "int"},
  {DType::Int64,      "int64",      'i', 'q', 8, "long long"},
  {DType::UInt8,      "uint8",      'u', 'B', 1, "unsigned char"},
  {DType::UInt16,     "uint16",     'u', 'H', 2, "unsigned short"},
  {DType::UInt32,     "uint32",     'u', 'I', 4, "unsigned int"},
  {DType::UInt64,     "uint64",     'u', 'Q', 8, "unsigned long long"},
  {DType::Float16,    "float16",    'f', 'e', 2, "kiln::half"},
  {DType::Float32,    "float32",    'f', 'f', 4, "float"},
  {DType::Float64,    "float64",    'f', 'd', 8, "double"},
  {DType::Complex64,  "complex64",  'c', 'F', 8, "kiln::complex<float>"},
  {DType::Complex128, "complex128", 'c', 'D', 16, "kiln::complex<double>"},
  {DType::BFloat16,   "bfloat16",   'f', 'E', 2, "kiln::bfloat16"},
}};
// clang-format on

}  // namespace

const DTypeInfo& dtype_info(DType dtype) {
  return is_record(dtype) ? record_dtype_info(dtype) : kTable[static_cast<size_t>(dtype)];
}

std::optional<DType> dtype_from_char(char char_code) {
  for (const auto& row : kTable)
    if (row.char_code == char_code) return row.dtype;
  if (char_code == 'l') return DType::Int64;   // C long on LP64
  if (char_code == 'L') return DType::UInt64;
  return std::nullopt;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& row : kTable)
    if (row.name == name) return row.dtype;
  return std::nullopt;
}

std::string dtype_repr(DType dtype) {
  if (is_record(dtype)) return record_repr(dtype);
  return "dtype('" + std::string(dtype_info(dtype).name) + "')";
}

}  // namespace kiln::arraycore
