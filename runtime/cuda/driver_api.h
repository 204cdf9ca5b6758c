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
using CuGraph = struct CuGraphOpaque*;          // CUgraph
using CuGraphExec = struct CuGraphExecOpaque*;  // CUgraphExec
using CuGraphNode = struct CuGraphNodeOpaque*;  // CUgraphNode (only passed as null)
using CuHostFn = void (*)(void* user_data);     // CUhostFn
// CUipcMemHandle / CUipcEventHandle: 64 opaque bytes, passed by value.
struct CuIpcMemHandle {
  char reserved[64];
};

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
inline constexpr CuResult kIllegalState = 401;
inline constexpr CuResult kPeerAccessAlreadyEnabled = 704;
inline constexpr CuResult kStreamCaptureUnsupported = 900;
inline constexpr CuResult kStreamCaptureInvalidated = 901;
inline constexpr CuResult kStreamCaptureMerge = 902;
inline constexpr CuResult kStreamCaptureUnmatched = 903;
inline constexpr CuResult kStreamCaptureUnjoined = 904;
inline constexpr CuResult kStreamCaptureIsolation = 905;
inline constexpr CuResult kStreamCaptureImplicit = 906;
inline constexpr CuResult kStreamCaptureWrongThread = 908;
}  // namespace cu_result

// --- CUdevice_attribute values ----------------------------------------------
namespace cu_device_attr {
inline constexpr int kMaxThreadsPerBlock = 1;
inline constexpr int kWarpSize = 10;
inline constexpr int kMultiprocessorCount = 16;
inline constexpr int kComputeCapabilityMajor = 75;
inline constexpr int kComputeCapabilityMinor = 76;
inline constexpr int kMaxSharedMemoryPerBlockOptin = 97;
inline constexpr int kMemoryPoolsSupported = 115;
}  // namespace cu_device_attr

// --- CUpointer_attribute and CUmemorytype values ----------------------------
namespace cu_pointer_attr {
inline constexpr int kMemoryType = 2;
inline constexpr int kDevicePointer = 3;
inline constexpr int kHostPointer = 4;
inline constexpr int kIsManaged = 8;
inline constexpr int kDeviceOrdinal = 9;
}  // namespace cu_pointer_attr
namespace cu_memory_type {
inline constexpr unsigned kHost = 1;
inline constexpr unsigned kDevice = 2;
inline constexpr unsigned kArray = 3;
inline constexpr unsigned kUnified = 4;
}  // namespace cu_memory_type

// --- CUstreamCaptureStatus / CUstreamCaptureMode ----------------------------
namespace cu_capture {
inline constexpr int kStatusNone = 0;
inline constexpr int kStatusActive = 1;
inline constexpr int kStatusInvalidated = 2;
inline constexpr int kModeGlobal = 0;
inline constexpr int kModeThreadLocal = 1;
inline constexpr int kModeRelaxed = 2;
}  // namespace cu_capture

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
inline constexpr unsigned kMemAttachGlobal = 0x1;       // CU_MEM_ATTACH_GLOBAL
inline constexpr unsigned kIpcMemLazyEnablePeerAccess = 0x1;  // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
// The per-thread default stream handle (CU_STREAM_PER_THREAD).
inline const CuStream kStreamPerThread = reinterpret_cast<CuStream>(0x2);

// Dynamic shared memory a kernel may use without opting in (48 KiB).
inline constexpr std::uint32_t kDefaultDynamicSharedLimit = 48u * 1024u;

// The entry points, each resolved by its exported (versioned) name. All are
// non-null in a DriverApi returned by load_driver_api except those marked
// optional.
//
// Note [Optional driver entries]
// Entries that only kiln.cuda's own surface uses (graphs, managed memory,
// IPC, ...) are optional: a driver without one still runs every array
// operation, and the call that needs it says which entry point is missing
// (require_entry in runtime/cuda/driver_calls.h).
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
  // cuFuncGetAttribute and cuModuleGetGlobal_v2 (optional: every real driver
  // has them; a test's fake driver may not).
  CuResult (*func_get_attribute)(int* value, int attribute, CuFunction function);
  CuResult (*module_get_global)(CuDevicePtr* ptr, size_t* bytes, CuModule module, const char* name);
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

  // --- optional: graphs, capture, stream attributes, managed/async memory,
  // peers, pointers, limits, IPC, profiler (Note [Optional driver entries]).
  CuResult (*stream_create_with_priority)(CuStream* stream, unsigned flags, int priority);
  CuResult (*stream_get_priority)(CuStream stream, int* priority);     // cuStreamGetPriority
  CuResult (*stream_get_flags)(CuStream stream, unsigned* flags);      // cuStreamGetFlags
  CuResult (*ctx_get_stream_priority_range)(int* least, int* greatest);
  CuResult (*launch_host_func)(CuStream stream, CuHostFn fn, void* user_data);  // cuLaunchHostFunc
  CuResult (*stream_begin_capture)(CuStream stream, int mode);  // cuStreamBeginCapture_v2
  CuResult (*stream_end_capture)(CuStream stream, CuGraph* graph);  // cuStreamEndCapture
  CuResult (*stream_is_capturing)(CuStream stream, int* status);   // cuStreamIsCapturing
  // cuStreamGetCaptureInfo_v3 (CUDA >= 12.3); graph/dependency outputs passed null.
  CuResult (*stream_get_capture_info_v3)(CuStream stream, int* status, uint64_t* id, CuGraph* graph,
                                         const CuGraphNode** deps, const void** edge_data,
                                         size_t* num_deps);
  // cuStreamGetCaptureInfo_v2 (CUDA 11.3 - 12.x), used when _v3 is missing.
  CuResult (*stream_get_capture_info_v2)(CuStream stream, int* status, uint64_t* id, CuGraph* graph,
                                         const CuGraphNode** deps, size_t* num_deps);
  CuResult (*thread_exchange_stream_capture_mode)(int* mode);  // cuThreadExchangeStreamCaptureMode
  CuResult (*graph_instantiate)(CuGraphExec* exec, CuGraph graph,
                                unsigned long long flags);  // cuGraphInstantiateWithFlags
  CuResult (*graph_launch)(CuGraphExec exec, CuStream stream);  // cuGraphLaunch
  CuResult (*graph_upload)(CuGraphExec exec, CuStream stream);  // cuGraphUpload
  CuResult (*graph_exec_destroy)(CuGraphExec exec);             // cuGraphExecDestroy
  CuResult (*graph_destroy)(CuGraph graph);                     // cuGraphDestroy
  CuResult (*graph_debug_dot_print)(CuGraph graph, const char* path, unsigned flags);
  CuResult (*mem_alloc_managed)(CuDevicePtr* ptr, size_t bytes, unsigned flags);  // cuMemAllocManaged
  CuResult (*mem_alloc_async)(CuDevicePtr* ptr, size_t bytes, CuStream stream);  // cuMemAllocAsync
  CuResult (*mem_free_async)(CuDevicePtr ptr, CuStream stream);                  // cuMemFreeAsync
  CuResult (*memcpy_async)(CuDevicePtr dst, CuDevicePtr src, size_t bytes, CuStream stream);  // cuMemcpyAsync
  CuResult (*device_get_pci_bus_id)(char* bus_id, int length, CuDevice device);  // cuDeviceGetPCIBusId
  CuResult (*device_get_by_pci_bus_id)(CuDevice* device, const char* bus_id);
  CuResult (*pointer_get_attribute)(void* data, int attribute, CuDevicePtr ptr);  // cuPointerGetAttribute
  CuResult (*device_can_access_peer)(int* can_access, CuDevice device, CuDevice peer);
  CuResult (*ctx_enable_peer_access)(CuContext peer, unsigned flags);  // cuCtxEnablePeerAccess
  CuResult (*ctx_disable_peer_access)(CuContext peer);                 // cuCtxDisablePeerAccess
  CuResult (*ctx_get_limit)(size_t* value, int limit);                 // cuCtxGetLimit
  CuResult (*ctx_set_limit)(int limit, size_t value);                  // cuCtxSetLimit
  CuResult (*ipc_get_mem_handle)(CuIpcMemHandle* handle, CuDevicePtr ptr);  // cuIpcGetMemHandle
  CuResult (*ipc_open_mem_handle)(CuDevicePtr* ptr, CuIpcMemHandle handle,
                                  unsigned flags);          // cuIpcOpenMemHandle_v2
  CuResult (*ipc_close_mem_handle)(CuDevicePtr ptr);        // cuIpcCloseMemHandle
  CuResult (*profiler_start)();                             // cuProfilerStart
  CuResult (*profiler_stop)();                              // cuProfilerStop

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
