// kiln.cuda.runtime's functions (runtime/cuda/runtime_functions.h) and the
// memory kinds beside the pool: managed memory and stream-ordered
// (cuMemAllocAsync) memory.
#include <pybind11/stl.h>

#include "arraycore/memory.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/memory_pointer.h"
#include "runtime/cuda/cublas_api.h"
#include "runtime/cuda/cusolver_api.h"
#include "runtime/cuda/driver_calls.h"
#include "runtime/cuda/driver_api.h"
#include "runtime/cuda/runtime_functions.h"
#include "runtime/memory_pool.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

namespace rt = runtime::cuda::rt;

runtime::StreamHandle as_stream(uintptr_t ptr) { return reinterpret_cast<runtime::StreamHandle>(ptr); }

bool cuda_memory() { return runtime::backend().caps().cuda_interop; }

// Memory that is not the pool's: `free` gives it back (errors at exit are ignored).
std::shared_ptr<arraycore::Memory> foreign_memory(uintptr_t ptr, size_t nbytes, std::function<void(uintptr_t)> free) {
  return std::make_shared<arraycore::Memory>(reinterpret_cast<void*>(ptr), nbytes, runtime::backend().current_device(),
                                             [free](void* p) {
                                               try {
                                                 free(reinterpret_cast<uintptr_t>(p));
                                               } catch (...) {
                                               }
                                             });
}

}  // namespace

void register_cuda_runtime(py::module_& m) {
  // --- memory beside the pool: a MemoryPointer each ---
  m.def(
      "_malloc_managed",
      [](size_t nbytes) {
        // Note [Backend traits]: where device memory is host memory, every
        // allocation is already visible to host and device alike.
        if (!cuda_memory()) return MemoryPointer{arraycore::allocate_from_pool(nbytes), 0};
        uintptr_t p = rt::malloc_managed(nbytes, runtime::cuda::kMemAttachGlobal);
        return MemoryPointer{foreign_memory(p, nbytes, [](uintptr_t q) { rt::free(q); }), 0};
      },
      py::arg("size"));
  m.def(
      "_malloc_async",
      [](size_t nbytes, py::object stream_obj) {
        if (!cuda_memory()) return MemoryPointer{arraycore::allocate_from_pool(nbytes), 0};
        runtime::StreamHandle stream = to_stream(stream_obj);
        uintptr_t p = rt::malloc_async(nbytes, stream);
        // Freed in the order of the stream it was allocated on, as CuPy
        // does; the stream object lives until then.
        auto keep = keep_alive(std::move(stream_obj));
        return MemoryPointer{
            foreign_memory(p, nbytes, [stream, keep](uintptr_t q) { rt::free_async(q, stream); }), 0};
      },
      py::arg("size"), py::arg("stream"));

  // --- kiln.cuda.runtime ---
  m.def("_rt_driver_version", &rt::driver_version);
  m.def("_rt_runtime_version", &rt::runtime_version);
  m.def("_rt_malloc", &rt::malloc);
  m.def("_rt_free", &rt::free);
  m.def("_rt_malloc_managed", &rt::malloc_managed);
  m.def("_rt_host_alloc", &rt::host_alloc);
  m.def("_rt_free_host", &rt::free_host);
  m.def("_rt_malloc_async", [](size_t n, uintptr_t s) { return rt::malloc_async(n, as_stream(s)); });
  m.def("_rt_free_async", [](uintptr_t p, uintptr_t s) { rt::free_async(p, as_stream(s)); });
  m.def("_rt_memcpy", [](uintptr_t dst, uintptr_t src, size_t n) {
    ReleaseGil nogil;
    rt::memcpy(dst, src, n);
  });
  m.def("_rt_memcpy_async", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t s) {
    rt::memcpy_async(dst, src, n, as_stream(s));
  });
  m.def("_rt_memset", [](uintptr_t dst, int v, size_t n) {
    ReleaseGil nogil;
    rt::memset(dst, v, n);
  });
  m.def("_rt_memset_async", [](uintptr_t dst, int v, size_t n, uintptr_t s) { rt::memset_async(dst, v, n, as_stream(s)); });
  m.def("_rt_stream_create", [](unsigned flags, int priority) {
    return reinterpret_cast<uintptr_t>(rt::stream_create(flags, priority));
  });
  m.def("_rt_stream_priority_range", &rt::stream_priority_range);
  // Streams and events by handle go through the backend, so they mean the
  // same on every backend (ExternalStream takes the handle).
  auto be = []() -> runtime::Backend& { return runtime::backend(); };
  auto ev = [](uintptr_t e) { return reinterpret_cast<runtime::EventHandle>(e); };
  m.def("_rt_stream_create_default", [be](bool non_blocking) {
    return reinterpret_cast<uintptr_t>(be().create_stream(non_blocking));
  });
  m.def("_rt_stream_destroy", [be](uintptr_t s) {
    // As ~Stream: the pool must not keep chunks keyed by a dead stream.
    be().synchronize_stream(as_stream(s));
    runtime::forget_stream_in_all_pools(as_stream(s));
    be().destroy_stream(as_stream(s));
  });
  m.def("_rt_stream_synchronize", [be](uintptr_t s) {
    ReleaseGil nogil;
    be().synchronize_stream(as_stream(s));
  });
  m.def("_rt_stream_query", [be](uintptr_t s) { return be().stream_done(as_stream(s)); });
  m.def("_rt_stream_wait_event", [be, ev](uintptr_t s, uintptr_t e) { be().stream_wait_event(as_stream(s), ev(e)); });
  m.def("_rt_event_create", [be](bool timing) { return reinterpret_cast<uintptr_t>(be().create_event(timing)); });
  m.def("_rt_event_destroy", [be, ev](uintptr_t e) { be().destroy_event(ev(e)); });
  m.def("_rt_event_record", [be, ev](uintptr_t e, uintptr_t s) { be().record_event(ev(e), as_stream(s)); });
  m.def("_rt_event_synchronize", [be, ev](uintptr_t e) {
    ReleaseGil nogil;
    be().synchronize_event(ev(e));
  });
  m.def("_rt_event_query", [be, ev](uintptr_t e) { return be().event_done(ev(e)); });
  m.def("_rt_event_elapsed_time", [be, ev](uintptr_t a, uintptr_t b) { return be().elapsed_ms(ev(a), ev(b)); });
  m.def("_rt_device_attribute", [](int attribute, int device) { return runtime::backend().device_attribute(attribute, device); });
  m.def("_rt_device_pci_bus_id", &rt::device_pci_bus_id);
  m.def("_rt_device_by_pci_bus_id", &rt::device_by_pci_bus_id);
  m.def("_rt_device_can_access_peer", &rt::device_can_access_peer);
  m.def("_rt_enable_peer_access", &rt::enable_peer_access);
  m.def("_rt_disable_peer_access", &rt::disable_peer_access);
  m.def("_rt_device_limit", &rt::device_limit);
  m.def("_rt_set_device_limit", &rt::set_device_limit);
  m.def("_rt_pointer_attributes", [](uintptr_t p) {
    rt::PointerAttributes a = rt::pointer_attributes(p);
    return py::make_tuple(a.type, a.device, a.device_pointer, a.host_pointer);
  });
  m.def("_rt_ipc_get_mem_handle", [](uintptr_t p) { return py::bytes(rt::ipc_get_mem_handle(p)); });
  m.def("_rt_ipc_open_mem_handle", [](py::bytes h, unsigned flags) {
    return rt::ipc_open_mem_handle(std::string(h), flags);
  });
  m.def("_rt_ipc_close_mem_handle", &rt::ipc_close_mem_handle);
  // The calling thread's library handles of the current device (the ones
  // kiln's own matmul and solvers use), as integers.
  m.def("_cublas_handle", [] {
    runtime::cuda::driver_for("kiln.cuda.get_cublas_handle");
    std::string why;
    const runtime::cuda::CublasApi* api = runtime::cuda::load_cublas_api(&why);
    if (!api) throw runtime::Error("kiln.cuda.get_cublas_handle: " + why);
    return reinterpret_cast<uintptr_t>(
        runtime::cuda::cublas_handle_for_current_thread(*api, runtime::backend().current_device()));
  });
  m.def("_cusolver_handle", [] {
    runtime::cuda::driver_for("kiln.cuda.device.get_cusolver_handle");
    std::string why;
    const runtime::cuda::CusolverApi* api = runtime::cuda::load_cusolver_api(&why);
    if (!api) throw runtime::Error("kiln.cuda.device.get_cusolver_handle: " + why);
    return reinterpret_cast<uintptr_t>(
        runtime::cuda::cusolver_context_for_current_thread(*api, runtime::backend().current_device()).handle);
  });
  m.def("_rt_profiler_start", &rt::profiler_start);
  m.def("_rt_profiler_stop", &rt::profiler_stop);
}

}  // namespace kiln::py_bind
