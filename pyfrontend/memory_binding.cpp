// Memory pools, MemoryPointer and user allocators (kiln.cuda.set_allocator).
#include <pybind11/stl.h>

#include <unordered_map>

#include "arraycore/memory.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/memory_pointer.h"
#include "runtime/memory_pool.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::Memory;

runtime::MemoryPool& current_pool() {
  return runtime::default_memory_pool(runtime::backend().current_device());
}

// Memory that a Python object owns (an allocator's result, UnownedMemory):
// read its .ptr and keep the object alive as long as the Memory lives.
std::shared_ptr<Memory> memory_from_python(py::object owner, size_t nbytes) {
  py::object ptr_obj = owner.attr("ptr");
  auto ptr = reinterpret_cast<void*>(ptr_obj.cast<uintptr_t>());
  if (ptr == nullptr && nbytes != 0)   // only an empty block may be null
    throw py::value_error("null device pointer for " + std::to_string(nbytes) + " bytes of memory ('" +
                          type_name(owner) + "'.ptr is 0)");
  int device = runtime::backend().current_device();
  if (py::hasattr(owner, "device_id")) {
    py::object d = owner.attr("device_id");
    if (!d.is_none()) device = d.cast<int>();
  }
  auto keep = keep_alive(std::move(owner));
  return std::make_shared<Memory>(ptr, nbytes, device, [keep](void*) mutable { keep.reset(); });
}

// Segments from a Python allocator (kiln.cuda.MemoryPool(allocator), Note
// [Pool segment sources]): allocator(bytes) returns an object with a .ptr (a
// MemoryPointer, say), kept alive until the pool gives that segment back.
class PythonSegmentSource final : public runtime::SegmentSource {
 public:
  explicit PythonSegmentSource(py::object allocator) : allocator_(keep_alive(std::move(allocator))) {}

  void* allocate(size_t bytes) override {
    AcquireGil gil;
    py::object result = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(allocator_.get()))(bytes);
    if (!py::hasattr(result, "ptr"))
      throw py::type_error("a MemoryPool's allocator must return an object with a .ptr attribute (e.g. a "
                           "MemoryPointer), got '" + type_name(result) + "'");
    std::shared_ptr<Memory> segment = memory_from_python(std::move(result), bytes);
    void* base = segment->ptr();
    held_.emplace(base, std::move(segment));
    return base;
  }
  void deallocate(void* base) noexcept override { held_.erase(base); }   // keep_alive's deleter takes the GIL

 private:
  std::shared_ptr<void> allocator_;   // a keep_alive handle: released with the GIL, from any thread
  std::unordered_map<void*, std::shared_ptr<Memory>> held_;   // each keeps its allocator result alive
};

// A pool of its own (kiln.cuda.MemoryPool()), on the device current at its creation.
struct OwnPool {
  std::shared_ptr<runtime::MemoryPool> pool;
  int device;
};

}  // namespace

// One block of the pinned pool, returned to it when the last reference goes.
struct PinnedBlock {
  explicit PinnedBlock(size_t n) : ptr(runtime::default_pinned_memory_pool().allocate(n)), size(n) {}
  ~PinnedBlock() { runtime::default_pinned_memory_pool().deallocate(ptr); }
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  void* ptr;
  size_t size;
};

void register_memory(py::module_& m) {
  py::class_<Memory, std::shared_ptr<Memory>>(m, "Memory")
      .def_property_readonly("ptr",
                             [](const Memory& mem) { return reinterpret_cast<uintptr_t>(mem.ptr()); })
      .def_property_readonly("size", &Memory::nbytes)
      .def_property_readonly("device_id", &Memory::device);

  py::class_<MemoryPointer>(m, "MemoryPointer")
      .def(py::init([](py::object mem, int64_t offset) {
             if (py::isinstance<Memory>(mem))
               return MemoryPointer{mem.cast<std::shared_ptr<Memory>>(), offset};
             size_t size = py::hasattr(mem, "size") ? mem.attr("size").cast<size_t>() : 0;
             return MemoryPointer{memory_from_python(mem, size), offset};
           }),
           py::arg("mem"), py::arg("offset") = 0)
      .def_property_readonly("ptr", &MemoryPointer::ptr)
      .def_property_readonly("mem", [](const MemoryPointer& p) { return p.memory; })
      .def_property_readonly("device_id",
                             [](const MemoryPointer& p) { return p.memory ? p.memory->device() : 0; })
      .def("__int__", &MemoryPointer::ptr)
      .def("__repr__", [](const MemoryPointer& p) {
        return "<kiln.cuda.MemoryPointer 0x" + py::str(py::int_(p.ptr()).attr("__format__")("x")).cast<std::string>() + ">";
      });

  m.def("alloc", [](size_t nbytes) { return MemoryPointer{arraycore::allocate_memory(nbytes), 0}; },
        py::arg("size"), "Allocate device memory through the current allocator.");

  m.def("_set_allocator", [](py::object fn) {
    if (fn.is_none()) {
      arraycore::set_allocator_hook({});
      return;
    }
    auto keep = keep_alive(fn);
    arraycore::set_allocator_hook([keep](size_t nbytes) {
      AcquireGil gil;
      auto callable = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(keep.get()));
      py::object result = callable(nbytes);
      if (!py::hasattr(result, "ptr"))
        throw py::type_error("the allocator set with kiln.cuda.set_allocator must return an "
                             "object with a .ptr attribute (e.g. a MemoryPointer), got '" +
                             type_name(result) + "'");
      if (py::isinstance<MemoryPointer>(result)) {
        auto p = result.cast<MemoryPointer>();
        if (p.offset == 0 && p.memory) return p.memory;
      }
      return memory_from_python(result, nbytes);
    });
  });

  // The default pool of the current device.
  m.def("_pool_used_bytes", [] { return current_pool().used_bytes(); });
  m.def("_pool_total_bytes", [] { return current_pool().total_bytes(); });
  m.def("_pool_free_bytes", [] { return current_pool().free_bytes(); });
  m.def("_pool_n_free_blocks", [] { return current_pool().n_free_blocks(); });
  m.def("_pool_free_all_blocks", [] { current_pool().free_all_blocks(); });
  m.def("_pool_set_limit", [](size_t bytes) { current_pool().set_limit(bytes); });
  m.def("_pool_get_limit", [] { return current_pool().get_limit(); });
  m.def("_pool_malloc", [](size_t nbytes) { return MemoryPointer{arraycore::allocate_from_pool(nbytes), 0}; });

  // kiln.cuda.MemoryPool(allocator): a pool of its own, segments from the device or allocator.
  py::class_<OwnPool>(m, "_MemoryPool")
      .def(py::init([](py::object allocator) {
             std::shared_ptr<runtime::SegmentSource> source;
             if (!allocator.is_none()) {
               if (!PyCallable_Check(allocator.ptr()))
                 throw py::type_error("MemoryPool's allocator must be callable (kiln.cuda.malloc_managed, say), "
                                      "got '" + type_name(allocator) + "'");
               source = std::make_shared<PythonSegmentSource>(allocator);
             }
             runtime::Backend& be = runtime::backend();
             const int device = be.current_device();
             return OwnPool{std::make_shared<runtime::MemoryPool>(be, device, std::move(source)), device};
           }),
           py::arg("allocator") = py::none())
      .def("malloc",
           [](const OwnPool& own, size_t nbytes) {
             std::shared_ptr<runtime::MemoryPool> pool = own.pool;
             void* ptr = pool->allocate(nbytes, runtime::current_stream());
             return MemoryPointer{
                 std::make_shared<Memory>(ptr, nbytes, own.device, [pool](void* p) { pool->deallocate(p); }), 0};
           },
           py::arg("size"))
      .def("used_bytes", [](const OwnPool& own) { return own.pool->used_bytes(); })
      .def("total_bytes", [](const OwnPool& own) { return own.pool->total_bytes(); })
      .def("free_bytes", [](const OwnPool& own) { return own.pool->free_bytes(); })
      .def("n_free_blocks", [](const OwnPool& own) { return own.pool->n_free_blocks(); })
      .def("free_all_blocks", [](const OwnPool& own) { own.pool->free_all_blocks(); })
      .def("set_limit", [](const OwnPool& own, size_t bytes) { own.pool->set_limit(bytes); })
      .def("get_limit", [](const OwnPool& own) { return own.pool->get_limit(); });
  py::class_<PinnedBlock, std::shared_ptr<PinnedBlock>>(m, "PinnedMemoryPointer", py::buffer_protocol(),
                                                       "Page-locked host memory from the pinned pool; "
                                                       "a writable buffer (numpy.frombuffer takes it).")
      .def_property_readonly("ptr", [](const PinnedBlock& b) { return reinterpret_cast<uintptr_t>(b.ptr); })
      .def_property_readonly("size", [](const PinnedBlock& b) { return b.size; })
      .def("__len__", [](const PinnedBlock& b) { return b.size; })
      .def_buffer([](PinnedBlock& b) {
        return py::buffer_info(b.ptr, 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(b.size)}, {py::ssize_t{1}});
      });
  m.def("_pinned_malloc", [](size_t nbytes) { return std::make_shared<PinnedBlock>(nbytes); }, py::arg("size"));
  m.def("_pinned_n_free_blocks", [] { return runtime::default_pinned_memory_pool().n_free_blocks(); });
  m.def("_pinned_free_all_blocks", [] { runtime::default_pinned_memory_pool().free_all_blocks(); });
}

}  // namespace kiln::py_bind
