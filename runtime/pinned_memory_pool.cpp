// Page-locked host memory cache (PinnedMemoryPool in memory_pool.h).
//
// Note [Pinned bins]
// Requests are rounded up to a multiple of kPinnedRoundBytes (512) and a
// freed block is reused only for a request of exactly the same rounded size:
// no splitting or merging, since page-locking is slow and staging buffers
// tend to recur at the same sizes. When the backend refuses, every cached
// block is released and the request retried once. One mutex guards the pool.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/memory_pool.h"

namespace kiln::runtime {
namespace {
constexpr size_t kPinnedRoundBytes = 512;
}

struct PinnedMemoryPool::Impl {
  explicit Impl(Backend& be) : backend(be) {}
  Backend& backend;
  mutable std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free_by_size;
  std::unordered_map<void*, size_t> in_use;  // pointer -> rounded size
  size_t n_free = 0;

  void release_all() {
    for (auto& [size, blocks] : free_by_size) {
      for (void* p : blocks) backend.deallocate_pinned(p);
      n_free -= blocks.size();
      blocks.clear();
    }
  }
};

PinnedMemoryPool::PinnedMemoryPool(Backend& backend) : impl_(std::make_unique<Impl>(backend)) {}

PinnedMemoryPool::~PinnedMemoryPool() {
  try {
    impl_->release_all();
    for (auto& [p, size] : impl_->in_use) impl_->backend.deallocate_pinned(p);
  } catch (const std::exception&) {
    // The backend may already be shutting down.
  }
}

void* PinnedMemoryPool::allocate(size_t nbytes) {
  if (nbytes > SIZE_MAX - kPinnedRoundBytes) {
    throw OutOfMemory("out of pinned memory: cannot allocate " + std::to_string(nbytes) +
                          " bytes",
                      nbytes);
  }
  size_t size = nbytes == 0 ? kPinnedRoundBytes
                            : (nbytes + kPinnedRoundBytes - 1) / kPinnedRoundBytes * kPinnedRoundBytes;
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  void* p = nullptr;
  if (auto it = s.free_by_size.find(size); it != s.free_by_size.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    --s.n_free;
  } else {
    try {
      p = s.backend.allocate_pinned(size);
    } catch (const OutOfMemory&) {
      s.release_all();
      try {
        p = s.backend.allocate_pinned(size);
      } catch (const OutOfMemory& e) {
        throw OutOfMemory("out of pinned memory allocating " + std::to_string(nbytes) +
                              " bytes (" + e.what() + ")",
                          nbytes);
      }
    }
  }
  s.in_use.emplace(p, size);
  return p;
}

// nullptr is accepted and ignored, as free(nullptr) is.
void PinnedMemoryPool::deallocate(void* ptr) {
  if (ptr == nullptr) return;
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.in_use.find(ptr);
  if (it == s.in_use.end()) {
    throw InvalidArgument("PinnedMemoryPool::deallocate: " + pointer_text(ptr) +
                          " was not allocated by this pool, or was already freed");
  }
  s.free_by_size[it->second].push_back(ptr);
  ++s.n_free;
  s.in_use.erase(it);
}

size_t PinnedMemoryPool::n_free_blocks() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->n_free;
}

void PinnedMemoryPool::free_all_blocks() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->release_all();
}

// Created on first use and never destroyed (see default_memory_pool).
PinnedMemoryPool& default_pinned_memory_pool() {
  static PinnedMemoryPool* pool = new PinnedMemoryPool(backend());
  return *pool;
}

}  // namespace kiln::runtime
