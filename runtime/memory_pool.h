// Stream-ordered pooling allocator for device memory, one per device.
//
//   MemoryPool& pool = default_memory_pool(device);
//   void* p = pool.allocate(1000, stream);   // rounded up to 512 bytes
//   pool.deallocate(p);                      // cached for reuse, not freed
//
// Note [Pool layout]
// Requests are rounded up to kRoundBytes. Memory comes from the backend in
// segments (small requests share kSmallSegmentBytes segments, large ones get
// a segment of their own rounded to kLargeRoundBytes). A segment is split into
// chunks; a free chunk merges with free neighbours of the same segment and
// sits in a size-ordered free set of the stream it was last used on.
//
// Note [Cross-stream reuse]
// A chunk freed on stream S is reused at once by later allocations on S
// (stream order makes that safe). Another stream may take it only when
// backend.stream_done(S) says S has no work in flight.
//
// Note [Pool and graph capture]
// While a CUDA graph capture is open (runtime/capture.h), a chunk handed out
// on a capturing stream belongs to that capture: freed during it, it is
// parked, not reused, because the graph will write to it at every replay.
// At the end of the capture the graph holds all of them (hold_capture) until
// it is destroyed (release_held); a held chunk freed by its array is parked
// too. While any capture is open the pool never asks about other streams
// (cuStreamQuery would invalidate a capture), never waits for the device and
// never frees segments; it grows only where cuMemAlloc is allowed (relaxed
// mode), and otherwise throws CaptureError with the way out.
//
// Note [Out of memory]
// When the backend refuses a segment, or the limit would be exceeded, the
// pool synchronizes the device, releases every wholly-free segment, and
// retries once; a second failure throws OutOfMemory and leaves the pool
// usable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/backend.h"

namespace kiln::runtime {

// Note [Pool segment sources]
// A pool takes its segments from the backend's device memory, or from a
// SegmentSource: kiln.cuda.MemoryPool(kiln.cuda.malloc_managed) pools
// managed memory, segment by segment, as CuPy's MemoryPool(allocator) does.
// A source is called with the pool's lock held, so it must not allocate from
// the same pool.
class SegmentSource {
 public:
  virtual ~SegmentSource() = default;
  virtual void* allocate(size_t bytes) = 0;      // OutOfMemory when refused
  virtual void deallocate(void* base) noexcept = 0;
};

class MemoryPool {
 public:
  static constexpr size_t kRoundBytes = 512;
  static constexpr size_t kSmallRequestBytes = 1 << 20;   // below: shared segments
  static constexpr size_t kSmallSegmentBytes = 2 << 20;
  static constexpr size_t kLargeRoundBytes = 2 << 20;

  // source: where segments come from (Note [Pool segment sources]); nullptr:
  // the backend's device memory.
  MemoryPool(Backend& backend, int device, std::shared_ptr<SegmentSource> source = nullptr);
  ~MemoryPool();  // returns every segment to the backend
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // nbytes == 0 returns a valid, unique, non-null pointer of a 512-byte chunk.
  void* allocate(size_t nbytes, StreamHandle stream);
  void deallocate(void* ptr);  // ptr must come from allocate()

  size_t used_bytes() const;   // bytes in chunks handed out (rounded sizes)
  size_t total_bytes() const;  // bytes of all segments held from the backend
  size_t free_bytes() const;   // total_bytes() - used_bytes()
  size_t n_free_blocks() const;
  void free_all_blocks();      // give wholly-free segments back to the backend
  void set_limit(size_t bytes);  // 0 = no limit
  size_t get_limit() const;
  // `stream` is about to be destroyed and has no work in flight: its free
  // chunks (and chunks in use that were allocated on it) move to the default
  // stream, so the pool never asks the backend about a dead stream.
  void forget_stream(StreamHandle stream);
  // Note [Pool and graph capture]: the chunks handed out during capture
  // `capture_id`, now held by its graph; release_held gives them back once
  // no launch of the graph runs (those already freed become free chunks).
  std::vector<void*> hold_capture(uint64_t capture_id);
  void release_held(const std::vector<void*>& chunks);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The pool of `device` for the selected backend; created on first use.
MemoryPool& default_memory_pool(int device);

// forget_stream on every pool alive (the default ones and kiln.cuda.MemoryPool's).
void forget_stream_in_all_pools(StreamHandle stream);

// Page-locked host memory for transfers, cached by rounded size.
class PinnedMemoryPool {
 public:
  explicit PinnedMemoryPool(Backend& backend);
  ~PinnedMemoryPool();
  PinnedMemoryPool(const PinnedMemoryPool&) = delete;
  PinnedMemoryPool& operator=(const PinnedMemoryPool&) = delete;

  void* allocate(size_t nbytes);
  void deallocate(void* ptr);
  size_t n_free_blocks() const;
  void free_all_blocks();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

PinnedMemoryPool& default_pinned_memory_pool();

}  // namespace kiln::runtime
