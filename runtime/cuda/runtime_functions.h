// The CUDA runtime API's functions as kiln.cuda.runtime offers them
// (CuPy's cupy.cuda.runtime names), each one Driver API call or two on the
// current device's primary context. Pointers are integers, as in CuPy.
//
//   uintptr_t p = rt::malloc_managed(1 << 20, kMemAttachGlobal);
//   rt::PointerAttributes a = rt::pointer_attributes(p);   // a.type == rt::kMemoryTypeManaged
//   rt::free(p);
//
// Every function throws Error on the host backend ("the host backend has no
// CUDA runtime", driver_calls.h) and names the failed driver call otherwise.
// The CUDA runtime's enum values (cudaLimit*, cudaDevAttr*, cudaMemcpyKind)
// equal the driver's where these functions take them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "runtime/backend.h"

namespace kiln::runtime::cuda::rt {

// cudaMemoryType values (pointerGetAttributes(p).type).
inline constexpr int kMemoryTypeUnregistered = 0;
inline constexpr int kMemoryTypeHost = 1;
inline constexpr int kMemoryTypeDevice = 2;
inline constexpr int kMemoryTypeManaged = 3;

int driver_version();   // cuDriverGetVersion, e.g. 13000
int runtime_version();  // the CUDA version of kiln's compiler (NVRTC), e.g. 13000

uintptr_t malloc(size_t nbytes);  // cuMemAlloc (0 for 0 bytes)
void free(uintptr_t ptr);         // cuMemFree (device or managed memory)
uintptr_t malloc_managed(size_t nbytes, unsigned flags);  // cuMemAllocManaged
uintptr_t host_alloc(size_t nbytes, unsigned flags);      // cuMemHostAlloc
void free_host(uintptr_t ptr);                            // cuMemFreeHost
uintptr_t malloc_async(size_t nbytes, StreamHandle stream);  // cuMemAllocAsync
void free_async(uintptr_t ptr, StreamHandle stream);         // cuMemFreeAsync
// Copies in any direction (unified addressing); the synchronous forms wait
// for the legacy default stream, as cudaMemcpy/cudaMemset do.
void memcpy(uintptr_t dst, uintptr_t src, size_t nbytes);
void memcpy_async(uintptr_t dst, uintptr_t src, size_t nbytes, StreamHandle stream);
void memset(uintptr_t dst, int value, size_t nbytes);
void memset_async(uintptr_t dst, int value, size_t nbytes, StreamHandle stream);

// cuStreamCreateWithPriority; priority 0 is the default.
StreamHandle stream_create(unsigned flags, int priority);
int stream_priority(StreamHandle stream);
unsigned stream_flags(StreamHandle stream);
std::pair<int, int> stream_priority_range();  // (least, greatest), e.g. (0, -5)

int device_attribute(int attribute, int device);  // cuDeviceGetAttribute
std::string device_pci_bus_id(int device);         // "0000:3B:00.0"
int device_by_pci_bus_id(const std::string& bus_id);
bool device_can_access_peer(int device, int peer);
void enable_peer_access(int peer);   // the current device may access `peer`'s memory
void disable_peer_access(int peer);
size_t device_limit(int limit);      // cuCtxGetLimit
void set_device_limit(int limit, size_t value);

struct PointerAttributes {
  int type = kMemoryTypeUnregistered;
  int device = -2;  // -2: not a CUDA pointer (CuPy's value for unregistered memory)
  uintptr_t device_pointer = 0;
  uintptr_t host_pointer = 0;
};
PointerAttributes pointer_attributes(uintptr_t ptr);

std::string ipc_get_mem_handle(uintptr_t ptr);  // 64 bytes
uintptr_t ipc_open_mem_handle(const std::string& handle, unsigned flags);
void ipc_close_mem_handle(uintptr_t ptr);

void profiler_start();
void profiler_stop();

}  // namespace kiln::runtime::cuda::rt
