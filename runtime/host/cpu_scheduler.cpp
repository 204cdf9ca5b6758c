#include "runtime/host/cpu_scheduler.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <system_error>
#include <vector>

#include "runtime/host/fiber.h"
#include "runtime/host/kernel_faults.h"

namespace kiln::runtime::host {
namespace {

struct Fiber {
  FiberContext context;
  FiberStack stack;  // mmap'd with a guard page, kept for the next block
  kiln_host::ThreadInfo info;
  unsigned warp = 0;
  bool done = false;
};

struct Barrier {
  int live = 0, arrived = 0;
  unsigned long long generation = 0;
};

// Note [Warp barriers by mask]
// __syncwarp(mask) and the *_sync warp operations wait only for the lanes of
// their mask that have not exited, so divergent code such as
// `if (lane < 16) __shfl_down_sync(0xffff, v, 8)` works. Each distinct mask
// in flight has its own barrier; it opens when every live lane of the mask
// has arrived (an exiting lane may be the one that opens it).
struct WarpBarrier {
  unsigned mask = 0;     // lanes taking part; 0 = slot free
  unsigned arrived = 0;  // lanes that have arrived
  unsigned long long generation = 0;
};

struct WarpState {
  unsigned live = 0;  // lanes that have not exited
  WarpBarrier barriers[kiln_host::kWarpSize];
  unsigned long long slots[kiln_host::kWarpSize];
  unsigned participants[kiln_host::kWarpSize];  // per lane: who took part in its last barrier
};

// Opens `b` if every live lane of its mask has arrived.
bool open_if_complete(WarpState& w, WarpBarrier& b) {
  if (b.mask == 0 || b.arrived == 0 || (b.mask & w.live & ~b.arrived) != 0) return false;
  for (unsigned lane = 0; lane < kiln_host::kWarpSize; ++lane)
    if (b.arrived >> lane & 1u) w.participants[lane] = b.arrived;
  b.mask = 0;
  b.arrived = 0;
  ++b.generation;
  return true;
}

struct Block {
  BlockLaunch* launch = nullptr;
  kiln_host::BlockInfo info{};
  Barrier barrier;
  int reduce_acc = 0, reduce_result = 0;
  unsigned long long progress = 0;
  bool failed = false;
  bool grid_sync = false;  // the barrier's threads are at a grid.sync()
  std::vector<WarpState> warps;
};

// Per worker thread: the fibers (stacks kept between blocks), the scheduler's
// own context, what runs now, and the dynamic shared memory buffer.
struct Worker {
  std::vector<Fiber> fibers;
  FiberContext scheduler;
  Block* block = nullptr;
  Fiber* current = nullptr;
  char* dynamic_shared = nullptr;

  ~Worker() { std::free(dynamic_shared); }
  void ensure_fibers(size_t n) {
    if (fibers.size() < n) fibers.resize(n);
  }
};

thread_local Worker tl_worker;

void yield_to_scheduler() {
  Worker& w = tl_worker;
  fiber_switch(w.current->context, w.scheduler);
}

// Arrive at `b`; returns when every live participant has arrived. The last
// one to arrive runs `on_release` before letting the others go.
template <class OnRelease>
void barrier_wait(Barrier& b, OnRelease on_release) {
  Block& block = *tl_worker.block;
  ++block.progress;
  unsigned long long generation = b.generation;
  if (++b.arrived >= b.live) {
    on_release();
    b.arrived = 0;
    ++b.generation;
    return;
  }
  while (b.generation == generation) yield_to_scheduler();
  ++block.progress;
}

void release_if_complete(Barrier& b) {
  if (b.arrived > 0 && b.arrived >= b.live) {
    b.arrived = 0;
    ++b.generation;
  }
}

void svc_sync_threads() {
  Block& b = *tl_worker.block;
  barrier_wait(b.barrier, [] {});
}

int svc_sync_threads_reduce(int predicate, int op) {
  Block& b = *tl_worker.block;
  if (b.barrier.arrived == 0) b.reduce_acc = (op == 1) ? 1 : 0;
  if (op == 0) b.reduce_acc += predicate;
  else if (op == 1) b.reduce_acc = b.reduce_acc && predicate;
  else b.reduce_acc = b.reduce_acc || predicate;
  barrier_wait(b.barrier, [&b] { b.reduce_result = b.reduce_acc; });
  return b.reduce_result;
}

[[noreturn]] void svc_fail(const char* message);

// Opens `g` if every block still running has arrived (caller holds g.mutex).
void open_if_complete(GridBarrier& g) {
  if (g.arrived == 0 || g.arrived < g.live) return;
  g.arrived = 0;
  ++g.generation;
  g.released.notify_all();
}

// Note [Host grid barrier]: the block's last thread at a grid.sync() waits
// here, on its worker thread, for the other blocks.
// Out of the kernel while it waits: a cancel signal must not siglongjmp
// out of the wait with the mutex held (Note [Cancelling host launches]); a
// cancel is seen by polling instead.
void wait_for_grid(Block& block) {
  block.grid_sync = false;
  BlockLaunch& launch = *block.launch;
  GridBarrier& g = *launch.grid_barrier;
  KernelFaultTrap& trap = kernel_fault_trap();
  trap.in_kernel = 0;
  const char* failure = nullptr;
  {
    std::unique_lock<std::mutex> lock(g.mutex);
    const unsigned long long generation = g.generation;
    ++g.arrived;
    open_if_complete(g);
    while (g.generation == generation && !failure) {
      if (launch.cancel != kNotCancelled) failure = "the launch was cancelled";
      else if (launch.failed.load()) failure = "another block of the grid failed";
      else g.released.wait_for(lock, std::chrono::milliseconds(20));
    }
  }
  trap.in_kernel = 1;
  if (failure) svc_fail(failure);
}

void svc_sync_grid() {
  Block& b = *tl_worker.block;
  BlockLaunch& launch = *b.launch;
  if (!launch.grid_barrier) {
    if (uint64_t{launch.grid.x} * launch.grid.y * launch.grid.z == 1) {
      barrier_wait(b.barrier, [] {});
      return;
    }
    svc_fail("grid.sync() in a launch of several blocks that is not cooperative: pass "
             "enable_cooperative_groups=True to RawKernel or RawModule");
  }
  b.grid_sync = true;
  barrier_wait(b.barrier, [&b] { wait_for_grid(b); });
}

// Waits at the warp barrier of `mask` (the caller's lane always included);
// returns the lanes that took part.
unsigned warp_barrier_wait(unsigned mask) {
  Worker& w = tl_worker;
  Block& block = *w.block;
  WarpState& warp = block.warps[w.current->warp];
  const unsigned me = 1u << w.current->info.lane;
  mask |= me;
  WarpBarrier* b = nullptr;
  for (auto& slot : warp.barriers)
    if (slot.mask == mask) b = &slot;
  if (!b)
    for (auto& slot : warp.barriers)
      if (slot.mask == 0 && !b) b = &slot;
  // A warp has at most 32 lanes waiting, each at one barrier: a slot is free.
  b->mask = mask;
  b->arrived |= me;
  ++block.progress;
  const unsigned long long generation = b->generation;
  if (!open_if_complete(warp, *b)) {
    while (b->generation == generation) yield_to_scheduler();
    ++block.progress;
  }
  return warp.participants[w.current->info.lane];
}

void svc_sync_warp(unsigned mask) { warp_barrier_wait(mask); }

unsigned svc_warp_gather(unsigned mask, unsigned long long value, unsigned long long* out) {
  Worker& w = tl_worker;
  WarpState& warp = w.block->warps[w.current->warp];
  warp.slots[w.current->info.lane] = value;
  unsigned participants = warp_barrier_wait(mask);
  std::memcpy(out, warp.slots, sizeof warp.slots);
  warp_barrier_wait(mask);  // nobody overwrites a slot before all have read
  return participants;
}

unsigned svc_warp_live_mask() {
  Worker& w = tl_worker;
  return w.block->warps[w.current->warp].live;
}

[[noreturn]] void svc_fail(const char* message) {
  Worker& w = tl_worker;
  BlockLaunch& launch = *w.block->launch;
  {
    std::lock_guard<std::mutex> lock(launch.message_mutex);
    if (!launch.failed.load()) launch.message = message;
  }
  launch.failed.store(true);
  w.block->failed = true;
  w.current->done = true;
  fiber_jump(w.scheduler);  // this fiber is abandoned; its stack is reused
}

void* svc_dynamic_shared() {
  Worker& w = tl_worker;
  if (!w.dynamic_shared) {
    w.dynamic_shared = static_cast<char*>(std::aligned_alloc(256, kMaxDynamicSharedBytes));
    if (!w.dynamic_shared) throw std::bad_alloc();
  }
  return w.dynamic_shared;
}

kiln_host::ThreadInfo* svc_current_thread() { return &tl_worker.current->info; }

void fiber_main(void*) {
  Worker& w = tl_worker;
  Fiber* me = w.current;
  BlockLaunch& launch = *w.block->launch;
  // Exceptions must not unwind past the fiber's first frame; the failure is
  // reported after the handler has finished with the exception object.
  char message[512] = "";
  try {
    launch.run_thread(launch.entry, launch.args);
  } catch (const std::exception& e) {
    std::snprintf(message, sizeof message, "C++ exception in a kernel thread: %s", e.what());
  } catch (...) {
    std::snprintf(message, sizeof message, "C++ exception of unknown type in a kernel thread");
  }
  if (message[0] != '\0') svc_fail(message);
  Worker& w2 = tl_worker;  // same thread, but re-read: the fiber may have moved on
  Block& b = *w2.block;
  me->done = true;
  ++b.progress;
  --b.barrier.live;
  if (b.barrier.arrived > 0 && b.barrier.arrived >= b.barrier.live) {
    b.reduce_result = b.reduce_acc;
    if (b.grid_sync) wait_for_grid(b);  // the others wait at a grid.sync()
  }
  release_if_complete(b.barrier);
  WarpState& warp = b.warps[me->warp];
  warp.live &= ~(1u << me->info.lane);
  for (auto& wb : warp.barriers) open_if_complete(warp, wb);
  fiber_jump(w2.scheduler);
}

const kiln_host::Services kServices = {
    kiln_host::kAbiVersion, svc_sync_threads,   svc_sync_threads_reduce, svc_sync_warp,     svc_warp_gather,
    svc_fail,               svc_dynamic_shared, svc_current_thread,      svc_warp_live_mask,
    svc_sync_grid,
};

// Runs the fibers of `block` until all exit, one fails, or none can move.
// Kept out of run_block so that nothing it changes lives in run_block's
// registers across the siglongjmp of a fault.
__attribute__((noinline)) void run_fibers(BlockLaunch& launch, Block& block, kiln_host::Dim3 block_idx, size_t n,
                                          KernelFaultTrap& trap) {
  Worker& w = tl_worker;
  size_t remaining = n;
  while (remaining > 0 && !block.failed) {
    unsigned long long before = block.progress;
    remaining = 0;
    for (size_t i = 0; i < n && !block.failed; ++i) {
      Fiber& f = w.fibers[i];
      if (f.done) continue;
      if (launch.cancel != kNotCancelled) {  // Note [Cancelling host launches]
        std::lock_guard<std::mutex> lock(launch.message_mutex);
        if (!launch.failed.load()) launch.message = "the launch was cancelled";
        launch.failed.store(true);
        block.failed = true;
        return;
      }
      w.current = &f;
      trap.guard_lo = f.stack.guard();
      trap.guard_hi = f.stack.base();
      trap.in_kernel = 1;
      fiber_switch(w.scheduler, f.context);
      trap.in_kernel = 0;
      if (!f.done) ++remaining;
    }
    if (!block.failed && remaining > 0 && block.progress == before) {
      // Note [Barrier progress]: nobody can move.
      char message[256];
      std::snprintf(message, sizeof message,
                    "%s: block: [%u,%u,%u]: deadlock: %zu threads wait at barriers that the "
                    "other threads of the block never reach",
                    launch.entry->name, block_idx.x, block_idx.y, block_idx.z, remaining);
      std::lock_guard<std::mutex> lock(launch.message_mutex);
      if (!launch.failed.load()) launch.message = message;
      launch.failed.store(true);
      block.failed = true;
    }
  }
}

}  // namespace

const kiln_host::Services* scheduler_services() { return &kServices; }

void run_block(BlockLaunch& launch, kiln_host::Dim3 block_idx) {
  Worker& w = tl_worker;
  const unsigned bx = launch.block.x, by = launch.block.y;
  const size_t n = static_cast<size_t>(launch.block.x) * launch.block.y * launch.block.z;
  w.ensure_fibers(n);
  if (launch.shared_bytes > 0) svc_dynamic_shared();

  Block block;
  block.launch = &launch;
  block.info = {block_idx, launch.block, launch.grid};
  block.barrier.live = static_cast<int>(n);
  block.warps.resize((n + kiln_host::kWarpSize - 1) / kiln_host::kWarpSize);
  for (size_t i = 0; i < block.warps.size(); ++i) {
    size_t lanes = std::min<size_t>(kiln_host::kWarpSize, n - i * kiln_host::kWarpSize);
    block.warps[i].live = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
  }
  w.block = &block;

  for (size_t i = 0; i < n; ++i) {
    Fiber& f = w.fibers[i];
    unsigned id = static_cast<unsigned>(i);
    f.info.thread_idx = {id % bx, (id / bx) % by, id / (bx * by)};
    f.info.block = &block.info;
    f.info.lane = id % kiln_host::kWarpSize;
    f.warp = id / kiln_host::kWarpSize;
    f.done = false;
    fiber_prepare(f.context, f.stack, fiber_main, nullptr);
  }

  // Note [Kernel faults]: a fault in a fiber lands here, its block abandoned.
  KernelFaultTrap& trap = kernel_fault_trap();
  trap.cancel = &launch.cancel;
  if (sigsetjmp(trap.jump, 0) == 0) {
    run_fibers(launch, block, block_idx, n, trap);
  } else {
    const kiln_host::Dim3 t = w.current ? w.current->info.thread_idx : kiln_host::Dim3{0, 0, 0};
    char message[256];
    std::snprintf(message, sizeof message, "block: [%u,%u,%u], thread: [%u,%u,%u]: %s", block_idx.x, block_idx.y,
                  block_idx.z, t.x, t.y, t.z, trap.message);
    std::lock_guard<std::mutex> lock(launch.message_mutex);
    if (!launch.failed.load()) launch.message = message;
    launch.failed.store(true);
    block.failed = true;
  }
  trap.cancel = nullptr;
  w.block = nullptr;
  w.current = nullptr;
}

CooperativeRun::CooperativeRun(BlockLaunch& launch) : launch_(launch) {
  const size_t blocks = size_t{launch.grid.x} * launch.grid.y * launch.grid.z;
  barrier_.live = static_cast<unsigned>(blocks);
  launch.grid_barrier = &barrier_;
  try {
    threads_.reserve(blocks - 1);
    for (size_t i = 1; i < blocks; ++i) {
      threads_.emplace_back([this, i] { run_one(i); });
      handles_.push_back(threads_.back().native_handle());
    }
  } catch (const std::system_error& e) {
    barrier_.live = static_cast<unsigned>(threads_.size()) + 1;  // the blocks that will run
    {
      std::lock_guard<std::mutex> lock(launch.message_mutex);
      if (!launch.failed.load())
        launch.message = "could not start a thread for each of the " + std::to_string(blocks) +
                         " blocks of a cooperative launch: " + e.what();
    }
    launch.failed.store(true);
  }
}

CooperativeRun::~CooperativeRun() { join(); }

void CooperativeRun::run() {
  {
    std::lock_guard<std::mutex> lock(barrier_.mutex);
    go_ = true;
  }
  barrier_.released.notify_all();
  run_one(0);
  // Every block done; the threads are joined later, by the destructor, so
  // that a LaunchWatch still signalling them never names an ended thread.
  std::unique_lock<std::mutex> lock(barrier_.mutex);
  barrier_.released.wait(lock, [this] { return barrier_.live == 0; });
}

void CooperativeRun::join() {
  if (!go_) {  // run() never came: let the waiting threads end
    launch_.failed.store(true);
    std::lock_guard<std::mutex> lock(barrier_.mutex);
    go_ = true;
    barrier_.released.notify_all();
  }
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  launch_.grid_barrier = nullptr;
}

void CooperativeRun::run_one(size_t i) {
  {
    std::unique_lock<std::mutex> lock(barrier_.mutex);
    barrier_.released.wait(lock, [this] { return go_; });
  }
  const kiln_host::Dim3 grid = launch_.grid;
  if (!launch_.failed.load())
    run_block(launch_, {static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                        static_cast<unsigned>(i / (size_t{grid.x} * grid.y))});
  std::lock_guard<std::mutex> lock(barrier_.mutex);
  --barrier_.live;  // a finished block counts as arrived from now on
  open_if_complete(barrier_);
  if (barrier_.live == 0) barrier_.released.notify_all();
}

}  // namespace kiln::runtime::host
