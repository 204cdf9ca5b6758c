// Devices, streams and events: kiln.cuda.{Stream, Event} and device queries.
#include <pybind11/stl.h>

#include <vector>

#include "pyfrontend/bindings.h"
#include "runtime/capture.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/driver_api.h"
#include "runtime/cuda/graph.h"
#include "runtime/cuda/runtime_functions.h"
#include "runtime/cuda/library_search.h"
#include "runtime/memory_pool.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

runtime::Backend& be() { return runtime::backend(); }

class Stream {
 public:
  Stream(runtime::StreamHandle handle, bool owned, bool non_blocking = false, int priority = 0)
      : handle_(handle), owned_(owned), non_blocking_(non_blocking), priority_(priority) {
    device_ = be().current_device();
  }
  ~Stream() {
    if (owned_ && handle_) {
      try {
        // The pool must not keep chunks keyed by a dead stream (it would
        // query it later): finish the stream's work, re-home its chunks.
        be().synchronize_stream(handle_);
        runtime::forget_stream_in_all_pools(handle_);
        be().destroy_stream(handle_);
      } catch (...) {
      }
    }
  }
  runtime::StreamHandle handle() const { return handle_; }
  int device() const { return device_; }
  void set_device(int device) { device_ = device; }
  // CUDA asks the driver (streams made elsewhere included); other backends
  // report what the stream was made with.
  bool non_blocking() const {
    if (!cuda_streams()) return non_blocking_;
    return (runtime::cuda::rt::stream_flags(handle_) & runtime::cuda::kStreamNonBlocking) != 0;
  }
  int priority() const { return cuda_streams() ? runtime::cuda::rt::stream_priority(handle_) : priority_; }

 private:
  static bool cuda_streams() { return be().caps().cuda_interop; }
  runtime::StreamHandle handle_;
  bool owned_;
  bool non_blocking_;
  int priority_;
  int device_;
};

// The per-thread default stream: CUDA's CU_STREAM_PER_THREAD; elsewhere
// one stream of the process, never destroyed (a backend without CUDA
// streams runs the work of all its streams in order anyway).
runtime::StreamHandle per_thread_stream() {
  if (be().caps().cuda_interop) return static_cast<runtime::StreamHandle>(runtime::cuda::kStreamPerThread);
  static runtime::StreamHandle shared = be().create_stream(false);
  return shared;
}

class Event {
 public:
  explicit Event(bool disable_timing) : handle_(be().create_event(!disable_timing)) {}
  ~Event() {
    try {
      be().destroy_event(handle_);
    } catch (...) {
    }
  }
  runtime::EventHandle handle() const { return handle_; }
  bool recorded = false;

 private:
  runtime::EventHandle handle_;
};

// The streams made current by `with stream:` on this thread, innermost last.
thread_local std::vector<runtime::StreamHandle> tls_stream_stack;

}  // namespace

runtime::StreamHandle to_stream(py::handle obj) {
  if (obj.is_none()) return runtime::current_stream();
  if (py::isinstance<Stream>(obj)) return obj.cast<Stream&>().handle();
  if (py::hasattr(obj, "_impl")) {  // kiln.cuda.Stream wraps the C++ stream
    py::object impl = obj.attr("_impl");
    if (py::isinstance<Stream>(impl)) return impl.cast<Stream&>().handle();
  }
  throw py::type_error("stream must be a kiln.cuda.Stream or None, not '" +
                       type_name(obj) + "'");
}

void register_cuda(py::module_& m) {
  m.def("get_backend", [] { return std::string(be().name()); },
        "The backend running kernels: 'cuda' or 'host'.");
  m.def(
      "_backend_caps",
      [] {
        const runtime::BackendCaps& c = runtime::backend_caps();
        py::dict d;
        d["host_addressable"] = c.host_addressable;
        d["cuda_interop"] = c.cuda_interop;
        d["concurrent_streams"] = c.concurrent_streams;
        d["runs_kernels_on_calling_thread"] = c.runs_kernels_on_calling_thread;
        d["one_module_per_source"] = c.one_module_per_source;
        d["multiprocessor_residency"] = c.multiprocessor_residency;
        d["vendor_libraries"] = c.vendor_libraries;
        return d;
      },
      "The backend's traits (Note [Backend traits] in runtime/backend.h), a new dict of bools: what Python asks "
      "instead of comparing backend names.");
  m.def("_set_stdlib_include_dir", &runtime::set_stdlib_include_dir);
  m.def("_add_library_search_dir", [](std::string dir) { runtime::cuda::add_library_search_dir(std::move(dir)); },
        "A folder to look for NVRTC and the other CUDA libraries in (Note [CUDA library search]).");
  m.def("get_device_count", [] { return be().device_count(); });
  m.def("get_device", [] { return be().current_device(); });
  m.def("set_device", [](int d) { be().set_device(d); });
  m.def("synchronize_device", [] {
    ReleaseGil nogil;
    be().synchronize_device();
  });
  m.def("mem_get_info", [] { return be().memory_info(); });
  m.def("device_properties", [](int d) {
    auto p = be().device_properties(d);
    py::dict out;
    out["name"] = p.name;
    out["major"] = p.compute_capability_major;
    out["minor"] = p.compute_capability_minor;
    out["totalGlobalMem"] = p.total_memory;
    out["multiProcessorCount"] = p.multiprocessor_count;
    out["maxThreadsPerBlock"] = p.max_threads_per_block;
    out["sharedMemPerBlockOptin"] = p.max_shared_memory_per_block;
    out["warpSize"] = p.warp_size;
    return out;
  });

  py::class_<Stream, std::shared_ptr<Stream>>(m, "Stream")
      .def(py::init([](bool null, bool non_blocking, int priority, bool ptds) {
             if (null && ptds) throw py::value_error("a stream cannot be both null and ptds");
             if (null) return std::make_shared<Stream>(nullptr, false);
             if (ptds) return std::make_shared<Stream>(per_thread_stream(), false);
             if (priority == 0 || !be().caps().cuda_interop)
               return std::make_shared<Stream>(be().create_stream(non_blocking), true, non_blocking, priority);
             unsigned flags = non_blocking ? runtime::cuda::kStreamNonBlocking : runtime::cuda::kStreamDefault;
             return std::make_shared<Stream>(runtime::cuda::rt::stream_create(flags, priority), true, non_blocking,
                                             priority);
           }),
           py::arg("null") = false, py::arg("non_blocking") = false, py::arg("priority") = 0,
           py::arg("ptds") = false)
      .def_static(
          "_external",
          [](uintptr_t ptr) {
            return std::make_shared<Stream>(reinterpret_cast<runtime::StreamHandle>(ptr), false);
          },
          py::arg("ptr"), "A stream another library made (not destroyed by kiln).")
      .def_property_readonly("ptr", [](const Stream& s) { return reinterpret_cast<uintptr_t>(s.handle()); })
      .def_property_readonly("device_id", &Stream::device)
      .def("_set_device_id", &Stream::set_device)
      .def_property_readonly("is_non_blocking", &Stream::non_blocking)
      .def_property_readonly("priority", &Stream::priority)
      .def("begin_capture",
           [](const Stream& s, int mode) { runtime::cuda::begin_capture(s.handle(), mode); },
           py::arg("mode") = runtime::cuda::cu_capture::kModeRelaxed)
      .def("end_capture",
           [](const Stream& s) {
             // ~Graph waits for the graph's last launches (Note [Graphs]):
             // without the GIL, since a launch may run a Python host function.
             return std::shared_ptr<runtime::cuda::Graph>(runtime::cuda::end_capture(s.handle()).release(),
                                                          [](runtime::cuda::Graph* g) {
                                                            if (Py_IsInitialized() && PyGILState_Check()) {
                                                              ReleaseGil nogil;
                                                              delete g;
                                                            } else {
                                                              delete g;
                                                            }
                                                          });
           })
      .def("is_capturing",
           [](const Stream& s) {
             // No CUDA runtime: no capture, ever (Note [Stream capture]).
             return be().caps().cuda_interop && runtime::cuda::is_capturing(s.handle());
           })
      .def("launch_host_func",
           [](const Stream& s, py::object fn) {
             auto keep = keep_alive(std::move(fn));
             auto call = std::make_shared<std::function<void()>>([keep] {
               AcquireGil gil;
               try {
                 py::reinterpret_borrow<py::object>(static_cast<PyObject*>(keep.get()))();
               } catch (py::error_already_set& e) {
                 e.discard_as_unraisable("kiln.cuda.Stream.launch_host_func callback");
               }
             });
             if (!be().caps().cuda_interop) {  // work runs in order: everything queued is done
               be().synchronize_stream(s.handle());
               (*call)();
               return;
             }
             runtime::cuda::launch_host_func(s.handle(), std::move(call));
           },
           py::arg("callback"),
           "Queue callback() on the stream: it runs on a driver thread once the work before it is done; inside a "
           "capture it becomes a node of the graph.")
      .def("synchronize", [](const Stream& s) {
        ReleaseGil nogil;
        be().synchronize_stream(s.handle());
      })
      .def_property_readonly("done", [](const Stream& s) { return be().stream_done(s.handle()); })
      .def("wait_event", [](const Stream& s, const Event& e) { be().stream_wait_event(s.handle(), e.handle()); })
      .def("_use", [](const Stream& s) { runtime::set_current_stream(s.handle()); })
      .def("_push", [](const Stream& s) {
        tls_stream_stack.push_back(runtime::current_stream());
        runtime::set_current_stream(s.handle());
      })
      .def("_pop", [](const Stream&) {
        runtime::StreamHandle previous = nullptr;
        if (!tls_stream_stack.empty()) {
          previous = tls_stream_stack.back();
          tls_stream_stack.pop_back();
        }
        runtime::set_current_stream(previous);
      })
      .def("__eq__", [](const Stream& a, py::handle b) {
        return py::isinstance<Stream>(b) && b.cast<const Stream&>().handle() == a.handle();
      })
      .def("__hash__", [](const Stream& s) { return std::hash<void*>()(s.handle()); });

  py::class_<runtime::cuda::Graph, std::shared_ptr<runtime::cuda::Graph>>(m, "Graph")
      .def("launch", [](runtime::cuda::Graph& g, py::handle stream) { g.launch(to_stream(stream)); },
           py::arg("stream") = py::none())
      .def("upload", [](runtime::cuda::Graph& g, py::handle stream) { g.upload(to_stream(stream)); },
           py::arg("stream") = py::none())
      .def("debug_dot_str", [](const runtime::cuda::Graph& g, unsigned flags) { return g.debug_dot(flags); },
           py::arg("flags") = 0u);
  m.def("_current_stream_ptr", [] { return reinterpret_cast<uintptr_t>(runtime::current_stream()); });

  py::class_<Event, std::shared_ptr<Event>>(m, "Event")
      .def(py::init([](bool disable_timing) { return std::make_shared<Event>(disable_timing); }),
           py::arg("disable_timing") = false)
      .def_property_readonly("ptr", [](const Event& e) { return reinterpret_cast<uintptr_t>(e.handle()); })
      .def("record", [](Event& e, py::handle stream) {
        be().record_event(e.handle(), to_stream(stream));
        e.recorded = true;
      }, py::arg("stream") = py::none())
      .def("synchronize", [](const Event& e) {
        ReleaseGil nogil;
        be().synchronize_event(e.handle());
      })
      .def_property_readonly("done", [](const Event& e) { return be().event_done(e.handle()); })
      .def_property_readonly("_recorded", [](const Event& e) { return e.recorded; });

  m.def("get_elapsed_time", [](const Event& start, const Event& end) {
    if (!start.recorded || !end.recorded)
      throw py::value_error("both events must be recorded before get_elapsed_time");
    return be().elapsed_ms(start.handle(), end.handle());
  });
}

}  // namespace kiln::py_bind
