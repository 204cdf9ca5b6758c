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

// A texture or surface object of the host backend (kiln.cuda.texture): the
// cudaTextureObject_t / cudaSurfaceObject_t a kernel receives is the address
// of one of these, filled by runtime/host/host_textures.cpp and read by the
// fetches of kiln/host_texture.h. Enum fields hold CUDA's runtime-API values.
struct TextureData {
  unsigned char* data;            // texel (0, 0, 0)
  unsigned long long extent[3];   // texels along x, y, z; layers after the last axis of a layered array; else 1
  unsigned long long pitch[2];    // bytes from a row to the next, from a slice (or layer) to the next
  int dims;                       // coordinates a fetch takes: 1, 2 or 3
  int layered;                    // extent[dims] counts layers
  int linear;                     // a cudaResourceTypeLinear resource: out-of-range tex1Dfetch reads zero
  int channels, channel_bits, channel_kind;  // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
  int address_mode[3];            // cudaAddressMode: 0 wrap, 1 clamp, 2 mirror, 3 border
  int filter_mode;                // cudaFilterMode: 0 point, 1 linear
  int read_mode;                  // cudaReadMode: 0 element type, 1 normalized float
  int normalized_coords;
  float border_color[4];
};

}  // namespace kiln_host
