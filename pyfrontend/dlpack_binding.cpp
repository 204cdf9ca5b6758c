// DLPack capsules: export (ndarray.__dlpack__, toDlpack) and import
// (kiln.from_dlpack). The protocol's argument handling is Python
// (kiln/_dlpack.py); the capsule and ownership rules are here.
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

bool on_cuda() { return runtime::backend().name() == "cuda"; }

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

py::object to_capsule(const arraycore::NDArray& a, bool versioned, uint64_t flags) {
  try {
    if (versioned) {
      dl::DLManagedTensorVersioned* t = dl::export_versioned(a, device_of(a), flags);
      PyObject* cap = PyCapsule_New(t, kVersionedName, &capsule_destructor<dl::DLManagedTensorVersioned>);
      if (cap == nullptr) {
        t->deleter(t);
        throw py::error_already_set();
      }
      return py::reinterpret_steal<py::object>(cap);
    }
    dl::DLManagedTensor* t = dl::export_legacy(a, device_of(a));
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

}  // namespace

void register_dlpack(py::module_& m) {
  m.def(
      "_to_dlpack",
      [](const arraycore::NDArray& a, bool versioned, bool copied) {
        return to_capsule(a, versioned, copied ? dl::kFlagIsCopied : 0);
      },
      py::arg("a"), py::arg("versioned"), py::arg("copied") = false,
      "A DLPack capsule viewing a (versioned: 'dltensor_versioned', else legacy 'dltensor').");
  m.def(
      "_dlpack_device",
      [](const arraycore::NDArray& a) {
        dl::DLDevice d = device_of(a);
        return py::make_tuple(d.device_type, d.device_id);
      },
      py::arg("a"));
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
          throw py::value_error("this DLPack capsule was already consumed (a capsule can be imported once)");
        throw py::type_error("expected a DLPack capsule named 'dltensor' or 'dltensor_versioned', got '" + n + "'");
      },
      py::arg("capsule"), py::arg("host_is_device") = false,
      "(array or None, (device_type, device_id), read_only): the capsule's tensor as a kiln array "
      "(consuming the capsule), or None (capsule untouched) when kiln cannot view its memory in place.");
  m.def(
      "_stream_wait",
      [](uintptr_t waiter, uintptr_t signaler) { stream_wait(stream_from_int(waiter), stream_from_int(signaler)); },
      py::arg("waiter"), py::arg("signaler"),
      "Later work on stream `waiter` waits (on the device) for work queued so far on `signaler` "
      "(Note [Interop stream values]; 0 is kiln's null stream).");
  m.def("_current_stream_int", [] { return stream_to_int(runtime::current_stream()); },
        "The current stream as the protocols name it (1 for the null stream).");
}

}  // namespace kiln::py_bind
