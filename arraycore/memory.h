// Device memory that arrays hold: a pointer, its size and device, and what
// gives it back when the last holder lets go (the pool, or a user allocator's
// object). Every array allocation goes through allocate_memory().
//
//   std::shared_ptr<Memory> m = allocate_memory(4096);   // pool or user allocator
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace kiln::arraycore {

class Memory {
 public:
  using Release = std::function<void(void*)>;
  Memory(void* ptr, size_t nbytes, int device, Release release)
      : ptr_(ptr), nbytes_(nbytes), device_(device), release_(std::move(release)) {}
  ~Memory() {
    if (release_) release_(ptr_);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  void* ptr() const { return ptr_; }
  size_t nbytes() const { return nbytes_; }
  int device() const { return device_; }

 private:
  void* ptr_;
  size_t nbytes_;
  int device_;
  Release release_;
};

// A replacement for the pool (kiln.cuda.set_allocator): returns memory of at
// least nbytes on the current device, or throws.
using AllocatorHook = std::function<std::shared_ptr<Memory>(size_t nbytes)>;
void set_allocator_hook(AllocatorHook hook);  // empty hook = the default pool
bool has_allocator_hook();

// nbytes on the current device, on the current stream's order. Zero bytes
// allocate nothing: a Memory at address 0 (as CuPy's, so an empty array's
// data.ptr is 0).
std::shared_ptr<Memory> allocate_memory(size_t nbytes);

// nbytes from the current device's default pool, whatever allocator is set
// (what allocate_memory uses without a hook, and MemoryPool.malloc).
std::shared_ptr<Memory> allocate_from_pool(size_t nbytes);

}  // namespace kiln::arraycore
