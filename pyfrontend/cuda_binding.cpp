// Devices, streams and events: kiln.cuda.{Stream, Event} and device queries.
#include <pybind11/stl.h>

#include <vector>

#include "pyfrontend/bindings.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/library_search.h"
#include "runtime/memory_pool.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

runtime::Backend& be() { return runtime::backend(); }

class Stream {
 public:
  Stream(runtime::StreamHandle handle, bool owned) : handle_(handle), owned_(owned) {
    device_ = be().current_device();
  }
  ~Stream() {
    if (owned_ && handle_) {
      try {
        // The pool must not keep chunks keyed by a dead stream (it would
        // query it later): finish the stream's work, re-home its chunks.
        be().synchronize_stream(handle_);
        runtime::forget_stream_in_default_pools(handle_);
        be().destroy_stream(handle_);
      } catch (...) {
      }
    }
  }
  runtime::StreamHandle handle() const { return handle_; }
  int device() const { return device_; }

 private:
  runtime::StreamHandle handle_;
  bool owned_;
  int device_;
};

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
        const runtime::BackendCaps& c = be().caps();
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
      .def(py::init([](bool null, bool non_blocking) {
             if (null) return std::make_shared<Stream>(nullptr, false);
             return std::make_shared<Stream>(be().create_stream(non_blocking), true);
           }),
           py::arg("null") = false, py::arg("non_blocking") = false)
      .def_static(
          "_external",
          [](uintptr_t ptr) {
            return std::make_shared<Stream>(reinterpret_cast<runtime::StreamHandle>(ptr), false);
          },
          py::arg("ptr"), "A stream another library made (not destroyed by kiln).")
      .def_property_readonly("ptr", [](const Stream& s) { return reinterpret_cast<uintptr_t>(s.handle()); })
      .def_property_readonly("device_id", &Stream::device)
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
