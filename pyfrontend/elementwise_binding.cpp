// kiln._core._EwSpec, _elementwise_launch, _elementwise_source: the
// elementwise engine (arraycore/elementwise.h) for the Python layer
// (ElementwiseKernel, fuse); _ElementwiseKernelBase, whose __call__ is
// kiln.ElementwiseKernel's warm call (Note [ElementwiseKernel warm calls]);
// and _ReductionKernelTemplate, kiln.ReductionKernel's type resolution and
// specs. Both kernel classes parse and resolve through
// arraycore/kernel_template.h.
//
//   spec = _core._EwSpec("axpy", [("x", "float", "", "in"), ("z", "float", "", "out")], "z = 2 * x;")
//   _core._elementwise_launch(spec, [x, z], z.shape)   # numpy scalars for scalar inputs
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"
#include "arraycore/kernel_template.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/texture_binding.h"
#include "runtime/stream.h"

namespace kiln::py_bind {
namespace {

using arraycore::DType;
using arraycore::EwArg;
using arraycore::EwParam;
using arraycore::EwSpec;
using arraycore::NDArray;

EwParam::Role to_role(const std::string& role) {
  if (role == "in") return EwParam::Input;
  if (role == "out") return EwParam::Output;
  if (role == "raw") return EwParam::Raw;
  throw py::value_error("param role must be 'in', 'out' or 'raw', got '" + role + "'");
}

// Arguments aligned with spec.params: kiln arrays, or NumPy scalars whose
// bytes are the value (`holders` keeps the converted scalars' bytes).
std::vector<EwArg> to_args(const EwSpec& spec, py::handle args) {
  py::sequence seq = py::reinterpret_borrow<py::sequence>(args);
  std::vector<EwArg> out;
  out.reserve(seq.size());
  for (size_t k = 0; k < seq.size(); ++k) {
    py::object a = seq[k];
    if (py::isinstance<NDArray>(a)) {
      out.push_back(EwArg::of(a.cast<const NDArray&>()));
      continue;
    }
    static const py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
    if (!py::isinstance(a, generic))
      throw py::type_error("elementwise argument " + std::to_string(k) + " must be a kiln.ndarray or a NumPy scalar, got " +
                           type_name(a));
    // NumPy scalars export their value through the buffer protocol.
    Py_buffer view;
    if (PyObject_GetBuffer(a.ptr(), &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
    const bool fits = view.len <= 16;
    EwArg e;
    if (fits) std::memcpy(e.scalar.data(), view.buf, static_cast<size_t>(view.len));
    PyBuffer_Release(&view);
    if (!fits) throw py::type_error("scalar arguments are at most 16 bytes");
    out.push_back(e);
  }
  if (out.size() != spec.params.size())
    throw py::type_error(spec.name + " takes " + std::to_string(spec.params.size()) + " arguments (" +
                         std::to_string(out.size()) + " given)");
  return out;
}

// Note [ElementwiseKernel warm calls]
// kiln.ElementwiseKernel (Python: signature, attributes, docstring) derives
// from _ElementwiseKernelBase (its KernelTemplate: the parsed parameters),, whose __call__ is kernel_tp_call below (Note
// [ElementwiseKernel tp_call]). A call's argument kinds (per argument the
// dtype of a kiln array or the type of a scalar, and so their number) decide
// all that is not per element, and key the kernel's plans: a short vector
// searched linearly (a kernel meets few kinds). On a hit the call is C++
// only: the size=/block_size= checks, broadcasting (only when shapes differ),
// scalar conversion, output allocation, the launch; no Python code runs and
// the outputs are the only Python objects made. On a miss, add_plan checks
// the arguments (raising a bad call's errors), resolves the placeholders
// (Note [Kernel template resolution]) and makes the plan, stored under the
// key; the spec is shared by the plans of the same parameter dtypes.

// Where a scalar argument's value comes from.
// Handle: a kiln.cuda.texture TextureObject/SurfaceObject, a uint64 (its cudaTextureObject_t).
enum class ScalarFrom : uint8_t { NumPy, Bool, Int, Float, Complex, Handle };

struct CallPlan {
  std::vector<uintptr_t> key;        // argument kinds (kind_of)
  std::vector<py::object> types;     // the scalar types `key` names, kept alive
  std::shared_ptr<EwSpec> spec;
  std::vector<int> shaped;           // the non-raw array arguments: they decide the loop shape
  struct Scalar {
    int arg;
    DType dtype;                     // the param's
    ScalarFrom from;
    py::object convert;              // NumPy's conversion to dtype; None: a NumPy scalar of dtype
  };
  std::vector<Scalar> scalars;
  bool allocates = false;            // only the inputs given: outputs of out_dtypes allocated
  std::vector<DType> out_dtypes;
  std::string raw_out;               // allocating: the first raw output's name, else ""
};

// An argument's kind: odd for a kiln array (its dtype), else its type object.
uintptr_t kind_of(PyObject* o) {
  if (const NDArray* a = ndarray_of(o)) return (static_cast<uintptr_t>(a->dtype()) << 1) | 1;
  return reinterpret_cast<uintptr_t>(Py_TYPE(o));
}

ScalarFrom scalar_from(PyObject* o) {
  if (Py_TYPE(o) == &PyBool_Type) return ScalarFrom::Bool;
  if (Py_TYPE(o) == &PyLong_Type) return ScalarFrom::Int;
  if (Py_TYPE(o) == &PyFloat_Type) return ScalarFrom::Float;
  if (Py_TYPE(o) == &PyComplex_Type) return ScalarFrom::Complex;
  if (texture_handle_of(o)) return ScalarFrom::Handle;
  return ScalarFrom::NumPy;
}

// type(o).__name__, for the messages that name an argument's type.
std::string python_type_name(PyObject* o) {
  return py::str(py::handle(reinterpret_cast<PyObject*>(Py_TYPE(o))).attr("__name__"));
}

PyObject* numpy_attr(const char* name) {
  return py::object(py::module_::import("numpy").attr(name)).release().ptr();
}

// The DType of a numpy.dtype object when kiln supports it (native byte
// order, a numeric type of the table: the keys of the dtype table).
std::optional<DType> supported_dtype(py::handle descr) {
  if (!descr.attr("isnative").cast<bool>()) return std::nullopt;
  return kiln_dtype_of(descr);
}

// A type name of a kernel's parameter list as numpy.dtype reads it.
arraycore::TypeName numpy_type_name(std::string_view name) {
  static PyObject* dtype = numpy_attr("dtype");
  py::str text(name.data(), name.size());
  PyObject* d = PyObject_CallOneArg(dtype, text.ptr());
  if (d == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw py::error_already_set();
    PyErr_Clear();
    return {};
  }
  py::object descr = py::reinterpret_steal<py::object>(d);
  return {true, supported_dtype(descr), py::str(descr)};
}

// A scalar argument of a kernel: a Python bool, int, float or complex (those
// exact types) or a NumPy scalar.
bool is_scalar(PyObject* o) {
  static PyObject* generic = numpy_attr("generic");
  PyTypeObject* t = Py_TYPE(o);
  return t == &PyBool_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyComplex_Type ||
         PyObject_IsInstance(o, generic) == 1;
}

// A scalar argument's dtype for type resolution: a Python scalar's NumPy
// default (numpy.asarray(1).dtype is int64), a NumPy scalar's own.
DType scalar_dtype(PyObject* a, size_t k, const std::string& kernel) {
  switch (scalar_from(a)) {
    case ScalarFrom::Bool: return DType::Bool;
    case ScalarFrom::Int: return DType::Int64;
    case ScalarFrom::Float: return DType::Float64;
    case ScalarFrom::Complex: return DType::Complex128;
    case ScalarFrom::Handle: return DType::UInt64;
    case ScalarFrom::NumPy: break;
  }
  py::object descr = py::handle(a).attr("dtype");
  if (std::optional<DType> d = supported_dtype(descr)) return *d;
  throw py::type_error(kernel + ": argument " + std::to_string(k) + " has dtype " + std::string(py::str(descr)) +
                       ", which kiln kernels do not support");
}

py::type_error unsupported_argument(const std::string& kernel, size_t k, PyObject* a, bool is_host_array) {
  if (is_host_array)
    return py::type_error(kernel + ": argument " + std::to_string(k) +
                          " is a NumPy array, which lives on the host; move it to the device with kiln.asarray first");
  return py::type_error(kernel + ": argument " + std::to_string(k) + " has unsupported type " + python_type_name(a) +
                        " (expected kiln.ndarray or a scalar)");
}

// NumPy's conversion of a NumPy scalar to dtype: v.astype(dtype).
py::object numpy_astype(DType dt) {
  py::object d = to_numpy_dtype(dt);
  return py::cpp_function([d](py::handle v) { return v.attr("astype")(d); });
}

// A kernel's name argument: a str (the template checks it is an identifier).
std::string kernel_name(py::handle name) {
  if (!PyUnicode_Check(name.ptr()))
    throw std::invalid_argument("Invalid kernel name: " + std::string(py::repr(name)) +
                                " (it must be a C++ identifier)");
  return name.cast<std::string>();
}

// The parsed parameters for Python: (name, dtype or None, ctype, raw, is_const).
py::tuple template_params(const arraycore::KernelTemplate& t) {
  py::tuple r(t.nargs());
  for (size_t k = 0; k < t.nargs(); ++k) {
    const arraycore::TemplateParam& p = t.params()[k];
    r[k] = py::make_tuple(p.name, p.dtype ? to_numpy_dtype(*p.dtype) : py::none(), std::string(p.ctype()), p.raw,
                          p.is_const);
  }
  return r;
}

// The KernelTemplateUnsupported of `f` as NotImplementedError.
template <class F>
auto not_implemented_as_python(F&& f) {
  try {
    return f();
  } catch (const arraycore::KernelTemplateUnsupported& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
    throw py::error_already_set();
  }
}

// n value-initialised elements: on the stack when n <= N, else on the heap
// (only the n used are initialised: zeroing a whole stack array showed).
template <class T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) : n_(n) {
    if (n > N) heap_ = std::make_unique<T[]>(n);
    else for (size_t i = 0; i < n; ++i) new (&local_[i]) T();
    data_ = n > N ? heap_.get() : reinterpret_cast<T*>(local_);
  }
  ~SmallBuffer() {
    if (n_ <= N) for (size_t i = 0; i < n_; ++i) data_[i].~T();
  }
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;
  T& operator[](size_t i) { return data_[i]; }
  T* data() { return data_; }

 private:
  size_t n_;
  alignas(T) std::byte local_[N][sizeof(T)];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

template <class T>
bool put(std::byte* out, const T& v) {
  std::memcpy(out, &v, sizeof(T));
  return true;
}

template <class Int>
bool put_int(std::byte* out, long long v) {
  if (v < static_cast<long long>(std::numeric_limits<Int>::min()) ||
      v > static_cast<long long>(std::numeric_limits<Int>::max()))
    return false;
  return put(out, static_cast<Int>(v));
}

// A Python float as dtype where NumPy's conversion is the plain C one; false
// leaves it to NumPy (integers truncate and check range, float16 rounds from
// the double, an overflow to inf warns).
bool float_bytes(double re, double im, bool is_complex, DType dt, std::byte* out) {
  const float f = static_cast<float>(re), g = static_cast<float>(im);
  const bool f_ok = std::isfinite(f) || !std::isfinite(re), g_ok = std::isfinite(g) || !std::isfinite(im);
  switch (dt) {
    case DType::Bool: return !is_complex && put(out, re != 0);
    case DType::Float32: return !is_complex && f_ok && put(out, f);
    case DType::Float64: return !is_complex && put(out, re);
    case DType::Complex64: return f_ok && g_ok && put(out, std::array<float, 2>{f, g});
    case DType::Complex128: return put(out, std::array<double, 2>{re, im});
    default: return false;
  }
}

// A Python int (or bool) as dtype when it is in range (floats: exact in a
// double); false leaves it to NumPy (its OverflowError, float16 rounding).
bool int_bytes(long long v, DType dt, std::byte* out) {
  constexpr long long kExact = 1LL << 53;
  const bool exact = v >= -kExact && v <= kExact;
  switch (dt) {
    case DType::Bool: return put(out, v != 0);
    case DType::Int8: return put_int<int8_t>(out, v);
    case DType::Int16: return put_int<int16_t>(out, v);
    case DType::Int32: return put_int<int32_t>(out, v);
    case DType::Int64: return put(out, static_cast<int64_t>(v));
    case DType::UInt8: return put_int<uint8_t>(out, v);
    case DType::UInt16: return put_int<uint16_t>(out, v);
    case DType::UInt32: return put_int<uint32_t>(out, v);
    case DType::UInt64: return v >= 0 && put(out, static_cast<uint64_t>(v));
    case DType::Float16: return false;
    default: return exact && float_bytes(static_cast<double>(v), 0, false, dt, out);
  }
}

void numpy_scalar_bytes(PyObject* v, std::byte* out) {
  Py_buffer view;   // a NumPy scalar's value, through the buffer protocol
  if (PyObject_GetBuffer(v, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
  const bool fits = view.len <= 16;
  if (fits) std::memcpy(out, view.buf, static_cast<size_t>(view.len));
  PyBuffer_Release(&view);
  if (!fits) throw py::type_error("scalar arguments are at most 16 bytes");
}

// The value of scalar argument `a` in the param's type.
void scalar_bytes(PyObject* a, const CallPlan::Scalar& s, std::byte* out) {
  switch (s.from) {
    case ScalarFrom::Bool:
      if (int_bytes(a == Py_True, s.dtype, out)) return;
      break;
    case ScalarFrom::Int: {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(a, &overflow);
      if (overflow == 0 && int_bytes(v, s.dtype, out)) return;
      break;
    }
    case ScalarFrom::Float:
      if (float_bytes(PyFloat_AS_DOUBLE(a), 0, false, s.dtype, out)) return;
      break;
    case ScalarFrom::Complex: {
      Py_complex c = PyComplex_AsCComplex(a);
      if (float_bytes(c.real, c.imag, true, s.dtype, out)) return;
      break;
    }
    case ScalarFrom::Handle:
      if (s.dtype == DType::UInt64 || s.dtype == DType::Int64) {
        const uint64_t h = *texture_handle_of(a);
        std::memcpy(out, &h, 8);
        return;
      }
      throw py::type_error("a " + python_type_name(a) + " is passed as a uint64 (its cudaTextureObject_t), not " +
                           std::string(arraycore::dtype_info(s.dtype).name));
    case ScalarFrom::NumPy:
      break;
  }
  if (s.convert.is_none()) return numpy_scalar_bytes(a, out);
  PyObject* v = PyObject_CallOneArg(s.convert.ptr(), a);
  if (!v) throw py::error_already_set();
  py::object held = py::reinterpret_steal<py::object>(v);
  numpy_scalar_bytes(v, out);
}

// "(2, 3)", "(3,)", "()": a shape as Python prints the tuple.
std::string shape_repr(const arraycore::Shape& s) {
  std::string r = "(";
  for (size_t d = 0; d < s.size(); ++d) r += (d ? ", " : "") + std::to_string(s[d]);
  return r + (s.size() == 1 ? ",)" : ")");
}

// Sets the current stream for a scope.
class StreamScope {
 public:
  explicit StreamScope(runtime::StreamHandle s) : previous_(runtime::current_stream()) {
    runtime::set_current_stream(s);
  }
  ~StreamScope() { runtime::set_current_stream(previous_); }
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  runtime::StreamHandle previous_;
};

class ElementwiseKernelBase {
 public:
  enum class Returns { One, Tuple, Nothing };

  ElementwiseKernelBase(arraycore::KernelTemplate t, arraycore::ElementwiseKernelText text, Returns returns)
      : template_(std::move(t)),
        text_(std::move(text)),
        name_(template_.name()),
        nin_(static_cast<int>(template_.nin())),
        nargs_(static_cast<int>(template_.nargs())),
        returns_(returns) {}

  const arraycore::KernelTemplate& kernel_template() const { return template_; }
  size_t spec_count() const { return specs_.size(); }

  size_t plan_count() const { return plans_.size(); }

  py::object call(py::handle self, PyObject* const* args, size_t n, PyObject* kwnames) {
    PyObject* size = Py_None;
    PyObject* block_size = Py_None;
    PyObject* stream = Py_None;
    if (kwnames) parse_keywords(args + n, kwnames, size, block_size, stream);

    SmallBuffer<uintptr_t, 16> key(n);
    for (size_t k = 0; k < n; ++k) key[k] = kind_of(args[k]);
    const CallPlan* plan = find(key.data(), n);
    if (plan == nullptr) {
      // Note [Foreign device operands]: converted, then called again.
      std::vector<py::object> converted;
      for (size_t k = 0; k < n + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0); ++k)
        converted.push_back(py::reinterpret_borrow<py::object>(args[k]));
      bool any = false;
      for (size_t k = 0; k < n; ++k)
        if (py::object a = foreign_device_array(args[k])) converted[k] = std::move(a), any = true;
      if (any) {
        std::vector<PyObject*> raw(converted.size());
        for (size_t k = 0; k < raw.size(); ++k) raw[k] = converted[k].ptr();
        return call(self, raw.data(), n, kwnames);
      }
      plan = &add_plan(args, n, key.data());
    }

    if (block_size != Py_None) {
      static PyObject* zero = PyLong_FromLong(0);
      int le = PyObject_RichCompareBool(block_size, zero, Py_LE);
      if (le < 0) throw py::error_already_set();
      if (le) throw py::value_error("block_size must be greater than zero");
    }
    const arraycore::Shape* shape = nullptr;
    arraycore::Shape own_shape;
    bool broadcast = false;
    if (size != Py_None) {
      if (!plan->shaped.empty())
        // The messages begin with CuPy's words (scripts and tests match them).
        throw py::value_error("Specified 'size' can be given only when every array argument is raw (" + name_ +
                              ": size= can be given only when every array argument is raw)");
    } else if (plan->shaped.empty()) {
      throw py::value_error("Loop size is undecided. " + name_ + ": loop size is undecided: every array argument "
                            "is raw (or there is none); pass size=");
    } else {
      shape = &ndarray_of(args[plan->shaped[0]])->shape();
      for (int k : plan->shaped) {
        if (ndarray_of(args[k])->shape() != *shape) {
          own_shape = broadcast_shape(*plan, args);
          shape = &own_shape;
          broadcast = true;
          break;
        }
      }
    }

    const size_t total = static_cast<size_t>(nargs_);
    SmallBuffer<EwArg, 16> ew(total);
    std::vector<NDArray> views;   // inputs broadcast to `shape`
    if (broadcast) views.reserve(plan->shaped.size());
    // Inputs sharing memory with a given output (other than as the very same
    // view) are read from copies made on the launch's stream, as the ufuncs'
    // (Note [Overlapping copies] in arraycore/copy.cpp).
    std::vector<NDArray> detached;
    if (!plan->allocates) {
      for (size_t k = 0; k < n && static_cast<int>(k) < nin_; ++k) {
        if (!(key[k] & 1)) continue;
        const NDArray* a = ndarray_of(args[k]);
        for (size_t j = static_cast<size_t>(nin_); j < n; ++j) {
          if (!(key[j] & 1) || !arraycore::overlaps_partially(*a, *ndarray_of(args[j]))) continue;
          if (detached.empty()) detached.reserve(static_cast<size_t>(nin_));
          if (stream == Py_None) {
            detached.push_back(arraycore::astype(*a, a->dtype(), arraycore::Order::C));
          } else {
            StreamScope scope(to_stream(stream));
            detached.push_back(arraycore::astype(*a, a->dtype(), arraycore::Order::C));
          }
          ew[k] = EwArg::of(detached.back());
          break;
        }
      }
    }
    for (size_t k = 0; k < n; ++k) {
      if (!(key[k] & 1)) continue;
      const NDArray* a = ew[k].array ? ew[k].array : ndarray_of(args[k]);
      if (broadcast && static_cast<int>(k) < nin_ && a->shape() != *shape &&
          std::find(plan->shaped.begin(), plan->shaped.end(), static_cast<int>(k)) != plan->shaped.end()) {
        views.push_back(arraycore::broadcast_to(*a, *shape));
        a = &views.back();
      }
      ew[k] = EwArg::of(*a);
    }
    for (const CallPlan::Scalar& s : plan->scalars) scalar_bytes(args[s.arg], s, ew[s.arg].scalar.data());
    if (size != Py_None) {
      own_shape.assign(1, to_index(size));
      shape = &own_shape;
    }

    const size_t nout = total - static_cast<size_t>(nin_);
    SmallBuffer<py::object, 4> outs(nout);
    if (plan->allocates) {
      if (!plan->raw_out.empty() && size == Py_None)
        throw py::value_error(name_ + ": the size of raw output '" + plan->raw_out +
                              "' is undecided; pass the output array");
      for (size_t j = 0; j < nout; ++j) {
        outs[j] = py::cast(NDArray::empty(*shape, plan->out_dtypes[j]));
        ew[nin_ + j] = EwArg::of(*ndarray_of(outs[j].ptr()));
      }
    } else {
      for (size_t j = 0; j < nout; ++j) outs[j] = py::reinterpret_borrow<py::object>(args[nin_ + j]);
    }

    if (std::find(shape->begin(), shape->end(), 0) == shape->end()) {
      std::span<const EwArg> span(ew.data(), total);
      if (stream == Py_None) {
        arraycore::elementwise_launch(*plan->spec, span, *shape);
      } else {
        StreamScope scope(to_stream(stream));
        arraycore::elementwise_launch(*plan->spec, span, *shape);
      }
    }
    switch (returns_) {
      case Returns::One: return std::move(outs[0]);
      case Returns::Nothing: return py::none();
      case Returns::Tuple: break;
    }
    py::tuple t(nout);
    for (size_t j = 0; j < nout; ++j) PyTuple_SET_ITEM(t.ptr(), j, outs[j].release().ptr());
    return std::move(t);
  }

 private:
  static void parse_keywords(PyObject* const* values, PyObject* kwnames, PyObject*& size, PyObject*& block_size,
                             PyObject*& stream) {
    static PyObject* const names[3] = {PyUnicode_InternFromString("size"), PyUnicode_InternFromString("block_size"),
                                       PyUnicode_InternFromString("stream")};
    PyObject** slots[3] = {&size, &block_size, &stream};
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, i);
      int j = 0;
      while (j < 3 && key != names[j] && PyUnicode_Compare(key, names[j]) != 0) ++j;
      if (j == 3)
        throw py::type_error("ElementwiseKernel.__call__() got an unexpected keyword argument '" +
                             py::str(key).cast<std::string>() + "'");
      *slots[j] = values[i];
    }
  }

  const CallPlan* find(const uintptr_t* key, size_t n) const {
    for (const auto& p : plans_)
      if (p->key.size() == n && std::equal(key, key + n, p->key.data())) return p.get();
    return nullptr;
  }

  // The plan for these arguments, kept under `key`: the arguments checked
  // (a bad call's errors), the types resolved (KernelTemplate, Note [Kernel
  // template resolution]) and the spec for them (one per parameter dtypes).
  const CallPlan& add_plan(PyObject* const* args, size_t n, const uintptr_t* key) {
    const std::string& name = template_.name();
    if (n != static_cast<size_t>(nin_) && n != static_cast<size_t>(nargs_))
      throw py::type_error("Wrong number of arguments for '" + name + "': it takes " + std::to_string(nin_) +
                           " (inputs) or " + std::to_string(nargs_) + " (with outputs), got " + std::to_string(n));
    static PyObject* numpy_ndarray = numpy_attr("ndarray");
    auto plan = std::make_unique<CallPlan>();
    std::vector<arraycore::TemplateArg> targs(n);
    for (size_t k = 0; k < n; ++k) {
      const arraycore::TemplateParam& p = template_.params()[k];
      PyObject* a = args[k];
      if (const NDArray* arr = ndarray_of(a)) {
        targs[k] = arraycore::TemplateArg::array(arr->dtype());
        if (!p.raw) plan->shaped.push_back(static_cast<int>(k));
        continue;
      }
      const bool is_host_array = PyObject_IsInstance(a, numpy_ndarray) == 1;
      if (k >= static_cast<size_t>(nin_) && !is_host_array)
        throw py::type_error(name + ": output argument " + std::to_string(k) + " must be a kiln.ndarray, got " +
                             python_type_name(a));
      const bool scalar = is_scalar(a) || texture_handle_of(a);
      if (scalar && !p.raw) {
        targs[k] = arraycore::TemplateArg::scalar(scalar_dtype(a, k, name));
        continue;
      }
      if (scalar)
        throw py::type_error(name + ": raw parameter '" + p.name + "' takes a kiln.ndarray, got " +
                             python_type_name(a));
      throw unsupported_argument(name, k, a, is_host_array);
    }
    arraycore::ResolvedTypes resolved = template_.resolve(targs);
    plan->key.assign(key, key + n);
    for (size_t k = 0; k < n; ++k)
      if (!(key[k] & 1))
        plan->types.push_back(py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(Py_TYPE(args[k]))));
    std::shared_ptr<EwSpec>& spec = specs_[resolved.dtypes];
    if (!spec) spec = arraycore::elementwise_kernel_spec(template_, resolved, text_);
    plan->spec = spec;
    for (size_t k = 0; k < n; ++k) {
      if (targs[k].is_array) continue;
      const DType dt = resolved.dtypes[k];
      const ScalarFrom from = scalar_from(args[k]);
      py::object convert = py::none();   // a NumPy scalar of the param's dtype already
      if (from != ScalarFrom::NumPy) convert = to_numpy_dtype(dt).attr("type");
      else if (targs[k].dtype != dt) convert = numpy_astype(dt);
      plan->scalars.push_back({static_cast<int>(k), dt, from, std::move(convert)});
    }
    plan->allocates = n == static_cast<size_t>(nin_);
    if (plan->allocates) {
      plan->out_dtypes.assign(resolved.dtypes.begin() + nin_, resolved.dtypes.end());
      for (size_t k = nin_; k < template_.nargs(); ++k)
        if (template_.params()[k].raw) {
          plan->raw_out = template_.params()[k].name;
          break;
        }
    }
    plans_.push_back(std::move(plan));
    return *plans_.back();
  }

  // The broadcast shape of the plan's shaped arguments, which given outputs
  // must have already; ValueErrors as kiln.broadcast_shapes's.
  arraycore::Shape broadcast_shape(const CallPlan& plan, PyObject* const* args) const {
    size_t ndim = 0;
    for (int k : plan.shaped) ndim = std::max(ndim, ndarray_of(args[k])->shape().size());
    arraycore::Shape out(ndim, 1);
    std::vector<int> first(ndim, -1);   // which shaped argument fixed each dimension
    for (size_t j = 0; j < plan.shaped.size(); ++j) {
      const arraycore::Shape& s = ndarray_of(args[plan.shaped[j]])->shape();
      for (size_t d = 0, i = ndim - s.size(); d < s.size(); ++d, ++i) {
        if (s[d] == 1) continue;
        if (out[i] == 1) {
          out[i] = s[d];
          first[i] = static_cast<int>(j);
        } else if (out[i] != s[d]) {
          throw py::value_error(
              "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg " +
              std::to_string(first[i]) + " with shape " +
              shape_repr(ndarray_of(args[plan.shaped[first[i]]])->shape()) + " and arg " + std::to_string(j) +
              " with shape " + shape_repr(s) + ".");
        }
      }
    }
    for (int k : plan.shaped) {
      const arraycore::Shape& s = ndarray_of(args[k])->shape();
      if (k >= nin_ && s != out)
        throw py::value_error("Out shape is mismatched. " + name_ + ": output '" + plan.spec->params[k].name +
                              "' has shape " + shape_repr(s) + "; the arguments broadcast to " + shape_repr(out));
    }
    return out;
  }

  arraycore::KernelTemplate template_;
  arraycore::ElementwiseKernelText text_;
  std::map<std::vector<DType>, std::shared_ptr<EwSpec>> specs_;   // per parameter dtypes
  std::string name_;
  int nin_, nargs_;
  Returns returns_;
  std::vector<std::unique_ptr<CallPlan>> plans_;   // unique_ptr: a plan stays put while a call uses it
};

// The C++ half of kiln.ReductionKernel: its template, texts and specs
// (one per parameter dtypes); the Python __call__ shapes the call.
class ReductionKernelTemplate {
 public:
  ReductionKernelTemplate(arraycore::KernelTemplate t, arraycore::ReductionKernelText text)
      : template_(std::move(t)), text_(std::move(text)) {}

  const arraycore::KernelTemplate& kernel_template() const { return template_; }
  size_t spec_count() const { return specs_.size(); }

  // (spec, the dtype of every parameter) for the inputs (kiln arrays, and
  // scalars for non-raw parameters: ElementwiseKernel's checks) and the
  // output given (None: allocated).
  py::tuple resolve(py::sequence args, py::handle out) {
    static PyObject* numpy_ndarray = numpy_attr("ndarray");
    const std::string& name = template_.name();
    if (args.size() != template_.nin()) throw py::type_error(name + ": resolve takes the inputs");
    std::vector<arraycore::TemplateArg> targs;
    targs.reserve(args.size() + 1);
    py::list converted(args);
    for (size_t k = 0; k < args.size(); ++k) {
      PyObject* a = args[k].ptr();
      const arraycore::TemplateParam& p = template_.params()[k];
      if (const NDArray* arr = ndarray_of(a)) {
        targs.push_back(arraycore::TemplateArg::array(arr->dtype()));
      } else if (py::object foreign = foreign_device_array(a)) {
        converted[k] = foreign;   // Note [Foreign device operands]
        targs.push_back(arraycore::TemplateArg::array(ndarray_of(foreign.ptr())->dtype()));
      } else if (!is_scalar(a) && !texture_handle_of(a)) {
        throw unsupported_argument(name, k, a, PyObject_IsInstance(a, numpy_ndarray) == 1);
      } else if (p.raw) {
        throw py::type_error(name + ": raw parameter '" + p.name + "' takes a kiln.ndarray, got " +
                             python_type_name(a));
      } else {
        // A texture or surface object reaches the kernel as its handle, a uint64 scalar.
        if (std::optional<uint64_t> h = texture_handle_of(a)) converted[k] = py::module_::import("numpy").attr("uint64")(*h);
        targs.push_back(arraycore::TemplateArg::scalar(scalar_dtype(a, k, name)));
      }
    }
    if (!out.is_none()) {
      const NDArray* o = ndarray_of(out.ptr());
      if (o == nullptr) throw py::type_error(name + ": the output must be a kiln.ndarray");
      targs.push_back(arraycore::TemplateArg::array(o->dtype()));
    }
    arraycore::ResolvedTypes resolved = template_.resolve(targs);
    std::shared_ptr<arraycore::ReductionSpec>& spec = specs_[resolved.dtypes];
    if (!spec) spec = arraycore::reduction_kernel_spec(template_, resolved, text_, numpy_type_name);
    py::tuple dtypes(resolved.dtypes.size());
    for (size_t k = 0; k < resolved.dtypes.size(); ++k) dtypes[k] = to_numpy_dtype(resolved.dtypes[k]);
    return py::make_tuple(spec, dtypes, py::tuple(converted));
  }

 private:
  arraycore::KernelTemplate template_;
  arraycore::ReductionKernelText text_;
  std::map<std::vector<DType>, std::shared_ptr<arraycore::ReductionSpec>> specs_;
};

// Note [ElementwiseKernel tp_call]
// kiln.ElementwiseKernel is a Python subclass, so a __call__ method of the
// base would be found by slot_tp_call on every call and called with `self`
// prepended (~60 ns, a twentieth of a warm call). Instead the base's __call__
// is a slot wrapper around kernel_tp_call: CPython then puts kernel_tp_call in
// the tp_call slot of the base and of every subclass, and a call goes
// straight there with its argument tuple.
PyObject* kernel_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    auto* kernel = inst->simple_layout ? static_cast<ElementwiseKernelBase*>(inst->simple_value_holder[0])
                                       : &py::handle(self).cast<ElementwiseKernelBase&>();
    if (kernel == nullptr) throw py::type_error("ElementwiseKernel.__init__() was not called");
    PyObject* const* items = &PyTuple_GET_ITEM(args, 0);
    const size_t n = static_cast<size_t>(PyTuple_GET_SIZE(args));
    if (kwargs == nullptr || PyDict_GET_SIZE(kwargs) == 0) return kernel->call(self, items, n, nullptr).release().ptr();
    // Keywords as vectorcall passes them: values after the positionals, names in a tuple.
    std::vector<PyObject*> stack(items, items + n);
    py::tuple names(PyDict_GET_SIZE(kwargs));
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      stack.push_back(value);
      PyTuple_SET_ITEM(names.ptr(), i++, Py_NewRef(key));
    }
    return kernel->call(self, stack.data(), n, names.ptr()).release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

// Makes kernel_tp_call the type's __call__ (Note [ElementwiseKernel tp_call]).
void set_tp_call(py::handle cls) {
  // type.__call__ is a slot wrapper: its slot record is the one for __call__.
  // (Looked up, not read from PyType_Type.tp_dict: static types have none from Python 3.12.)
  py::object type_call_ref = py::reinterpret_steal<py::object>(
      PyObject_GetAttrString(reinterpret_cast<PyObject*>(&PyType_Type), "__call__"));
  PyObject* type_call = type_call_ref.ptr();
  if (type_call == nullptr || !PyObject_TypeCheck(type_call, &PyWrapperDescr_Type))
    throw py::import_error("kiln needs CPython: type.__call__ is not a slot wrapper");
  PyObject* descr = PyDescr_NewWrapper(reinterpret_cast<PyTypeObject*>(cls.ptr()),
                                       reinterpret_cast<PyWrapperDescrObject*>(type_call)->d_base,
                                       reinterpret_cast<void*>(kernel_tp_call));
  if (descr == nullptr) throw py::error_already_set();
  cls.attr("__call__") = py::reinterpret_steal<py::object>(descr);
  if (reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_call != kernel_tp_call)
    throw py::import_error("kiln: could not set ElementwiseKernel's tp_call");
}

}  // namespace

void register_elementwise(py::module_& m) {
  py::class_<EwSpec, std::shared_ptr<EwSpec>>(m, "_EwSpec")
      .def(py::init([](std::string name, std::vector<std::tuple<std::string, std::string, std::string, std::string>> params,
                       std::string operation, std::string preamble, std::string loop_prep, std::string after_loop,
                       std::vector<std::string> options, bool outputs_write_only, std::string operation_file) {
             auto s = std::make_shared<EwSpec>();
             s->name = std::move(name);
             for (auto& [pname, ctype, storage, role] : params) s->params.push_back({pname, ctype, storage, to_role(role)});
             s->operation = std::move(operation);
             s->preamble = std::move(preamble);
             s->loop_prep = std::move(loop_prep);
             s->after_loop = std::move(after_loop);
             s->options = std::move(options);
             s->outputs_write_only = outputs_write_only;
             s->operation_file = std::move(operation_file);
             return s;
           }),
           py::arg("name"), py::arg("params"), py::arg("operation"), py::arg("preamble") = "",
           py::arg("loop_prep") = "", py::arg("after_loop") = "", py::arg("options") = std::vector<std::string>{},
           py::arg("outputs_write_only") = false, py::arg("operation_file") = "")
      .def_property_readonly("name", [](const EwSpec& s) { return s.name; });
  m.attr("_EXACT_FP_OPTIONS") = py::tuple(py::cast(arraycore::exact_fp_options()));
  m.def("_elementwise_launch", [](const EwSpec& spec, py::handle args, py::handle shape) {
    std::vector<EwArg> a = to_args(spec, args);
    arraycore::elementwise_launch(spec, a, to_shape(shape));
  });
  py::class_<ElementwiseKernelBase>(m, "_ElementwiseKernelBase",
                                    "The C++ half of kiln.ElementwiseKernel: its template, plans and warm call.")
      .def(py::init([](py::handle name, const std::string& in_params, const std::string& out_params,
                       std::string operation, std::string preamble, std::string loop_prep, std::string after_loop,
                       std::vector<std::string> options, bool outputs_write_only, bool no_return, bool return_tuple) {
             arraycore::KernelTemplate t(kernel_name(name), in_params, out_params,
                                         arraycore::KernelTemplate::Elementwise, numpy_type_name);
             using R = ElementwiseKernelBase::Returns;
             const R r = no_return ? R::Nothing : t.nargs() - t.nin() == 1 && !return_tuple ? R::One : R::Tuple;
             arraycore::ElementwiseKernelText text{std::move(operation), std::move(preamble), std::move(loop_prep),
                                                   std::move(after_loop), std::move(options), outputs_write_only};
             return std::make_unique<ElementwiseKernelBase>(std::move(t), std::move(text), r);
           }),
           py::arg("name"), py::arg("in_params"), py::arg("out_params"), py::arg("operation"),
           py::arg("preamble") = "", py::arg("loop_prep") = "", py::arg("after_loop") = "",
           py::arg("options") = std::vector<std::string>{}, py::arg("outputs_write_only") = false,
           py::arg("no_return") = false, py::arg("return_tuple") = false)
      .def_property_readonly("_template_params",
                             [](const ElementwiseKernelBase& k) { return template_params(k.kernel_template()); })
      .def_property_readonly("_plan_count", &ElementwiseKernelBase::plan_count)
      .def_property_readonly("_spec_count", &ElementwiseKernelBase::spec_count);
  set_tp_call(m.attr("_ElementwiseKernelBase"));
  py::class_<ReductionKernelTemplate>(m, "_ReductionKernelTemplate",
                                      "The C++ half of kiln.ReductionKernel: its template and specs.")
      .def(py::init([](py::handle name, const std::string& in_params, const std::string& out_params,
                       py::handle map_expr, py::handle reduce_expr, py::handle post_map_expr, py::handle identity,
                       py::handle reduce_type, std::string preamble, std::vector<std::string> options) {
             arraycore::KernelTemplate t = not_implemented_as_python([&] {
               return arraycore::KernelTemplate(kernel_name(name), in_params, out_params,
                                                arraycore::KernelTemplate::Reduction, numpy_type_name);
             });
             arraycore::ReductionKernelText text;
             text.map_expr = py::str(map_expr);
             text.reduce_expr = py::str(reduce_expr);
             text.post_map_expr = py::str(post_map_expr);
             text.identity = py::str(identity);
             if (PyUnicode_Check(reduce_type.ptr())) text.reduce_type = reduce_type.cast<std::string>();
             else if (!reduce_type.is_none()) text.reduce_type = arraycore::dtype_info(to_dtype(reduce_type)).name;
             text.preamble = std::move(preamble);
             text.options = std::move(options);
             return std::make_unique<ReductionKernelTemplate>(std::move(t), std::move(text));
           }),
           py::arg("name"), py::arg("in_params"), py::arg("out_params"), py::arg("map_expr"), py::arg("reduce_expr"),
           py::arg("post_map_expr"), py::arg("identity"), py::arg("reduce_type") = py::none(),
           py::arg("preamble") = "", py::arg("options") = std::vector<std::string>{})
      .def_property_readonly("params",
                             [](const ReductionKernelTemplate& k) { return template_params(k.kernel_template()); })
      .def_property_readonly("_spec_count", &ReductionKernelTemplate::spec_count)
      .def("resolve", &ReductionKernelTemplate::resolve, py::arg("args"), py::arg("out"),
           "(spec, dtype of every parameter) for these inputs and the output given (None: to allocate).");
  m.def("_elementwise_source", [](const EwSpec& spec, py::handle args) {
    std::vector<EwArg> a = to_args(spec, args);
    return arraycore::elementwise_source(spec, a);
  });
}

}  // namespace kiln::py_bind
