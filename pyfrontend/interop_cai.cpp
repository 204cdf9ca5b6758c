// The CUDA Array Interface (version 3): ndarray.__cuda_array_interface__ on
// the CUDA backend, and kiln arrays viewing any producer's memory
// (kiln.asarray of a PyTorch tensor, a Numba device array, ...).
#include <string>
#include <unordered_map>

#include "arraycore/record_dtype.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/interop_streams.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

// Memory is CUDA memory (Note [Backend traits]).
bool on_cuda() { return runtime::backend().caps().cuda_interop; }

// NumPy's typestr of each dtype ('<f4', '|b1', ...), made once.
py::object typestr_of(arraycore::DType dtype) {
  static std::unordered_map<int, py::object>* table = new std::unordered_map<int, py::object>();
  auto it = table->find(static_cast<int>(dtype));
  if (it != table->end()) return it->second;
  py::object s = to_numpy_dtype(dtype).attr("str");
  table->emplace(static_cast<int>(dtype), s);
  return s;
}

// Note [CAI export]
// Only the CUDA backend has the attribute (a host-backend array raises
// AttributeError, so hasattr() is False and consumers look elsewhere, and a
// program behaves the same on every backend). strides is None for
// C-contiguous arrays, as the interface asks; stream is the current stream
// (Note [Interop stream values]): the consumer orders its work after kiln's.
py::object cuda_array_interface(py::handle self) {
  const NDArray* a = ndarray_of(self.ptr());
  if (a == nullptr) throw py::type_error("__cuda_array_interface__ of a non-kiln array");
  if (!on_cuda())
    throw py::attribute_error("kiln arrays of the host backend have no __cuda_array_interface__: their memory "
                              "is not CUDA memory (kiln.asnumpy(a) copies to NumPy)");
  static PyObject* k_shape = PyUnicode_InternFromString("shape");
  static PyObject* k_typestr = PyUnicode_InternFromString("typestr");
  static PyObject* k_descr = PyUnicode_InternFromString("descr");
  static PyObject* k_data = PyUnicode_InternFromString("data");
  static PyObject* k_strides = PyUnicode_InternFromString("strides");
  static PyObject* k_version = PyUnicode_InternFromString("version");
  static PyObject* k_stream = PyUnicode_InternFromString("stream");
  py::object typestr = typestr_of(a->dtype());
  py::dict d;
  auto set = [&](PyObject* key, py::handle value) {
    if (PyDict_SetItem(d.ptr(), key, value.ptr()) != 0) throw py::error_already_set();
  };
  set(k_shape, to_tuple(a->shape()));
  set(k_typestr, typestr);
  if (arraycore::is_record(a->dtype())) {
    set(k_descr, to_numpy_dtype(a->dtype()).attr("descr"));   // the fields, padding included
  } else {
    py::list descr(1);
    descr[0] = py::make_tuple("", typestr);
    set(k_descr, descr);
  }
  uintptr_t ptr = a->size() == 0 ? 0 : reinterpret_cast<uintptr_t>(a->data());
  set(k_data, py::make_tuple(ptr, false));
  set(k_strides, a->c_contiguous() ? py::none() : py::object(to_tuple(a->strides())));
  set(k_version, py::int_(3));
  set(k_stream, py::int_(stream_to_int(runtime::current_stream())));
  return std::move(d);
}

arraycore::DType dtype_of_typestr(py::handle typestr) {
  static std::unordered_map<std::string, arraycore::DType>* cache =
      new std::unordered_map<std::string, arraycore::DType>();
  std::string key = py::str(typestr);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  py::object descr = py::module_::import("numpy").attr("dtype")(typestr);
  if (!descr.attr("isnative").cast<bool>())
    throw py::value_error("kiln arrays hold native byte-order values: typestr '" + key + "' is byte-swapped");
  arraycore::DType dtype = to_dtype(descr);
  cache->emplace(key, dtype);
  return dtype;
}

PyObject* item(py::handle dict, const char* key) {  // borrowed; nullptr when absent
  PyObject* v = PyDict_GetItemString(dict.ptr(), key);
  return v;
}

// Note [CAI import]
// A kiln array views the producer's memory (no copy); the producer object is
// kept alive as long as the memory is used, as the interface asks of
// consumers. With a stream (version 3), kiln's current stream waits on the
// device for the producer's stream (an event, not a host sync) unless the
// caller opted out (KILN_CUDA_ARRAY_INTERFACE_SYNC=0). The memory is taken
// to be on the current device. The interface's read-only flag is not kept:
// the array is writable (CuPy's are too; Note [Read-only arrays] could honour
// it). A null pointer is only accepted for an array without elements.
py::object from_cuda_array_interface(py::handle obj, bool sync) {
  PyObject* raw = PyObject_GetAttrString(obj.ptr(), "__cuda_array_interface__");
  if (raw == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      return py::none();
    }
    throw py::error_already_set();
  }
  py::object cai = py::reinterpret_steal<py::object>(raw);
  if (!PyDict_Check(cai.ptr()))
    throw py::type_error("__cuda_array_interface__ must be a dict, got '" + type_name(cai) + "'");
  PyObject* mask = item(cai, "mask");
  if (mask != nullptr && mask != Py_None)
    throw py::value_error("kiln does not support a __cuda_array_interface__ with a mask (masked arrays)");
  PyObject* shape_obj = item(cai, "shape");
  PyObject* typestr = item(cai, "typestr");
  PyObject* data = item(cai, "data");
  if (shape_obj == nullptr || typestr == nullptr || data == nullptr)
    throw py::type_error("__cuda_array_interface__ needs 'shape', 'typestr' and 'data'");
  // A record's fields come in descr (padding as unnamed void entries).
  PyObject* descr = item(cai, "descr");
  const bool fields = descr != nullptr && PyList_Check(descr) &&
                      !(PyList_GET_SIZE(descr) == 1 && py::str(py::handle(descr)[py::int_(0)][py::int_(0)]).cast<std::string>().empty());
  arraycore::DType dtype =
      fields ? to_dtype(py::module_::import("numpy.lib.format").attr("descr_to_dtype")(py::handle(descr)))
             : dtype_of_typestr(typestr);
  arraycore::Shape shape = to_shape(shape_obj);
  const size_t item_bytes = arraycore::itemsize(dtype);
  PyObject* strides_obj = item(cai, "strides");
  arraycore::Strides strides = (strides_obj == nullptr || strides_obj == Py_None)
                                   ? arraycore::new_array_strides(shape, item_bytes, arraycore::Order::C)
                                   : to_shape(strides_obj);
  if (strides.size() != shape.size())
    throw py::value_error("__cuda_array_interface__ strides and shape differ in length");
  if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2)
    throw py::type_error("__cuda_array_interface__ 'data' must be a (pointer, read_only) tuple");
  auto ptr = py::handle(PyTuple_GET_ITEM(data, 0)).cast<uintptr_t>();
  // Note [Array size limit] first (the constructor would say it later), then
  // the pointer: a null pointer is only valid for an array without elements.
  arraycore::checked_nbytes(shape, item_bytes);
  if (ptr == 0 && arraycore::shape_size(shape) != 0)
    throw py::value_error("__cuda_array_interface__ 'data' is a null pointer for an array of shape " +
                          arraycore::shape_repr(shape) + " (only an array without elements may have a null pointer)");
  PyObject* stream = item(cai, "stream");
  if (stream != nullptr && stream != Py_None) {
    auto s = py::handle(stream).cast<uintptr_t>();
    if (s == 0)
      throw py::value_error("__cuda_array_interface__ stream 0 is disallowed by the interface (ambiguous)");
    if (sync) stream_wait(runtime::current_stream(), stream_from_int(s));
  }
  auto [low, high] = arraycore::byte_extent(shape, strides, item_bytes);
  auto keep = keep_alive(py::reinterpret_borrow<py::object>(obj));
  auto memory = std::make_shared<arraycore::Memory>(reinterpret_cast<char*>(ptr) + low,
                                                    static_cast<size_t>(high - low),
                                                    runtime::backend().current_device(),
                                                    [keep](void*) mutable { keep.reset(); });
  return py::cast(NDArray(std::move(memory), dtype, std::move(shape), std::move(strides), -low));
}

}  // namespace

// Note [Foreign device operands]
// CuPy takes two kinds of objects wherever it takes an array: those with
// __cupy_get_ndarray__ (which returns the array they stand for) and those
// with __cuda_array_interface__ (another library's device memory, viewed in
// place). kiln does the same: ufunc and operator operands, ElementwiseKernel
// and ReductionKernel arguments, reductions, indexing and creation convert
// them here, only after the kiln-array and scalar checks have failed, so the
// common calls pay nothing.
py::object foreign_device_array(py::handle obj) {
  PyObject* o = obj.ptr();
  static auto* host_array = reinterpret_cast<PyTypeObject*>(py::object(py::module_::import("numpy").attr("ndarray")).release().ptr());
  static auto* host_scalar = reinterpret_cast<PyTypeObject*>(py::object(py::module_::import("numpy").attr("generic")).release().ptr());
  if (o == Py_None || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || PyList_Check(o) || PyTuple_Check(o) ||
      PyUnicode_Check(o) || PyBytes_Check(o) || PySlice_Check(o) || o == Py_Ellipsis || ndarray_of(o) != nullptr ||
      PyObject_TypeCheck(o, host_array) || PyObject_TypeCheck(o, host_scalar))
    return {};
  static PyObject* get_name = PyUnicode_InternFromString("__cupy_get_ndarray__");
  if (_PyType_Lookup(Py_TYPE(o), get_name) != nullptr) {
    py::object a = obj.attr(get_name)();
    if (ndarray_of(a.ptr()) == nullptr)
      throw py::type_error("__cupy_get_ndarray__ of " + type_name(obj) + " returned " + type_name(a) +
                           ", not a kiln.ndarray");
    return a;
  }
  static PyObject* sync_module = py::module_::import("kiln._interop_cai").release().ptr();
  py::object a = from_cuda_array_interface(obj, py::handle(sync_module).attr("SYNC").cast<bool>());
  return a.is_none() ? py::object() : a;
}

void register_interop(py::module_& m) {
  py::object cls = m.attr("ndarray");
  py::object property = py::module_::import("builtins").attr("property");
  cls.attr("__cuda_array_interface__") = property(
      py::cpp_function([](py::handle self) { return cuda_array_interface(self); }),
      py::none(), py::none(),
      "The CUDA Array Interface (version 3) of the array; CUDA backend only (Note [CAI export]).");
  m.def("_foreign_device_array", [](py::handle obj) {
    py::object a = foreign_device_array(obj);
    return a ? a : py::none();
  }, py::arg("obj"), "Note [Foreign device operands]: obj's kiln array, or None.");
  m.def("_from_cuda_array_interface", &from_cuda_array_interface, py::arg("obj"), py::arg("sync") = true,
        "A kiln array viewing obj's memory through obj.__cuda_array_interface__ (None when obj has none).");
}

}  // namespace kiln::py_bind
