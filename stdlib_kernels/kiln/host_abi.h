// The contract between the kiln runtime (runtime/host/) and kernels compiled
// for the host backend: the structures both sides read, and the services the
// runtime lends each loaded kernel module. Host compiler only.
#pragma once

#include <cstdint>

namespace kiln_host {

inline constexpr int kAbiVersion = 1;
inline constexpr int kWarpSize = 32;

struct Dim3 {
  unsigned x, y, z;
};

struct BlockInfo {
  Dim3 block_idx, block_dim, grid_dim;
};

// One per fiber (GPU thread).
struct ThreadInfo {
  Dim3 thread_idx;
  const BlockInfo* block;
  unsigned lane;  // linear thread index % 32
};

// Same order as kiln::runtime::ParamKind.
enum ParamKindCode : unsigned char { kUnknown, kPointer, kSigned, kUnsigned, kFloat, kBool, kComplex };

// One launchable kernel of a module: `invoke(fn, args)` calls the kernel with
// args[i] pointing at parameter i.
struct KernelEntry {
  const char* name;  // extern "C" name or name expression
  void* fn;
  void (*invoke)(void* fn, void** args);
  unsigned num_params;
  const unsigned* param_sizes;
  const unsigned char* param_kinds;
};

// What the runtime lends a module (kiln_host_attach). Every blocking call may
// switch to another fiber; ThreadInfo must be re-read after it returns.
struct Services {
  int abi_version;
  void (*sync_threads)();
  int (*sync_threads_reduce)(int predicate, int op);  // op: 0 count, 1 and, 2 or
  void (*sync_warp)();
  // Every live lane's `value` for the calling warp, after a warp barrier.
  void (*warp_gather)(unsigned long long value, unsigned long long* out32);
  [[noreturn]] void (*fail)(const char* message);
  void* (*dynamic_shared)();
  ThreadInfo* (*current_thread)();
};

}  // namespace kiln_host
