// DLPack capsules: export (ndarray.__dlpack__, toDlpack) and import
// (kiln.from_dlpack). The capsule and ownership rules are here, and so is
// the common __dlpack__ call (Note [DLPack fast path]); the protocol's other
// arguments are handled in Python (kiln/_dlpack.py).
#include <cstring>
#include <string>

#include "arraycore/dlpack.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/interop_streams.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

namespace dl = arraycore::dlpack;

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kLegacyUsedName = "used_dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kVersionedUsedName = "used_dltensor_versioned";

// Memory and streams are CUDA's (Note [Backend traits]).
bool on_cuda() { return runtime::backend().caps().cuda_interop; }

dl::DLDevice device_of(const arraycore::NDArray& a) {
  if (on_cuda()) return {dl::kDLCUDA, a.device()};
  return {dl::kDLCPU, 0};
}

// Note [DLPack capsules]
// A capsule is named "dltensor_versioned" (DLPack 1.x) or "dltensor"
// (legacy) while nobody owns its tensor. The consumer that takes the tensor
// renames it "used_dltensor_versioned" / "used_dltensor" and from then on
// calls the tensor's deleter itself, once, when done. The capsule's
// destructor therefore calls the deleter only while the capsule still has
// its unconsumed name: a capsule dropped unconsumed frees the tensor, a
// consumed one frees nothing (no leak, no double free).
template <class Managed>
void capsule_destructor(PyObject* capsule) {
  constexpr bool versioned = std::is_same_v<Managed, dl::DLManagedTensorVersioned>;
  const char* name = versioned ? kVersionedName : kLegacyName;
  if (PyCapsule_IsValid(capsule, name) == 0) return;  // consumed: the consumer owns the tensor
  auto* t = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}

// host_view: the tensor says kDLCPU (managed memory the host may read in place).
py::object to_capsule(const arraycore::NDArray& a, bool versioned, uint64_t flags, bool host_view = false) {
  try {
    const dl::DLDevice device = host_view ? dl::DLDevice{dl::kDLCPU, 0} : device_of(a);
    if (versioned) {
      dl::DLManagedTensorVersioned* t = dl::export_versioned(a, device, flags);
      PyObject* cap = PyCapsule_New(t, kVersionedName, &capsule_destructor<dl::DLManagedTensorVersioned>);
      if (cap == nullptr) {
        t->deleter(t);
        throw py::error_already_set();
      }
      return py::reinterpret_steal<py::object>(cap);
    }
    dl::DLManagedTensor* t = dl::export_legacy(a, device);
    PyObject* cap = PyCapsule_New(t, kLegacyName, &capsule_destructor<dl::DLManagedTensor>);
    if (cap == nullptr) {
      t->deleter(t);
      throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(cap);
  } catch (const dl::Error& e) {
    throw py::buffer_error(e.what());
  }
}

// The kiln device that a tensor on `device` lives on, or -1 when kiln cannot
// view it in place (Python then copies it, or refuses).
int kiln_device_for(dl::DLDevice device, bool kiln_made, bool host_is_device) {
  if (on_cuda()) {
    if (device.device_type != dl::kDLCUDA && device.device_type != dl::kDLCUDAManaged) return -1;
    if (device.device_id < 0 || device.device_id >= runtime::backend().device_count())
      throw py::buffer_error("DLPack tensor on CUDA device " + std::to_string(device.device_id) +
                             ", which does not exist here");
    return device.device_id;
  }
  // Host backend: its device memory is host memory. Tensors kiln exported are
  // its own arrays; other host memory (NumPy's) is viewed only when asked.
  if (device.device_type == dl::kDLCPU && (kiln_made || host_is_device)) return 0;
  return -1;
}

template <class Managed>
py::object import_capsule(py::handle capsule, const char* name, const char* used_name, bool host_is_device) {
  auto* t = static_cast<Managed*>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (t == nullptr) throw py::error_already_set();
  uint64_t flags = 0;
  if constexpr (std::is_same_v<Managed, dl::DLManagedTensorVersioned>) {
    if (t->version.major != dl::kMajorVersion)
      throw py::buffer_error("DLPack major version " + std::to_string(t->version.major) +
                             " is not supported (kiln reads 1.x)");
    flags = t->flags;
  }
  int device = kiln_device_for(t->dl_tensor.device, dl::is_kiln_export(t), host_is_device);
  py::tuple where = py::make_tuple(t->dl_tensor.device.device_type, t->dl_tensor.device.device_id);
  bool readonly = (flags & dl::kFlagReadOnly) != 0;
  if (device < 0) return py::make_tuple(py::none(), where, readonly);
  arraycore::NDArray a = [&] {
    try {
      if constexpr (std::is_same_v<Managed, dl::DLManagedTensorVersioned>) return dl::import_versioned(t, device);
      else return dl::import_legacy(t, device);
    } catch (const dl::Error& e) {
      throw py::buffer_error(e.what());
    }
  }();
  // The array owns the tensor now (its memory's release calls the deleter).
  if (PyCapsule_SetName(capsule.ptr(), used_name) != 0) throw py::error_already_set();
  return py::make_tuple(py::cast(std::move(a)), where, readonly);
}

// The consumer's stream (the protocol's stream=) waits for kiln's current
// stream (Note [DLPack streams] in kiln/_dlpack.py). Nothing to wait for on
// the host backend or for -1; the value is checked on every backend, so a
// program behaves the same on each.
void hand_off(PyObject* stream) {
  uintptr_t consumer = 1;  // None: the legacy default stream
  if (stream != Py_None) {
    auto bad = [&] {
      return py::value_error("stream must be None, -1 or a CUDA stream (1: legacy default, 2: per-thread default, "
                             "or a handle), got " + std::string(py::repr(stream)));
    };
    if (!PyLong_Check(stream)) throw bad();
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(stream, &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow == 0 && v == -1) return;  // the consumer asked for no synchronization
    if (overflow == 0 && v == 0) {
      // The protocol disallows 0, but older PyTorch sends it for its default
      // stream: taken as the legacy default stream, with a warning (as CuPy).
      if (PyErr_WarnEx(PyExc_UserWarning,
                       "Stream 0 is not a valid DLPack stream (the protocol disallows it); kiln takes it as the "
                       "legacy default stream (1)", 1) != 0)
        throw py::error_already_set();
      v = 1;
    }
    if (overflow < 0 || (overflow == 0 && v <= 0)) throw bad();
    consumer = overflow > 0 ? PyLong_AsUnsignedLongLong(stream) : static_cast<uintptr_t>(v);
    if (PyErr_Occurred()) throw py::error_already_set();
  }
  if (!on_cuda()) return;
  stream_wait(stream_from_int(consumer), runtime::current_stream());
}

// Note [DLPack fast path]
// Consumers call __dlpack__ on every use: Numba's launches twice per array
// argument. So the common call (no dl_device, no copy) is a METH_FASTCALL C
// function, as the kernel launches are (Note [Launch fast path]); with
// dl_device or copy=True it hands the call to kiln._dlpack._export.
PyObject* ndarray_dlpack(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    if (nargs != 0)
      throw py::type_error("__dlpack__() takes keyword arguments only (stream, max_version, dl_device, copy), got " +
                           std::to_string(nargs) + " positional");
    PyObject* values[4] = {Py_None, Py_None, Py_None, Py_None};  // stream, max_version, dl_device, copy
    static const char* const names[4] = {"stream", "max_version", "dl_device", "copy"};
    for (Py_ssize_t i = 0, nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0; i < nk; ++i) {
      const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
      if (key == nullptr) throw py::error_already_set();
      int k = 0;
      while (k < 4 && std::strcmp(key, names[k]) != 0) ++k;
      if (k == 4) throw py::type_error(std::string("__dlpack__() got an unexpected keyword argument '") + key + "'");
      values[k] = args[i];
    }
    PyObject *stream = values[0], *max_version = values[1];
    // versioned when max_version allows 1.x; anything but None or a tuple of ints goes the general way
    int versioned = max_version == Py_None ? 0 : -1;
    if (PyTuple_Check(max_version) && PyTuple_GET_SIZE(max_version) >= 1 &&
        PyLong_CheckExact(PyTuple_GET_ITEM(max_version, 0))) {
      long major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
      if (major == -1 && PyErr_Occurred()) PyErr_Clear();
      else versioned = major >= 1 ? 1 : 0;
    }
    const arraycore::NDArray* a = ndarray_of(self);
    if (a == nullptr || versioned < 0 || values[2] != Py_None || (values[3] != Py_None && values[3] != Py_False)) {
      py::object general = py::module_::import("kiln._dlpack").attr("_export");
      return general(py::handle(self), py::handle(stream), py::handle(max_version), py::handle(values[2]),
                     py::handle(values[3]))
          .release()
          .ptr();
    }
    hand_off(stream);
    return to_capsule(*a, versioned == 1, 0).release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

PyObject* ndarray_dlpack_device(PyObject* self, PyObject*) {
  try {
    const arraycore::NDArray* a = ndarray_of(self);
    if (a == nullptr) throw py::type_error("__dlpack_device__ needs a kiln.ndarray");
    dl::DLDevice d = device_of(*a);
    return py::make_tuple(static_cast<int>(d.device_type), d.device_id).release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

PyMethodDef g_dlpack_def = {
    "__dlpack__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ndarray_dlpack)),
    METH_FASTCALL | METH_KEYWORDS,
    "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
    "A DLPack capsule of this array: versioned ('dltensor_versioned', DLPack 1.x) when max_version allows 1.0 "
    "or later, else legacy ('dltensor'). stream= names the consumer's stream, which then waits on the device for "
    "kiln's current stream (None: the legacy default stream; -1: no wait). copy=True exports a copy (flagged "
    "IS_COPIED), copy=False never copies; dl_device may ask for (kDLCPU, 0) from the CUDA backend, which exports "
    "a host copy (BufferError with copy=False)."};
PyMethodDef g_dlpack_device_def = {
    "__dlpack_device__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ndarray_dlpack_device)),
    METH_NOARGS,
    "(device type, device id): (kDLCUDA=2, id) on the CUDA backend, (kDLCPU=1, 0) on the host backend."};

}  // namespace

void register_dlpack(py::module_& m) {
  install_method(m.attr("ndarray"), &g_dlpack_def);
  install_method(m.attr("ndarray"), &g_dlpack_device_def);
  m.def(
      "_to_dlpack",
      [](const arraycore::NDArray& a, bool versioned, bool copied, py::handle stream, bool host_view) {
        hand_off(stream.ptr());
        return to_capsule(a, versioned, copied ? dl::kFlagIsCopied : 0, host_view);
      },
      py::arg("a"), py::arg("versioned"), py::arg("copied") = false, py::arg("stream") = -1,
      py::arg("host_view") = false,
      "A DLPack capsule viewing a (versioned: 'dltensor_versioned', else legacy 'dltensor'), after the "
      "consumer's stream (None, -1 for none, or a stream as the protocol names it) waited for kiln's; "
      "host_view: on kDLCPU (managed memory, which the host reads in place).");
  m.def(
      "_from_dlpack_capsule",
      [](py::handle capsule, bool host_is_device) -> py::object {
        if (!PyCapsule_CheckExact(capsule.ptr()))
          throw py::type_error("expected a DLPack capsule, got '" + type_name(capsule) + "'");
        if (PyCapsule_IsValid(capsule.ptr(), kVersionedName))
          return import_capsule<dl::DLManagedTensorVersioned>(capsule, kVersionedName, kVersionedUsedName,
                                                             host_is_device);
        if (PyCapsule_IsValid(capsule.ptr(), kLegacyName))
          return import_capsule<dl::DLManagedTensor>(capsule, kLegacyName, kLegacyUsedName, host_is_device);
        const char* name = PyCapsule_GetName(capsule.ptr());
        std::string n = name ? name : "";
        if (n == kLegacyUsedName || n == kVersionedUsedName)
          throw py::value_error("this DLPack capsule was already consumed (a capsule can be imported once: it cannot be "
                                "consumed multiple times)");
        throw py::type_error("expected a DLPack capsule named 'dltensor' or 'dltensor_versioned', got '" + n + "'");
      },
      py::arg("capsule"), py::arg("host_is_device") = false,
      "(array or None, (device_type, device_id), read_only): the capsule's tensor as a kiln array "
      "(consuming the capsule), or None (capsule untouched) when kiln cannot view its memory in place.");
  m.def("_current_stream_int", [] { return stream_to_int(runtime::current_stream()); },
        "The current stream as the protocols name it (1 for the null stream).");
}

}  // namespace kiln::py_bind
