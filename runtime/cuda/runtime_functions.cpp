#include "runtime/cuda/runtime_functions.h"

#include <cstring>

#include "runtime/cuda/driver_calls.h"
#include "runtime/cuda/nvrtc_api.h"

namespace kiln::runtime::cuda::rt {
namespace {

CuDevicePtr dptr(uintptr_t p) { return static_cast<CuDevicePtr>(p); }
CuStream as_stream(StreamHandle s) { return static_cast<CuStream>(s); }
const DriverApi& cu(const char* name) { return driver_for(std::string("kiln.cuda.runtime.") + name); }

// The primary context of `device` (retained for the process), leaving the
// current device's context current.
CuContext context_of(const DriverApi& api, int device) {
  int current = backend().current_device();
  make_primary_context_current(device);
  CuContext ctx = nullptr;
  check_call(api, api.ctx_get_current(&ctx), "cuCtxGetCurrent");
  make_primary_context_current(current);
  return ctx;
}

}  // namespace

int driver_version() {
  const DriverApi& api = cu("driverGetVersion");
  int v = 0;
  check_call(api, api.driver_get_version(&v), "cuDriverGetVersion");
  return v;
}

int runtime_version() {
  cu("runtimeGetVersion");
  int major = 0, minor = 0;
  const NvrtcApi& rtc = nvrtc_api();
  if (rtc.version(&major, &minor) != 0) throw Error("nvrtcVersion failed");
  return major * 1000 + minor * 10;
}

uintptr_t malloc(size_t nbytes) {
  const DriverApi& api = cu("malloc");
  if (nbytes == 0) return 0;
  CuDevicePtr p = 0;
  check_call(api, api.mem_alloc(&p, nbytes), "cuMemAlloc_v2(" + std::to_string(nbytes) + " bytes)");
  return static_cast<uintptr_t>(p);
}

void free(uintptr_t ptr) {
  const DriverApi& api = cu("free");
  if (ptr) check_call(api, api.mem_free(dptr(ptr)), "cuMemFree_v2");
}

uintptr_t malloc_managed(size_t nbytes, unsigned flags) {
  const DriverApi& api = cu("mallocManaged");
  if (nbytes == 0) return 0;
  CuDevicePtr p = 0;
  check_call(api, entry(api.mem_alloc_managed, "cuMemAllocManaged")(&p, nbytes, flags),
             "cuMemAllocManaged(" + std::to_string(nbytes) + " bytes)");
  return static_cast<uintptr_t>(p);
}

uintptr_t host_alloc(size_t nbytes, unsigned flags) {
  const DriverApi& api = cu("hostAlloc");
  if (nbytes == 0) return 0;
  void* p = nullptr;
  check_call(api, api.mem_host_alloc(&p, nbytes, flags), "cuMemHostAlloc(" + std::to_string(nbytes) + " bytes)");
  return reinterpret_cast<uintptr_t>(p);
}

void free_host(uintptr_t ptr) {
  const DriverApi& api = cu("freeHost");
  if (ptr) check_call(api, api.mem_free_host(reinterpret_cast<void*>(ptr)), "cuMemFreeHost");
}

uintptr_t malloc_async(size_t nbytes, StreamHandle stream) {
  const DriverApi& api = cu("mallocAsync");
  if (nbytes == 0) return 0;
  CuDevicePtr p = 0;
  check_call(api, entry(api.mem_alloc_async, "cuMemAllocAsync")(&p, nbytes, as_stream(stream)),
             "cuMemAllocAsync(" + std::to_string(nbytes) + " bytes)");
  return static_cast<uintptr_t>(p);
}

void free_async(uintptr_t ptr, StreamHandle stream) {
  const DriverApi& api = cu("freeAsync");
  if (ptr) check_call(api, entry(api.mem_free_async, "cuMemFreeAsync")(dptr(ptr), as_stream(stream)), "cuMemFreeAsync");
}

void memcpy_async(uintptr_t dst, uintptr_t src, size_t nbytes, StreamHandle stream) {
  const DriverApi& api = cu("memcpyAsync");
  if (nbytes == 0) return;
  check_call(api, entry(api.memcpy_async, "cuMemcpyAsync")(dptr(dst), dptr(src), nbytes, as_stream(stream)),
             "cuMemcpyAsync");
}

void memcpy(uintptr_t dst, uintptr_t src, size_t nbytes) {
  const DriverApi& api = cu("memcpy");
  memcpy_async(dst, src, nbytes, nullptr);
  check_call(api, api.stream_synchronize(nullptr), "cuStreamSynchronize");
}

void memset_async(uintptr_t dst, int value, size_t nbytes, StreamHandle stream) {
  const DriverApi& api = cu("memsetAsync");
  if (nbytes == 0) return;
  check_call(api, api.memset_d8_async(dptr(dst), static_cast<unsigned char>(value), nbytes, as_stream(stream)),
             "cuMemsetD8Async");
}

void memset(uintptr_t dst, int value, size_t nbytes) {
  const DriverApi& api = cu("memset");
  memset_async(dst, value, nbytes, nullptr);
  check_call(api, api.stream_synchronize(nullptr), "cuStreamSynchronize");
}

StreamHandle stream_create(unsigned flags, int priority) {
  const DriverApi& api = cu("streamCreateWithPriority");
  CuStream s = nullptr;
  check_call(api, entry(api.stream_create_with_priority, "cuStreamCreateWithPriority")(&s, flags, priority),
             "cuStreamCreateWithPriority");
  return s;
}

int stream_priority(StreamHandle stream) {
  const DriverApi& api = cu("streamGetPriority");
  int p = 0;
  check_call(api, entry(api.stream_get_priority, "cuStreamGetPriority")(as_stream(stream), &p), "cuStreamGetPriority");
  return p;
}

unsigned stream_flags(StreamHandle stream) {
  const DriverApi& api = cu("streamGetFlags");
  unsigned f = 0;
  check_call(api, entry(api.stream_get_flags, "cuStreamGetFlags")(as_stream(stream), &f), "cuStreamGetFlags");
  return f;
}

std::pair<int, int> stream_priority_range() {
  const DriverApi& api = cu("deviceGetStreamPriorityRange");
  int least = 0, greatest = 0;
  check_call(api, entry(api.ctx_get_stream_priority_range, "cuCtxGetStreamPriorityRange")(&least, &greatest),
             "cuCtxGetStreamPriorityRange");
  return {least, greatest};
}

int device_attribute(int attribute, int device) {
  const DriverApi& api = cu("deviceGetAttribute");
  int v = 0;
  check_call(api, api.device_get_attribute(&v, attribute, device_handle(api, device)),
             "cuDeviceGetAttribute(" + std::to_string(attribute) + ", device " + std::to_string(device) + ")");
  return v;
}

std::string device_pci_bus_id(int device) {
  const DriverApi& api = cu("deviceGetPCIBusId");
  char id[64] = {};
  check_call(api, entry(api.device_get_pci_bus_id, "cuDeviceGetPCIBusId")(id, sizeof(id) - 1, device_handle(api, device)),
             "cuDeviceGetPCIBusId");
  return id;
}

int device_by_pci_bus_id(const std::string& bus_id) {
  const DriverApi& api = cu("deviceGetByPCIBusId");
  CuDevice handle = 0;
  check_call(api, entry(api.device_get_by_pci_bus_id, "cuDeviceGetByPCIBusId")(&handle, bus_id.c_str()),
             "cuDeviceGetByPCIBusId('" + bus_id + "')");
  int count = 0;
  check_call(api, api.device_get_count(&count), "cuDeviceGetCount");
  for (int i = 0; i < count; ++i)
    if (device_handle(api, i) == handle) return i;
  throw InvalidArgument("no device has PCI bus id '" + bus_id + "'");
}

bool device_can_access_peer(int device, int peer) {
  const DriverApi& api = cu("deviceCanAccessPeer");
  int can = 0;
  check_call(api, entry(api.device_can_access_peer, "cuDeviceCanAccessPeer")(&can, device_handle(api, device),
                                                                             device_handle(api, peer)),
             "cuDeviceCanAccessPeer");
  return can != 0;
}

void enable_peer_access(int peer) {
  const DriverApi& api = cu("deviceEnablePeerAccess");
  device_handle(api, peer);
  CuContext ctx = context_of(api, peer);
  check_call(api, entry(api.ctx_enable_peer_access, "cuCtxEnablePeerAccess")(ctx, 0), "cuCtxEnablePeerAccess");
}

void disable_peer_access(int peer) {
  const DriverApi& api = cu("deviceDisablePeerAccess");
  device_handle(api, peer);
  CuContext ctx = context_of(api, peer);
  check_call(api, entry(api.ctx_disable_peer_access, "cuCtxDisablePeerAccess")(ctx), "cuCtxDisablePeerAccess");
}

size_t device_limit(int limit) {
  const DriverApi& api = cu("deviceGetLimit");
  size_t v = 0;
  check_call(api, entry(api.ctx_get_limit, "cuCtxGetLimit")(&v, limit), "cuCtxGetLimit(" + std::to_string(limit) + ")");
  return v;
}

void set_device_limit(int limit, size_t value) {
  const DriverApi& api = cu("deviceSetLimit");
  check_call(api, entry(api.ctx_set_limit, "cuCtxSetLimit")(limit, value), "cuCtxSetLimit(" + std::to_string(limit) + ")");
}

// Each attribute is read into a zeroed 8-byte buffer: the driver writes an
// unsigned int, an int, a bool or a pointer depending on the attribute.
PointerAttributes pointer_attributes(uintptr_t ptr) {
  const DriverApi& api = cu("pointerGetAttributes");
  auto get = entry(api.pointer_get_attribute, "cuPointerGetAttribute");
  PointerAttributes out;
  uint64_t memory_type = 0;
  CuResult r = get(&memory_type, cu_pointer_attr::kMemoryType, dptr(ptr));
  if (r == cu_result::kInvalidValue) return out;  // not memory CUDA knows: unregistered
  check_call(api, r, "cuPointerGetAttribute(MEMORY_TYPE)");
  uint64_t managed = 0, ordinal = 0, device_pointer = 0, host_pointer = 0;
  check_call(api, get(&managed, cu_pointer_attr::kIsManaged, dptr(ptr)), "cuPointerGetAttribute(IS_MANAGED)");
  check_call(api, get(&ordinal, cu_pointer_attr::kDeviceOrdinal, dptr(ptr)), "cuPointerGetAttribute(DEVICE_ORDINAL)");
  if (get(&device_pointer, cu_pointer_attr::kDevicePointer, dptr(ptr)) != cu_result::kSuccess) device_pointer = 0;
  if (get(&host_pointer, cu_pointer_attr::kHostPointer, dptr(ptr)) != cu_result::kSuccess) host_pointer = 0;
  unsigned type = static_cast<unsigned>(memory_type & 0xffffffffu);
  out.type = managed != 0 ? kMemoryTypeManaged
             : type == cu_memory_type::kHost ? kMemoryTypeHost
                                             : kMemoryTypeDevice;
  out.device = static_cast<int>(static_cast<uint32_t>(ordinal & 0xffffffffu));
  out.device_pointer = static_cast<uintptr_t>(device_pointer);
  out.host_pointer = static_cast<uintptr_t>(host_pointer);
  return out;
}

std::string ipc_get_mem_handle(uintptr_t ptr) {
  const DriverApi& api = cu("ipcGetMemHandle");
  CuIpcMemHandle h{};
  check_call(api, entry(api.ipc_get_mem_handle, "cuIpcGetMemHandle")(&h, dptr(ptr)), "cuIpcGetMemHandle");
  return std::string(h.reserved, sizeof(h.reserved));
}

uintptr_t ipc_open_mem_handle(const std::string& handle, unsigned flags) {
  const DriverApi& api = cu("ipcOpenMemHandle");
  CuIpcMemHandle h{};
  if (handle.size() != sizeof(h.reserved))
    throw InvalidArgument("an IPC memory handle is " + std::to_string(sizeof(h.reserved)) + " bytes, got " +
                          std::to_string(handle.size()));
  std::memcpy(h.reserved, handle.data(), sizeof(h.reserved));
  CuDevicePtr p = 0;
  check_call(api, entry(api.ipc_open_mem_handle, "cuIpcOpenMemHandle_v2")(&p, h, flags), "cuIpcOpenMemHandle_v2");
  return static_cast<uintptr_t>(p);
}

void ipc_close_mem_handle(uintptr_t ptr) {
  const DriverApi& api = cu("ipcCloseMemHandle");
  check_call(api, entry(api.ipc_close_mem_handle, "cuIpcCloseMemHandle")(dptr(ptr)), "cuIpcCloseMemHandle");
}

void profiler_start() {
  const DriverApi& api = cu("profilerStart");
  check_call(api, entry(api.profiler_start, "cuProfilerStart")(), "cuProfilerStart");
}

void profiler_stop() {
  const DriverApi& api = cu("profilerStop");
  check_call(api, entry(api.profiler_stop, "cuProfilerStop")(), "cuProfilerStop");
}

}  // namespace kiln::runtime::cuda::rt
