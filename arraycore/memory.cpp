#include "arraycore/memory.h"

#include "runtime/backend.h"
#include "runtime/memory_pool.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {
AllocatorHook& hook_storage() {
  static AllocatorHook hook;
  return hook;
}
}  // namespace

void set_allocator_hook(AllocatorHook hook) { hook_storage() = std::move(hook); }
bool has_allocator_hook() { return static_cast<bool>(hook_storage()); }

std::shared_ptr<Memory> allocate_memory(size_t nbytes) {
  if (nbytes == 0) return std::make_shared<Memory>(nullptr, 0, runtime::backend().current_device(), nullptr);
  if (auto& hook = hook_storage()) return hook(nbytes);
  return allocate_from_pool(nbytes);
}

std::shared_ptr<Memory> allocate_from_pool(size_t nbytes) {
  auto& backend = runtime::backend();
  int device = backend.current_device();
  auto& pool = runtime::default_memory_pool(device);
  void* ptr = pool.allocate(nbytes, runtime::current_stream());
  return std::make_shared<Memory>(ptr, nbytes, device, [&pool](void* p) { pool.deallocate(p); });
}

}  // namespace kiln::arraycore
