// The one compile-cache helper of every engine: whatever an engine keeps per
// kernel variant (a loaded module and its function handles), built once per
// key and then found by a hash lookup.
//
//   struct Kernels { std::shared_ptr<LoadedModule> module; FunctionHandle row = nullptr; };
//   static KernelMemo<std::string, Kernels> memo;
//   const Kernels& k = memo.get(key, [&] {
//     Kernels k;
//     k.module = load_module_cached(request, backend().current_device());   // the kernel cache: memory, disk, compiler
//     k.row = k.module->function("my_row").handle;
//     return k;
//   });
//
// Note [Kernel memo]
// Layers of caching, from the launch down: an engine's memo maps its own
// cheap key (dtypes, device, variant bits) to ready function handles without
// generating source; on a miss it generates the source and asks
// load_module_cached (one loaded module per source and device), which asks
// the kernel cache (memory, then disk, then the compiler: Note [Cache keys]).
// The memo's key must determine the source: it is the engine's promise that
// equal keys generate equal source. make() runs unlocked (it may compile for
// seconds), so two threads may build one key at once; the first stored wins
// and both get it. Entries are never removed, and references stay valid
// (std::unordered_map's nodes do not move).
#pragma once

#include <mutex>
#include <unordered_map>
#include <utility>

namespace kiln::runtime {

template <class Key, class Value, class Hash = std::hash<Key>>
class KernelMemo {
 public:
  template <class Make>
  const Value& get(const Key& key, Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    Value built = make();
    std::lock_guard<std::mutex> lock(mutex_);
    return map_.try_emplace(key, std::move(built)).first->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<Key, Value, Hash> map_;
};

}  // namespace kiln::runtime
