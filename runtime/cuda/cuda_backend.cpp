// The cuda Backend over the Driver API (driver_api.h) and NVRTC (nvrtc_api.h).
//
// Note [Contexts]: each device's *primary* context is retained on first use
// and made current on the calling thread before any call that needs one, so
// kiln shares memory, streams and modules with the CUDA runtime, PyTorch and
// CuPy. The current device is a thread_local (default 0); before each call
// ensure_current() compares the driver's current context with that device's
// primary context (cuCtxGetCurrent is a thread-local read in the driver) and
// calls cuCtxSetCurrent only when another library or a set_device changed it.
//
// Note [Dynamic shared memory]: a launch asking for more than 48 KiB of
// dynamic shared memory must first raise the function's
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. The value set is cached per
// function, so only the first launch that needs more pays for the call.
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/cuda_libraries.h"
#include "runtime/files.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/cuda/driver_api.h"
#include "runtime/cuda/runtime_functions.h"
#include "runtime/cuda/nvrtc_api.h"

namespace kiln::runtime {
namespace {

using namespace cuda;  // NOLINT: the backend speaks the driver's vocabulary throughout
namespace cr = cu_result;

thread_local int tls_device = 0;  // kiln's current device on this OS thread

// Every CUDA architecture NVRTC 12/13 targets (sm_75 and newer) allows 1024
// threads per block.
constexpr uint64_t kMaxThreadsPerBlock = 1024;

bool is_kernel_fault(CuResult r) {
  switch (r) {
    case cr::kIllegalAddress:
    case cr::kLaunchTimeout:
    case cr::kAssert:
    case cr::kHardwareStackError:
    case cr::kIllegalInstruction:
    case cr::kMisalignedAddress:
    case cr::kInvalidAddressSpace:
    case cr::kInvalidPc:
    case cr::kLaunchFailed:
      return true;
    default:
      return false;
  }
}

std::string dims(Dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

struct FunctionInfo {
  std::string name;
  CuModule module = nullptr;
  uint32_t dynamic_shared_limit = kDefaultDynamicSharedLimit;  // as last set on the function
};

struct DeviceSlot {
  CuDevice handle = 0;
  std::atomic<CuContext> context{nullptr};  // retained primary context, set once
  std::once_flag properties_once;
  DeviceProperties properties;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(const DriverApi& api, int device_count, std::vector<CuDevice> handles)
      : api_(api), device_count_(device_count), devices_(new DeviceSlot[device_count]) {
    for (int i = 0; i < device_count; ++i) devices_[i].handle = handles[i];
  }

  ~CudaBackend() override {
    if (!api_.primary_ctx_release) return;
    for (int i = 0; i < device_count_; ++i) {
      if (devices_[i].context.load()) api_.primary_ctx_release(devices_[i].handle);  // best effort
    }
  }

  std::string_view name() const override { return "cuda"; }
  const BackendCaps& caps() const override { return cuda_backend_caps(); }
  Libraries& libraries() override { return cuda::cuda_libraries(); }

  // --- devices ---------------------------------------------------------------
  int device_count() override { return device_count_; }

  DeviceProperties device_properties(int device) override {
    DeviceSlot& slot = slot_for(device, "device_properties");
    std::call_once(slot.properties_once, [&] { slot.properties = query_properties(device); });
    return slot.properties;
  }

  int device_attribute(int attribute, int device) override { return rt::device_attribute(attribute, device); }

  void set_device(int device) override {
    slot_for(device, "set_device");
    tls_device = device;
  }

  int current_device() override { return tls_device; }

  void synchronize_device() override {
    ensure_current();
    check(api_.ctx_synchronize(), "cuCtxSynchronize");
  }

  std::pair<size_t, size_t> memory_info() override {
    ensure_current();
    size_t free_bytes = 0, total_bytes = 0;
    check(api_.mem_get_info(&free_bytes, &total_bytes), "cuMemGetInfo_v2");
    return {free_bytes, total_bytes};
  }

  // --- memory ----------------------------------------------------------------
  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    ensure_current();
    CuDevicePtr ptr = 0;
    CuResult r = api_.mem_alloc(&ptr, nbytes);
    if (r != cr::kSuccess) {
      fail(r, "cuMemAlloc_v2(" + std::to_string(nbytes) + " bytes) on device " +
                  std::to_string(tls_device),
           nbytes);
    }
    return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
  }

  void deallocate(void* ptr) override {
    if (!ptr) return;
    ensure_current();
    check(api_.mem_free(device_ptr(ptr)), "cuMemFree_v2");
  }

  void* allocate_pinned(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    ensure_current();
    void* ptr = nullptr;
    CuResult r = api_.mem_host_alloc(&ptr, nbytes, kMemHostAllocPortable);
    if (r != cr::kSuccess) {
      fail(r, "cuMemHostAlloc(" + std::to_string(nbytes) + " bytes, PORTABLE)", nbytes);
    }
    return ptr;
  }

  void deallocate_pinned(void* ptr) override {
    if (!ptr) return;
    ensure_current();
    check(api_.mem_free_host(ptr), "cuMemFreeHost");
  }

  void copy_async(void* dst, const void* src, size_t nbytes, CopyKind kind,
                  StreamHandle stream) override {
    if (nbytes == 0) return;
    ensure_current();
    CuStream s = as_stream(stream);
    switch (kind) {
      case CopyKind::HostToDevice:
        check(api_.memcpy_htod_async(device_ptr(dst), src, nbytes, s), "cuMemcpyHtoDAsync_v2");
        return;
      case CopyKind::DeviceToHost:
        check(api_.memcpy_dtoh_async(dst, device_ptr(src), nbytes, s), "cuMemcpyDtoHAsync_v2");
        return;
      case CopyKind::DeviceToDevice:
        check(api_.memcpy_dtod_async(device_ptr(dst), device_ptr(src), nbytes, s),
              "cuMemcpyDtoDAsync_v2");
        return;
    }
    throw InvalidArgument("copy_async: unknown CopyKind " + std::to_string(int(kind)));
  }

  void memset_async(void* dst, int byte_value, size_t nbytes, StreamHandle stream) override {
    if (nbytes == 0) return;
    ensure_current();
    check(api_.memset_d8_async(device_ptr(dst), static_cast<unsigned char>(byte_value), nbytes,
                               as_stream(stream)),
          "cuMemsetD8Async");
  }

  // --- streams and events ----------------------------------------------------
  StreamHandle create_stream(bool non_blocking) override {
    ensure_current();
    CuStream s = nullptr;
    check(api_.stream_create(&s, non_blocking ? kStreamNonBlocking : kStreamDefault),
          "cuStreamCreate");
    return s;
  }

  void destroy_stream(StreamHandle stream) override {
    if (!stream) return;  // the default stream is not ours to destroy
    ensure_current();
    check(api_.stream_destroy(as_stream(stream)), "cuStreamDestroy_v2");
  }

  void synchronize_stream(StreamHandle stream) override {
    ensure_current();
    check(api_.stream_synchronize(as_stream(stream)), "cuStreamSynchronize");
  }

  bool stream_done(StreamHandle stream) override {
    ensure_current();
    CuResult r = api_.stream_query(as_stream(stream));
    if (r == cr::kNotReady) return false;
    check(r, "cuStreamQuery");
    return true;
  }

  void stream_wait_event(StreamHandle stream, EventHandle event) override {
    ensure_current();
    check(api_.stream_wait_event(as_stream(stream), as_event(event), kEventWaitDefault),
          "cuStreamWaitEvent");
  }

  EventHandle create_event(bool enable_timing) override {
    ensure_current();
    CuEvent e = nullptr;
    check(api_.event_create(&e, enable_timing ? kEventDefault : kEventDisableTiming),
          "cuEventCreate");
    return e;
  }

  void destroy_event(EventHandle event) override {
    if (!event) return;
    ensure_current();
    check(api_.event_destroy(as_event(event)), "cuEventDestroy_v2");
  }

  void record_event(EventHandle event, StreamHandle stream) override {
    ensure_current();
    check(api_.event_record(as_event(event), as_stream(stream)), "cuEventRecord");
  }

  void synchronize_event(EventHandle event) override {
    ensure_current();
    check(api_.event_synchronize(as_event(event)), "cuEventSynchronize");
  }

  bool event_done(EventHandle event) override {
    ensure_current();
    CuResult r = api_.event_query(as_event(event));
    if (r == cr::kNotReady) return false;
    check(r, "cuEventQuery");
    return true;
  }

  float elapsed_ms(EventHandle start, EventHandle end) override {
    ensure_current();
    float ms = 0.0f;
    CuResult r = api_.event_elapsed_time(&ms, as_event(start), as_event(end));
    if (r == cr::kInvalidHandle) {
      fail(r, "cuEventElapsedTime (both events must be recorded and created with timing "
              "enabled)");
    }
    if (r == cr::kNotReady) fail(r, "cuEventElapsedTime (an event has not completed yet)");
    check(r, "cuEventElapsedTime");
    return ms;
  }

  // --- compilation -----------------------------------------------------------
  std::string compiler_identity() override {
    std::lock_guard<std::mutex> lock(identity_mutex_);
    if (identity_.empty()) identity_ = nvrtc_identity();  // throws when NVRTC is missing
    return identity_;
  }

  std::string target_arch(int device) override {
    DeviceProperties p = device_properties(device);
    return nvrtc_arch_for(p.compute_capability_major, p.compute_capability_minor);
  }

  CompiledModule compile(const CompileRequest& request, const std::string& arch) override {
    if (request.compiler == "nvcc") return nvcc_compile(request, arch);
    return nvrtc_compile(request, arch);
  }

  CompiledModule module_from_file(const std::string& path) override {
    CompiledModule out;
    out.binary = read_file_or_throw(path, "module_from_file");
    if (out.binary.empty()) throw InvalidArgument("module_from_file: '" + path + "' is empty");
    bool ptx = path.size() >= 4 && path.compare(path.size() - 4, 4, ".ptx") == 0;
    if (ptx && out.binary.back() != '\0') out.binary.push_back('\0');
    return out;
  }

  // --- modules and launches --------------------------------------------------
  ModuleHandle load_module(const CompiledModule& module) override {
    if (module.binary.empty()) throw InvalidArgument("load_module: the module binary is empty");
    ensure_current();
    CuModule m = nullptr;
    CuResult r = api_.module_load_data(&m, module.binary.data());
    if (r == cr::kSuccess) return m;
    std::string msg = "cuModuleLoadData (" + std::to_string(module.binary.size()) +
                      " bytes) on device " + std::to_string(tls_device) +
                      " failed: " + describe_result(api_, r);
    if (r == cr::kOutOfMemory) throw OutOfMemory(msg, module.binary.size());
    if (r == cr::kNoBinaryForGpu || r == cr::kInvalidImage) {
      msg += "; the binary is not a cubin/PTX for this device's architecture (" +
             target_arch(tls_device) + ")";
    } else if (r == cr::kUnsupportedPtxVersion) {
      msg += "; the PTX is newer than this driver supports: update the driver or compile for "
             "the device's sm_XX architecture";
    }
    throw Error(msg);
  }

  void unload_module(ModuleHandle module) override {
    if (!module) return;
    ensure_current();
    CuModule m = static_cast<CuModule>(module);
    {
      // Function handles die with their module; a later module may reuse them.
      std::lock_guard<std::mutex> lock(functions_mutex_);
      for (auto it = functions_.begin(); it != functions_.end();) {
        it = it->second.module == m ? functions_.erase(it) : std::next(it);
      }
    }
    check(api_.module_unload(m), "cuModuleUnload");
  }

  FunctionHandle get_function(ModuleHandle module, const std::string& symbol) override {
    if (!module) throw InvalidArgument("get_function('" + symbol + "'): null module");
    ensure_current();
    CuFunction f = nullptr;
    CuModule m = static_cast<CuModule>(module);
    CuResult r = api_.module_get_function(&f, m, symbol.c_str());
    if (r == cr::kNotFound) {
      throw NotFound("kernel '" + symbol + "' is not defined in the module (cuModuleGetFunction: " +
                     describe_result(api_, r) + ")");
    }
    if (r != cr::kSuccess) fail(r, "cuModuleGetFunction('" + symbol + "')");
    std::lock_guard<std::mutex> lock(functions_mutex_);
    FunctionInfo& info = functions_[f];
    if (info.module != m) info = FunctionInfo{symbol, m, kDefaultDynamicSharedLimit};
    return f;
  }

  std::vector<ParamInfo> param_info(FunctionHandle function) override {
    std::vector<ParamInfo> out;
    if (!api_.func_get_param_info) return out;  // driver older than CUDA 12.4
    ensure_current();
    CuFunction f = static_cast<CuFunction>(function);
    for (size_t i = 0; i < 4096; ++i) {  // kernels take at most a few hundred parameters
      size_t offset = 0, size = 0;
      CuResult r = api_.func_get_param_info(f, i, &offset, &size);
      if (r == cr::kInvalidValue) break;  // past the last parameter
      if (r != cr::kSuccess) fail(r, "cuFuncGetParamInfo(" + function_name(f) + ", " +
                                         std::to_string(i) + ")");
      out.push_back(ParamInfo{static_cast<uint32_t>(size), ParamKind::Unknown});
    }
    return out;
  }

  int function_attribute(FunctionHandle function, FunctionAttribute attribute) override {
    ensure_current();
    int value = 0;
    CuFunction f = static_cast<CuFunction>(function);
    if (!api_.func_get_attribute) throw Error("the CUDA driver has no cuFuncGetAttribute");
    CuResult r = api_.func_get_attribute(&value, static_cast<int>(attribute), f);
    if (r != cr::kSuccess) fail(r, "cuFuncGetAttribute(" + function_name(f) + ", " +
                                       std::to_string(static_cast<int>(attribute)) + ")");
    return value;
  }

  void set_function_attribute(FunctionHandle function, FunctionAttribute attribute, int value) override {
    ensure_current();
    CuFunction f = static_cast<CuFunction>(function);
    if (attribute != FunctionAttribute::MaxDynamicSharedSizeBytes &&
        attribute != FunctionAttribute::PreferredSharedMemoryCarveout)
      throw InvalidArgument("cuFuncSetAttribute(" + function_name(f) + "): attribute " +
                            std::to_string(static_cast<int>(attribute)) + " is read-only");
    CuResult r = api_.func_set_attribute(f, static_cast<int>(attribute), value);
    std::string call = "cuFuncSetAttribute(" + function_name(f) + ", " +
                       std::to_string(static_cast<int>(attribute)) + ", " + std::to_string(value) + ")";
    if (r == cr::kInvalidValue) throw InvalidArgument(call + " failed: " + describe_result(api_, r));
    if (r != cr::kSuccess) fail(r, call);
    if (attribute == FunctionAttribute::MaxDynamicSharedSizeBytes) {
      // Note [Dynamic shared memory]: a launch raises the limit again when it asks for more.
      std::lock_guard<std::mutex> lock(functions_mutex_);
      functions_[f].dynamic_shared_limit = static_cast<uint32_t>(value);
    }
  }

  std::pair<void*, size_t> module_global(ModuleHandle module, const std::string& symbol) override {
    ensure_current();
    CuDevicePtr ptr = 0;
    size_t bytes = 0;
    if (!api_.module_get_global) throw Error("the CUDA driver has no cuModuleGetGlobal_v2");
    CuResult r = api_.module_get_global(&ptr, &bytes, static_cast<CuModule>(module), symbol.c_str());
    if (r == cr::kNotFound)
      throw NotFound("global '" + symbol + "' is not defined in the module (cuModuleGetGlobal: " +
                     describe_result(api_, r) + ")");
    if (r != cr::kSuccess) fail(r, "cuModuleGetGlobal('" + symbol + "')");
    return {reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)), bytes};
  }

  // The checks every launch makes (current context, a function, a block of
  // 1 to 1024 threads, a non-empty grid, dynamic shared memory above the
  // default opted into): the function to launch.
  CuFunction checked_launch(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes) {
    ensure_current();
    CuFunction f = static_cast<CuFunction>(function);
    uint64_t threads = uint64_t(block.x) * block.y * block.z;
    if (!f || threads == 0 || threads > kMaxThreadsPerBlock || grid.x == 0 || grid.y == 0 ||
        grid.z == 0) {
      reject_launch(f, grid, block, shared_mem_bytes);
    }
    if (shared_mem_bytes > kDefaultDynamicSharedLimit) raise_shared_limit(f, shared_mem_bytes);
    return f;
  }

  void launch(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes,
              StreamHandle stream, void** args) override {
    CuFunction f = checked_launch(function, grid, block, shared_mem_bytes);
    CuResult r = api_.launch_kernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                    shared_mem_bytes, as_stream(stream), args, nullptr);
    if (r != cr::kSuccess) fail_launch(r, f, grid, block, shared_mem_bytes);
  }

  void launch_cooperative(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes,
                          StreamHandle stream, void** args) override {
    if (!api_.launch_cooperative_kernel) {
      launch(function, grid, block, shared_mem_bytes, stream, args);
      return;
    }
    CuFunction f = checked_launch(function, grid, block, shared_mem_bytes);
    CuResult r = api_.launch_cooperative_kernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                                shared_mem_bytes, as_stream(stream), args);
    if (r != cr::kSuccess) fail_launch(r, f, grid, block, shared_mem_bytes);
  }

 private:
  static CuDevicePtr device_ptr(const void* p) {
    return static_cast<CuDevicePtr>(reinterpret_cast<uintptr_t>(p));
  }
  static CuStream as_stream(StreamHandle s) { return static_cast<CuStream>(s); }
  static CuEvent as_event(EventHandle e) { return static_cast<CuEvent>(e); }

  DeviceSlot& slot_for(int device, const char* what) {
    if (device < 0 || device >= device_count_) {
      throw InvalidArgument(std::string(what) + ": device " + std::to_string(device) +
                            " does not exist (this machine has " +
                            std::to_string(device_count_) + " CUDA device" +
                            (device_count_ == 1 ? "" : "s") + ")");
    }
    return devices_[device];
  }

  // Note [Contexts]. The hot path is a TLS read, an atomic load and
  // cuCtxGetCurrent.
  void ensure_current() {
    int device = tls_device;
    CuContext want = devices_[device].context.load(std::memory_order_acquire);
    if (!want) want = retain_primary(device);
    CuContext current = nullptr;
    CuResult r = api_.ctx_get_current(&current);
    if (r != cr::kSuccess) fail(r, "cuCtxGetCurrent");
    if (current == want) return;
    r = api_.ctx_set_current(want);
    if (r != cr::kSuccess) fail(r, "cuCtxSetCurrent(device " + std::to_string(device) + ")");
  }

  CuContext retain_primary(int device) {
    std::lock_guard<std::mutex> lock(retain_mutex_);
    DeviceSlot& slot = devices_[device];
    if (CuContext ctx = slot.context.load(std::memory_order_acquire)) return ctx;
    CuContext ctx = nullptr;
    CuResult r = api_.primary_ctx_retain(&ctx, slot.handle);
    if (r != cr::kSuccess) {
      fail(r, "cuDevicePrimaryCtxRetain(device " + std::to_string(device) + ")");
    }
    slot.context.store(ctx, std::memory_order_release);
    return ctx;
  }

  DeviceProperties query_properties(int device) {
    CuDevice h = devices_[device].handle;
    DeviceProperties p;
    char name[256] = {};
    check(api_.device_get_name(name, sizeof(name) - 1, h), "cuDeviceGetName");
    p.name = name;
    check(api_.device_total_mem(&p.total_memory, h), "cuDeviceTotalMem_v2");
    auto attr = [&](int attribute, const char* label) {
      int value = 0;
      CuResult r = api_.device_get_attribute(&value, attribute, h);
      if (r != cr::kSuccess) {
        fail(r, std::string("cuDeviceGetAttribute(") + label + ", device " +
                    std::to_string(device) + ")");
      }
      return value;
    };
    p.compute_capability_major =
        attr(cu_device_attr::kComputeCapabilityMajor, "COMPUTE_CAPABILITY_MAJOR");
    p.compute_capability_minor =
        attr(cu_device_attr::kComputeCapabilityMinor, "COMPUTE_CAPABILITY_MINOR");
    p.multiprocessor_count = attr(cu_device_attr::kMultiprocessorCount, "MULTIPROCESSOR_COUNT");
    p.max_threads_per_block = attr(cu_device_attr::kMaxThreadsPerBlock, "MAX_THREADS_PER_BLOCK");
    p.max_shared_memory_per_block = static_cast<size_t>(
        attr(cu_device_attr::kMaxSharedMemoryPerBlockOptin, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"));
    p.warp_size = attr(cu_device_attr::kWarpSize, "WARP_SIZE");
    return p;
  }

  // Note [Dynamic shared memory].
  void raise_shared_limit(CuFunction f, uint32_t bytes) {
    std::lock_guard<std::mutex> lock(functions_mutex_);
    auto it = functions_.find(f);
    if (it != functions_.end() && it->second.dynamic_shared_limit >= bytes) return;
    CuResult r = api_.func_set_attribute(f, cu_func_attr::kMaxDynamicSharedSizeBytes,
                                         static_cast<int>(bytes));
    if (r != cr::kSuccess) {
      std::string name = it != functions_.end() ? it->second.name : "<unknown>";
      std::string msg = "cuFuncSetAttribute(kernel '" + name +
                        "', MAX_DYNAMIC_SHARED_SIZE_BYTES, " + std::to_string(bytes) +
                        ") failed: " + describe_result(api_, r);
      if (r == cr::kInvalidValue) {
        throw InvalidArgument(msg + "; the device allows at most " +
                              std::to_string(device_properties(tls_device)
                                                 .max_shared_memory_per_block) +
                              " bytes of shared memory per block, static included");
      }
      throw Error(msg);
    }
    if (it == functions_.end()) it = functions_.emplace(f, FunctionInfo{}).first;
    it->second.dynamic_shared_limit = bytes;
  }

  std::string function_name(CuFunction f) {
    std::lock_guard<std::mutex> lock(functions_mutex_);
    auto it = functions_.find(f);
    return it != functions_.end() ? "'" + it->second.name + "'" : "<unknown kernel>";
  }

  std::string launch_description(CuFunction f, Dim3 grid, Dim3 block, uint32_t shared) {
    return "cuLaunchKernel(kernel " + function_name(f) + ", grid " + dims(grid) + ", block " +
           dims(block) + ", " + std::to_string(shared) + " bytes of dynamic shared memory)";
  }

  [[noreturn]] void reject_launch(CuFunction f, Dim3 grid, Dim3 block, uint32_t shared) {
    std::string why = !f ? "the function handle is null"
                         : "block and grid dimensions must be >= 1 and a block may have at most " +
                               std::to_string(kMaxThreadsPerBlock) + " threads";
    throw InvalidArgument(launch_description(f, grid, block, shared) + " rejected: " + why);
  }

  [[noreturn]] void fail_launch(CuResult r, CuFunction f, Dim3 grid, Dim3 block,
                                uint32_t shared) {
    std::string msg =
        launch_description(f, grid, block, shared) + " failed: " + describe_result(api_, r);
    if (r == cr::kInvalidValue) throw InvalidArgument(msg);
    if (r == cr::kOutOfMemory) throw OutOfMemory(msg, 0);
    if (r == cr::kLaunchOutOfResources) {
      throw LaunchError(msg + "; try fewer threads per block (registers) or less shared memory");
    }
    if (is_kernel_fault(r)) {
      throw LaunchError(msg + "; an earlier kernel failed while running and the CUDA context "
                              "is no longer usable");
    }
    throw LaunchError(msg);
  }

  void check(CuResult r, const char* call) {
    if (r != cr::kSuccess) fail(r, call);
  }

  // Throws the errors.h class for `r`, naming `call`.
  [[noreturn]] void fail(CuResult r, const std::string& call, size_t requested_bytes = 0) {
    std::string msg = call + " failed: " + describe_result(api_, r);
    if (r == cr::kOutOfMemory) throw OutOfMemory(msg, requested_bytes);
    if (r == cr::kInvalidDevice) throw InvalidArgument(msg);
    if (is_kernel_fault(r)) {
      throw LaunchError(msg + " (a kernel failed while running; the CUDA context is no longer "
                              "usable)");
    }
    throw Error(msg);
  }

  const DriverApi& api_;
  const int device_count_;
  std::unique_ptr<DeviceSlot[]> devices_;
  std::mutex retain_mutex_;
  std::mutex functions_mutex_;
  std::unordered_map<CuFunction, FunctionInfo> functions_;
  std::mutex identity_mutex_;
  std::string identity_;
};

std::unique_ptr<Backend> start(std::string* why_not) {
  std::string why;
  const DriverApi* api = load_driver_api(&why);
  if (!api) {
    if (why_not) *why_not = why;
    return nullptr;
  }
  CuResult r = api->init(0);
  if (r != cr::kSuccess) {
    if (why_not) *why_not = "cuInit failed: " + describe_result(*api, r);
    return nullptr;
  }
  int count = 0;
  r = api->device_get_count(&count);
  if (r != cr::kSuccess) {
    if (why_not) *why_not = "cuDeviceGetCount failed: " + describe_result(*api, r);
    return nullptr;
  }
  if (count <= 0) {
    if (why_not) *why_not = "the CUDA driver reports no devices";
    return nullptr;
  }
  std::vector<CuDevice> handles(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    r = api->device_get(&handles[i], i);
    if (r != cr::kSuccess) {
      if (why_not) *why_not = "cuDeviceGet(" + std::to_string(i) + ") failed: " +
                              describe_result(*api, r);
      return nullptr;
    }
  }
  return std::make_unique<CudaBackend>(*api, count, std::move(handles));
}

}  // namespace

const BackendCaps& cuda_backend_caps() {
  static const BackendCaps caps{.host_addressable = false,
                                .cuda_interop = true,
                                .concurrent_streams = true,
                                .runs_kernels_on_calling_thread = false,
                                .one_module_per_source = false,
                                .multiprocessor_residency = true,
                                .vendor_libraries = true};
  return caps;
}

std::unique_ptr<Backend> make_cuda_backend(std::string* why_not) {
  try {
    return start(why_not);
  } catch (const std::exception& e) {
    if (why_not) *why_not = std::string("the CUDA backend could not start: ") + e.what();
    return nullptr;
  }
}

}  // namespace kiln::runtime
