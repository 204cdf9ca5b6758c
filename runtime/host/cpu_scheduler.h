// Runs kernel blocks on the CPU: each block's threads are fibers of one
// worker thread, so __syncthreads and warp operations are real barriers.
//
//   BlockLaunch launch{run_thread, entry, args, grid, block, shared_bytes};
//   run_block(launch, {bx, by, bz});          // on the calling worker thread
//   if (launch.failed) ... launch.message
//
// Note [Barrier progress]
// The scheduler resumes every unfinished fiber once per pass. A fiber waiting
// at a barrier whose generation has not moved yields again at once. A pass in
// which no fiber arrived at a barrier, left one, or exited is a deadlock
// (threads waiting at barriers that can never all be reached), reported as a
// failure rather than a hang.
#pragma once

#include <signal.h>

#include <atomic>
#include <mutex>
#include <string>

#include "kiln/host_abi.h"

namespace kiln::runtime::host {

// BlockLaunch::cancel (Note [Cancelling host launches], launch_watch.h).
inline constexpr sig_atomic_t kNotCancelled = 0, kCancelInterrupt = 1, kCancelTimeout = 2;

using RunThreadFn = void (*)(const kiln_host::KernelEntry*, void**);

struct BlockLaunch {
  RunThreadFn run_thread = nullptr;
  const kiln_host::KernelEntry* entry = nullptr;
  void** args = nullptr;
  kiln_host::Dim3 grid{1, 1, 1}, block{1, 1, 1};
  size_t shared_bytes = 0;
  std::atomic<bool> failed{false};
  std::mutex message_mutex;
  std::string message;  // the first failure
  volatile sig_atomic_t cancel = kNotCancelled;
};

// Largest dynamic shared memory a launch may ask for (bytes).
inline constexpr size_t kMaxDynamicSharedBytes = 227 * 1024;

// The services table handed to every loaded module.
const kiln_host::Services* scheduler_services();

// Runs block `block_idx` of `launch` to completion (or failure) on this thread.
void run_block(BlockLaunch& launch, kiln_host::Dim3 block_idx);

}  // namespace kiln::runtime::host
