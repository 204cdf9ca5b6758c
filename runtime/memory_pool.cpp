// Stream-ordered pooling allocator for device memory. See Note [Pool layout],
// Note [Cross-stream reuse] and Note [Out of memory] in memory_pool.h.
//
// Note [Pool bookkeeping without allocation]
// A warm allocate/deallocate allocates nothing on the heap:
// - Chunk structs are recycled through `spare_chunks`;
// - the free sets (std::set) and the in-use map (std::unordered_map) reuse
//   their nodes: a node leaving a container is extract()ed and parked, and
//   the next insertion re-keys a parked node and insert()s it.
// Heap allocation happens only when the pool grows (a new segment, more live
// chunks than ever before, a new stream, a rehash of the in-use map).
//
// Note [Counting free blocks]
// n_free_blocks() counts the free chunks CuPy's pool would hold: memory that
// was handed out and came back. CuPy takes each request from the device as
// it is, so it has no never-used tail; kiln's segments do (Note [Pool
// layout]), and such a tail is free bytes, not a free block. A chunk is
// `handed_out` once any of its bytes were; a split keeps the flag on both
// parts and a merge ORs it. malloc(1): 0 free blocks; its free: 1.
//
// Thread safety: one mutex guards everything, including the backend calls
// that grow or shrink the pool (allocate, deallocate, synchronize_device);
// those are rare next to the hits served from the free sets.
//
// Devices: a pool serves one device. It never switches devices itself: the
// caller must have made `device` current on its thread (as every kiln call
// site does) before allocate/deallocate may reach the backend.
#include "runtime/memory_pool.h"

#include "runtime/capture.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln::runtime {
namespace {

size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

struct Segment;

// A piece of a segment, free or handed out. prev/next are the address-order
// neighbours within the same segment (null at the segment's ends).
struct Chunk {
  char* ptr = nullptr;
  size_t size = 0;
  Segment* segment = nullptr;
  Chunk* prev = nullptr;
  Chunk* next = nullptr;
  StreamHandle stream = nullptr;  // last stream the chunk was allocated on
  bool free = false;
  bool handed_out = false;  // Note [Counting free blocks]: some of its bytes were ever handed out
  // Note [Pool and graph capture]
  uint64_t capture = 0;  // the open capture it was handed out in (0: none)
  uint32_t holds = 0;    // graphs holding it
  bool parked = false;   // freed while it belongs to a capture or a graph
};

// Memory obtained from the backend with one allocate() call.
struct Segment {
  char* base = nullptr;
  size_t size = 0;
  size_t used_chunks = 0;  // chunks handed out; 0 means wholly free
  Chunk* first = nullptr;
  Segment* prev = nullptr;  // list of all segments
  Segment* next = nullptr;
};

// Free chunks of one stream, best fit first: by size, then address.
struct SizeKey {
  size_t size;
  const char* ptr;
};
struct BySizeThenAddress {
  using is_transparent = void;
  static SizeKey key(const Chunk* c) { return {c->size, c->ptr}; }
  static SizeKey key(const SizeKey& k) { return k; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    SizeKey x = key(a), y = key(b);
    return x.size != y.size ? x.size < y.size : x.ptr < y.ptr;
  }
};
using FreeSet = std::set<Chunk*, BySizeThenAddress>;
using InUseMap = std::unordered_map<void*, Chunk*>;

std::string describe_bytes(size_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

struct MemoryPool::Impl {
  void free_chunk(Chunk* c);

  Impl(Backend& be, int dev, std::shared_ptr<SegmentSource> src) : backend(be), device(dev), source(std::move(src)) {
    in_use.reserve(1024);
    spare_set_nodes.reserve(64);
    spare_map_nodes.reserve(64);
  }

  Backend& backend;
  int device;
  std::shared_ptr<SegmentSource> source;   // nullptr: the backend (Note [Pool segment sources])
  mutable std::mutex mutex;

  void* take_segment(size_t bytes) { return source ? source->allocate(bytes) : backend.allocate(bytes); }
  void give_back_segment(void* base) {
    if (source)
      source->deallocate(base);
    else
      backend.deallocate(base);
  }

  std::unordered_map<StreamHandle, FreeSet> free_by_stream;
  StreamHandle cached_stream = nullptr;  // one-entry cache in front of free_by_stream
  FreeSet* cached_set = nullptr;
  InUseMap in_use;
  std::vector<FreeSet::node_type> spare_set_nodes;
  std::vector<InUseMap::node_type> spare_map_nodes;
  std::vector<Chunk*> spare_chunks;
  Segment* segments = nullptr;
  // Chunks of open captures and of live graphs (Note [Pool and graph capture]).
  std::unordered_map<void*, Chunk*> graph_chunks;

  size_t used = 0, total = 0, n_free = 0, limit = 0;

  // --- recycled storage ---
  Chunk* new_chunk() {
    if (spare_chunks.empty()) return new Chunk;
    Chunk* c = spare_chunks.back();
    spare_chunks.pop_back();
    *c = Chunk{};
    return c;
  }
  void recycle(Chunk* c) { spare_chunks.push_back(c); }

  FreeSet& set_for(StreamHandle stream) {
    if (cached_set == nullptr || stream != cached_stream) {
      cached_set = &free_by_stream[stream];
      cached_stream = stream;
    }
    return *cached_set;
  }

  void insert_free(Chunk* c) {
    c->free = true;
    FreeSet& set = set_for(c->stream);
    if (spare_set_nodes.empty()) {
      set.insert(c);
    } else {
      FreeSet::node_type node = std::move(spare_set_nodes.back());
      spare_set_nodes.pop_back();
      node.value() = c;
      set.insert(std::move(node));
    }
    if (c->handed_out) ++n_free;
  }
  // Removes a free chunk from its set; call before changing its size or stream.
  void erase_free(FreeSet& set, FreeSet::iterator it) {
    (*it)->free = false;
    if ((*it)->handed_out) --n_free;
    spare_set_nodes.push_back(set.extract(it));
  }
  void erase_free(Chunk* c) {
    FreeSet& set = set_for(c->stream);
    erase_free(set, set.find(c));
  }

  void mark_in_use(Chunk* c) {
    if (spare_map_nodes.empty()) {
      in_use.emplace(c->ptr, c);
    } else {
      InUseMap::node_type node = std::move(spare_map_nodes.back());
      spare_map_nodes.pop_back();
      node.key() = c->ptr;
      node.mapped() = c;
      in_use.insert(std::move(node));
    }
    c->free = false;
    c->handed_out = true;
    ++c->segment->used_chunks;
    used += c->size;
  }

  // Cuts `c` (in no free set) down to `size`; the rest becomes a free chunk
  // of `stream` right after it.
  void split(Chunk* c, size_t size, StreamHandle stream) {
    c->stream = stream;
    if (c->size == size) return;
    Chunk* rest = new_chunk();
    rest->ptr = c->ptr + size;
    rest->size = c->size - size;
    rest->segment = c->segment;
    rest->prev = c;
    rest->next = c->next;
    if (c->next) c->next->prev = rest;
    c->next = rest;
    rest->stream = stream;
    rest->handed_out = c->handed_out;
    c->size = size;
    insert_free(rest);
  }

  // Best fit on `stream` first; then on other streams that have no work in
  // flight (all of them when `all_idle`, i.e. right after a device sync).
  Chunk* take_free(size_t size, StreamHandle stream, bool all_idle, bool other_streams = true) {
    SizeKey key{size, nullptr};
    FreeSet& own = set_for(stream);
    if (auto it = own.lower_bound(key); it != own.end()) {
      Chunk* c = *it;
      erase_free(own, it);
      split(c, size, stream);
      return c;
    }
    if (!other_streams) return nullptr;
    for (auto& [other, set] : free_by_stream) {
      if (other == stream || set.empty()) continue;
      auto it = set.lower_bound(key);
      if (it == set.end()) continue;
      if (!all_idle && !backend.stream_done(other)) continue;
      Chunk* c = *it;
      erase_free(set, it);
      split(c, size, stream);
      return c;
    }
    return nullptr;
  }

  // A new segment able to hold `size`, or null with `why` filled in when the
  // limit or the backend refuses.
  Segment* try_new_segment(size_t size, std::string& why) {
    size_t bytes = size < kSmallRequestBytes ? kSmallSegmentBytes : round_up(size, kLargeRoundBytes);
    if (limit != 0 && total + bytes > limit) {
      // A small request may still fit in a smaller segment under the limit.
      size_t room = limit > total ? (limit - total) / kRoundBytes * kRoundBytes : 0;
      if (size < kSmallRequestBytes && room >= size) {
        bytes = room;
      } else {
        why = "the pool limit of " + describe_bytes(limit) + " would be exceeded";
        return nullptr;
      }
    }
    void* base;
    try {
      base = take_segment(bytes);
    } catch (const OutOfMemory& e) {
      why = std::string("the backend refused a segment of ") + describe_bytes(bytes) + " (" +
            e.what() + ")";
      return nullptr;
    }
    auto* seg = new Segment;
    seg->base = static_cast<char*>(base);
    seg->size = bytes;
    seg->next = segments;
    if (segments) segments->prev = seg;
    segments = seg;
    Chunk* whole = new_chunk();
    whole->ptr = seg->base;
    whole->size = bytes;
    whole->segment = seg;
    seg->first = whole;
    total += bytes;
    return seg;
  }

  // Gives every wholly-free segment back to the backend.
  void release_free_segments() {
    for (Segment* seg = segments; seg != nullptr;) {
      Segment* next = seg->next;
      if (seg->used_chunks == 0) {
        for (Chunk* c = seg->first; c != nullptr;) {
          Chunk* after = c->next;
          erase_free(c);
          recycle(c);
          c = after;
        }
        if (seg->prev) seg->prev->next = seg->next;
        if (seg->next) seg->next->prev = seg->prev;
        if (segments == seg) segments = seg->next;
        total -= seg->size;
        void* base = seg->base;
        delete seg;
        give_back_segment(base);
      }
      seg = next;
    }
  }

  Chunk* allocate_locked(size_t nbytes, size_t size, StreamHandle stream, bool capture_open) {
    if (Chunk* c = take_free(size, stream, false, !capture_open)) return c;
    std::string why;
    if (capture_open && !may_allocate_during_capture()) {
      throw CaptureError("kiln's memory pool needs " + describe_bytes(size) + " more from device " +
                         std::to_string(device) + " while a CUDA graph capture in global or thread-local mode is "
                         "open, where cuMemAlloc is not allowed (Note [Pool and graph capture]): begin the capture "
                         "with mode=streamCaptureModeRelaxed (kiln's default), or run the work once before "
                         "capturing so that the pool holds the memory");
    }
    Segment* seg = try_new_segment(size, why);
    if (seg == nullptr && capture_open) {
      throw OutOfMemory("out of memory allocating " + std::to_string(nbytes) + " bytes on device " +
                            std::to_string(device) + " while a CUDA graph capture is open: " + why +
                            "; the pool cannot wait for the device to free cached memory during a capture",
                        nbytes);
    }
    if (seg == nullptr) {
      // Note [Out of memory]: wait for all work, so every stream's free
      // chunks are usable and freeing segments is safe, then retry once.
      backend.synchronize_device();
      if (Chunk* c = take_free(size, stream, true)) return c;
      release_free_segments();
      why.clear();
      seg = try_new_segment(size, why);
      if (seg == nullptr) {
        // No iostreams: see Note [No iostreams] in errors.h.
        throw OutOfMemory("out of memory allocating " + std::to_string(nbytes) + " bytes (" +
                              std::to_string(size) + " rounded) on device " +
                              std::to_string(device) + ": " + why + "; the pool holds " +
                              std::to_string(total) + " bytes, " + std::to_string(used) +
                              " in use, limit " +
                              (limit ? describe_bytes(limit) : std::string("none")),
                          nbytes);
      }
    }
    Chunk* c = seg->first;
    split(c, size, stream);
    return c;
  }
};

namespace {

// Every pool alive, so a stream's destruction reaches them all (forget_stream_in_all_pools).
std::mutex& live_pools_mutex() {
  static auto* m = new std::mutex;   // never destroyed: pools may outlive static destruction
  return *m;
}
std::unordered_set<MemoryPool*>& live_pools() {
  static auto* pools = new std::unordered_set<MemoryPool*>;
  return *pools;
}

}  // namespace

MemoryPool::MemoryPool(Backend& backend, int device, std::shared_ptr<SegmentSource> source)
    : impl_(std::make_unique<Impl>(backend, device, std::move(source))) {
  std::lock_guard<std::mutex> lock(live_pools_mutex());
  live_pools().insert(this);
}

MemoryPool::~MemoryPool() {
  {
    std::lock_guard<std::mutex> lock(live_pools_mutex());
    live_pools().erase(this);
  }
  Impl& s = *impl_;
  for (Segment* seg = s.segments; seg != nullptr;) {
    Segment* next = seg->next;
    for (Chunk* c = seg->first; c != nullptr;) {
      Chunk* after = c->next;
      delete c;
      c = after;
    }
    try {
      s.give_back_segment(seg->base);
    } catch (const std::exception&) {
      // The backend may already be shutting down; nothing else to do.
    }
    delete seg;
    seg = next;
  }
  for (Chunk* c : s.spare_chunks) delete c;
}

void* MemoryPool::allocate(size_t nbytes, StreamHandle stream) {
  if (nbytes > std::numeric_limits<size_t>::max() - kLargeRoundBytes) {
    throw OutOfMemory("out of memory: cannot allocate " + std::to_string(nbytes) + " bytes",
                      nbytes);
  }
  size_t size = nbytes == 0 ? kRoundBytes : round_up(nbytes, kRoundBytes);
  // Note [Pool and graph capture]: the driver is asked only while a capture is open.
  const bool capture_open = captures_open();
  const uint64_t capture = capture_open ? capture_id(stream) : 0;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Chunk* c = impl_->allocate_locked(nbytes, size, stream, capture_open);
  impl_->mark_in_use(c);
  if (capture != 0) {
    c->capture = capture;
    impl_->graph_chunks.emplace(c->ptr, c);
  }
  return c->ptr;
}

// nullptr is accepted and ignored, as free(nullptr) is.
void MemoryPool::deallocate(void* ptr) {
  if (ptr == nullptr) return;
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  InUseMap::node_type node = s.in_use.extract(ptr);
  if (node.empty()) {
    throw InvalidArgument("MemoryPool::deallocate: " + pointer_text(ptr) +
                          " was not allocated by this pool, or was already freed");
  }
  Chunk* c = node.mapped();
  s.spare_map_nodes.push_back(std::move(node));
  if (c->capture != 0 || c->holds != 0) {  // Note [Pool and graph capture]: stays in use
    c->parked = true;
    return;
  }
  s.free_chunk(c);
}

// Gives a chunk that left in_use back to the free set of its stream.
void MemoryPool::Impl::free_chunk(Chunk* c) {
  Impl& s = *this;
  s.used -= c->size;
  --c->segment->used_chunks;
  // Merge with free neighbours of the same stream (Note [Cross-stream reuse]:
  // a neighbour freed on another stream may still be in use by its work).
  if (Chunk* n = c->next; n && n->free && n->stream == c->stream) {
    s.erase_free(n);
    c->size += n->size;
    c->next = n->next;
    if (n->next) n->next->prev = c;
    s.recycle(n);
  }
  if (Chunk* p = c->prev; p && p->free && p->stream == c->stream) {
    s.erase_free(p);
    p->handed_out = true;  // c was handed out
    p->size += c->size;
    p->next = c->next;
    if (c->next) c->next->prev = p;
    s.recycle(c);
    c = p;
  }
  s.insert_free(c);
}

size_t MemoryPool::used_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->used;
}

size_t MemoryPool::total_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->total;
}

size_t MemoryPool::free_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->total - impl_->used;
}

size_t MemoryPool::n_free_blocks() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->n_free;
}

void MemoryPool::free_all_blocks() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->release_free_segments();
}

void MemoryPool::set_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->limit = bytes;
}

size_t MemoryPool::get_limit() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->limit;
}

// Pools are created on first use and never destroyed: memory outlives static
// destruction order, and the driver may be gone at exit. Devices below
// kFastDevices are found without taking the lock.
void MemoryPool::forget_stream(StreamHandle stream) {
  if (stream == nullptr) return;
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto& [ptr, c] : s.in_use)
    if (c->stream == stream) c->stream = nullptr;
  for (auto& [ptr, c] : s.graph_chunks)
    if (c->stream == stream) c->stream = nullptr;
  auto it = s.free_by_stream.find(stream);
  if (it == s.free_by_stream.end()) return;
  std::vector<Chunk*> moved(it->second.begin(), it->second.end());  // (held chunks are in no free set)
  for (Chunk* c : moved) s.erase_free(it->second, it->second.find(c));
  s.free_by_stream.erase(it);
  s.cached_set = nullptr;
  for (Chunk* c : moved) {
    c->stream = nullptr;
    s.insert_free(c);
  }
  // Now-adjacent free chunks of the default stream become one.
  for (Chunk* c : moved) {
    if (!c->free) continue;  // merged into its predecessor already
    while (Chunk* p = c->prev) {
      if (!p->free || p->stream != nullptr) break;
      c = p;
    }
    while (Chunk* n = c->next) {
      if (!n->free || n->stream != nullptr) break;
      s.erase_free(c);
      s.erase_free(n);
      c->size += n->size;
      c->next = n->next;
      if (n->next) n->next->prev = c;
      s.recycle(n);
      s.insert_free(c);
    }
  }
}

namespace {
constexpr int kFastDevices = 64;
std::atomic<MemoryPool*> g_fast_pools[kFastDevices] = {};
std::mutex& pools_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::unordered_map<int, MemoryPool*>& all_pools() {
  static auto* pools = new std::unordered_map<int, MemoryPool*>;
  return *pools;
}
}  // namespace

void forget_stream_in_all_pools(StreamHandle stream) {
  std::lock_guard<std::mutex> lock(live_pools_mutex());
  for (MemoryPool* pool : live_pools()) pool->forget_stream(stream);
}

std::vector<void*> MemoryPool::hold_capture(uint64_t capture_id) {
  std::vector<void*> held;
  if (capture_id == 0) return held;
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto& [ptr, c] : s.graph_chunks) {
    if (c->capture != capture_id) continue;
    c->capture = 0;
    ++c->holds;
    held.push_back(ptr);
  }
  return held;
}

void MemoryPool::release_held(const std::vector<void*>& chunks) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  for (void* ptr : chunks) {
    auto it = s.graph_chunks.find(ptr);
    if (it == s.graph_chunks.end()) continue;
    Chunk* c = it->second;
    if (c->holds > 0) --c->holds;
    if (c->holds != 0 || c->capture != 0) continue;
    s.graph_chunks.erase(it);
    if (c->parked) {
      c->parked = false;
      s.free_chunk(c);
    }
  }
}

MemoryPool& default_memory_pool(int device) {
  auto& fast = g_fast_pools;
  if (device >= 0 && device < kFastDevices) {
    if (MemoryPool* p = fast[device].load(std::memory_order_acquire)) return *p;
  }
  auto* mutex = &pools_mutex();
  auto* pools = &all_pools();
  std::lock_guard<std::mutex> lock(*mutex);
  if (auto it = pools->find(device); it != pools->end()) return *it->second;
  Backend& be = backend();
  int count = be.device_count();
  if (device < 0 || device >= count) {
    throw InvalidArgument("default_memory_pool: no device " + std::to_string(device) + " (the " +
                          std::string(be.name()) + " backend has " + std::to_string(count) +
                          ")");
  }
  auto* pool = new MemoryPool(be, device);
  pools->emplace(device, pool);
  if (device < kFastDevices) fast[device].store(pool, std::memory_order_release);
  return *pool;
}

}  // namespace kiln::runtime
