#include "arraycore/transfer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include "arraycore/copy.h"
#include "runtime/capture.h"
#include "runtime/memory_pool.h"

namespace kiln::arraycore {
namespace {

// Note [Staged transfers]
// A copy between device memory and pageable host memory (a NumPy array) is
// staged by the driver through its own small pinned buffers, one CPU thread
// doing the host-side memcpy and the first-touch page faults of a fresh
// NumPy array. For large transfers kiln stages itself: kStageWorkers threads,
// each owning one pinned buffer of one chunk (set_staging) from the pinned pool,
// take chunks round-robin. A download worker queues the DMA of its chunk into
// its buffer on the caller's stream, waits for it (an event), and copies the
// chunk out while the other workers' DMAs run; an upload worker fills its
// buffer, queues the DMA and waits for it before refilling. The stream's
// order is kept: every DMA is queued on the given stream. Host memcpy and page
// faults run on several cores, which is where the pageable path is slow.
// A backend whose device memory is host memory (BackendCaps::host_addressable)
// has no DMA to overlap and never stages.
constexpr int kStageWorkers = 4;
constexpr size_t kDefaultThreshold = size_t{32} << 20;
std::atomic<bool> g_staging_set{false};
std::atomic<size_t> g_staging_threshold{kDefaultThreshold};
std::atomic<size_t> g_staging_chunk{size_t{8} << 20};

bool use_staging(size_t nbytes) {
  if (!g_staging_set.load(std::memory_order_relaxed) && runtime::backend().caps().host_addressable) return false;
  size_t threshold = g_staging_threshold.load(std::memory_order_relaxed);
  return threshold != 0 && nbytes >= threshold;
}

// Runs worker(w) for w in [0, workers) on their own threads (the caller's
// device made current on each) and rethrows the first failure.
template <class Worker>
void run_workers(int workers, Worker worker) {
  const int device = runtime::backend().current_device();
  std::vector<std::exception_ptr> errors(static_cast<size_t>(workers));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        runtime::backend().set_device(device);
        worker(w);
      } catch (...) {
        errors[static_cast<size_t>(w)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// One pinned buffer and one event, returned on every path.
class StageSlot {
 public:
  explicit StageSlot(size_t bytes)
      : buffer_(runtime::default_pinned_memory_pool().allocate(bytes)),
        event_(runtime::backend().create_event(false)) {}
  ~StageSlot() {
    runtime::backend().destroy_event(event_);
    runtime::default_pinned_memory_pool().deallocate(buffer_);
  }
  StageSlot(const StageSlot&) = delete;
  StageSlot& operator=(const StageSlot&) = delete;
  char* buffer() const { return static_cast<char*>(buffer_); }
  runtime::EventHandle event() const { return event_; }

 private:
  void* buffer_;
  runtime::EventHandle event_;
};

void staged_copy(void* dst, const void* src, size_t nbytes, runtime::CopyKind kind,
                 runtime::StreamHandle stream) {
  const size_t chunk_bytes = g_staging_chunk.load(std::memory_order_relaxed);
  const size_t chunks = (nbytes + chunk_bytes - 1) / chunk_bytes;
  const int workers = static_cast<int>(std::min<size_t>(kStageWorkers, chunks));
  run_workers(workers, [&](int w) {
    auto& be = runtime::backend();
    StageSlot slot(chunk_bytes);
    for (size_t c = static_cast<size_t>(w); c < chunks; c += static_cast<size_t>(workers)) {
      const size_t offset = c * chunk_bytes;
      const size_t len = std::min(chunk_bytes, nbytes - offset);
      if (kind == runtime::CopyKind::DeviceToHost) {
        be.copy_async(slot.buffer(), static_cast<const char*>(src) + offset, len, kind, stream);
        be.record_event(slot.event(), stream);
        be.synchronize_event(slot.event());
        std::memcpy(static_cast<char*>(dst) + offset, slot.buffer(), len);
      } else {
        std::memcpy(slot.buffer(), static_cast<const char*>(src) + offset, len);
        be.copy_async(static_cast<char*>(dst) + offset, slot.buffer(), len, kind, stream);
        be.record_event(slot.event(), stream);
        be.synchronize_event(slot.event());
      }
    }
  });
}

}  // namespace

void set_staging(StagingSettings settings) {
  if (settings.chunk == 0) throw std::invalid_argument("the staging chunk must be at least one byte");
  g_staging_threshold.store(settings.threshold, std::memory_order_relaxed);
  g_staging_chunk.store(settings.chunk, std::memory_order_relaxed);
  g_staging_set.store(true, std::memory_order_relaxed);
}

StagingSettings staging() {
  return {g_staging_threshold.load(std::memory_order_relaxed), g_staging_chunk.load(std::memory_order_relaxed)};
}

void copy_to_host(const NDArray& src, void* dst, runtime::StreamHandle stream, bool blocking) {
  auto& be = runtime::backend();
  const size_t nbytes = src.nbytes();
  if (nbytes == 0) return;
  runtime::check_not_capturing(stream, "copying an array to the host");  // Note [Stream capture]
  // A strided view is packed on the device by the copy kernel first; the
  // packed temporary goes back to the pool in stream order.
  NDArray packed = src.c_contiguous() ? src : astype(src, src.dtype(), Order::C);
  if (blocking && use_staging(nbytes)) {
    staged_copy(dst, packed.data(), nbytes, runtime::CopyKind::DeviceToHost, stream);
    return;
  }
  be.copy_async(dst, packed.data(), nbytes, runtime::CopyKind::DeviceToHost, stream);
  if (blocking) be.synchronize_stream(stream);
}

void copy_from_host(const NDArray& dst, const void* src, runtime::StreamHandle stream) {
  if (!dst.c_contiguous()) throw std::logic_error("copy_from_host needs a C-contiguous target");
  const size_t nbytes = dst.nbytes();
  if (nbytes == 0) return;
  runtime::check_not_capturing(stream, "copying host memory to the device");  // Note [Stream capture]
  if (use_staging(nbytes)) {
    staged_copy(dst.data(), src, nbytes, runtime::CopyKind::HostToDevice, stream);
    return;
  }
  runtime::backend().copy_async(dst.data(), src, nbytes, runtime::CopyKind::HostToDevice, stream);
}

}  // namespace kiln::arraycore
