// The part of the CUDA Driver API the cuda backend uses, declared here so that
// kiln builds without the CUDA SDK and loads libcuda.so.1 with dlopen at run
// time (it is never linked).
//
//   std::string why;
//   const DriverApi* cu = load_driver_api(&why);   // nullptr: no driver
//   int n = 0;
//   cu->device_get_count(&n);
//
// Types are ABI-compatible with the SDK's: enums are passed as `int`, handles
// are opaque pointers, device pointers are 64-bit integers. Values were
// checked against the Driver API reference and, when built with
// -DKILN_CHECK_AGAINST_SDK_HEADERS, against cuda.h by
// tests/cpp/test_cuda_abi.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::runtime::cuda {

// --- handle and value types --------------------------------------------------
using CuResult = int;               // CUresult
using CuDevice = int;               // CUdevice (an ordinal-like handle)
using CuDevicePtr = unsigned long long;  // CUdeviceptr on 64-bit hosts
using CuContext = struct CuContextOpaque*;
using CuModule = struct CuModuleOpaque*;
using CuFunction = struct CuFunctionOpaque*;
using CuStream = struct CuStreamOpaque*;
using CuEvent = struct CuEventOpaque*;

// --- result codes (CUresult) the backend tells apart ------------------------
namespace cu_result {
inline constexpr CuResult kSuccess = 0;
inline constexpr CuResult kInvalidValue = 1;
inline constexpr CuResult kOutOfMemory = 2;
inline constexpr CuResult kNotInitialized = 3;
inline constexpr CuResult kDeinitialized = 4;
inline constexpr CuResult kNoDevice = 100;
inline constexpr CuResult kInvalidDevice = 101;
inline constexpr CuResult kInvalidImage = 200;
inline constexpr CuResult kInvalidContext = 201;
inline constexpr CuResult kNoBinaryForGpu = 209;
inline constexpr CuResult kInvalidPtx = 218;
inline constexpr CuResult kUnsupportedPtxVersion = 222;
inline constexpr CuResult kInvalidHandle = 400;
inline constexpr CuResult kNotFound = 500;
inline constexpr CuResult kNotReady = 600;
inline constexpr CuResult kIllegalAddress = 700;
inline constexpr CuResult kLaunchOutOfResources = 701;
inline constexpr CuResult kLaunchTimeout = 702;
inline constexpr CuResult kAssert = 710;
inline constexpr CuResult kHardwareStackError = 714;
inline constexpr CuResult kIllegalInstruction = 715;
inline constexpr CuResult kMisalignedAddress = 716;
inline constexpr CuResult kInvalidAddressSpace = 717;
inline constexpr CuResult kInvalidPc = 718;
inline constexpr CuResult kLaunchFailed = 719;
inline constexpr CuResult kCooperativeLaunchTooLarge = 720;
}  // namespace cu_result

// --- CUdevice_attribute values ----------------------------------------------
namespace cu_device_attr {
inline constexpr int kMaxThreadsPerBlock = 1;
inline constexpr int kWarpSize = 10;
inline constexpr int kMultiprocessorCount = 16;
inline constexpr int kComputeCapabilityMajor = 75;
inline constexpr int kComputeCapabilityMinor = 76;
inline constexpr int kMaxSharedMemoryPerBlockOptin = 97;
}  // namespace cu_device_attr

// --- CUfunction_attribute values --------------------------------------------
namespace cu_func_attr {
inline constexpr int kMaxDynamicSharedSizeBytes = 8;
}  // namespace cu_func_attr

// --- flags ------------------------------------------------------------------
inline constexpr unsigned kStreamDefault = 0x0;
inline constexpr unsigned kStreamNonBlocking = 0x1;  // CU_STREAM_NON_BLOCKING
inline constexpr unsigned kEventDefault = 0x0;
inline constexpr unsigned kEventDisableTiming = 0x2;  // CU_EVENT_DISABLE_TIMING
inline constexpr unsigned kMemHostAllocPortable = 0x1;  // CU_MEMHOSTALLOC_PORTABLE
inline constexpr unsigned kEventWaitDefault = 0x0;      // CU_EVENT_WAIT_DEFAULT

// Dynamic shared memory a kernel may use without opting in (48 KiB).
inline constexpr std::uint32_t kDefaultDynamicSharedLimit = 48u * 1024u;

// The entry points, each resolved by its exported (versioned) name. All are
// non-null in a DriverApi returned by load_driver_api except those marked
// optional.
struct DriverApi {
  CuResult (*init)(unsigned flags);                                  // cuInit
  CuResult (*driver_get_version)(int* version);                      // cuDriverGetVersion
  CuResult (*get_error_name)(CuResult error, const char** name);     // cuGetErrorName
  CuResult (*get_error_string)(CuResult error, const char** text);   // cuGetErrorString
  CuResult (*device_get_count)(int* count);                          // cuDeviceGetCount
  CuResult (*device_get)(CuDevice* device, int ordinal);             // cuDeviceGet
  CuResult (*device_get_attribute)(int* value, int attribute, CuDevice device);
  CuResult (*device_get_name)(char* name, int length, CuDevice device);
  CuResult (*device_total_mem)(size_t* bytes, CuDevice device);     // cuDeviceTotalMem_v2
  CuResult (*primary_ctx_retain)(CuContext* ctx, CuDevice device);  // cuDevicePrimaryCtxRetain
  CuResult (*primary_ctx_release)(CuDevice device);  // cuDevicePrimaryCtxRelease_v2 (optional)
  CuResult (*ctx_set_current)(CuContext ctx);        // cuCtxSetCurrent
  CuResult (*ctx_get_current)(CuContext* ctx);       // cuCtxGetCurrent
  CuResult (*ctx_synchronize)();                     // cuCtxSynchronize
  CuResult (*mem_get_info)(size_t* free_bytes, size_t* total_bytes);  // cuMemGetInfo_v2
  CuResult (*mem_alloc)(CuDevicePtr* ptr, size_t bytes);              // cuMemAlloc_v2
  CuResult (*mem_free)(CuDevicePtr ptr);                              // cuMemFree_v2
  CuResult (*mem_host_alloc)(void** ptr, size_t bytes, unsigned flags);  // cuMemHostAlloc
  CuResult (*mem_free_host)(void* ptr);                                  // cuMemFreeHost
  CuResult (*memcpy_htod_async)(CuDevicePtr dst, const void* src, size_t bytes,
                                CuStream stream);  // cuMemcpyHtoDAsync_v2
  CuResult (*memcpy_dtoh_async)(void* dst, CuDevicePtr src, size_t bytes,
                                CuStream stream);  // cuMemcpyDtoHAsync_v2
  CuResult (*memcpy_dtod_async)(CuDevicePtr dst, CuDevicePtr src, size_t bytes,
                                CuStream stream);  // cuMemcpyDtoDAsync_v2
  CuResult (*memset_d8_async)(CuDevicePtr dst, unsigned char value, size_t count,
                              CuStream stream);  // cuMemsetD8Async
  CuResult (*stream_create)(CuStream* stream, unsigned flags);             // cuStreamCreate
  CuResult (*stream_destroy)(CuStream stream);                             // cuStreamDestroy_v2
  CuResult (*stream_synchronize)(CuStream stream);                         // cuStreamSynchronize
  CuResult (*stream_query)(CuStream stream);                               // cuStreamQuery
  CuResult (*stream_wait_event)(CuStream stream, CuEvent event, unsigned flags);
  CuResult (*event_create)(CuEvent* event, unsigned flags);  // cuEventCreate
  CuResult (*event_destroy)(CuEvent event);                  // cuEventDestroy_v2
  CuResult (*event_record)(CuEvent event, CuStream stream);  // cuEventRecord
  CuResult (*event_synchronize)(CuEvent event);              // cuEventSynchronize
  CuResult (*event_query)(CuEvent event);                    // cuEventQuery
  // cuEventElapsedTime_v2 where the driver has it (CUDA >= 12.8), else
  // cuEventElapsedTime; both take (float*, start, end).
  CuResult (*event_elapsed_time)(float* ms, CuEvent start, CuEvent end);
  CuResult (*module_load_data)(CuModule* module, const void* image);  // cuModuleLoadData
  CuResult (*module_unload)(CuModule module);                         // cuModuleUnload
  CuResult (*module_get_function)(CuFunction* function, CuModule module,
                                  const char* name);  // cuModuleGetFunction
  CuResult (*func_set_attribute)(CuFunction function, int attribute,
                                 int value);  // cuFuncSetAttribute
  // cuFuncGetParamInfo (CUDA >= 12.4; optional).
  CuResult (*func_get_param_info)(CuFunction function, size_t index, size_t* offset,
                                  size_t* size);
  CuResult (*launch_kernel)(CuFunction function, unsigned grid_x, unsigned grid_y,
                            unsigned grid_z, unsigned block_x, unsigned block_y,
                            unsigned block_z, unsigned shared_mem_bytes, CuStream stream,
                            void** kernel_params, void** extra);  // cuLaunchKernel
  // cuLaunchCooperativeKernel (optional): every block resident at once, or an error.
  CuResult (*launch_cooperative_kernel)(CuFunction function, unsigned grid_x, unsigned grid_y,
                                        unsigned grid_z, unsigned block_x, unsigned block_y,
                                        unsigned block_z, unsigned shared_mem_bytes, CuStream stream,
                                        void** kernel_params);

  std::string library_path;  // what dlopen found
};

// dlopens libcuda.so.1 once per process and resolves every entry point; no
// cuInit. nullptr, with `why_not` filled, when the library or a required
// symbol is missing. Never throws. Thread-safe; the library is never closed.
const DriverApi* load_driver_api(std::string* why_not);

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for any code, even unknown ones.
std::string describe_result(const DriverApi& api, CuResult result);

// Makes `device`'s primary context current on the calling thread (retained
// once for the process, never released), as the CUDA libraries kiln calls
// (cuBLAS, cuSOLVER) work in whatever context is current. The common case,
// the same device as this thread's last call, costs one cuCtxGetCurrent.
// Throws runtime::Error naming the failed call.
void make_primary_context_current(int device);

}  // namespace kiln::runtime::cuda
