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

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kiln/host_abi.h"

namespace kiln::runtime::host {

// Note [Host grid barrier]
// A cooperative launch (Backend::launch_cooperative) runs every block at
// once, each on a thread of its own, and gives them one GridBarrier: a
// grid.sync() first waits at its block's barrier; the block's last thread to
// arrive (or to exit) then waits, blocking its worker thread, until every
// block of the grid has arrived or finished, and lets its block go. A block
// that finishes counts as arrived from then on, so blocks returning early do
// not hang the others. In an ordinary launch a grid.sync() of a one-block
// grid is the block's barrier, and of a larger grid a kernel failure (the
// blocks are not all resident): pass enable_cooperative_groups=True.
struct GridBarrier {
  std::mutex mutex;
  std::condition_variable released;
  unsigned live = 0, arrived = 0;
  unsigned long long generation = 0;
};

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
  GridBarrier* grid_barrier = nullptr;  // a cooperative launch's (Note [Host grid barrier])
};

// Largest dynamic shared memory a launch may ask for (bytes).
inline constexpr size_t kMaxDynamicSharedBytes = 227 * 1024;

// The services table handed to every loaded module.
const kiln_host::Services* scheduler_services();

// Runs block `block_idx` of `launch` to completion (or failure) on this thread.
void run_block(BlockLaunch& launch, kiln_host::Dim3 block_idx);

// The blocks of a cooperative launch (Note [Host grid barrier]): the
// constructor starts a thread for every block but the first, waiting; run()
// lets them go, runs the first block on the caller and waits for them all;
// the destructor joins the threads.
//
//   CooperativeRun blocks(state);                     // state.grid_barrier is set
//   LaunchWatch watch(state, &blocks.threads());     // may cancel them
//   blocks.run();
class CooperativeRun {
 public:
  explicit CooperativeRun(BlockLaunch& launch);
  ~CooperativeRun();
  CooperativeRun(const CooperativeRun&) = delete;
  CooperativeRun& operator=(const CooperativeRun&) = delete;
  const std::vector<pthread_t>& threads() const { return handles_; }
  void run();

 private:
  void run_one(size_t i);
  void join();

  BlockLaunch& launch_;
  GridBarrier barrier_;
  std::vector<std::thread> threads_;
  std::vector<pthread_t> handles_;
  bool go_ = false;
};

}  // namespace kiln::runtime::host
