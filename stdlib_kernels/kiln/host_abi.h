// The contract between the kiln runtime (runtime/host/) and kernels compiled
// for the host backend: the structures both sides read, and the services the
// runtime lends each loaded kernel module. Host compiler only.
#pragma once

#include <cstdint>

namespace kiln_host {

inline constexpr int kAbiVersion = 3;
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
  // Warp barriers wait for the live lanes of `mask` (the caller's lane is
  // always included); see cpu_scheduler.cpp, Note [Warp barriers by mask].
  void (*sync_warp)(unsigned mask);
  // Each lane's `value` (out32[lane]) after a warp barrier over `mask`;
  // returns the lanes that took part (only their slots are meaningful).
  unsigned (*warp_gather)(unsigned mask, unsigned long long value, unsigned long long* out32);
  void (*fail)(const char* message);   // never returns (a pointer cannot be [[noreturn]]: clang rejects it)
  void* (*dynamic_shared)();
  ThreadInfo* (*current_thread)();
  // Lanes of the caller's warp that have not exited (no barrier).
  unsigned (*warp_live_mask)();
  // cooperative_groups' grid.sync(): a barrier of every thread of the grid
  // (Note [Host grid barrier], runtime/host/cpu_scheduler.h).
  void (*sync_grid)();
};

}  // namespace kiln_host
