// kiln.RawKernel and kiln.RawModule: user CUDA C++ compiled, cached, launched.
//
// Note [Launch fast path]
// A warm call reads the device, finds the kernel's launch plan (handle and
// per-parameter size/kind) in a small per-device vector, writes each argument
// into a stack buffer at its parameter's size, and calls Backend::launch. No
// heap allocation and no Python objects are created on the way.
//
// Note [Scalar marshalling]
// Python scalars take the size and kind of the parameter they reach: 5.0 to a
// `float` parameter is 5.0f, 3 to a `long long` is 8 bytes, True to a `bool`
// is one byte. NumPy scalars keep their own type and must match the
// parameter's size (and kind, when the kind is known). Mismatches raise
// TypeError naming the argument position and the parameter.
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pyfrontend/bindings.h"
#include "pyfrontend/memory_pointer.h"
#include "pyfrontend/texture_binding.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/kernel_cache.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using runtime::ParamInfo;
using runtime::ParamKind;

// What a RawKernel or RawModule compiles from: source or a file on disk, and
// the constructor's choices, kept as given for pickling (Note [Raw pickling]).
struct KernelSource {
  std::optional<runtime::CompileRequest> request;
  std::string code;  // as the user wrote it (request->source may be translated)
  std::string path;
  std::vector<std::string> options, name_expressions;
  std::string backend = "nvrtc";
  bool translate_cucomplex = false;
  bool cooperative = false;  // launch with Backend::launch_cooperative
  std::mutex mutex;
  std::vector<std::shared_ptr<runtime::LoadedModule>> per_device;

  std::shared_ptr<runtime::LoadedModule> module(int device) {
    std::lock_guard<std::mutex> lock(mutex);
    if (static_cast<int>(per_device.size()) <= device) per_device.resize(device + 1);
    auto& slot = per_device[device];
    if (!slot) {
      if (request) {
        slot = runtime::load_module_cached(*request, device);
      } else {
        slot = runtime::load_module_file(path, device);
      }
    }
    return slot;
  }
};

struct LaunchPlan {
  runtime::KernelFunction function;
  bool ready = false;
};

const char* kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::Pointer: return "pointer";
    case ParamKind::SignedInt: return "signed integer";
    case ParamKind::UnsignedInt: return "unsigned integer";
    case ParamKind::Float: return "floating-point";
    case ParamKind::Bool: return "bool";
    case ParamKind::Complex: return "complex";
    default: return "unknown";
  }
}

uint16_t float_to_half_bits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

class RawKernel {
 public:
  RawKernel(std::shared_ptr<KernelSource> source, std::string name)
      : source_(std::move(source)), name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  const std::shared_ptr<KernelSource>& source() const { return source_; }

  const LaunchPlan& plan(int device) {
    if (device < static_cast<int>(plans_.size()) && plans_[device].ready) return plans_[device];
    auto module = source_->module(device);
    if (static_cast<int>(plans_.size()) <= device) plans_.resize(device + 1);
    plans_[device].function = module->function(name_);
    plans_[device].ready = true;
    return plans_[device];
  }

  void call(py::handle grid, py::handle block, py::handle args, uint32_t shared_mem,
            py::handle stream, bool cooperative_launch = false) {
    runtime::Backend& be = runtime::backend();
    runtime::Dim3 g = to_dim3(grid.ptr(), "grid");
    runtime::Dim3 b = to_dim3(block.ptr(), "block");
    runtime::StreamHandle s = to_stream(stream);
    const LaunchPlan& p = plan(be.current_device());

    if (!PyTuple_Check(args.ptr()) && !PyList_Check(args.ptr()))
      throw py::type_error("RawKernel '" + name_ + "': args must be a tuple of arguments, not '" +
                           type_name(args) + "'");
    const size_t nargs = static_cast<size_t>(PySequence_Fast_GET_SIZE(args.ptr()));
    const auto& params = p.function.params;
    if (nargs != params.size())
      throw py::type_error("RawKernel '" + name_ + "' takes " + std::to_string(params.size()) +
                           " argument" + (params.size() == 1 ? "" : "s") + ", got " +
                           std::to_string(nargs));

    constexpr size_t kMaxParams = 256, kStorage = 4096;
    alignas(16) unsigned char storage[kStorage];
    void* pointers[kMaxParams];
    std::vector<unsigned char> heap_storage;
    std::vector<void*> heap_pointers;
    unsigned char* buf = storage;
    void** ptrs = pointers;
    size_t total = 0;
    for (const auto& prm : params) total += (prm.size + 15) & ~size_t{15};
    if (nargs > kMaxParams || total > kStorage) {
      heap_storage.resize(total + 16);
      heap_pointers.resize(nargs);
      buf = heap_storage.data();
      ptrs = heap_pointers.data();
    }
    PyObject** items = PySequence_Fast_ITEMS(args.ptr());
    size_t offset = 0;
    for (size_t i = 0; i < nargs; ++i) {
      ptrs[i] = buf + offset;
      write_argument(items[i], params[i], i, p.function, buf + offset);
      offset += (params[i].size + 15) & ~size_t{15};
    }
    runtime::FunctionHandle handle = p.function.handle;
    const bool cooperative = cooperative_launch || source_->cooperative;
    if (be.caps().runs_kernels_on_calling_thread) {  // let Python threads go on
      // A Ctrl-C that came before the launch (during a compile) is not missed
      // by it (Note [Cancelling host launches], runtime/host/launch_watch.h).
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      ReleaseGil nogil;
      if (cooperative) be.launch_cooperative(handle, g, b, shared_mem, s, ptrs);
      else be.launch(handle, g, b, shared_mem, s, ptrs);
    } else if (cooperative) {
      be.launch_cooperative(handle, g, b, shared_mem, s, ptrs);
    } else {
      be.launch(handle, g, b, shared_mem, s, ptrs);
    }
  }

 private:
  std::string describe(size_t i, const runtime::KernelFunction& f) const {
    std::string s = "RawKernel '" + name_ + "' argument " + std::to_string(i);
    if (i < f.param_types.size() && !f.param_types[i].empty())
      s += " (parameter type '" + f.param_types[i] + "')";
    else
      s += " (" + std::to_string(f.params[i].size) + "-byte parameter)";
    return s;
  }

  void write_integer(long long value, const ParamInfo& prm, size_t i,
                     const runtime::KernelFunction& f, unsigned char* out, PyObject* obj) const {
    if (prm.kind == ParamKind::Float) {
      double d = static_cast<double>(value);
      if (prm.size == 4) { float x = static_cast<float>(d); std::memcpy(out, &x, 4); return; }
      if (prm.size == 8) { std::memcpy(out, &d, 8); return; }
      if (prm.size == 2) { uint16_t h = float_to_half_bits(static_cast<float>(d)); std::memcpy(out, &h, 2); return; }
    }
    if (prm.kind == ParamKind::Pointer || prm.kind == ParamKind::Complex)
      throw py::type_error(describe(i, f) + ": a Python int cannot be passed to a " +
                           kind_name(prm.kind) + " parameter");
    if (prm.size != 1 && prm.size != 2 && prm.size != 4 && prm.size != 8)
      throw py::type_error(describe(i, f) + ": a Python int cannot fill a " +
                           std::to_string(prm.size) + "-byte parameter");
    bool is_unsigned = prm.kind == ParamKind::UnsignedInt || prm.kind == ParamKind::Bool;
    int bits = static_cast<int>(prm.size) * 8;
    bool fits;
    if (prm.kind == ParamKind::Bool) {
      fits = value == 0 || value == 1;
    } else if (is_unsigned) {
      fits = value >= 0 && (bits == 64 || static_cast<unsigned long long>(value) < (1ULL << bits));
    } else if (prm.kind == ParamKind::SignedInt) {
      fits = bits == 64 || (value >= -(1LL << (bits - 1)) && value < (1LL << (bits - 1)));
    } else {  // unknown kind: either signedness
      fits = bits == 64 || (value >= -(1LL << (bits - 1)) && value < (1LL << bits));
    }
    if (!fits)
      throw py::value_error(describe(i, f) + ": " + std::string(py::str(obj)) +
                            " does not fit the parameter");
    std::memcpy(out, &value, prm.size);  // little-endian truncation
  }

  void write_argument(PyObject* obj, const ParamInfo& prm, size_t i,
                      const runtime::KernelFunction& f, unsigned char* out) const {
    static PyTypeObject* ndarray_type = nullptr;
    static PyObject* numpy_generic = nullptr;
    static PyTypeObject* numpy_ndarray = nullptr;
    if (!ndarray_type) {
      ndarray_type = reinterpret_cast<PyTypeObject*>(py::type::of<arraycore::NDArray>().ptr());
      py::module_ numpy = py::module_::import("numpy");
      numpy_generic = py::object(numpy.attr("generic")).release().ptr();
      numpy_ndarray = reinterpret_cast<PyTypeObject*>(py::object(numpy.attr("ndarray")).release().ptr());
    }
    if (Py_TYPE(obj) == ndarray_type || PyObject_TypeCheck(obj, ndarray_type)) {
      if (prm.size != sizeof(void*) || (prm.kind != ParamKind::Pointer && prm.kind != ParamKind::Unknown))
        throw py::type_error(describe(i, f) + ": a kiln.ndarray is passed as a pointer, but the "
                             "parameter is " + kind_name(prm.kind) + " of " + std::to_string(prm.size) + " bytes");
      auto& a = py::handle(obj).cast<const arraycore::NDArray&>();
      void* ptr = a.data();
      std::memcpy(out, &ptr, sizeof(void*));
      return;
    }
    // NumPy scalars first: numpy.float64 and numpy.complex128 subclass float and complex.
    if (PyObject_IsInstance(obj, numpy_generic) == 1) {
      Py_buffer view;
      if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT) != 0) throw py::error_already_set();
      std::string format = view.format ? view.format : "B";
      size_t len = static_cast<size_t>(view.len);
      if (len != prm.size) {
        PyBuffer_Release(&view);
        throw py::type_error(describe(i, f) + ": NumPy " + type_name(obj) + " has " +
                             std::to_string(len) + " bytes, the parameter " + std::to_string(prm.size) +
                             (format.find('{') != std::string::npos ? struct_hint : ""));
      }
      char c = format.empty() ? 'B' : format.back();
      ParamKind k = ParamKind::Unknown;
      if (format.size() >= 2 && format[format.size() - 2] == 'Z') k = ParamKind::Complex;
      else if (c == '?') k = ParamKind::Bool;
      else if (c == 'e' || c == 'f' || c == 'd' || c == 'g') k = ParamKind::Float;
      else if (c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q') k = ParamKind::SignedInt;
      else if (c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q') k = ParamKind::UnsignedInt;
      bool int_like = [](ParamKind x) { return x == ParamKind::SignedInt || x == ParamKind::UnsignedInt; }(k);
      bool prm_int_like = prm.kind == ParamKind::SignedInt || prm.kind == ParamKind::UnsignedInt;
      bool compatible = prm.kind == ParamKind::Unknown || k == ParamKind::Unknown || k == prm.kind ||
                        (int_like && prm_int_like);
      if (!compatible) {
        PyBuffer_Release(&view);
        throw py::type_error(describe(i, f) + ": NumPy " + type_name(obj) + " is " + kind_name(k) +
                             ", the parameter is " + kind_name(prm.kind));
      }
      std::memcpy(out, view.buf, len);
      PyBuffer_Release(&view);
      return;
    }
    if (PyObject_TypeCheck(obj, numpy_ndarray)) {
      write_struct_array(obj, prm, i, f, out);
      return;
    }
    if (PyBool_Check(obj)) {
      write_integer(obj == Py_True ? 1 : 0, prm, i, f, out, obj);
      return;
    }
    if (PyLong_Check(obj)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
      if (overflow > 0 && prm.size == 8 && prm.kind != ParamKind::SignedInt && prm.kind != ParamKind::Float) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred()) throw py::error_already_set();
        std::memcpy(out, &u, 8);
        return;
      }
      if (overflow)
        throw py::value_error(describe(i, f) + ": " + std::string(py::str(obj)) + " does not fit the parameter");
      write_integer(v, prm, i, f, out, obj);
      return;
    }
    if (PyFloat_Check(obj)) {
      double d = PyFloat_AS_DOUBLE(obj);
      bool float_ok = prm.kind == ParamKind::Float || prm.kind == ParamKind::Unknown;
      if (float_ok && prm.size == 4) { float x = static_cast<float>(d); std::memcpy(out, &x, 4); return; }
      if (float_ok && prm.size == 8) { std::memcpy(out, &d, 8); return; }
      if (prm.kind == ParamKind::Float && prm.size == 2) { uint16_t h = float_to_half_bits(static_cast<float>(d)); std::memcpy(out, &h, 2); return; }
      throw py::type_error(describe(i, f) + ": a Python float cannot be passed to a " +
                           std::string(kind_name(prm.kind)) + " parameter of " + std::to_string(prm.size) + " bytes");
    }
    if (PyComplex_Check(obj)) {
      Py_complex c = PyComplex_AsCComplex(obj);
      bool ok = prm.kind == ParamKind::Complex || prm.kind == ParamKind::Unknown;
      if (ok && prm.size == 8) { float x[2] = {static_cast<float>(c.real), static_cast<float>(c.imag)}; std::memcpy(out, x, 8); return; }
      if (ok && prm.size == 16) { double x[2] = {c.real, c.imag}; std::memcpy(out, x, 16); return; }
      throw py::type_error(describe(i, f) + ": a Python complex cannot be passed to a " +
                           std::string(kind_name(prm.kind)) + " parameter of " + std::to_string(prm.size) + " bytes");
    }
    if (std::optional<uint64_t> handle = texture_handle_of(obj)) {  // cudaTextureObject_t / cudaSurfaceObject_t
      const bool integer = prm.kind == ParamKind::UnsignedInt || prm.kind == ParamKind::SignedInt ||
                           prm.kind == ParamKind::Unknown;
      if (prm.size != 8 || !integer)
        throw py::type_error(describe(i, f) + ": a " + type_name(obj) + " is passed as a 64-bit handle "
                             "(cudaTextureObject_t), but the parameter is " + kind_name(prm.kind) + " of " +
                             std::to_string(prm.size) + " bytes");
      std::memcpy(out, &*handle, 8);
      return;
    }
    if (py::isinstance<MemoryPointer>(obj)) {  // a raw device pointer, as CuPy passes it
      if (prm.size != sizeof(void*) || (prm.kind != ParamKind::Pointer && prm.kind != ParamKind::Unknown))
        throw py::type_error(describe(i, f) + ": a MemoryPointer is passed as a pointer, but the parameter is " +
                             kind_name(prm.kind) + " of " + std::to_string(prm.size) + " bytes");
      uintptr_t ptr = py::handle(obj).cast<const MemoryPointer&>().ptr();
      std::memcpy(out, &ptr, sizeof(void*));
      return;
    }
    throw py::type_error(describe(i, f) + ": unsupported argument type '" + type_name(obj) +
                         "'; pass a kiln.ndarray, a MemoryPointer, a NumPy scalar (numpy.void for a struct), a "
                         "structured NumPy array of one element, or a Python int, float, bool or complex");
  }

  // Note [Structs by value]
  // A struct or vector-type parameter (double3, a user struct, a packed
  // matrix) takes the bytes of a numpy.void scalar or of a structured NumPy
  // array of one element (`v.view(double3_dtype)`, 0-d or shape (1,)), as in
  // CuPy: they are copied into the parameter buffer after their size is
  // checked against the parameter's (the driver's cuFuncGetParamInfo, the
  // host backend's sizeof). The layout is the user's to match: a NumPy dtype
  // with align=True lays fields out as C does, except that CUDA's vector
  // types of 2 and 4 elements are aligned to their size, up to 16 bytes
  // (double2: 16; a plain struct of two doubles: 8), which matters only for
  // a vector type inside a larger struct.
  static constexpr const char* struct_hint =
      " (a struct argument's NumPy dtype must have the parameter's size, padding included: "
      "numpy.dtype(..., align=True) pads as C does)";

  void write_struct_array(PyObject* obj, const ParamInfo& prm, size_t i, const runtime::KernelFunction& f,
                          unsigned char* out) const {
    py::handle a(obj);
    const bool structured = !a.attr("dtype").attr("fields").is_none();
    const Py_ssize_t size = a.attr("size").cast<Py_ssize_t>();
    if (!structured || size != 1)
      throw py::type_error(describe(i, f) + ": a numpy.ndarray is host memory and is not passed to a kernel, "
                           "except a structured array of one element, whose bytes fill a struct parameter "
                           "(got dtype " + std::string(py::str(a.attr("dtype"))) + ", size " +
                           std::to_string(size) + "); pass kiln.asarray(x) for a pointer parameter");
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_ANY_CONTIGUOUS) != 0) throw py::error_already_set();
    const size_t len = static_cast<size_t>(view.len);
    if (len != prm.size) {
      PyBuffer_Release(&view);
      throw py::type_error(describe(i, f) + ": the structured array has " + std::to_string(len) +
                           " bytes, the parameter " + std::to_string(prm.size) + struct_hint);
    }
    std::memcpy(out, view.buf, len);
    PyBuffer_Release(&view);
  }

  std::shared_ptr<KernelSource> source_;
  std::string name_;
  std::vector<LaunchPlan> plans_;
};

// Note [Launch fast path]: __call__ is a METH_FASTCALL C function rather than
// a pybind11 binding; pybind11's generic dispatcher (overload resolution,
// keyword matching) cost about a microsecond per launch.
//
// Note [Launch keywords]
// The call takes CuPy's signature, kernel(grid, block, args, *, shared_mem=0,
// stream=None, enable_cooperative_groups=False), with `args` positional or a
// keyword (CuPy's SGEMM example calls kern(grid, block, args=..., shared_mem=n)).
// enable_cooperative_groups=True launches cooperatively even when the kernel
// was not made with it; the constructor's True cannot be switched off here.
PyObject* raw_kernel_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    constexpr const char* kSignature =
        "RawKernel.__call__ takes (grid, block, args, *, shared_mem=0, stream=None, enable_cooperative_groups=False)";
    if (nargs != 2 && nargs != 3)
      throw py::type_error(std::string(kSignature) + ", got " + std::to_string(nargs) + " positional argument" +
                           (nargs == 1 ? "" : "s"));
    uint32_t shared_mem = 0;
    py::handle stream = Py_None;
    py::handle launch_args = nargs == 3 ? py::handle(args[2]) : py::handle();
    bool cooperative = false;
    if (kwnames) {
      Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
      for (Py_ssize_t i = 0; i < nk; ++i) {
        const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        PyObject* value = args[nargs + i];
        if (key && std::strcmp(key, "shared_mem") == 0) {
          long long v = to_index(value);
          if (v < 0 || v > std::numeric_limits<uint32_t>::max())
            throw py::value_error("shared_mem must be between 0 and 2**32 - 1 bytes, got " + std::to_string(v));
          shared_mem = static_cast<uint32_t>(v);
        } else if (key && std::strcmp(key, "stream") == 0) {
          stream = value;
        } else if (key && std::strcmp(key, "args") == 0) {
          if (nargs == 3) throw py::type_error("RawKernel.__call__ got multiple values for argument 'args'");
          launch_args = value;
        } else if (key && std::strcmp(key, "enable_cooperative_groups") == 0) {
          int truth = PyObject_IsTrue(value);
          if (truth < 0) throw py::error_already_set();
          cooperative = truth == 1;
        } else {
          throw py::type_error(std::string("RawKernel.__call__ got an unexpected keyword argument '") +
                               (key ? key : "?") + "'");
        }
      }
    }
    if (!launch_args) throw py::type_error(std::string(kSignature) + ": missing the argument 'args'");
    py::handle(self).cast<RawKernel&>().call(args[0], args[1], launch_args, shared_mem, stream, cooperative);
    Py_RETURN_NONE;
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

PyMethodDef g_raw_kernel_call_def = {"__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(raw_kernel_call)),
                                     METH_FASTCALL | METH_KEYWORDS,
                                     "kernel(grid, block, args, *, shared_mem=0, stream=None, "
                                     "enable_cooperative_groups=False): launch (Note [Launch keywords])"};

std::vector<std::string> to_strings(py::handle seq, const char* what) {
  std::vector<std::string> out;
  if (seq.is_none()) return out;
  if (py::isinstance<py::str>(seq))
    throw py::type_error(std::string(what) + " must be a sequence of strings, not a single string");
  for (py::handle item : seq) {
    if (!py::isinstance<py::str>(item))
      throw py::type_error(std::string(what) + " must hold strings, got '" +
                           type_name(item) + "'");
    out.push_back(item.cast<std::string>());
  }
  return out;
}

// Note [Raw constructor keywords]
// RawKernel and RawModule take CuPy's keywords. backend='nvrtc' compiles with
// the backend's own compiler; 'nvcc' with the CUDA toolkit's nvcc on the cuda
// backend (runtime/cuda/nvcc_compile.cpp; a clear CompileException where
// there is none) and with the host compiler on the host backend, where both
// mean the same. name_expressions need NVRTC (ValueError with nvcc, as
// CuPy). jitify is deprecated in CuPy 14: passing it at all warns
// (DeprecationWarning) and kiln compiles the same either way, since kiln's
// headers (stdlib_kernels) already give kernels what Jitify used to supply.
// translate_cucomplex=True points `#include <cuComplex.h>` at kiln's
// cupy/cuComplex_bridge.h (cuComplex names over kiln::complex).
// enable_cooperative_groups=True launches with Backend::launch_cooperative.
void warn_jitify(py::handle jitify) {
  if (jitify.is_none()) return;
  const char* text = PyObject_IsTrue(jitify.ptr())
                         ? "jitify=True is deprecated and kiln ignores it: kiln's headers already supply what Jitify "
                           "did; remove the argument"
                         : "The jitify argument is deprecated. Avoid passing jitify=False; it is the default";
  if (PyErr_WarnEx(PyExc_DeprecationWarning, text, 1) != 0) throw py::error_already_set();
}

std::string translate_cucomplex(const std::string& code) {
  std::string out;
  size_t start = 0;
  while (start < code.size()) {
    size_t end = code.find('\n', start);
    std::string line = code.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
    size_t hash = line.find_first_not_of(" \t");
    size_t at = line.find("cuComplex.h");
    if (hash != std::string::npos && line.compare(hash, 8, "#include") == 0 && at != std::string::npos)
      line.replace(at, 11, "cupy/cuComplex_bridge.h");
    out += line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

struct SourceArgs {
  py::object code, path, options, backend, name_expressions;
  bool translate_cucomplex = false, cooperative = false;
};

std::shared_ptr<KernelSource> make_source(const SourceArgs& a, const std::string& source_name) {
  if (a.code.is_none() == a.path.is_none()) throw py::type_error("RawModule needs exactly one of code= or path=");
  auto src = std::make_shared<KernelSource>();
  src->backend = a.backend.cast<std::string>();
  if (src->backend != "nvrtc" && src->backend != "nvcc")
    throw py::value_error("backend must be 'nvrtc' or 'nvcc', got '" + src->backend + "'");
  src->options = to_strings(a.options, "options");
  src->name_expressions = to_strings(a.name_expressions, "name_expressions");
  if (src->backend == "nvcc" && !src->name_expressions.empty())
    throw py::value_error("name_expressions need backend='nvrtc' (nvcc cannot lower them)");
  src->translate_cucomplex = a.translate_cucomplex;
  src->cooperative = a.cooperative;
  if (!a.path.is_none()) {
    src->path = py::str(a.path).cast<std::string>();
    return src;
  }
  src->code = a.code.cast<std::string>();
  runtime::CompileRequest request;
  request.source = a.translate_cucomplex ? translate_cucomplex(src->code) : src->code;
  request.options = src->options;
  request.name_expressions = src->name_expressions;
  request.source_name = source_name;
  if (src->backend == "nvcc") request.compiler = "nvcc";
  src->request = std::move(request);
  return src;
}

py::tuple strings(const std::vector<std::string>& v) {
  py::tuple out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = py::str(v[i]);
  return out;
}

// Note [Raw pickling]: a RawModule or RawKernel pickles as the arguments that
// made it (code or path, options, backend, ...), so unpickling compiles again
// (or finds the module in the kernel cache) in the new process.
py::tuple source_state(const KernelSource& s) {
  return py::make_tuple(s.path.empty() ? py::object(py::str(s.code)) : py::object(py::none()),
                        s.path.empty() ? py::object(py::none()) : py::object(py::str(s.path)), strings(s.options),
                        s.backend, s.translate_cucomplex, s.cooperative, strings(s.name_expressions),
                        s.request ? s.request->source_name : std::string());
}

std::shared_ptr<KernelSource> source_from_state(const py::tuple& t) {
  SourceArgs a{t[0], t[1], t[2], t[3], t[6], t[4].cast<bool>(), t[5].cast<bool>()};
  return make_source(a, t[7].cast<std::string>());
}

// A module loaded on one device (RawModule.module, CuPy's cupy.cuda.Module).
struct LoadedModuleObject {
  std::shared_ptr<KernelSource> source;
  std::shared_ptr<runtime::LoadedModule> loaded;
};

// One kernel of a loaded module (RawKernel.kernel, CuPy's cupy.cuda.Function).
// Calling it launches as its RawKernel does.
struct KernelObject {
  std::shared_ptr<runtime::LoadedModule> loaded;
  runtime::KernelFunction function;
  std::shared_ptr<RawKernel> kernel;
};

MemoryPointer global_pointer(const std::shared_ptr<runtime::LoadedModule>& loaded, const std::string& name) {
  auto [ptr, size] = loaded->global(name);
  auto keep = loaded;  // the variable lives as long as its module
  return MemoryPointer{std::make_shared<arraycore::Memory>(ptr, size, loaded->device(), [keep](void*) {}), 0};
}

// The kernel attributes (Note [Kernel attributes] in runtime/host/cpu_backend.cpp),
// one row per CuPy property name.
struct AttributeRow {
  const char* name;
  runtime::FunctionAttribute attribute;
  bool settable;
};
constexpr AttributeRow kAttributes[] = {
    {"binary_version", runtime::FunctionAttribute::BinaryVersion, false},
    {"cache_mode_ca", runtime::FunctionAttribute::CacheModeCa, false},
    {"const_size_bytes", runtime::FunctionAttribute::ConstSizeBytes, false},
    {"local_size_bytes", runtime::FunctionAttribute::LocalSizeBytes, false},
    {"max_dynamic_shared_size_bytes", runtime::FunctionAttribute::MaxDynamicSharedSizeBytes, true},
    {"max_threads_per_block", runtime::FunctionAttribute::MaxThreadsPerBlock, false},
    {"num_regs", runtime::FunctionAttribute::NumRegs, false},
    {"preferred_shared_memory_carveout", runtime::FunctionAttribute::PreferredSharedMemoryCarveout, true},
    {"ptx_version", runtime::FunctionAttribute::PtxVersion, false},
    {"shared_size_bytes", runtime::FunctionAttribute::SharedSizeBytes, false},
};

// Adds `attributes` (a dict) and one property per row to cls; handle_of(self)
// is the kernel's function handle on the current device.
template <class Class, class HandleOf>
void bind_attributes(Class& cls, HandleOf handle_of) {
  using Self = typename Class::type;
  cls.def_property_readonly("attributes", [handle_of](Self& self) {
    runtime::FunctionHandle h = handle_of(self);
    py::dict out;
    for (const auto& row : kAttributes) out[row.name] = runtime::backend().function_attribute(h, row.attribute);
    return out;
  });
  for (const auto& row : kAttributes) {
    auto attribute = row.attribute;
    py::cpp_function get([handle_of, attribute](Self& self) {
      return runtime::backend().function_attribute(handle_of(self), attribute);
    });
    if (!row.settable) {
      cls.def_property_readonly(row.name, get);
      continue;
    }
    cls.def_property(row.name, get, py::cpp_function([handle_of, attribute](Self& self, int value) {
                       runtime::backend().set_function_attribute(handle_of(self), attribute, value);
                     }));
  }
}

// compile(log_stream=None): compile and load now; the compiler's messages
// (warnings included) go to log_stream.write.
void compile_source(KernelSource& src, py::handle log_stream) {
  auto loaded = src.module(runtime::backend().current_device());
  if (!log_stream.is_none()) log_stream.attr("write")(loaded->compiled().log);
}

}  // namespace

void register_raw_kernel(py::module_& m) {
  py::class_<RawKernel, std::shared_ptr<RawKernel>> raw_kernel(m, "RawKernel", R"(
RawKernel(code, name, options=(), backend='nvrtc', *, translate_cucomplex=False,
          enable_cooperative_groups=False, jitify=None)

A CUDA C++ kernel from source, compiled at the first call (or compile()).
Keywords as CuPy's (Note [Raw constructor keywords]): backend='nvcc' compiles
with nvcc on the cuda backend and with the host compiler on the host backend;
jitify is deprecated (a DeprecationWarning) and changes nothing.)");
  raw_kernel
      .def(py::init([](py::object code, const std::string& name, py::object options, py::object backend,
                       bool translate, bool cooperative, py::object jitify) {
             if (name.empty()) throw py::value_error("RawKernel needs the kernel's name");
             if (code.is_none()) throw py::type_error("RawKernel needs the kernel's code");
             warn_jitify(jitify);
             SourceArgs a{code, py::none(), options, backend, py::none(), translate, cooperative};
             return std::make_shared<RawKernel>(make_source(a, name + ".cu"), name);
           }),
           py::arg("code"), py::arg("name"), py::arg("options") = py::tuple(), py::arg("backend") = "nvrtc",
           py::kw_only(), py::arg("translate_cucomplex") = false, py::arg("enable_cooperative_groups") = false,
           py::arg("jitify") = py::none())
      .def("compile", [](RawKernel& k, py::handle log_stream) {
             k.plan(runtime::backend().current_device());
             compile_source(*k.source(), log_stream);
           }, py::arg("log_stream") = py::none(),
           "Compile and load now rather than at the first call; the compiler's log goes to log_stream.")
      .def("_launch_loop", [](RawKernel& k, py::handle args, int n) {
        // Benchmark floor: n launches of grid 1, block 32 with arguments
        // marshalled once, from C++ (what the driver alone costs).
        k.call(py::make_tuple(1), py::make_tuple(32), args, 0, py::none());
        auto& be = runtime::backend();
        const auto& plan = k.plan(be.current_device());
        std::vector<std::vector<unsigned char>> storage;
        std::vector<void*> ptrs;
        auto seq = py::reinterpret_borrow<py::sequence>(args);
        for (size_t i = 0; i < plan.function.params.size(); ++i) {
          storage.emplace_back(16);
          py::handle item = seq[i];
          if (py::isinstance<arraycore::NDArray>(item)) {
            void* p = item.cast<const arraycore::NDArray&>().data();
            std::memcpy(storage.back().data(), &p, 8);
          } else if (PyFloat_Check(item.ptr())) {
            float f = static_cast<float>(PyFloat_AsDouble(item.ptr()));
            std::memcpy(storage.back().data(), &f, 4);
          } else {
            int v = static_cast<int>(PyLong_AsLong(item.ptr()));
            std::memcpy(storage.back().data(), &v, 4);
          }
          ptrs.push_back(storage.back().data());
        }
        for (int i = 0; i < n; ++i)
          be.launch(plan.function.handle, {1, 1, 1}, {32, 1, 1}, 0, nullptr, ptrs.data());
      })
      .def_property_readonly("name", &RawKernel::name)
      .def_property_readonly("code", [](const RawKernel& k) { return k.source()->code; })
      .def_property_readonly("options", [](const RawKernel& k) { return strings(k.source()->options); })
      .def_property_readonly("backend", [](const RawKernel& k) { return k.source()->backend; })
      .def_property_readonly("translate_cucomplex", [](const RawKernel& k) { return k.source()->translate_cucomplex; })
      .def_property_readonly("enable_cooperative_groups", [](const RawKernel& k) { return k.source()->cooperative; })
      .def_property_readonly("kernel", [](const std::shared_ptr<RawKernel>& k) {
        int device = runtime::backend().current_device();
        return KernelObject{k->source()->module(device), k->plan(device).function, k};
      }, "The kernel loaded on the current device (compiles it if needed).")
      .def_property_readonly("param_sizes", [](RawKernel& k) {
        std::vector<uint32_t> sizes;
        for (auto& p : k.plan(runtime::backend().current_device()).function.params) sizes.push_back(p.size);
        return sizes;
      })
      .def(py::pickle(  // Note [Raw pickling]
          [](const RawKernel& k) { return py::make_tuple(source_state(*k.source()), k.name()); },
          [](const py::tuple& t) {
            return std::make_shared<RawKernel>(source_from_state(t[0].cast<py::tuple>()), t[1].cast<std::string>());
          }));
  bind_attributes(raw_kernel, [](RawKernel& k) { return k.plan(runtime::backend().current_device()).function.handle; });
  install_method(m.attr("RawKernel"), &g_raw_kernel_call_def);

  using SourcePtr = std::shared_ptr<KernelSource>;
  py::class_<KernelSource, SourcePtr>(m, "RawModule", R"(
RawModule(code=None, *, path=None, options=(), backend='nvrtc', translate_cucomplex=False,
          enable_cooperative_groups=False, name_expressions=None, jitify=None)

CUDA C++ source (code=) or a compiled binary (path=: a .cubin/.ptx on the cuda
backend, a shared object built from the same source on the host backend), with
its kernels (get_function) and global variables (get_global). C++ template
kernels are reached through name_expressions, e.g.
RawModule(code=src, name_expressions=["f<float>"]).get_function("f<float>").
Compilation happens at the first get_function, get_global or compile().
Keywords as CuPy's (Note [Raw constructor keywords]).)")
      .def(py::init([](py::object code, py::object path, py::object options, py::object backend, bool translate,
                       bool cooperative, py::object names, py::object jitify) {
             warn_jitify(jitify);
             return make_source(SourceArgs{code, path, options, backend, names, translate, cooperative}, "module.cu");
           }),
           py::arg("code") = py::none(), py::kw_only(), py::arg("path") = py::none(),
           py::arg("options") = py::tuple(), py::arg("backend") = "nvrtc", py::arg("translate_cucomplex") = false,
           py::arg("enable_cooperative_groups") = false, py::arg("name_expressions") = py::none(),
           py::arg("jitify") = py::none())
      .def("compile", [](KernelSource& src, py::handle log) { compile_source(src, log); },
           py::arg("log_stream") = py::none(),
           "Compile and load now instead of at the first get_function; the compiler's log goes to log_stream.")
      .def("get_function", [](const SourcePtr& src, const std::string& name) {
             auto kernel = std::make_shared<RawKernel>(src, name);
             kernel->plan(runtime::backend().current_device());  // fail now if the name is unknown
             return kernel;
           }, py::arg("name"),
           "The kernel `name` (a kernel with C linkage, or one of the name expressions), as a RawKernel.")
      .def("get_global", [](KernelSource& src, const std::string& name) {
             return global_pointer(src.module(runtime::backend().current_device()), name);
           }, py::arg("name"),
           "A MemoryPointer to the global variable `name` (__device__ or __constant__) on the current device: "
           "kiln.ndarray(shape, dtype, memptr) views it.")
      .def_property_readonly("module", [](const SourcePtr& src) {
        return LoadedModuleObject{src, src->module(runtime::backend().current_device())};
      }, "The module loaded on the current device (compiles it if needed).")
      .def_property_readonly("code", [](const KernelSource& s) {
        return s.path.empty() ? py::object(py::str(s.code)) : py::object(py::none());
      })
      .def_property_readonly("path", [](const KernelSource& s) {
        return s.path.empty() ? py::object(py::none()) : py::object(py::str(s.path));
      })
      .def_property_readonly("options", [](const KernelSource& s) { return strings(s.options); })
      .def_property_readonly("name_expressions", [](const KernelSource& s) { return strings(s.name_expressions); })
      .def_property_readonly("backend", [](const KernelSource& s) { return s.backend; })
      .def_property_readonly("translate_cucomplex", [](const KernelSource& s) { return s.translate_cucomplex; })
      .def_property_readonly("enable_cooperative_groups", [](const KernelSource& s) { return s.cooperative; })
      .def(py::pickle([](const KernelSource& s) { return source_state(s); },  // Note [Raw pickling]
                      [](const py::tuple& t) { return source_from_state(t); }));

  py::class_<LoadedModuleObject>(m, "Module", "A module loaded on one device: RawModule.module.")
      .def("get_function", [](const LoadedModuleObject& mod, const std::string& name) {
        return KernelObject{mod.loaded, mod.loaded->function(name), std::make_shared<RawKernel>(mod.source, name)};
      }, py::arg("name"))
      .def("get_global", [](const LoadedModuleObject& mod, const std::string& name) { return global_pointer(mod.loaded, name); },
           py::arg("name"))
      .def_property_readonly("mapping", [](const LoadedModuleObject& mod) -> py::object {
        const auto& lowered = mod.loaded->compiled().lowered_names;
        if (lowered.empty()) return py::none();
        py::dict out;
        for (const auto& [expression, symbol] : lowered) out[py::str(expression)] = symbol;
        return out;
      }, "name expression -> lowered (mangled) name, or None without name expressions");

  py::class_<KernelObject> function(m, "Function", "One kernel of a loaded module: RawKernel.kernel.");
  function.def_property_readonly("ptr", [](const KernelObject& f) { return reinterpret_cast<uintptr_t>(f.function.handle); })
      .def_property_readonly("name", [](const KernelObject& f) { return f.function.name; })
      .def("__call__", [](const KernelObject& f, py::handle grid, py::handle block, py::handle args, uint32_t shared_mem,
                          py::handle stream, bool cooperative) {
             f.kernel->call(grid, block, args, shared_mem, stream, cooperative);
           },
           py::arg("grid"), py::arg("block"), py::arg("args"), py::kw_only(), py::arg("shared_mem") = 0,
           py::arg("stream") = py::none(), py::arg("enable_cooperative_groups") = false,
           "function(grid, block, args, *, shared_mem=0, stream=None, enable_cooperative_groups=False): launch "
           "(Note [Launch keywords])");
  bind_attributes(function, [](KernelObject& f) { return f.function.handle; });

  // cupy.cuda.compile_with_cache's place (deprecated there since CuPy 10, with
  // a UserWarning): source -> the Module loaded on the current device. kiln
  // compiles for the current device and caches in its own kernel cache
  // (KILN_CACHE_DIR), so arch, cache_dir and extra_source change nothing.
  m.def("compile_with_cache", [](py::object source, py::object options, py::handle arch, py::handle cache_dir,
                                 py::handle extra_source, py::object backend, bool cooperative, py::object names,
                                 py::handle log_stream, py::object jitify) {
        if (PyErr_WarnEx(PyExc_UserWarning, "kiln.cuda.compile_with_cache is deprecated, as in CuPy: use "
                         "kiln.RawModule or kiln.RawKernel", 1) != 0)
          throw py::error_already_set();
        warn_jitify(jitify);
        auto src = make_source(SourceArgs{source, py::none(), options, backend, names, false, cooperative}, "kernel.cu");
        compile_source(*src, log_stream);
        return LoadedModuleObject{src, src->module(runtime::backend().current_device())};
      }, py::arg("source"), py::arg("options") = py::tuple(), py::arg("arch") = py::none(),
      py::arg("cache_dir") = py::none(), py::arg("extra_source") = py::none(), py::arg("backend") = "nvrtc",
      py::kw_only(), py::arg("enable_cooperative_groups") = false, py::arg("name_expressions") = py::none(),
      py::arg("log_stream") = py::none(), py::arg("jitify") = py::none());

  m.def("_cache_stats", [] {
    auto st = runtime::kernel_cache().stats();
    py::dict d;
    d["memory_hits"] = st.memory_hits;
    d["disk_hits"] = st.disk_hits;
    d["compiles"] = st.compiles;
    d["corrupt_entries"] = st.corrupt_entries;
    d["directory"] = runtime::kernel_cache().directory();
    return d;
  });
  m.def("_record_sources", [](bool on) { runtime::set_record_compiled_sources(on); });
  m.def("_recorded_sources", [] {
    py::list out;
    for (const auto& r : runtime::recorded_compiled_sources())
      out.append(py::make_tuple(r.source, r.options, r.name_expressions));
    return out;
  });
  m.def("_compile_binary", [](const std::string& source, std::vector<std::string> options) {
    auto& be = runtime::backend();
    runtime::CompileRequest r{source, std::move(options), {}, "kernel.cu", ""};
    return py::bytes(be.compile(r, be.target_arch(be.current_device())).binary);
  }, "The current backend's binary for source: a cubin (cuda) or a shared object (host).");
  m.def("_nvrtc_available", [] {
    std::string why;
    bool ok = runtime::nvrtc_available(&why);
    return py::make_tuple(ok, why);
  });
  m.def("_nvrtc_compile", [](const std::string& source, std::vector<std::string> options,
                             std::vector<std::string> names, const std::string& arch) {
    runtime::CompileRequest r{source, std::move(options), std::move(names), "kernel.cu", ""};
    auto compiled = runtime::nvrtc_compile(r, arch);
    return py::bytes(compiled.binary);
  });
}

}  // namespace kiln::py_bind
