#include "runtime/host/cpu_scheduler.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace kiln::runtime::host {
namespace {

constexpr size_t kStackBytes = 256 * 1024;

struct Fiber {
  ucontext_t context;
  kiln_host::ThreadInfo info;
  char* stack = nullptr;
  unsigned warp = 0;
  bool done = false;
};

struct Barrier {
  int live = 0, arrived = 0;
  unsigned long long generation = 0;
};

struct WarpState {
  Barrier barrier;
  unsigned long long slots[kiln_host::kWarpSize];
};

struct Block {
  BlockLaunch* launch = nullptr;
  kiln_host::BlockInfo info{};
  Barrier barrier;
  int reduce_acc = 0, reduce_result = 0;
  unsigned long long progress = 0;
  bool failed = false;
  std::vector<WarpState> warps;
};

// Per worker thread: the fibers (stacks kept between blocks), the scheduler's
// own context, what runs now, and the dynamic shared memory buffer.
struct Worker {
  std::vector<Fiber> fibers;
  ucontext_t scheduler;
  Block* block = nullptr;
  Fiber* current = nullptr;
  char* dynamic_shared = nullptr;

  ~Worker() {
    for (auto& f : fibers)
      if (f.stack) munmap(f.stack - page_size(), kStackBytes + page_size());
    std::free(dynamic_shared);
  }
  static size_t page_size() {
    static size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return p;
  }
  void ensure_fibers(size_t n) {
    if (fibers.size() < n) fibers.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (fibers[i].stack) continue;
      // A guard page below each stack turns an overflow into a fault, not corruption.
      void* mem = mmap(nullptr, kStackBytes + page_size(), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (mem == MAP_FAILED) throw std::bad_alloc();
      mprotect(mem, page_size(), PROT_NONE);
      fibers[i].stack = static_cast<char*>(mem) + page_size();
    }
  }
};

thread_local Worker tl_worker;

void yield_to_scheduler() {
  Worker& w = tl_worker;
  swapcontext(&w.current->context, &w.scheduler);
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

void svc_sync_warp() {
  Worker& w = tl_worker;
  barrier_wait(w.block->warps[w.current->warp].barrier, [] {});
}

void svc_warp_gather(unsigned long long value, unsigned long long* out) {
  Worker& w = tl_worker;
  WarpState& warp = w.block->warps[w.current->warp];
  warp.slots[w.current->info.lane] = value;
  barrier_wait(warp.barrier, [] {});
  Fiber* me = tl_worker.current;  // re-read after the switch (same fiber)
  std::memcpy(out, w.block->warps[me->warp].slots, sizeof warp.slots);
  barrier_wait(w.block->warps[me->warp].barrier, [] {});
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
  setcontext(&w.scheduler);  // this fiber is abandoned; its stack is reused
  std::abort();
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

void fiber_main() {
  Worker& w = tl_worker;
  Fiber* me = w.current;
  BlockLaunch& launch = *w.block->launch;
  launch.run_thread(launch.entry, launch.args);
  Worker& w2 = tl_worker;  // same thread, but re-read: the fiber may have moved on
  Block& b = *w2.block;
  me->done = true;
  ++b.progress;
  --b.barrier.live;
  if (b.barrier.arrived > 0 && b.barrier.arrived >= b.barrier.live) b.reduce_result = b.reduce_acc;
  release_if_complete(b.barrier);
  Barrier& wb = b.warps[me->warp].barrier;
  --wb.live;
  release_if_complete(wb);
  setcontext(&w2.scheduler);
}

const kiln_host::Services kServices = {
    kiln_host::kAbiVersion, svc_sync_threads, svc_sync_threads_reduce, svc_sync_warp,
    svc_warp_gather,        svc_fail,         svc_dynamic_shared,      svc_current_thread,
};

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
  for (size_t i = 0; i < block.warps.size(); ++i)
    block.warps[i].barrier.live =
        static_cast<int>(std::min<size_t>(kiln_host::kWarpSize, n - i * kiln_host::kWarpSize));
  w.block = &block;

  for (size_t i = 0; i < n; ++i) {
    Fiber& f = w.fibers[i];
    unsigned id = static_cast<unsigned>(i);
    f.info.thread_idx = {id % bx, (id / bx) % by, id / (bx * by)};
    f.info.block = &block.info;
    f.info.lane = id % kiln_host::kWarpSize;
    f.warp = id / kiln_host::kWarpSize;
    f.done = false;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiber_main, 0);
  }

  size_t remaining = n;
  while (remaining > 0 && !block.failed) {
    unsigned long long before = block.progress;
    remaining = 0;
    for (size_t i = 0; i < n && !block.failed; ++i) {
      Fiber& f = w.fibers[i];
      if (f.done) continue;
      w.current = &f;
      swapcontext(&w.scheduler, &f.context);
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
  w.block = nullptr;
  w.current = nullptr;
}

}  // namespace kiln::runtime::host
