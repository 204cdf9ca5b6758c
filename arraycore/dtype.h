// The numeric dtypes kiln supports, as one table (dtype.cpp).
//
//   const DTypeInfo& f = dtype_info(DType::Float32);   // f.itemsize == 4, f.char_code == 'f'
//   std::optional<DType> d = dtype_from_char('e');      // Float16
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::arraycore {

enum class DType : uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  Float16, Float32, Float64, Complex64, Complex128,
  BFloat16,  // ml_dtypes.bfloat16: Note [Bfloat16 is a float] in dtype.cpp
};
inline constexpr int kNumDTypes = 15;

struct DTypeInfo {
  DType dtype;
  std::string_view name;    // NumPy's name: "float32"
  char kind;                // NumPy's kind: b i u f c (bfloat16: 'f', see dtype.cpp)
  char char_code;           // NumPy's type char: '?', 'b', 'h', 'i', 'q', 'B', ... 'e', 'f', 'd', 'F', 'D', 'E'
  uint32_t itemsize;        // bytes (records: up to 2**32 - 1)
  std::string_view c_type;  // spelling in generated kernels
};

const DTypeInfo& dtype_info(DType dtype);
inline size_t itemsize(DType dtype) { return dtype_info(dtype).itemsize; }
std::optional<DType> dtype_from_char(char char_code);
std::optional<DType> dtype_from_name(std::string_view name);
// "dtype('float32')", as NumPy's messages write a dtype.
std::string dtype_repr(DType dtype);

}  // namespace kiln::arraycore
