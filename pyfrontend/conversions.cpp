// Python <-> C++ conversions shared by the binding files.
#include <pybind11/stl.h>

#include <array>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "arraycore/record_dtype.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

py::module_& numpy() {
  static py::module_* np = new py::module_(py::module_::import("numpy"));
  return *np;
}

// Note [dtype cache]: numpy.dtype() costs about a microsecond; the objects
// users pass (np.float32, float, dtype('f') singletons) are few, so remember
// them by identity, holding a reference so the address cannot be reused.
std::unordered_map<PyObject*, arraycore::DType>& dtype_cache() {
  static auto* cache = new std::unordered_map<PyObject*, arraycore::DType>();
  return *cache;
}

// Note [Record dtypes] at the boundary: a NumPy structured or V<n> dtype as
// its interned layout (fields in NumPy's order, nested ones recursively).
arraycore::DType record_of(py::handle descr) {
  if (descr.attr("hasobject").cast<bool>())
    throw py::value_error("kiln arrays cannot hold Python objects: dtype " + std::string(py::str(py::repr(descr))) +
                          " has object fields");
  arraycore::RecordLayout layout;
  layout.itemsize = descr.attr("itemsize").cast<int64_t>();
  const std::string kind = py::str(descr.attr("kind"));
  if (kind == "M" || kind == "m") {   // datetime64, timedelta64: opaque 8-byte values, as CuPy holds them
    layout.numpy_name = py::str(descr.attr("str"));
    return arraycore::record_dtype(layout);
  }
  layout.aligned = descr.attr("isalignedstruct").cast<bool>();
  py::object names = descr.attr("names");
  if (!names.is_none()) {
    py::dict fields = descr.attr("fields");
    for (py::handle name : names) {
      py::tuple f = fields[name];
      arraycore::RecordField field;
      field.name = py::str(name);
      field.offset = f[1].cast<int64_t>();
      py::object type = f[0];
      if (!type.attr("subdtype").is_none()) {
        field.subarray = to_shape(type.attr("shape"));
        type = type.attr("base");
      }
      field.dtype = std::string(py::str(type.attr("kind"))) == "V" ? record_of(type) : to_dtype(type);
      layout.fields.push_back(std::move(field));
    }
  }
  return arraycore::record_dtype(layout);
}

// NumPy's dtype of a record layout, built from the layout.
py::object numpy_record(arraycore::DType dtype) {
  const arraycore::RecordLayout& l = arraycore::record_layout(dtype);
  if (!l.numpy_name.empty()) return numpy().attr("dtype")(l.numpy_name);
  if (l.fields.empty()) return numpy().attr("dtype")("V" + std::to_string(l.itemsize));
  py::list names, formats, offsets;
  for (const auto& f : l.fields) {
    names.append(f.name);
    py::object type = to_numpy_dtype(f.dtype);
    formats.append(f.subarray.empty() ? type : py::object(py::make_tuple(type, to_tuple(f.subarray))));
    offsets.append(f.offset);
  }
  py::dict spec;
  spec["names"] = names;
  spec["formats"] = formats;
  spec["offsets"] = offsets;
  spec["itemsize"] = l.itemsize;
  return numpy().attr("dtype")(spec, py::arg("align") = l.aligned);
}

}  // namespace

std::optional<arraycore::DType> kiln_dtype_of(py::handle descr) {
  std::string ch = py::str(descr.attr("char"));
  std::optional<arraycore::DType> dtype;
  const bool sized = py::int_(descr.attr("itemsize")).cast<size_t>() > 0;
  if (ch.size() == 1 && sized) dtype = arraycore::dtype_from_char(ch[0]);
  // Note [User dtype chars]: a user dtype's char may be any letter (ml_dtypes'
  // float8_e4m3b11fnuz is 'L', kind 'V'): a dtype is kiln's only when its kind
  // agrees too, and bfloat16 (kind 'V' in NumPy, Note [Bfloat16 is a float]) by name.
  if (dtype) {
    const std::string kind = py::str(descr.attr("kind"));
    const bool ok = *dtype == arraycore::DType::BFloat16
                        ? kind == "V" && std::string(py::str(descr.attr("name"))) == "bfloat16"
                        : kind.size() == 1 && kind[0] == arraycore::dtype_info(*dtype).kind;
    if (!ok) dtype.reset();
  }
  // Records, V<n>, and the datetime types kiln holds as bytes (Note [Record dtypes]).
  if (!dtype && (ch == "V" || ch == "M" || ch == "m") && descr.attr("subdtype").is_none() && sized)
    dtype = record_of(descr);
  return dtype;
}

arraycore::DType to_dtype(py::handle obj, bool any_byte_order) {
  auto& cache = dtype_cache();
  if (auto it = cache.find(obj.ptr()); it != cache.end()) return it->second;
  py::object descr = numpy().attr("dtype")(obj.is_none() ? py::handle(numpy().attr("float64")) : obj);
  const bool native = descr.attr("isnative").cast<bool>();
  if (!native && !any_byte_order)   // as CuPy: device arrays are never byte-swapped
    throw py::value_error("kiln arrays hold native byte-order values: " + std::string(py::str(py::repr(descr))) +
                          " is byte-swapped (use its native-order equivalent, dtype.newbyteorder('='))");
  std::optional<arraycore::DType> dtype = kiln_dtype_of(descr);
  if (!dtype) {
    // ValueError, as CuPy's "Unsupported dtype" (NumPy has no such case).
    throw py::value_error("Unsupported dtype " + std::string(py::str(py::repr(descr))) +
                          ": kiln arrays hold numbers only (use bool, integer, float, complex, bfloat16, "
                          "structured or void dtypes)");
  }
  // Cache type objects and dtype instances only (both live for the process).
  if (native && (PyType_Check(obj.ptr()) || py::isinstance(obj, numpy().attr("dtype")))) {
    obj.inc_ref();
    cache.emplace(obj.ptr(), *dtype);
  }
  return *dtype;
}

py::object to_numpy_dtype(arraycore::DType dtype) {
  static std::array<PyObject*, 256> table{};
  auto& slot = table[static_cast<size_t>(dtype)];
  if (!slot) {
    // bfloat16 is ml_dtypes' (imported only when a bfloat16 array is made).
    py::object d = arraycore::is_record(dtype) ? numpy_record(dtype)
                   : dtype == arraycore::DType::BFloat16
                       ? numpy().attr("dtype")(py::module_::import("ml_dtypes").attr("bfloat16"))
                       : numpy().attr("dtype")(std::string(arraycore::dtype_info(dtype).name));
    slot = d.release().ptr();
  }
  return py::reinterpret_borrow<py::object>(slot);
}

std::string type_name(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

runtime::Dim3 to_dim3(PyObject* o, const char* what) {
  uint32_t v[3] = {1, 1, 1};
  auto one = [&](PyObject* h, int i) {
    long long x;
    if (PyLong_CheckExact(h)) {
      int overflow = 0;
      x = PyLong_AsLongLongAndOverflow(h, &overflow);
      if (overflow) x = -1;
    } else if (PyIndex_Check(h)) {
      x = to_index(h);
    } else {
      throw py::type_error(std::string(what) + " must be an int or a tuple of up to 3 ints, got '" + type_name(h) + "'");
    }
    if (x <= 0 || x > std::numeric_limits<uint32_t>::max())
      throw py::value_error(std::string(what) + " dimension " + std::to_string(i) + " must be positive and fit in 32 bits, got " +
                            std::to_string(x));
    v[i] = static_cast<uint32_t>(x);
  };
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n < 1 || n > 3) throw py::value_error(std::string(what) + " must have 1 to 3 dimensions, got " + std::to_string(n));
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; ++i) one(items[i], static_cast<int>(i));
  } else {
    one(o, 0);
  }
  return {v[0], v[1], v[2]};
}

int64_t to_index(py::handle obj) {
  PyObject* index = PyNumber_Index(obj.ptr());
  if (!index) throw py::error_already_set();
  long long value = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
  return value;
}

namespace {
// One extent of a shape: an extent beyond int64 is NumPy's ValueError, not
// OverflowError (Note [Array size limit] in arraycore/ndarray.h).
int64_t to_extent(py::handle obj) {
  PyObject* index = PyNumber_Index(obj.ptr());
  if (!index) throw py::error_already_set();
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (overflow) throw py::value_error("Maximum allowed dimension exceeded");
  if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
  return value;
}
}  // namespace

arraycore::Shape to_shape(py::handle obj) {
  arraycore::Shape shape;
  if (!PySequence_Check(obj.ptr())) {
    if (PyLong_Check(obj.ptr()) || PyIndex_Check(obj.ptr())) {
      shape.push_back(to_extent(obj));
      return shape;
    }
    if (obj.is_none()) throw py::type_error("Use () not None as shape arguments");   // NumPy's words
    throw py::type_error("shape must be an int or a sequence of ints, not '" + type_name(obj) + "'");
  }
  for (py::handle item : obj) shape.push_back(to_extent(item));
  return shape;
}

py::tuple to_tuple(const std::vector<int64_t>& values) {
  py::tuple t(values.size());
  for (size_t i = 0; i < values.size(); ++i) t[i] = py::int_(values[i]);
  return t;
}

arraycore::Order to_order(py::handle obj) {
  if (obj.is_none()) return arraycore::Order::C;
  std::string s = py::str(obj);
  if (s == "C" || s == "c") return arraycore::Order::C;
  if (s == "F" || s == "f") return arraycore::Order::F;
  throw py::value_error("order must be one of 'C' or 'F', got '" + s + "'");
}

std::shared_ptr<void> keep_alive(py::object obj) {
  auto* raw = obj.release().ptr();
  return std::shared_ptr<void>(raw, [](void* p) {
    if (!Py_IsInitialized()) return;
    AcquireGil gil;
    Py_DECREF(static_cast<PyObject*>(p));
  });
}

void install_method(py::handle cls, PyMethodDef* def) {
  PyObject* descr = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (descr == nullptr) throw py::error_already_set();
  cls.attr(def->ml_name) = py::reinterpret_steal<py::object>(descr);
}

}  // namespace kiln::py_bind
