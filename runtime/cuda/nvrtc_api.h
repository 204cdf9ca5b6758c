// The part of NVRTC the cuda backend uses, declared here (no SDK header) and
// loaded with dlopen at run time.
//
//   const NvrtcApi& rtc = nvrtc_api();   // throws Error naming every path tried
//   int major, minor;
//   rtc.version(&major, &minor);
//
// Search: Note [CUDA library search] (library_search.h), for libnvrtc.so /
// .so.13 / .so.12 with $KILN_NVRTC_PATH tried first.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::runtime::cuda {

using NvrtcResult = int;  // nvrtcResult
using NvrtcProgram = struct NvrtcProgramOpaque*;

namespace nvrtc_result {
inline constexpr NvrtcResult kSuccess = 0;
inline constexpr NvrtcResult kOutOfMemory = 1;
inline constexpr NvrtcResult kProgramCreationFailure = 2;
inline constexpr NvrtcResult kInvalidInput = 3;
inline constexpr NvrtcResult kInvalidProgram = 4;
inline constexpr NvrtcResult kInvalidOption = 5;
inline constexpr NvrtcResult kCompilation = 6;
inline constexpr NvrtcResult kNameExpressionNotValid = 10;
}  // namespace nvrtc_result

struct NvrtcApi {
  const char* (*get_error_string)(NvrtcResult result);  // nvrtcGetErrorString
  NvrtcResult (*version)(int* major, int* minor);       // nvrtcVersion
  NvrtcResult (*create_program)(NvrtcProgram* program, const char* source, const char* name,
                                int num_headers, const char* const* headers,
                                const char* const* include_names);  // nvrtcCreateProgram
  NvrtcResult (*destroy_program)(NvrtcProgram* program);             // nvrtcDestroyProgram
  NvrtcResult (*compile_program)(NvrtcProgram program, int num_options,
                                 const char* const* options);  // nvrtcCompileProgram
  NvrtcResult (*get_ptx_size)(NvrtcProgram program, size_t* size);    // nvrtcGetPTXSize
  NvrtcResult (*get_ptx)(NvrtcProgram program, char* ptx);            // nvrtcGetPTX
  NvrtcResult (*get_cubin_size)(NvrtcProgram program, size_t* size);  // nvrtcGetCUBINSize
  NvrtcResult (*get_cubin)(NvrtcProgram program, char* cubin);        // nvrtcGetCUBIN
  NvrtcResult (*get_log_size)(NvrtcProgram program, size_t* size);  // nvrtcGetProgramLogSize
  NvrtcResult (*get_log)(NvrtcProgram program, char* log);          // nvrtcGetProgramLog
  NvrtcResult (*add_name_expression)(NvrtcProgram program,
                                     const char* name_expression);  // nvrtcAddNameExpression
  NvrtcResult (*get_lowered_name)(NvrtcProgram program, const char* name_expression,
                                  const char** lowered_name);  // nvrtcGetLoweredName
  // Optional (CUDA >= 11.2): the real architectures this NVRTC can target.
  NvrtcResult (*get_num_supported_archs)(int* count);  // nvrtcGetNumSupportedArchs
  NvrtcResult (*get_supported_archs)(int* archs);      // nvrtcGetSupportedArchs

  std::string library_path;        // what dlopen found
  std::vector<int> supported_archs;  // ascending, e.g. 75 ... 121; empty if unknown
};

// The loaded NVRTC; throws runtime::Error listing what was tried.
const NvrtcApi& nvrtc_api();
// The loaded NVRTC or nullptr (with the reason); never throws.
const NvrtcApi* try_nvrtc_api(std::string* why_not);

// "nvrtc-13.0"; throws Error when NVRTC cannot be loaded.
std::string nvrtc_identity();
// Real architectures NVRTC can emit, ascending (e.g. 75, 80, ..., 120); empty
// when the library cannot say.
const std::vector<int>& nvrtc_supported_archs();
// Compile target for a device of compute capability major.minor: "sm_XY"
// when NVRTC supports it; else the newest supported sm of the same major not
// above it (SASS runs on later minors); else "compute_<newest>" so the driver
// JIT-compiles PTX (a device newer than this NVRTC).
std::string nvrtc_arch_for(int major, int minor);

}  // namespace kiln::runtime::cuda
