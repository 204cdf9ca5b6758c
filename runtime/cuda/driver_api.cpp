// Loads libcuda.so.1 with dlopen and resolves the entry points of DriverApi.
#include "runtime/cuda/driver_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "runtime/cuda/library_search.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {
namespace {

struct LoadResult {
  DriverApi api{};
  bool ok = false;
  std::string why_not;
};

LoadResult load_once() {
  LoadResult out;
  // KILN_LIBCUDA_PATH lets tests point at a stand-in driver; the real one is
  // always found by its soname.
  const char* override_path = std::getenv("KILN_LIBCUDA_PATH");
  std::string path = (override_path && *override_path) ? override_path : "libcuda.so.1";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    out.why_not = "cannot load the CUDA driver (" + path + "): " + (err ? err : "unknown error");
    return out;
  }
  DriverApi& a = out.api;
  std::string missing;
  resolve_symbol(lib, "cuInit", a.init, &missing);
  resolve_symbol(lib, "cuDriverGetVersion", a.driver_get_version, &missing);
  resolve_symbol(lib, "cuGetErrorName", a.get_error_name, &missing);
  resolve_symbol(lib, "cuGetErrorString", a.get_error_string, &missing);
  resolve_symbol(lib, "cuDeviceGetCount", a.device_get_count, &missing);
  resolve_symbol(lib, "cuDeviceGet", a.device_get, &missing);
  resolve_symbol(lib, "cuDeviceGetAttribute", a.device_get_attribute, &missing);
  resolve_symbol(lib, "cuDeviceGetName", a.device_get_name, &missing);
  resolve_symbol(lib, "cuDeviceTotalMem_v2", a.device_total_mem, &missing);
  resolve_symbol(lib, "cuDevicePrimaryCtxRetain", a.primary_ctx_retain, &missing);
  resolve_symbol(lib, "cuDevicePrimaryCtxRelease_v2", a.primary_ctx_release, nullptr);  // optional
  resolve_symbol(lib, "cuCtxSetCurrent", a.ctx_set_current, &missing);
  resolve_symbol(lib, "cuCtxGetCurrent", a.ctx_get_current, &missing);
  resolve_symbol(lib, "cuCtxSynchronize", a.ctx_synchronize, &missing);
  resolve_symbol(lib, "cuMemGetInfo_v2", a.mem_get_info, &missing);
  resolve_symbol(lib, "cuMemAlloc_v2", a.mem_alloc, &missing);
  resolve_symbol(lib, "cuMemFree_v2", a.mem_free, &missing);
  resolve_symbol(lib, "cuMemHostAlloc", a.mem_host_alloc, &missing);
  resolve_symbol(lib, "cuMemFreeHost", a.mem_free_host, &missing);
  resolve_symbol(lib, "cuMemcpyHtoDAsync_v2", a.memcpy_htod_async, &missing);
  resolve_symbol(lib, "cuMemcpyDtoHAsync_v2", a.memcpy_dtoh_async, &missing);
  resolve_symbol(lib, "cuMemcpyDtoDAsync_v2", a.memcpy_dtod_async, &missing);
  resolve_symbol(lib, "cuMemsetD8Async", a.memset_d8_async, &missing);
  resolve_symbol(lib, "cuStreamCreate", a.stream_create, &missing);
  resolve_symbol(lib, "cuStreamDestroy_v2", a.stream_destroy, &missing);
  resolve_symbol(lib, "cuStreamSynchronize", a.stream_synchronize, &missing);
  resolve_symbol(lib, "cuStreamQuery", a.stream_query, &missing);
  resolve_symbol(lib, "cuStreamWaitEvent", a.stream_wait_event, &missing);
  resolve_symbol(lib, "cuEventCreate", a.event_create, &missing);
  resolve_symbol(lib, "cuEventDestroy_v2", a.event_destroy, &missing);
  resolve_symbol(lib, "cuEventRecord", a.event_record, &missing);
  resolve_symbol(lib, "cuEventSynchronize", a.event_synchronize, &missing);
  resolve_symbol(lib, "cuEventQuery", a.event_query, &missing);
  if (!resolve_symbol(lib, "cuEventElapsedTime_v2", a.event_elapsed_time, nullptr)) {
    resolve_symbol(lib, "cuEventElapsedTime", a.event_elapsed_time, &missing);
  }
  resolve_symbol(lib, "cuModuleLoadData", a.module_load_data, &missing);
  resolve_symbol(lib, "cuModuleUnload", a.module_unload, &missing);
  resolve_symbol(lib, "cuModuleGetFunction", a.module_get_function, &missing);
  resolve_symbol(lib, "cuFuncSetAttribute", a.func_set_attribute, &missing);
  resolve_symbol(lib, "cuFuncGetAttribute", a.func_get_attribute, nullptr);     // optional: RawKernel.attributes
  resolve_symbol(lib, "cuModuleGetGlobal_v2", a.module_get_global, nullptr);    // optional: RawModule.get_global
  resolve_symbol(lib, "cuFuncGetParamInfo", a.func_get_param_info, nullptr);  // optional
  resolve_symbol(lib, "cuLaunchKernel", a.launch_kernel, &missing);
  resolve_symbol(lib, "cuLaunchCooperativeKernel", a.launch_cooperative_kernel, nullptr);  // optional
  // Note [Optional driver entries]
  resolve_symbol(lib, "cuStreamCreateWithPriority", a.stream_create_with_priority, nullptr);
  resolve_symbol(lib, "cuStreamGetPriority", a.stream_get_priority, nullptr);
  resolve_symbol(lib, "cuStreamGetFlags", a.stream_get_flags, nullptr);
  resolve_symbol(lib, "cuCtxGetStreamPriorityRange", a.ctx_get_stream_priority_range, nullptr);
  resolve_symbol(lib, "cuLaunchHostFunc", a.launch_host_func, nullptr);
  resolve_symbol(lib, "cuStreamBeginCapture_v2", a.stream_begin_capture, nullptr);
  resolve_symbol(lib, "cuStreamEndCapture", a.stream_end_capture, nullptr);
  resolve_symbol(lib, "cuStreamIsCapturing", a.stream_is_capturing, nullptr);
  resolve_symbol(lib, "cuStreamGetCaptureInfo_v3", a.stream_get_capture_info_v3, nullptr);
  resolve_symbol(lib, "cuStreamGetCaptureInfo_v2", a.stream_get_capture_info_v2, nullptr);
  resolve_symbol(lib, "cuThreadExchangeStreamCaptureMode", a.thread_exchange_stream_capture_mode, nullptr);
  resolve_symbol(lib, "cuGraphInstantiateWithFlags", a.graph_instantiate, nullptr);
  resolve_symbol(lib, "cuGraphLaunch", a.graph_launch, nullptr);
  resolve_symbol(lib, "cuGraphUpload", a.graph_upload, nullptr);
  resolve_symbol(lib, "cuGraphExecDestroy", a.graph_exec_destroy, nullptr);
  resolve_symbol(lib, "cuGraphDestroy", a.graph_destroy, nullptr);
  resolve_symbol(lib, "cuGraphDebugDotPrint", a.graph_debug_dot_print, nullptr);
  resolve_symbol(lib, "cuMemAllocManaged", a.mem_alloc_managed, nullptr);
  resolve_symbol(lib, "cuMemAllocAsync", a.mem_alloc_async, nullptr);
  resolve_symbol(lib, "cuMemFreeAsync", a.mem_free_async, nullptr);
  resolve_symbol(lib, "cuMemcpyAsync", a.memcpy_async, nullptr);
  resolve_symbol(lib, "cuDeviceGetPCIBusId", a.device_get_pci_bus_id, nullptr);
  resolve_symbol(lib, "cuDeviceGetByPCIBusId", a.device_get_by_pci_bus_id, nullptr);
  resolve_symbol(lib, "cuPointerGetAttribute", a.pointer_get_attribute, nullptr);
  resolve_symbol(lib, "cuDeviceCanAccessPeer", a.device_can_access_peer, nullptr);
  resolve_symbol(lib, "cuCtxEnablePeerAccess", a.ctx_enable_peer_access, nullptr);
  resolve_symbol(lib, "cuCtxDisablePeerAccess", a.ctx_disable_peer_access, nullptr);
  resolve_symbol(lib, "cuCtxGetLimit", a.ctx_get_limit, nullptr);
  resolve_symbol(lib, "cuCtxSetLimit", a.ctx_set_limit, nullptr);
  resolve_symbol(lib, "cuIpcGetMemHandle", a.ipc_get_mem_handle, nullptr);
  resolve_symbol(lib, "cuIpcOpenMemHandle_v2", a.ipc_open_mem_handle, nullptr);
  resolve_symbol(lib, "cuIpcCloseMemHandle", a.ipc_close_mem_handle, nullptr);
  resolve_symbol(lib, "cuProfilerStart", a.profiler_start, nullptr);
  resolve_symbol(lib, "cuProfilerStop", a.profiler_stop, nullptr);
  if (!missing.empty()) {
    out.why_not = "the CUDA driver " + path + " has no " + missing +
                  " (driver too old for this build of kiln)";
    dlclose(lib);
    return out;
  }
  a.library_path = path;
  out.ok = true;
  return out;  // `lib` stays open for the life of the process
}

void check_driver(const DriverApi& cu, CuResult r, const char* call) {
  if (r != cu_result::kSuccess) throw Error(std::string(call) + " failed: " + describe_result(cu, r));
}

}  // namespace

const DriverApi* load_driver_api(std::string* why_not) {
  static const LoadResult loaded = load_once();  // thread-safe static init
  if (!loaded.ok) {
    if (why_not) *why_not = loaded.why_not;
    return nullptr;
  }
  return &loaded.api;
}

std::string describe_result(const DriverApi& api, CuResult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.get_error_name(result, &name) != cu_result::kSuccess || !name) name = nullptr;
  if (api.get_error_string(result, &text) != cu_result::kSuccess || !text) text = nullptr;
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  // The CUDA runtime's names of the capture errors, which CuPy's messages
  // (and code written for them) use.
  switch (result) {
    case cu_result::kIllegalState: out += " [cudaErrorIllegalState]"; break;
    case cu_result::kStreamCaptureUnsupported: out += " [cudaErrorStreamCaptureUnsupported]"; break;
    case cu_result::kStreamCaptureInvalidated: out += " [cudaErrorStreamCaptureInvalidated]"; break;
    case cu_result::kStreamCaptureMerge: out += " [cudaErrorStreamCaptureMerge]"; break;
    case cu_result::kStreamCaptureUnmatched: out += " [cudaErrorStreamCaptureUnmatched]"; break;
    case cu_result::kStreamCaptureUnjoined: out += " [cudaErrorStreamCaptureUnjoined]"; break;
    case cu_result::kStreamCaptureIsolation: out += " [cudaErrorStreamCaptureIsolation]"; break;
    case cu_result::kStreamCaptureImplicit: out += " [cudaErrorStreamCaptureImplicit]"; break;
    case cu_result::kStreamCaptureWrongThread: out += " [cudaErrorStreamCaptureWrongThread]"; break;
    default: break;
  }
  if (text) out += std::string(" (") + text + ")";
  return out;
}

void make_primary_context_current(int device) {
  thread_local int last_device = -1;
  thread_local CuContext last_ctx = nullptr;
  if (device == last_device) {   // the common case: one cuCtxGetCurrent
    const DriverApi* cu = load_driver_api(nullptr);
    CuContext current = nullptr;
    check_driver(*cu, cu->ctx_get_current(&current), "cuCtxGetCurrent");
    if (current != last_ctx) check_driver(*cu, cu->ctx_set_current(last_ctx), "cuCtxSetCurrent");
    return;
  }
  std::string why;
  const DriverApi* cu = load_driver_api(&why);
  if (!cu) throw Error(why);
  static std::mutex mutex;
  static std::unordered_map<int, CuContext>* contexts = new std::unordered_map<int, CuContext>;
  CuContext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = contexts->find(device);
    if (it != contexts->end()) ctx = it->second;
  }
  if (!ctx) {
    CuDevice dev = 0;
    check_driver(*cu, cu->device_get(&dev, device), "cuDeviceGet");
    check_driver(*cu, cu->primary_ctx_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");  // kept for the process
    std::lock_guard<std::mutex> lock(mutex);
    contexts->emplace(device, ctx);
  }
  CuContext current = nullptr;
  check_driver(*cu, cu->ctx_get_current(&current), "cuCtxGetCurrent");
  if (current != ctx) check_driver(*cu, cu->ctx_set_current(ctx), "cuCtxSetCurrent");
  last_device = device;
  last_ctx = ctx;
}

}  // namespace kiln::runtime::cuda
