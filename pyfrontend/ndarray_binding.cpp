// kiln._core.ndarray and the creation/transfer functions this issue needs.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arraycore/advanced_indexing.h"
#include "arraycore/copy.h"
#include "arraycore/creation.h"
#include "arraycore/indexing.h"
#include "arraycore/record_dtype.h"
#include "arraycore/transfer.h"
#include "arraycore/views.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/memory_pointer.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::NDArray;

// One key item as an IndexItem when basic indexing covers it; nullopt for
// what needs advanced indexing (arrays, lists, tuples, booleans).
std::optional<arraycore::IndexItem> basic_item(PyObject* k) {
  using arraycore::IndexItem;
  if (PyLong_CheckExact(k)) return IndexItem::integer(to_index(k));
  if (PySlice_Check(k)) {
    auto part = [](PyObject* v) -> std::optional<int64_t> {
      if (v == Py_None) return std::nullopt;
      return to_index(v);
    };
    auto* s = reinterpret_cast<PySliceObject*>(k);
    return IndexItem::slice(part(s->start), part(s->stop), part(s->step));
  }
  if (k == Py_Ellipsis) return IndexItem::ellipsis();
  if (k == Py_None) return IndexItem::newaxis();
  if (PyBool_Check(k) || ndarray_of(k) != nullptr || is_host_index_array(k)) return std::nullopt;
  bool text = PyUnicode_Check(k) || PyBytes_Check(k);
  if (!text && PyIndex_Check(k) == 0 && PySequence_Check(k)) return std::nullopt;
  if (PyIndex_Check(k)) return IndexItem::integer(to_index(k));
  if (!text && foreign_device_array(k)) return std::nullopt;   // Note [Foreign device operands]: an index array
  throw py::index_error("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                        "integer or boolean arrays are valid indices");
}

// A Python index (int, slice, Ellipsis, None, or a tuple of them) as
// IndexItems; false (items unspecified) when it needs advanced indexing.
bool to_index_items(py::handle key, std::vector<arraycore::IndexItem>& items) {
  auto one = [&](PyObject* k) {
    std::optional<arraycore::IndexItem> item = basic_item(k);
    if (item) items.push_back(*item);
    return item.has_value();
  };
  if (!PyTuple_Check(key.ptr())) return one(key.ptr());
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key.ptr()); ++i)
    if (!one(PyTuple_GET_ITEM(key.ptr(), i))) return false;
  return true;
}

// a['name'] and a[['n1', 'n2']] of a structured array: the field view
// (Note [Record dtypes]); nullopt for any other key.
std::optional<NDArray> field_key_view(const NDArray& a, py::handle key) {
  if (!arraycore::is_structured(a.dtype())) return std::nullopt;
  if (PyUnicode_Check(key.ptr())) return arraycore::field_view(a, py::str(key).cast<std::string>());
  if (!PyList_Check(key.ptr()) || PyList_GET_SIZE(key.ptr()) == 0) return std::nullopt;
  std::vector<std::string> names;
  for (py::handle k : key) {
    if (!PyUnicode_Check(k.ptr())) return std::nullopt;
    names.push_back(py::str(k));
  }
  try {
    return arraycore::fields_view(a, names);
  } catch (const std::out_of_range& e) {
    throw py::key_error(e.what());
  }
}

// NumPy warns when a cast drops imaginary parts (complex -> bool reads both
// parts: no warning).
void warn_if_discarding_imaginary(arraycore::DType from, arraycore::DType to) {
  const char to_kind = arraycore::dtype_info(to).kind;
  if (arraycore::dtype_info(from).kind == 'c' && to_kind != 'c' && to_kind != 'b') {
    py::object warning = py::module_::import("numpy").attr("exceptions").attr("ComplexWarning");
    if (PyErr_WarnEx(warning.ptr(), "Casting complex values to real discards the imaginary part", 1) != 0)
      throw py::error_already_set();
  }
}

// Note [Assigned host values]
// A host value written into an array (setitem, fill, full, put, place) is
// converted as NumPy 2's assignment converts it. A scalar (Python's or
// NumPy's) is packed into one element of the array's dtype by NumPy itself,
// so a Python int out of range is OverflowError ("Python integer 300 out of
// bounds for int8"), NaN into an integer dtype ValueError ("cannot convert
// float NaN to integer"), a Python complex into a real dtype TypeError. A
// sequence converts element by element under the same rules
// (numpy.asarray(value, dtype)); a NumPy array is cast unsafely, with
// ComplexWarning for complex -> real, as NumPy's assignment does.
py::object assigned_host_value(py::handle value, arraycore::DType dtype) {
  py::module_ np = py::module_::import("numpy");
  py::object target = to_numpy_dtype(dtype);
  if (py::isinstance(value, np.attr("ndarray"))) return value.attr("astype")(target);
  PyObject* v = value.ptr();
  if (PySequence_Check(v) && !PyUnicode_Check(v) && !PyBytes_Check(v) &&
      !py::isinstance(value, np.attr("generic")))
    return np.attr("asarray")(value, target);
  py::object host = np.attr("empty")(py::tuple(), target);
  if (PyObject_SetItem(host.ptr(), py::tuple().ptr(), v) != 0) throw py::error_already_set();
  return host;
}

// asnumpy / ndarray.get: a new NumPy array in `order`, or `out` filled.
// A C-contiguous destination is written directly (no host temporary).
py::object to_numpy(const NDArray& a, py::handle stream, py::handle order, py::handle out, bool blocking) {
  py::module_ np = py::module_::import("numpy");
  runtime::StreamHandle s = to_stream(stream);
  py::object shape = to_tuple(a.shape());
  py::object dtype = to_numpy_dtype(a.dtype());
  py::object dst = py::reinterpret_borrow<py::object>(out);
  if (out.is_none()) {
    arraycore::Order o = to_order(order);
    dst = np.attr("empty")(shape, dtype, o == arraycore::Order::F ? "F" : "C");
  } else {
    if (!py::isinstance(out, np.attr("ndarray")))
      throw py::type_error("out must be a numpy.ndarray, got " + type_name(out));
    if (!py::object(out.attr("shape")).equal(shape) || !py::object(out.attr("dtype")).equal(dtype))
      throw py::value_error("out must have shape " + std::string(py::str(shape)) + " and dtype " +
                            std::string(py::str(dtype)) + ", got " + std::string(py::str(out.attr("shape"))) +
                            " and " + std::string(py::str(out.attr("dtype"))));
    if (!out.attr("flags").attr("writeable").cast<bool>()) throw py::value_error("out is read-only");
  }
  py::array host = dst.cast<py::array>();
  if (host.flags() & py::array::c_style) {
    ReleaseGil unlocked;
    arraycore::copy_to_host(a, host.mutable_data(), s, blocking);
    return dst;
  }
  if (host.flags() & py::array::f_style) {
    // Fortran-ordered destination: download a's transpose, which is C order there.
    arraycore::Shape shape_t(a.shape().rbegin(), a.shape().rend());
    arraycore::Strides strides_t(a.strides().rbegin(), a.strides().rend());
    NDArray t(a.memory(), a.dtype(), shape_t, strides_t, a.offset());
    ReleaseGil unlocked;
    arraycore::copy_to_host(t, host.mutable_data(), s, true);
    return dst;
  }
  py::array packed(dtype, a.shape());
  {
    ReleaseGil unlocked;
    arraycore::copy_to_host(a, packed.mutable_data(), s, true);
  }
  np.attr("copyto")(dst, packed);
  return dst;
}

NDArray from_numpy(py::handle obj, py::handle dtype) {
  py::module_ np = py::module_::import("numpy");
  py::object arr = np.attr("asarray")(obj);  // keeps 0-d arrays 0-d
  if (!dtype.is_none()) arr = arr.attr("astype")(dtype, py::arg("copy") = false);
  std::vector<int> c_order(arr.attr("ndim").cast<size_t>());
  for (size_t d = 0; d < c_order.size(); ++d) c_order[d] = static_cast<int>(d);
  return upload_host_array(arr, c_order);
}

// Note [View bases]
// NDArray (C++) knows only the memory it shares; which Python array a view
// came from is front-end business. A view holds `base`: the array that owns
// the memory (a view of a view points at the owner, as in NumPy), so `base`
// and `flags.owndata` answer as NumPy's do and the owner stays alive while
// views exist. It sits in a slot of its own after pybind11's instance
// (ndarray_type_setup), not in an instance dict: as CuPy's, a plain
// kiln.ndarray takes no attributes of its own (a subclass's instances do).
Py_ssize_t g_base_offset = 0;  // the base slot's offset in every ndarray instance

PyObject*& base_slot(PyObject* array) {
  return *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(array) + g_base_offset);
}

int ndarray_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(base_slot(self));
  Py_VISIT(Py_TYPE(self));  // a heap type's instances visit their type
  return 0;
}

int ndarray_clear(PyObject* self) {
  Py_CLEAR(base_slot(self));
  return 0;
}

void ndarray_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(base_slot(self));
  py::detail::pybind11_object_dealloc(self);
}

void ndarray_type_setup(PyHeapTypeObject* heap_type) {
  PyTypeObject* type = &heap_type->ht_type;
  g_base_offset = type->tp_basicsize;
  type->tp_basicsize += sizeof(PyObject*);
  type->tp_flags |= Py_TPFLAGS_HAVE_GC;
  type->tp_traverse = ndarray_traverse;
  type->tp_clear = ndarray_clear;
  type->tp_dealloc = ndarray_dealloc;
}

void set_base(py::handle array, PyObject* base) {
  PyObject*& slot = base_slot(array.ptr());
  Py_XINCREF(base);
  Py_XSETREF(slot, base);
}

// The array's base (borrowed; nullptr when it owns its memory).
PyObject* base_of(py::handle array) { return base_slot(array.ptr()); }

}  // namespace

py::object make_view(py::handle source, NDArray view) {
  py::object out = py::cast(std::move(view));
  PyObject* base = base_of(source);
  set_base(out, base != nullptr ? base : source.ptr());
  return out;
}

namespace {

PyTypeObject* g_ndarray_type = nullptr;

}  // namespace

// Note [Array subclasses]
// A Python class derived from kiln.ndarray (CuPy's tests and libraries do
// it) gets instances of itself where NumPy's subclass protocol gives them:
// a.view(C) and view(type=C), and the new outputs of a ufunc or operator
// with a C operand (the first such operand's type). The instance holds the
// array as every kiln.ndarray does (allocated by the class's tp_new, the
// NDArray placed as pybind11 places a returned value), so every fast path
// reads it through ndarray_of. Then C.__array_finalize__(source) runs, where
// source is the array viewed or the ufunc's first C operand, as in NumPy:
// attributes set there (a unit, a name) carry over. Other functions return
// kiln.ndarray, as CuPy's do.
py::object subclass_instance(py::handle type, NDArray value, py::handle source, py::handle base) {
  auto* t = reinterpret_cast<PyTypeObject*>(type.ptr());
  // The bare instance, as pybind11 allocates one (never t->tp_new: that is
  // the class's __new__, which builds an array from arguments).
  py::object self = py::reinterpret_steal<py::object>(py::detail::make_new_instance(t));
  if (!self) throw py::error_already_set();
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  py::detail::value_and_holder v_h = inst->get_value_and_holder(py::detail::get_type_info(typeid(NDArray)));
  v_h.value_ptr() = new NDArray(std::move(value));
  inst->owned = true;
  v_h.type->init_instance(inst, nullptr);
  if (base) set_base(self, base.ptr());
  py::object finalize = py::getattr(type, "__array_finalize__", py::none());
  if (!finalize.is_none()) self.attr("__array_finalize__")(source ? source : py::none());
  return self;
}

py::handle first_subclass_instance(std::span<const py::handle> objs) {
  for (py::handle o : objs)
    if (Py_TYPE(o.ptr()) != g_ndarray_type && ndarray_of(o.ptr()) != nullptr) return o;
  return {};
}

const NDArray* ndarray_of(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  if (t != g_ndarray_type && (g_ndarray_type == nullptr || !PyType_IsSubtype(t, g_ndarray_type))) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(obj);
  if (inst->simple_layout) return static_cast<const NDArray*>(inst->simple_value_holder[0]);
  return static_cast<const NDArray*>(inst->get_value_and_holder().value_ptr());
}

namespace {

// kiln.ndarray(shape, dtype, memptr, strides, order): CuPy's constructor.
NDArray construct_array(py::handle shape, py::handle dtype, py::handle memptr, py::handle strides,
                        py::handle order) {
  const arraycore::DType dt = to_dtype(dtype);
  arraycore::Shape s = to_shape(shape);
  if (memptr.is_none()) {
    NDArray fresh = NDArray::empty(s, dt, to_order(order));
    if (strides.is_none()) return fresh;
    // As CuPy: new memory of the contiguous size, which the given strides must stay inside.
    arraycore::Strides st = to_shape(strides);
    if (st.size() != s.size())
      throw py::value_error("ndarray() with strides " + std::string(py::str(strides)) +
                            " needs one stride per dimension of shape " + std::string(py::str(shape)));
    const auto [low, high] = arraycore::byte_extent(s, st, arraycore::itemsize(dt));
    if (low < 0 || high > fresh.nbytes())
      throw py::value_error("ndarray() with strides " + std::string(py::str(strides)) + " reaches bytes [" +
                            std::to_string(low) + ", " + std::to_string(high) + ") of the " +
                            std::to_string(fresh.nbytes()) +
                            " bytes allocated for its shape (pass memptr for a larger or offset layout)");
    return NDArray(fresh.memory(), dt, std::move(s), std::move(st), 0);
  }
  if (!py::isinstance<MemoryPointer>(memptr))
    throw py::type_error("memptr must be a kiln.cuda.MemoryPointer, not '" + type_name(memptr) + "'");
  const auto& p = memptr.cast<const MemoryPointer&>();
  if (!p.memory) throw py::value_error("memptr points to no memory");
  arraycore::Strides st = strides.is_none()
                              ? arraycore::contiguous_strides(s, arraycore::itemsize(dt), to_order(order))
                              : to_shape(strides);
  return arraycore::array_over_memory(p.memory, p.offset, dt, std::move(s), std::move(st));
}

PyObject* ndarray_init(PyObject*, PyObject*, PyObject*) { Py_RETURN_NONE; }

PyMethodDef g_init_def = {"__init__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ndarray_init)),
                          METH_VARARGS | METH_KEYWORDS,
                          "Does nothing: the array is built by __new__ (Note [Array construction])."};

}  // namespace

void register_ndarray(py::module_& m) {
  py::class_<NDArray> cls(m, "ndarray", py::custom_type_setup(ndarray_type_setup));
  g_ndarray_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  install_method(cls, &g_init_def);
  cls
      // Note [Array construction]
      // As CuPy's, kiln.ndarray builds the array in __new__ and its __init__
      // takes and ignores any arguments: a subclass whose __new__ takes
      // keywords of its own (C(shape, info=...)) calls super().__new__ with
      // the rest, and type.__call__ then passes the whole call to __init__.
      // A subclass's instance is made as every subclass instance is (Note
      // [Array subclasses]), so its __array_finalize__(None) runs, as in CuPy.
      .def_static(
          "__new__",
          [](py::handle cls, py::handle shape, py::handle dtype, py::handle memptr, py::handle strides,
             py::handle order) -> py::object {
            NDArray a = construct_array(shape, dtype, memptr, strides, order);
            if (cls.ptr() == reinterpret_cast<PyObject*>(g_ndarray_type)) return py::cast(std::move(a));
            if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()),
                                                              g_ndarray_type))
              throw py::type_error("ndarray.__new__(X): X must be a subtype of kiln.ndarray");
            return subclass_instance(cls, std::move(a), py::handle(), py::handle());
          },
          py::arg("cls"), py::arg("shape"), py::arg("dtype") = py::none(), py::arg("memptr") = py::none(),
          py::arg("strides") = py::none(), py::arg("order") = "C",
          "ndarray(shape, dtype=float, memptr=None, strides=None, order='C'): new memory, or a view of "
          "memptr's (every byte inside its allocation).")

      .def_property(
          "shape", [](const NDArray& a) { return to_tuple(a.shape()); },
          // NumPy's in-place reshape: only where a view of the same memory
          // has the new shape (one -1 allowed); the array object itself changes.
          [](NDArray& a, py::handle shape) {
            const arraycore::Shape s = arraycore::resolve_reshape(to_shape(shape), a.size());
            std::optional<arraycore::Strides> strides = arraycore::reshape_strides(a, s, arraycore::Order::C);
            if (!strides)
              throw py::attribute_error("Incompatible shape for in-place modification. Use `.reshape()` to make a "
                                        "copy with the desired shape.");
            a = arraycore::reshape(a, s, 'C', arraycore::CopyMode::Never);
          },
          "The array's dimensions; assigning reshapes in place where a view can (numpy.ndarray.shape).")
      .def_property_readonly("strides", [](const NDArray& a) { return to_tuple(a.strides()); })
      .def_property_readonly("dtype", [](const NDArray& a) { return to_numpy_dtype(a.dtype()); })
      .def_property_readonly("ndim", &NDArray::ndim)
      .def_property_readonly("size", &NDArray::size)
      .def_property_readonly("itemsize", &NDArray::itemsize)
      .def_property_readonly("nbytes", &NDArray::nbytes)
      .def_property_readonly("data",
                             [](const NDArray& a) { return MemoryPointer{a.memory(), a.offset()}; })
      .def_property_readonly("_c_contiguous", &NDArray::c_contiguous)
      .def_property_readonly("_f_contiguous", &NDArray::f_contiguous)
      .def_property_readonly("_device_id", &NDArray::device)
      .def_property(
          "_writeable", &NDArray::writeable,
          [](py::handle self, bool writeable) {
            // Note [Read-only arrays]: as NumPy, a view of a read-only array
            // (its base, Note [View bases]) cannot be made writeable.
            PyObject* base = base_of(self);
            const NDArray* owner = base ? ndarray_of(base) : nullptr;
            if (writeable && owner != nullptr && !owner->writeable())
              throw py::value_error("cannot set WRITEABLE flag to True of this array");
            self.cast<const NDArray&>().set_writeable(writeable);
          },
          "flags.writeable (Note [Read-only arrays]).")
      .def_property_readonly("base",
                             [](py::handle self) -> py::object {
                               PyObject* base = base_of(self);
                               return base ? py::reinterpret_borrow<py::object>(base) : py::none();
                             },
                             "The array whose memory this view shares (None when it owns its memory).")
      .def(
          "view",
          [](py::handle self, py::handle dtype, py::handle type) -> py::object {
            const NDArray& a = self.cast<const NDArray&>();
            // view(kiln.ndarray) and view(type=kiln.ndarray) are the same array
            // type; an array class in the dtype position is a type, as in NumPy.
            if (type.is_none() && PyType_Check(dtype.ptr())) {
              py::object host_array = py::module_::import("numpy").attr("ndarray");
              if (PyObject_IsSubclass(dtype.ptr(), py::type::of<NDArray>().ptr()) == 1 ||
                  PyObject_IsSubclass(dtype.ptr(), host_array.ptr()) == 1)
                std::swap(dtype, type);
            }
            if (!type.is_none() && PyType_Check(type.ptr()) &&
                PyObject_IsSubclass(type.ptr(), py::module_::import("numpy").attr("ndarray").ptr()) == 1)
              throw py::value_error("a kiln array cannot be viewed as " + std::string(py::str(py::repr(type))) +
                                    ": its memory is device memory (kiln.asnumpy(a) copies it to the host)");
            if (!type.is_none() && !(PyType_Check(type.ptr()) &&
                                     PyObject_IsSubclass(type.ptr(), py::type::of<NDArray>().ptr()) == 1))
              throw py::type_error("view's type must be kiln.ndarray (a kiln array cannot be viewed as " +
                                   std::string(py::str(py::repr(type))) + ")");
            NDArray v = dtype.is_none() ? a.view(a.dtype()) : a.view(to_dtype(dtype));
            if (type.is_none() || type.ptr() == reinterpret_cast<PyObject*>(g_ndarray_type)) {
              if (Py_TYPE(self.ptr()) == g_ndarray_type || !type.is_none()) return make_view(self, std::move(v));
              type = reinterpret_cast<PyObject*>(Py_TYPE(self.ptr()));   // a subclass's view keeps its class
            }
            PyObject* base = base_of(self);
            return subclass_instance(type, std::move(v), self, base != nullptr ? base : self.ptr());
          },
          py::arg("dtype") = py::none(), py::arg("type") = py::none(),
          "The same memory seen as another dtype (numpy.ndarray.view).")
      .def_property(
          "real",
          [](py::handle self) -> py::object {
            const NDArray& a = self.cast<const NDArray&>();
            if (arraycore::dtype_info(a.dtype()).kind == 'c') return make_view(self, a.complex_part(false));
            return py::reinterpret_borrow<py::object>(self);   // the array itself, as NumPy
          },
          [](py::handle self, py::handle value) {
            py::object part = self.attr("real");
            part.attr("__setitem__")(py::ellipsis(), value);
          },
          "The real part: a view of a complex array, the array itself otherwise (settable).")
      .def_property(
          "imag",
          [](py::handle self) -> py::object {
            const NDArray& a = self.cast<const NDArray&>();
            if (arraycore::dtype_info(a.dtype()).kind == 'c') return make_view(self, a.complex_part(true));
            // NumPy gives a new (read-only) array of zeros for real dtypes.
            return py::cast(NDArray::zeros(a.shape(), a.dtype()));
          },
          [](py::handle self, py::handle value) {
            const NDArray& a = self.cast<const NDArray&>();
            if (arraycore::dtype_info(a.dtype()).kind != 'c')
              throw py::type_error("array does not have imaginary part to set");
            py::object part = self.attr("imag");
            part.attr("__setitem__")(py::ellipsis(), value);
          },
          "The imaginary part: a view for complex arrays (settable), zeros otherwise.")
      .def("astype",
           [](py::object self, py::handle dtype, py::handle order, py::handle casting, bool copy) -> py::object {
             const NDArray& a = self.cast<const NDArray&>();
             arraycore::DType d = to_dtype(dtype);
             std::string o = order.is_none() ? "K" : std::string(py::str(order));
             if (!casting.is_none() && !arraycore::can_cast(a.dtype(), d, to_casting(casting))) {
                 throw py::type_error("Cannot cast array data from " +
                                      std::string(py::str(py::repr(to_numpy_dtype(a.dtype())))) + " to " +
                                      std::string(py::str(py::repr(to_numpy_dtype(d)))) +
                                      " according to the rule '" + std::string(py::str(casting)) + "'");
             }
             arraycore::Order target = (o == "F" || (o != "C" && a.f_contiguous() && !a.c_contiguous()))
                                           ? arraycore::Order::F
                                           : arraycore::Order::C;
             if (o != "C" && o != "F" && o != "A" && o != "K")
               throw py::value_error("order must be one of 'C', 'F', 'A', or 'K' (got '" + o + "')");
             if (!copy && d == a.dtype() &&
                 ((target == arraycore::Order::C && a.c_contiguous()) ||
                  (target == arraycore::Order::F && a.f_contiguous())))
               return self;
             warn_if_discarding_imaginary(a.dtype(), d);
             return py::cast(o == "K" ? arraycore::astype_keeping_order(a, d) : arraycore::astype(a, d, target));
           },
           py::arg("dtype"), py::arg("order") = "K", py::arg("casting") = py::none(), py::arg("copy") = true,
           "A copy converted to dtype (NumPy's casting rules for casting=; default unsafe).")
      .def("copy",
           [](const NDArray& a, py::handle order) {
             std::string o = order.is_none() ? "C" : std::string(py::str(order));
             if (o == "K") return arraycore::astype_keeping_order(a, a.dtype());
             arraycore::Order target = (o == "F" || (o == "A" && a.f_contiguous() && !a.c_contiguous()))
                                           ? arraycore::Order::F
                                           : arraycore::Order::C;
             return arraycore::astype(a, a.dtype(), target);
           },
           py::arg("order") = "C")
      .def("__getitem__",
           [](py::handle self, py::handle key) -> py::object {
             const NDArray& a = self.cast<const NDArray&>();
             if (std::optional<NDArray> field = field_key_view(a, key)) return make_view(self, *field);
             std::vector<arraycore::IndexItem> items;
             if (to_index_items(key, items)) return make_view(self, arraycore::index_view(a, items));
             std::vector<py::object> keep;
             return py::cast(arraycore::advanced_getitem(a, to_advanced_key(key, keep)));
           })
      .def("__setitem__",
           [](const NDArray& a, py::handle key, py::handle value) {
             if (std::optional<NDArray> field = field_key_view(a, key)) {
               py::cast(*field).attr("__setitem__")(py::ellipsis(), value);
               return;
             }
             std::vector<arraycore::IndexItem> items;
             bool basic = to_index_items(key, items);
             std::vector<py::object> keep;
             std::vector<arraycore::AdvancedItem> advanced;
             if (!basic) advanced = to_advanced_key(key, keep);
             auto store = [&](const NDArray& v) {
               if (basic) arraycore::assign(arraycore::index_view(a, items), v);
               else arraycore::advanced_setitem(a, advanced, v);
             };
             auto check_mask_value = [&](int value_ndim) {
               if (!basic && value_ndim > 1 && arraycore::whole_array_mask(a, advanced))
                 throw py::type_error("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                                      "input, input has " + std::to_string(value_ndim) + " dimensions");
             };
             const NDArray* v = ndarray_of(value.ptr());
             py::object foreign;   // Note [Foreign device operands]
             if (v == nullptr && (foreign = foreign_device_array(value))) v = ndarray_of(foreign.ptr());
             if (v != nullptr) {
               check_mask_value(v->ndim());
               warn_if_discarding_imaginary(v->dtype(), a.dtype());
               store(*v);
               return;
             }
             // Host values (scalars, lists, NumPy arrays) are converted on the
             // host (Note [Assigned host values]) and uploaded.
             py::object host = assigned_host_value(value, a.dtype());
             check_mask_value(host.attr("ndim").cast<int>());
             store(from_numpy(host, py::none()));
           })
      .def("__len__",
           [](const NDArray& a) {
             if (a.ndim() == 0) throw py::type_error("len() of unsized object");
             return a.shape()[0];
           })
      .def("__array__",
           [](const NDArray&, py::args, py::kwargs) {
             throw py::type_error(
                 "Implicit conversion of a kiln array to a NumPy array is not allowed: it would "
                 "copy device memory to the host behind your back. Use kiln.asnumpy(a) or "
                 "a.get() to copy explicitly.");
           })
      .def("set",
           [](const NDArray& a, py::handle arr, py::handle stream) {
             arraycore::require_writeable(a);   // Note [Read-only arrays]
             py::module_ np = py::module_::import("numpy");
             if (!py::isinstance(arr, np.attr("ndarray")))
               throw py::type_error("Only numpy.ndarray can be set to a kiln array, got " + type_name(arr));
             py::object dtype = to_numpy_dtype(a.dtype());
             if (!py::object(arr.attr("dtype")).equal(dtype))
               throw py::type_error(std::string(py::str(arr.attr("dtype"))) + " array cannot be set to " +
                                    std::string(py::str(dtype)) + " array");
             if (!py::object(arr.attr("shape")).equal(to_tuple(a.shape())))
               throw py::value_error("Shape mismatch. Old shape: " + std::string(py::str(to_tuple(a.shape()))) +
                                     ", new shape: " + std::string(py::str(arr.attr("shape"))));
             runtime::StreamHandle s = to_stream(stream);
             py::array host = np.attr("ascontiguousarray")(arr).cast<py::array>();
             runtime::StreamHandle previous = runtime::current_stream();
             runtime::set_current_stream(s);
             try {
               if (a.c_contiguous()) {
                 ReleaseGil unlocked;
                 arraycore::copy_from_host(a, host.data(), s);
               } else {
                 NDArray staged = NDArray::empty(a.shape(), a.dtype());
                 ReleaseGil unlocked;
                 arraycore::copy_from_host(staged, host.data(), s);
                 arraycore::copy_into(staged, a);
               }
             } catch (...) {
               runtime::set_current_stream(previous);
               throw;
             }
             runtime::set_current_stream(previous);
             // As CuPy's set: without a stream the copy is synchronous. A
             // pageable upload returns once the data is staged, before it
             // lands; work on another (non-blocking) stream must see it.
             if (stream.is_none()) {
               ReleaseGil unlocked;
               runtime::backend().synchronize_stream(s);
             }
           },
           py::arg("arr"), py::arg("stream") = py::none(),
           "Copy a NumPy array of the same shape and dtype into this array: synchronously, or queued on "
           "`stream` when one is given.")
      .def("__repr__",
           [](const NDArray& a) { return py::repr(to_numpy(a, py::none(), py::none(), py::none(), true)); })
      .def("__str__",
           [](const NDArray& a) { return py::str(to_numpy(a, py::none(), py::none(), py::none(), true)); });

  m.def("empty", [](py::handle shape, py::handle dtype, py::handle order) {
    return NDArray::empty(to_shape(shape), to_dtype(dtype), to_order(order));
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("order") = "C");
  m.def("zeros", [](py::handle shape, py::handle dtype, py::handle order) {
    return NDArray::zeros(to_shape(shape), to_dtype(dtype), to_order(order));
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("order") = "C");
  m.def("_as_strided", [](py::handle self, py::handle shape, py::handle strides, int64_t offset_bytes) {
    const NDArray& a = self.cast<const NDArray&>();
    // A view of a's memory (tests build strided and negative-stride views with
    // it until basic indexing lands). Bounds are checked against the memory.
    arraycore::Shape sh = to_shape(shape);
    arraycore::Strides st = to_shape(strides);
    if (sh.size() != st.size()) throw py::value_error("shape and strides differ in length");
    int64_t offset = a.offset() + offset_bytes;
    auto [low, high] = arraycore::byte_extent(sh, st, a.itemsize());
    if (arraycore::shape_size(sh) > 0 &&
        (offset + low < 0 || offset + high > static_cast<int64_t>(a.memory()->nbytes())))
      throw py::value_error("the view reaches outside the array's memory");
    return make_view(self, a.view_as(sh, st, offset));
  });
  m.def(
      "_broadcast_to",
      [](py::handle self, py::handle shape) {
        return make_view(self, arraycore::broadcast_to(self.cast<const NDArray&>(), to_shape(shape)));
      },
      py::arg("a"), py::arg("shape"),
      "A view of a with shape (NumPy broadcasting: stride 0 on new and stretched axes); ValueError "
      "naming both shapes when a does not broadcast to it.");
  m.def("_assigned_value", [](py::handle value, py::handle dtype) {
    return from_numpy(assigned_host_value(value, to_dtype(dtype)), py::none());
  }, py::arg("value"), py::arg("dtype"),
  "A host value as a kiln array of dtype, converted as NumPy's assignment does (Note [Assigned host values]).");
  m.def("_from_numpy", &from_numpy, py::arg("obj"), py::arg("dtype") = py::none());
  m.def("_to_numpy", &to_numpy, py::arg("a"), py::arg("stream") = py::none(),
        py::arg("order") = "C", py::arg("out") = py::none(), py::arg("blocking") = true);
  m.def("_set_staging", [](size_t threshold, size_t chunk) {
    arraycore::StagingSettings previous = arraycore::staging();
    arraycore::set_staging({threshold, chunk});
    return py::make_tuple(previous.threshold, previous.chunk);
  }, py::arg("threshold"), py::arg("chunk"),
  "Transfers of at least `threshold` bytes go through pinned staging in `chunk`-byte pieces "
  "(threshold 0: never). Returns the previous (threshold, chunk).");
  m.def("_arange_float", [](double start, double step, int64_t n, py::handle dtype) {
    return arraycore::arange(start, step, n, to_dtype(dtype));
  });
  m.def("_arange_int", [](int64_t start, int64_t step, int64_t n, py::handle dtype) {
    return arraycore::arange_int(start, step, n, to_dtype(dtype));
  });
}

}  // namespace kiln::py_bind
