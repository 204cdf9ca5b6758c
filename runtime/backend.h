// The one interface every backend implements: devices, memory, copies,
// streams, events, compilation, modules and launches.
//
//   Backend& be = kiln::runtime::backend();       // selected once per process
//   be.set_device(0);
//   void* p = be.allocate(1 << 20);
//   CompiledModule m = be.compile({source, {"-std=c++17"}, {}, "kernel.cu"},
//                                 be.target_arch(0));
//   ModuleHandle mod = be.load_module(m);
//   FunctionHandle f = be.get_function(mod, "my_add");
//   void* args[] = {&p};
//   be.launch(f, {1, 1, 1}, {32, 1, 1}, 0, nullptr, args);
//
// Handles are opaque pointers owned by the backend; RAII wrappers live with
// their users (memory_pool, stream, kernel_cache). A null StreamHandle is the
// device's default ("null") stream. Every method throws a runtime::Error
// subclass (errors.h) naming the failed call; none returns an error code.
//
// Threading: the current device is per OS thread, as in CUDA.
//
// Note [Backend traits]
// Code above runtime/ never compares backend names: where behaviour differs
// by backend it asks caps() for the trait that is the reason (host memory
// NumPy can view, kernels that run on the calling thread, ...), so a new
// backend sets its traits instead of being added to string comparisons.
// name() is for messages and kiln.get_backend() only. The vendor libraries
// (BLAS, solver, FFT) are libraries() (runtime/libraries.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/errors.h"

namespace kiln::runtime {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

using StreamHandle = void*;
using EventHandle = void*;
using ModuleHandle = void*;
using FunctionHandle = void*;

enum class CopyKind : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice };

// What a kernel parameter is, as far as the backend can tell. CUDA reports
// only offsets and sizes (kind Unknown); the host trampoline knows the C++
// types. kernel_signature.h recovers kinds from source text where it can.
enum class ParamKind : uint8_t { Unknown, Pointer, SignedInt, UnsignedInt, Float, Bool, Complex };

struct ParamInfo {
  uint32_t size = 0;  // bytes
  ParamKind kind = ParamKind::Unknown;
};

// A kernel's attributes, numbered as CUDA's CUfunction_attribute so the cuda
// backend passes them through (Note [Kernel attributes] in runtime/host/cpu_backend.cpp
// says what the host backend reports).
enum class FunctionAttribute : int {
  MaxThreadsPerBlock = 0,
  SharedSizeBytes = 1,
  ConstSizeBytes = 2,
  LocalSizeBytes = 3,
  NumRegs = 4,
  PtxVersion = 5,
  BinaryVersion = 6,
  CacheModeCa = 7,
  MaxDynamicSharedSizeBytes = 8,        // settable
  PreferredSharedMemoryCarveout = 9,    // settable
};

struct DeviceProperties {
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  size_t total_memory = 0;
  int multiprocessor_count = 0;
  int max_threads_per_block = 0;
  size_t max_shared_memory_per_block = 0;  // bytes a block may use with opt-in
  int warp_size = 32;
};

struct CompileRequest {
  std::string source;
  std::vector<std::string> options;           // passed to the compiler as given
  std::vector<std::string> name_expressions;  // C++ names to lower, e.g. "f<float>"
  std::string source_name = "kernel.cu";      // file name used in diagnostics
  // "" = the backend's own compiler (NVRTC on cuda, the C++ compiler on
  // host); "nvcc" = the CUDA toolkit's nvcc where the backend has one
  // (RawModule(backend='nvcc')); a backend without one compiles as usual.
  std::string compiler;
};

// The output of a compile: what the on-disk cache stores and load_module takes.
struct CompiledModule {
  std::string binary;  // cubin (cuda) or shared object (host) bytes
  // name expression -> symbol to look up (mangled); one entry per expression
  std::vector<std::pair<std::string, std::string>> lowered_names;
  std::string log;  // compiler warnings, if any
};

// What a backend is, for the code that behaves differently on some
// (Note [Backend traits]); each backend sets its own, once.
struct BackendCaps {
  // Device memory is ordinary host memory that the CPU reads and writes in
  // place: NumPy views it (DLPack kDLCPU), copies are memcpy with no DMA to
  // overlap (transfers never stage).
  bool host_addressable = false;
  // Memory, streams and events are CUDA's, usable by other CUDA libraries:
  // __cuda_array_interface__, DLPack kDLCUDA, stream hand-offs.
  bool cuda_interop = false;
  // Work queued on different streams may run concurrently, so ordering one
  // stream after another needs an event (false: everything runs in order).
  bool concurrent_streams = false;
  // launch() runs the kernel on the calling thread before it returns (the
  // bindings let other Python threads run meanwhile).
  bool runs_kernels_on_calling_thread = false;
  // Compiling is slow (a C++ compiler, seconds per module): an engine
  // compiles every variant of a kernel into one module at first use instead
  // of each variant when first needed.
  bool one_module_per_source = false;
  // Blocks are resident per multiprocessor (at most 2048 threads and 32
  // blocks each), which bounds the grid of a kernel with a grid barrier
  // (Note [Grid barrier] in kiln/jit.h); false: the backend bounds it itself.
  bool multiprocessor_residency = false;
  // libraries() calls vendor libraries (cuBLAS, cuSOLVER, cuFFT); false: it
  // reports them unavailable and the Python layer computes with SciPy's
  // LAPACK and numpy.fft (Note [Libraries] in runtime/libraries.h).
  bool vendor_libraries = false;
};

class Libraries;  // runtime/libraries.h

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;  // "cuda" or "host": messages only
  virtual const BackendCaps& caps() const = 0;  // Note [Backend traits]
  // BLAS, solver and FFT for this backend (runtime/libraries.h); lives as
  // long as the process (never destroyed: plans may go at exit).
  virtual Libraries& libraries() = 0;

  // --- devices (current device is per OS thread) ---
  virtual int device_count() = 0;
  virtual DeviceProperties device_properties(int device) = 0;
  // cuDeviceGetAttribute: `attribute` numbered as CUdevice_attribute. The
  // host backend answers for the device it emulates (Note [Host device
  // attributes] in runtime/host/cpu_backend.cpp); InvalidArgument for an
  // attribute it does not know.
  virtual int device_attribute(int attribute, int device) = 0;
  virtual void set_device(int device) = 0;
  virtual int current_device() = 0;
  virtual void synchronize_device() = 0;  // current device
  // (free, total) bytes of the current device
  virtual std::pair<size_t, size_t> memory_info() = 0;

  // --- memory on the current device ---
  virtual void* allocate(size_t nbytes) = 0;  // throws OutOfMemory
  virtual void deallocate(void* ptr) = 0;
  virtual void* allocate_pinned(size_t nbytes) = 0;  // page-locked host memory
  virtual void deallocate_pinned(void* ptr) = 0;
  virtual void copy_async(void* dst, const void* src, size_t nbytes, CopyKind kind,
                          StreamHandle stream) = 0;
  virtual void memset_async(void* dst, int byte_value, size_t nbytes, StreamHandle stream) = 0;

  // --- streams and events (on the current device) ---
  virtual StreamHandle create_stream(bool non_blocking) = 0;
  virtual void destroy_stream(StreamHandle stream) = 0;
  virtual void synchronize_stream(StreamHandle stream) = 0;
  virtual bool stream_done(StreamHandle stream) = 0;  // all queued work finished
  virtual void stream_wait_event(StreamHandle stream, EventHandle event) = 0;
  virtual EventHandle create_event(bool enable_timing) = 0;
  virtual void destroy_event(EventHandle event) = 0;
  virtual void record_event(EventHandle event, StreamHandle stream) = 0;
  virtual void synchronize_event(EventHandle event) = 0;
  virtual bool event_done(EventHandle event) = 0;
  virtual float elapsed_ms(EventHandle start, EventHandle end) = 0;

  // --- compilation (never needs a device) ---
  // Identifies the compiler for cache keys without compiling anything.
  virtual std::string compiler_identity() = 0;
  // Compile target for `device`, e.g. "sm_90" or "host-x86_64".
  virtual std::string target_arch(int device) = 0;
  virtual CompiledModule compile(const CompileRequest& request, const std::string& arch) = 0;
  // A binary from disk for RawModule(path=...): .cubin/.ptx (cuda), .so (host).
  virtual CompiledModule module_from_file(const std::string& path) = 0;

  // --- modules and launches (on the current device) ---
  virtual ModuleHandle load_module(const CompiledModule& module) = 0;
  virtual void unload_module(ModuleHandle module) = 0;
  virtual FunctionHandle get_function(ModuleHandle module, const std::string& symbol) = 0;
  virtual std::vector<ParamInfo> param_info(FunctionHandle function) = 0;
  // cuFuncGetAttribute / cuFuncSetAttribute (setting only the two settable
  // ones); InvalidArgument for a value the backend rejects.
  virtual int function_attribute(FunctionHandle function, FunctionAttribute attribute) {
    (void)function, (void)attribute;
    throw Error(std::string(name()) + " backend: kernel attributes are not supported");
  }
  virtual void set_function_attribute(FunctionHandle function, FunctionAttribute attribute, int value) {
    (void)function, (void)attribute, (void)value;
    throw Error(std::string(name()) + " backend: kernel attributes are not supported");
  }
  // Address and size of a module's global variable (__device__, __constant__),
  // as cuModuleGetGlobal; NotFound when the module has no such symbol.
  virtual std::pair<void*, size_t> module_global(ModuleHandle module, const std::string& symbol) {
    (void)module;
    throw NotFound(std::string(name()) + " backend: no global '" + symbol + "' (globals are not supported)");
  }
  // args[i] points at the value of parameter i, as for cuLaunchKernel.
  virtual void launch(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes,
                      StreamHandle stream, void** args) = 0;
  // A launch whose blocks all run at once (cuLaunchCooperativeKernel), for
  // kernels with grid-wide barriers; an error when the grid cannot be
  // resident. Backends without the notion launch as usual.
  virtual void launch_cooperative(FunctionHandle function, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes,
                                  StreamHandle stream, void** args) {
    launch(function, grid, block, shared_mem_bytes, stream, args);
  }
};

// The backend chosen at first use: KILN_BACKEND=cuda|host, else cuda when a
// driver and a device answer, else host. Throws Error when the requested one
// cannot start (e.g. KILN_BACKEND=cuda with no driver).
Backend& backend();
// The selected backend's traits, known even when that backend cannot start:
// with KILN_BACKEND=cuda on a machine without a usable GPU, importing kiln
// works (CuPy's `import cupy` does too) and using the device raises.
const BackendCaps& backend_caps();

// Directory holding stdlib_kernels' headers (the one passed with -I to every
// compile). Set once at start-up by whoever knows the install layout.
void set_stdlib_include_dir(std::string dir);
const std::string& stdlib_include_dir();

}  // namespace kiln::runtime
