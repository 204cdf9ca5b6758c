// A Backend for tests of the layers above it: no device, no compiler.
//
//   kiln::testing::FakeBackend fake;
//   fake.set_budget(4 << 20);                 // allocate() beyond this throws OutOfMemory
//   kiln::runtime::MemoryPool pool(fake, 0);
//   fake.set_stream_done(stream, false);      // stream has work in flight
//   fake.compile({"src"}, "fake_arch");       // counted; deterministic binary
//
// - "device" memory is malloc'd; live_bytes()/live_allocations() count what is
//   outstanding, so tests can see memory go back to the backend.
// - stream_done(s) is true unless set_stream_done(s, false) was called;
//   synchronize_stream(s) and synchronize_device() make streams done again.
// - compile() counts calls, returns binary "fake-binary|<arch>|<source>" and
//   lowers each name expression e to "_Z_" + e. A source containing
//   "#error" throws CompileError with log "fake compile error".
// - Everything else is trivial (copies are memcpy/memset on host memory).
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/backend.h"
#include "runtime/host/host_backend.h"

namespace kiln::testing {

class FakeBackend : public runtime::Backend {
 public:
  // --- knobs and counters for tests ---
  void set_budget(size_t bytes) {  // 0 = unlimited
    std::lock_guard<std::mutex> lock(mutex_);
    budget_ = bytes;
  }
  void set_stream_done(runtime::StreamHandle stream, bool done) {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_done_[stream] = done;
  }
  size_t live_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_bytes_;
  }
  size_t live_allocations() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return sizes_.size();
  }
  std::atomic<int> allocate_calls{0};
  std::atomic<int> failed_allocations{0};
  std::atomic<int> deallocate_calls{0};
  std::atomic<int> synchronize_calls{0};
  std::atomic<int> compile_calls{0};
  std::string identity = "fake-compiler 1.0";

  ~FakeBackend() override {
    for (auto& [ptr, size] : sizes_) std::free(ptr);
  }

  std::string_view name() const override { return "fake"; }
  const runtime::BackendCaps& caps() const override {
    static const runtime::BackendCaps none;
    return none;
  }
  runtime::Libraries& libraries() override { return runtime::host_libraries(); }  // none: each says why

  int device_count() override { return 1; }
  runtime::DeviceProperties device_properties(int) override {
    runtime::DeviceProperties p;
    p.name = "fake device";
    p.total_memory = budget_;
    return p;
  }
  int device_attribute(int, int) override { throw runtime::Error("fake: no device attributes"); }
  void set_device(int device) override {
    if (device != 0) throw runtime::InvalidArgument("fake: no device " + std::to_string(device));
  }
  int current_device() override { return 0; }
  void synchronize_device() override {  // all streams finish
    std::lock_guard<std::mutex> lock(mutex_);
    ++synchronize_calls;
    for (auto& [stream, done] : stream_done_) done = true;
  }
  std::pair<size_t, size_t> memory_info() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return {budget_ ? budget_ - live_bytes_ : size_t(1) << 40, budget_ ? budget_ : size_t(1) << 40};
  }

  void* allocate(size_t nbytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++allocate_calls;
    if (budget_ != 0 && live_bytes_ + nbytes > budget_) {
      ++failed_allocations;
      throw runtime::OutOfMemory("fake: out of memory allocating " + std::to_string(nbytes) +
                                     " bytes",
                                 nbytes);
    }
    void* p = std::malloc(nbytes == 0 ? 1 : nbytes);
    sizes_[p] = nbytes;
    live_bytes_ += nbytes;
    return p;
  }
  void deallocate(void* ptr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(ptr);
    if (it == sizes_.end()) throw runtime::InvalidArgument("fake: deallocate of unknown pointer");
    ++deallocate_calls;
    live_bytes_ -= it->second;
    sizes_.erase(it);
    std::free(ptr);
  }
  void* allocate_pinned(size_t nbytes) override { return allocate(nbytes); }
  void deallocate_pinned(void* ptr) override { deallocate(ptr); }
  void copy_async(void* dst, const void* src, size_t nbytes, runtime::CopyKind,
                  runtime::StreamHandle) override {
    std::memmove(dst, src, nbytes);
  }
  void memset_async(void* dst, int byte_value, size_t nbytes, runtime::StreamHandle) override {
    std::memset(dst, byte_value, nbytes);
  }

  runtime::StreamHandle create_stream(bool) override { return new char; }
  void destroy_stream(runtime::StreamHandle stream) override { delete static_cast<char*>(stream); }
  void synchronize_stream(runtime::StreamHandle stream) override { set_stream_done(stream, true); }
  bool stream_done(runtime::StreamHandle stream) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = stream_done_.find(stream);
    return it == stream_done_.end() || it->second;
  }
  void stream_wait_event(runtime::StreamHandle, runtime::EventHandle) override {}
  runtime::EventHandle create_event(bool) override { return new char; }
  void destroy_event(runtime::EventHandle event) override { delete static_cast<char*>(event); }
  void record_event(runtime::EventHandle, runtime::StreamHandle) override {}
  void synchronize_event(runtime::EventHandle) override {}
  bool event_done(runtime::EventHandle) override { return true; }
  float elapsed_ms(runtime::EventHandle, runtime::EventHandle) override { return 0.0f; }

  std::string compiler_identity() override { return identity; }
  std::string target_arch(int) override { return "fake_arch"; }
  runtime::CompiledModule compile(const runtime::CompileRequest& request,
                                  const std::string& arch) override {
    ++compile_calls;
    if (request.source.find("#error") != std::string::npos) {
      throw runtime::CompileError("fake: compilation of " + request.source_name + " failed",
                                  "fake compile error");
    }
    runtime::CompiledModule m;
    m.binary = "fake-binary|" + arch + "|" + request.source;
    for (const auto& e : request.name_expressions) m.lowered_names.emplace_back(e, "_Z_" + e);
    m.log = "";
    return m;
  }
  runtime::CompiledModule module_from_file(const std::string& path) override {
    throw runtime::NotFound("fake: no file " + path);
  }

  runtime::ModuleHandle load_module(const runtime::CompiledModule&) override { return new char; }
  void unload_module(runtime::ModuleHandle module) override { delete static_cast<char*>(module); }
  runtime::FunctionHandle get_function(runtime::ModuleHandle, const std::string& symbol) override {
    throw runtime::NotFound("fake: no function " + symbol);
  }
  std::vector<runtime::ParamInfo> param_info(runtime::FunctionHandle) override { return {}; }
  void launch(runtime::FunctionHandle, runtime::Dim3, runtime::Dim3, uint32_t,
              runtime::StreamHandle, void**) override {}

 private:
  mutable std::mutex mutex_;
  size_t budget_ = 0;
  size_t live_bytes_ = 0;
  std::unordered_map<void*, size_t> sizes_;
  std::unordered_map<runtime::StreamHandle, bool> stream_done_;
};

}  // namespace kiln::testing
