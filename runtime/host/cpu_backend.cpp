// The host backend: the Backend interface over the CPU. Memory is host memory,
// streams run their work at enqueue (so every "async" operation is complete
// when it returns), and kernels are host_kernel.h-compiled shared objects
// whose blocks run on a pool of worker threads (cpu_scheduler.h).
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/files.h"
#include "runtime/host/cpu_compiler.h"
#include "runtime/host/cpu_scheduler.h"
#include "runtime/host/host_backend.h"
#include "runtime/host/kernel_faults.h"
#include "runtime/host/launch_watch.h"

namespace kiln::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// Note [Kernel attributes]
// The host backend answers cuFuncGetAttribute's questions with what holds for
// it: a block has at most 1024 threads (the launch limit); a kernel has no
// registers, no local, constant or static shared memory that kiln can count
// (static __shared__ variables are per-worker statics), no PTX and no cubin,
// so num_regs, the *_size_bytes, ptx_version, binary_version and cache_mode_ca
// are 0. The two settable attributes are kept per kernel:
// max_dynamic_shared_size_bytes starts at the most a launch may ask for
// (host::kMaxDynamicSharedBytes) and takes 0 to that; the carveout starts at
// -1 (no preference) and takes -1 to 100 and changes nothing.
struct HostFunction {
  const kiln_host::KernelEntry* entry;
  host::RunThreadFn run_thread;
  int max_dynamic_shared = static_cast<int>(host::kMaxDynamicSharedBytes);
  int carveout = -1;
};

struct HostModule {
  void* handle = nullptr;
  int fd = -1;  // kept open while loaded: dlopen knows modules by path
  std::unordered_map<std::string, HostFunction> functions;
  std::string names;  // for error messages
};

struct HostEvent {
  bool timing = true;
  bool recorded = false;
  Clock::time_point when{};
};

// Runs `job` on every worker (the caller included) and waits for all.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned n) {
    for (unsigned i = 1; i < n; ++i) threads_.emplace_back([this] { loop(); });
    for (auto& t : threads_) handles_.push_back(t.native_handle());
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Note [Host backend at exit]
  // Static destructors run while a daemon thread may still be inside a
  // launch; joining workers that run its kernel could wait forever, and
  // freeing what they use would crash them. A busy pool is let go instead:
  // its threads are detached and its state is never freed (the process is
  // exiting). Never std::terminate: no joinable std::thread is destroyed.
  bool busy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return job_ != nullptr;
  }
  void abandon() {
    for (auto& t : threads_) t.detach();
  }
  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }
  // For cancel_signal() (Note [Cancelling host launches]).
  const std::vector<pthread_t>& handles() const { return handles_; }

  void run(const std::function<void()>& job) {
    std::lock_guard<std::mutex> one_launch_at_a_time(launch_mutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      pending_ = threads_.size();
      ++generation_;
    }
    cv_.notify_all();
    job();
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    unsigned long long seen = 0;
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::vector<pthread_t> handles_;
  std::mutex mutex_, launch_mutex_;
  std::condition_variable cv_, done_cv_;
  const std::function<void()>* job_ = nullptr;
  size_t pending_ = 0;
  unsigned long long generation_ = 0;
  bool stop_ = false;
};

unsigned worker_count() {
  if (const char* env = std::getenv("KILN_HOST_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return static_cast<unsigned>(n);
  }
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

class HostBackend final : public Backend {
 public:
  HostBackend() : pool_(new WorkerPool(worker_count())) { host::install_kernel_fault_handlers(); }
  ~HostBackend() override {
    if (pool_->busy()) {  // Note [Host backend at exit]
      pool_->abandon();
      (void)pool_.release();
    }
  }

  std::string_view name() const override { return "host"; }
  const BackendCaps& caps() const override {
    static const BackendCaps caps{.host_addressable = true,
                                  .cuda_interop = false,
                                  .concurrent_streams = false,
                                  .runs_kernels_on_calling_thread = true,
                                  .one_module_per_source = true,
                                  .multiprocessor_residency = false,
                                  .vendor_libraries = false};
    return caps;
  }
  Libraries& libraries() override { return host_libraries(); }

  int device_count() override { return 1; }
  DeviceProperties device_properties(int device) override {
    check_device(device);
    DeviceProperties p;
    p.name = "host CPU (" + std::to_string(pool_->size()) + " worker threads)";
    p.total_memory = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    p.multiprocessor_count = static_cast<int>(pool_->size());
    p.max_threads_per_block = 1024;
    p.max_shared_memory_per_block = host::kMaxDynamicSharedBytes;
    p.warp_size = kiln_host::kWarpSize;
    return p;
  }
  int device_attribute(int attribute, int device) override {
    check_device(device);
    // Note [Host device attributes]
    // CuPy code asks the device what it can do before it launches
    // (cooperative launch for grid.sync(), the warp size, the block and
    // grid limits, shared memory). The host backend answers for the device
    // it emulates: the launch limits a GPU has, which host launches check
    // the same way; a warp of 32 (kiln_host::kWarpSize); one
    // "multiprocessor" per worker thread; cooperative launches (grid
    // barriers run on fibers); memory that is the host's (integrated,
    // managed, pageable access, unified addresses). Compute capability is
    // 0.0, as Device.compute_capability says, so code choosing an
    // architecture takes none; what a CPU has no counterpart of (clock
    // rates, the memory bus, L2, PCI ids) is 0. Other attributes raise.
    const int threads = static_cast<int>(pool_->size());
    const int optin = static_cast<int>(host::kMaxDynamicSharedBytes);
    switch (attribute) {
      case 1: return 1024;                                // MAX_THREADS_PER_BLOCK
      case 2: case 3: return 1024;                        // MAX_BLOCK_DIM_X, _Y
      case 4: return 64;                                  // MAX_BLOCK_DIM_Z
      case 5: return 2147483647;                          // MAX_GRID_DIM_X
      case 6: case 7: return 65535;                       // MAX_GRID_DIM_Y, _Z
      case 8: return 48 * 1024;                           // MAX_SHARED_MEMORY_PER_BLOCK (without opting in)
      case 9: return 64 * 1024;                           // TOTAL_CONSTANT_MEMORY
      case 10: return kiln_host::kWarpSize;               // WARP_SIZE
      case 12: return 65536;                              // MAX_REGISTERS_PER_BLOCK
      case 16: return threads;                            // MULTIPROCESSOR_COUNT
      case 18: case 19: return 1;                         // INTEGRATED, CAN_MAP_HOST_MEMORY
      case 39: return 2048;                               // MAX_THREADS_PER_MULTIPROCESSOR
      case 41: return 1;                                  // UNIFIED_ADDRESSING
      case 75: case 76: return 0;                         // COMPUTE_CAPABILITY_MAJOR, _MINOR
      case 83: case 88: case 89: return 1;                // MANAGED_MEMORY, PAGEABLE_MEMORY_ACCESS, CONCURRENT_MANAGED_ACCESS
      case 95: return 1;                                  // COOPERATIVE_LAUNCH
      case 97: return optin;                              // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
      case 13: case 33: case 34: case 36: case 37: case 38: case 50: case 115:
        return 0;   // CLOCK_RATE, PCI_BUS_ID, PCI_DEVICE_ID, MEMORY_CLOCK_RATE, GLOBAL_MEMORY_BUS_WIDTH, L2_CACHE_SIZE,
                    // PCI_DOMAIN_ID, MEMORY_POOLS_SUPPORTED
      default:
        throw Error("kiln.cuda.runtime.deviceGetAttribute: the host backend does not emulate device attribute " +
                    std::to_string(attribute) + " (Note [Host device attributes] lists those it does)");
    }
  }
  void set_device(int device) override { check_device(device); }
  int current_device() override { return 0; }
  void synchronize_device() override { std::fflush(stdout); }
  std::pair<size_t, size_t> memory_info() override {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return {static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page,
            static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page};
  }

  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    void* p = nullptr;
    if (posix_memalign(&p, 256, nbytes) != 0 || !p)
      throw OutOfMemory("host backend: out of memory allocating " + std::to_string(nbytes) + " bytes",
                        nbytes);
    return p;
  }
  void deallocate(void* ptr) override { std::free(ptr); }
  void* allocate_pinned(size_t nbytes) override { return allocate(nbytes); }
  void deallocate_pinned(void* ptr) override { std::free(ptr); }
  void copy_async(void* dst, const void* src, size_t nbytes, CopyKind, StreamHandle) override {
    if (nbytes) std::memmove(dst, src, nbytes);
  }
  void memset_async(void* dst, int value, size_t nbytes, StreamHandle) override {
    if (nbytes) std::memset(dst, value, nbytes);
  }

  StreamHandle create_stream(bool) override { return new char(0); }
  void destroy_stream(StreamHandle stream) override { delete static_cast<char*>(stream); }
  void synchronize_stream(StreamHandle) override { std::fflush(stdout); }
  bool stream_done(StreamHandle) override { return true; }
  void stream_wait_event(StreamHandle, EventHandle) override {}
  EventHandle create_event(bool enable_timing) override {
    auto* e = new HostEvent;
    e->timing = enable_timing;
    return e;
  }
  void destroy_event(EventHandle event) override { delete static_cast<HostEvent*>(event); }
  void record_event(EventHandle event, StreamHandle) override {
    auto* e = static_cast<HostEvent*>(event);
    e->recorded = true;
    e->when = Clock::now();
  }
  void synchronize_event(EventHandle) override {}
  bool event_done(EventHandle) override { return true; }
  float elapsed_ms(EventHandle start, EventHandle end) override {
    auto* a = static_cast<HostEvent*>(start);
    auto* b = static_cast<HostEvent*>(end);
    if (!a->timing || !b->timing) throw InvalidArgument("elapsed time needs events created with timing enabled");
    if (!a->recorded || !b->recorded) throw InvalidArgument("elapsed time needs both events recorded");
    return std::chrono::duration<float, std::milli>(b->when - a->when).count();
  }

  std::string compiler_identity() override { return host::host_compiler_identity(); }
  std::string target_arch(int) override {
    struct utsname u {};
    uname(&u);
    return std::string("host-") + u.machine;
  }
  CompiledModule compile(const CompileRequest& request, const std::string&) override {
    return host::compile_host_module(request);
  }
  CompiledModule module_from_file(const std::string& path) override {
    CompiledModule m;
    m.binary = read_file_or_throw(path, "module_from_file");
    if (m.binary.size() < 4 || m.binary.compare(0, 4, "\x7f" "ELF") != 0)
      throw Error("'" + path + "' is not a shared object built for the host backend (no ELF header)");
    return m;
  }

  ModuleHandle load_module(const CompiledModule& module) override {
    // The bytes go to an anonymous in-memory file that dlopen reads.
    int fd = memfd_create("kiln-host-module", MFD_CLOEXEC);
    if (fd < 0) throw Error(std::string("host backend: memfd_create failed: ") + std::strerror(errno));
    size_t written = 0;
    while (written < module.binary.size()) {
      ssize_t n = write(fd, module.binary.data() + written, module.binary.size() - written);
      if (n <= 0) {
        close(fd);
        throw Error("host backend: cannot write the module to memory");
      }
      written += static_cast<size_t>(n);
    }
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      close(fd);
      throw Error(std::string("host backend: cannot load the kernel module: ") + dlerror());
    }
    auto attach = reinterpret_cast<void (*)(const kiln_host::Services*)>(dlsym(handle, "kiln_host_attach"));
    auto kernels = reinterpret_cast<const kiln_host::KernelEntry* (*)(int*)>(dlsym(handle, "kiln_host_kernels"));
    auto run_thread = reinterpret_cast<host::RunThreadFn>(dlsym(handle, "kiln_host_run_thread"));
    if (!attach || !kernels || !run_thread) {
      dlclose(handle);
      close(fd);
      throw Error("host backend: the module was not built by kiln's host compiler (no kernel table)");
    }
    // A module built against another version of host_abi.h (an old cache
    // entry, a stale .so) must not be called with this runtime's services.
    auto abi = reinterpret_cast<int (*)()>(dlsym(handle, "kiln_host_abi_version"));
    int module_abi = abi ? abi() : 1;
    if (module_abi != kiln_host::kAbiVersion) {
      dlclose(handle);
      close(fd);
      throw Error("host backend: the module was built for host ABI " + std::to_string(module_abi) +
                  ", this runtime speaks " + std::to_string(kiln_host::kAbiVersion) + "; compile it again");
    }
    attach(host::scheduler_services());
    auto mod = std::make_unique<HostModule>();
    mod->handle = handle;
    mod->fd = fd;
    int count = 0;
    const kiln_host::KernelEntry* entries = kernels(&count);
    for (int i = 0; i < count; ++i) {
      mod->functions.emplace(entries[i].name, HostFunction{&entries[i], run_thread});
      mod->names += (mod->names.empty() ? "" : ", ") + std::string(entries[i].name);
    }
    return mod.release();
  }
  void unload_module(ModuleHandle module) override {
    auto* mod = static_cast<HostModule*>(module);
    if (!mod) return;
    dlclose(mod->handle);
    close(mod->fd);
    delete mod;
  }
  FunctionHandle get_function(ModuleHandle module, const std::string& symbol) override {
    auto* mod = static_cast<HostModule*>(module);
    auto it = mod->functions.find(symbol);
    if (it == mod->functions.end())
      throw NotFound("host backend: no kernel '" + symbol + "' in the module (it has: " +
                     (mod->names.empty() ? std::string("none") : mod->names) +
                     "): CUDA_ERROR_NOT_FOUND (named symbol not found)");
    return &it->second;
  }
  // Note [Kernel attributes]
  int function_attribute(FunctionHandle function, FunctionAttribute attribute) override {
    auto* f = static_cast<HostFunction*>(function);
    switch (attribute) {
      case FunctionAttribute::MaxThreadsPerBlock: return 1024;
      case FunctionAttribute::MaxDynamicSharedSizeBytes: return f->max_dynamic_shared;
      case FunctionAttribute::PreferredSharedMemoryCarveout: return f->carveout;
      default: return 0;
    }
  }
  void set_function_attribute(FunctionHandle function, FunctionAttribute attribute, int value) override {
    auto* f = static_cast<HostFunction*>(function);
    std::string what = "kernel '" + std::string(f->entry->name) + "': ";
    if (attribute == FunctionAttribute::MaxDynamicSharedSizeBytes) {
      if (value < 0 || static_cast<size_t>(value) > host::kMaxDynamicSharedBytes)
        throw InvalidArgument(what + "max_dynamic_shared_size_bytes must be between 0 and " +
                              std::to_string(host::kMaxDynamicSharedBytes) + ", got " + std::to_string(value));
      f->max_dynamic_shared = value;
    } else if (attribute == FunctionAttribute::PreferredSharedMemoryCarveout) {
      if (value < -1 || value > 100)
        throw InvalidArgument(what + "preferred_shared_memory_carveout must be between -1 and 100, got " +
                              std::to_string(value));
      f->carveout = value;
    } else {
      throw InvalidArgument(what + "attribute " + std::to_string(static_cast<int>(attribute)) + " is read-only");
    }
  }
  // A global variable of the module (__device__ and __constant__ are plain
  // globals on the host): the shared object's symbol and its ELF size.
  std::pair<void*, size_t> module_global(ModuleHandle module, const std::string& symbol) override {
    auto* mod = static_cast<HostModule*>(module);
    void* address = dlsym(mod->handle, symbol.c_str());
    Dl_info info{};
    void* entry = nullptr;  // the symbol's ElfW(Sym)
    const auto* sym = static_cast<const ElfW(Sym)*>(entry);
    if (address && dladdr1(address, &info, &entry, RTLD_DL_SYMENT)) sym = static_cast<const ElfW(Sym)*>(entry);
    if (!sym || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
      throw NotFound("host backend: no global variable '" + symbol +
                     "' in the module: CUDA_ERROR_NOT_FOUND (named symbol not found)");
    return {address, static_cast<size_t>(sym->st_size)};
  }
  std::vector<ParamInfo> param_info(FunctionHandle function) override {
    const auto* e = static_cast<HostFunction*>(function)->entry;
    std::vector<ParamInfo> out(e->num_params);
    for (unsigned i = 0; i < e->num_params; ++i)
      out[i] = {e->param_sizes[i], static_cast<ParamKind>(e->param_kinds[i])};
    return out;
  }

  void launch(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes, StreamHandle,
              void** args) override {
    run_launch(function, grid, block, shared_mem_bytes, args, false);
  }
  // Every block at once, for grid.sync() (Note [Host grid barrier], cpu_scheduler.h).
  void launch_cooperative(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes, StreamHandle,
                          void** args) override {
    run_launch(function, grid, block, shared_mem_bytes, args, true);
  }

 private:
  // At most this many blocks in a cooperative launch: each is a thread of
  // its own (CUDA's limit is what the device holds at once, e.g. 132 SMs x
  // 16 blocks on an H100 for small blocks).
  static constexpr uint64_t kMaxCooperativeBlocks = 1024;

  void run_launch(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes, void** args,
                  bool cooperative) {
    auto* f = static_cast<HostFunction*>(function);
    host::install_kernel_fault_handlers();  // ours first (kernel_faults.cpp)
    uint64_t threads = uint64_t{block.x} * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0)
      throw InvalidArgument("launch of '" + std::string(f->entry->name) + "': grid and block dimensions must be positive");
    if (threads > 1024 || block.z > 64)
      throw InvalidArgument("launch of '" + std::string(f->entry->name) + "': a block has at most 1024 threads (and z <= 64), got " +
                            std::to_string(block.x) + "x" + std::to_string(block.y) + "x" + std::to_string(block.z));
    if (shared_mem_bytes > host::kMaxDynamicSharedBytes)
      throw InvalidArgument("launch of '" + std::string(f->entry->name) + "': " + std::to_string(shared_mem_bytes) +
                            " bytes of dynamic shared memory asked, at most " +
                            std::to_string(host::kMaxDynamicSharedBytes));
    host::BlockLaunch state;
    state.run_thread = f->run_thread;
    state.entry = f->entry;
    state.args = args;
    state.grid = {grid.x, grid.y, grid.z};
    state.block = {block.x, block.y, block.z};
    state.shared_bytes = shared_mem_bytes;
    const uint64_t blocks = uint64_t{grid.x} * grid.y * grid.z;
    if (cooperative && blocks > 1) {
      if (blocks > kMaxCooperativeBlocks)
        throw InvalidArgument("cooperative launch of '" + std::string(f->entry->name) + "': " +
                              std::to_string(blocks) + " blocks, the host backend runs at most " +
                              std::to_string(kMaxCooperativeBlocks) + " at once (too large for a cooperative launch)");
      host::CooperativeRun run(state);
      {
        host::LaunchWatch watch(state, &run.threads());  // Note [Cancelling host launches]
        run.run();
        std::fflush(stdout);
        watch.finish();
      }
      if (state.failed.load()) throw LaunchError("kernel '" + std::string(f->entry->name) + "' failed: " + state.message);
      return;
    }
    std::atomic<uint64_t> next{0};
    auto work = [&] {
      for (;;) {
        if (state.failed.load(std::memory_order_relaxed) || state.cancel != host::kNotCancelled) return;
        uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
        if (i >= blocks) return;
        kiln_host::Dim3 idx{static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                            static_cast<unsigned>(i / (uint64_t{grid.x} * grid.y))};
        host::run_block(state, idx);
      }
    };
    const bool inline_run = blocks == 1 || pool_->size() == 1;
    host::LaunchWatch watch(state, inline_run ? nullptr : &pool_->handles());  // Note [Cancelling host launches]
    if (inline_run) {
      work();
    } else {
      std::function<void()> job = work;
      pool_->run(job);
    }
    std::fflush(stdout);
    watch.finish();
    if (state.failed.load()) throw LaunchError("kernel '" + std::string(f->entry->name) + "' failed: " + state.message);
  }

  static void check_device(int device) {
    if (device != 0)
      throw InvalidArgument("invalid device " + std::to_string(device) + ": the host backend has one device, 0");
  }

  std::unique_ptr<WorkerPool> pool_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

}  // namespace kiln::runtime
