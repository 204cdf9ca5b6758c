// Recovers the __global__ functions and their parameter lists from CUDA C++
// source text, without a compiler. Comments, string and character literals
// are skipped; `template<...>` kernels are reported with is_template = true
// (they are instantiated only through name expressions).
//
//   auto kernels = scan_kernels(R"(extern "C" __global__ void f(const float* x, int n) {})");
//   // kernels[0].name == "f", params[0].kind == ParamKind::Pointer,
//   // params[1].kind == ParamKind::SignedInt
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/backend.h"

namespace kiln::runtime {

struct KernelParamDecl {
  std::string type;  // as written, whitespace-normalised: "const float*"
  std::string name;  // may be empty
  ParamKind kind = ParamKind::Unknown;
  uint32_t size = 0;  // bytes for the builtin types it recognises, else 0
};

struct KernelDecl {
  std::string name;
  std::string scope;  // enclosing named namespaces, "ns::inner", "" at global scope
  bool is_template = false;
  bool is_extern_c = false;
  std::vector<KernelParamDecl> params;
  int line = 0;  // 1-based line of the name in the source
};

std::vector<KernelDecl> scan_kernels(std::string_view source);

// Kind and size of a builtin parameter type spelled in C++ ("unsigned int",
// "float2"? no: Unknown), pointers and references included.
KernelParamDecl classify_param_type(std::string_view type_text);

}  // namespace kiln::runtime
