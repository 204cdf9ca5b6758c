// Cancelling host launches: Ctrl-C and the KILN_HOST_KERNEL_TIMEOUT watchdog.
//
//   LaunchWatch watch(state, pool_threads);   // for the launch's whole run
//   ...run the blocks...                       // a cancel fails the blocks
//   watch.finish();                            // throws for a cancelled launch
//
// Note [Cancelling host launches]
// A host kernel may never end (`while (x[0] == 0) {}`), and while it runs the
// launching thread is inside it: the caller runs blocks too, and the GIL is
// released. A monitor thread (one per process, started by the first launch)
// wakes every 20 ms while launches run and cancels a launch when
//  - it runs longer than KILN_HOST_KERNEL_TIMEOUT seconds (a float; unset or
//    0 = no limit; anything else that is not a number >= 0 is an
//    InvalidArgument at every launch), ending in LaunchError "the launch
//    timed out and was terminated", as CUDA words it; or
//  - SIGINT arrived since the launch began and the launch was made by the
//    process's main thread (Python runs its SIGINT handler there only): the
//    launch ends in Interrupted, which the binding turns into whatever
//    Python's SIGINT handler raises (KeyboardInterrupt by default).
// SIGINT is seen through a handler that counts the signal and then calls the
// handler that was there before (Python's, which only sets a flag); it is put
// back in front at each launch of the main thread if Python replaced it
// (signal.signal). Cancelling sets the launch's `cancel` and sends
// kCancelSignal to the threads running its blocks (the caller, and the pool
// if the launch uses it), again every tick until the launch ends: the
// signal's handler (kernel_faults.cpp) siglongjmps out of a fiber of a
// cancelled launch exactly as a fault does (Note [Kernel faults]), and the
// scheduler checks `cancel` between fibers (a signal that came while no fiber
// ran). Launches from other threads are not interrupted by Ctrl-C; the
// watchdog applies to all. Host streams run their work at enqueue, so every
// launch, on any stream, is synchronous and watched the same way.
// What is lost after a cancel is what a fault loses: the kernel's partial
// writes stay, objects the abandoned fibers constructed are never destroyed,
// and a lock the kernel held (malloc's inside new, stdio's inside printf)
// stays held, so a later allocation or printf in the process may block. The
// backend needs no reset: fibers are prepared again for the next block and
// the pool is idle once the cancelled launch has returned.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <vector>

#include "runtime/host/cpu_scheduler.h"

namespace kiln::runtime::host {

// KILN_HOST_KERNEL_TIMEOUT in seconds (0 = none); InvalidArgument if malformed.
double host_kernel_timeout_seconds();

class LaunchWatch {
 public:
  // `pool_threads`: the pool's threads when the launch uses the pool, or null.
  LaunchWatch(BlockLaunch& launch, const std::vector<pthread_t>* pool_threads);
  ~LaunchWatch();
  LaunchWatch(const LaunchWatch&) = delete;
  LaunchWatch& operator=(const LaunchWatch&) = delete;

  // After the blocks have returned: throws LaunchError (timeout) or
  // Interrupted (SIGINT) if the launch was cancelled.
  void finish();

  // Internal to the monitor.
  BlockLaunch& launch;
  const std::vector<pthread_t>* pool_threads;
  pthread_t caller;
  bool main_thread;
  unsigned long long sigint_seen;
  std::chrono::steady_clock::time_point deadline;
  bool has_deadline = false;
  double timeout_s = 0;
  bool registered = false;
};

}  // namespace kiln::runtime::host
