// kiln.ufunc (the objects kiln.add, kiln.sin, ...) and the Python operators
// of kiln.ndarray, straight into arraycore::ufunc_apply: operands are parsed
// here in C++ (Python scalars natively, NEP 50 weak), never through NumPy.
//
//   kiln.add(a, 1, out=b, where=mask, casting="same_kind", dtype=None, order="K")
//   a + 1; 2 ** a; a += b; -a; a < b          # the same engine
#include <pybind11/stl.h>

#include <span>

#include <climits>
#include <cstring>

#include "arraycore/ufunc.h"
#include "arraycore/ufunc_apply.h"
#include "pyfrontend/bindings.h"
#include "pyfrontend/operation_bindings.h"
#include "pyfrontend/ufunc_method_args.h"

namespace kiln::py_bind {

[[noreturn]] void unsupported_operand(py::handle obj) {
  std::string type = py::str(py::type::of(obj));
  throw py::type_error("Unsupported type " + type +
                       ": kiln ufuncs and operators take kiln arrays and scalars; move host data to the device "
                       "with kiln.asarray() first");
}

namespace {

using arraycore::DType;
using arraycore::NDArray;
using arraycore::ScalarValue;
using arraycore::UfuncDef;
using arraycore::UfuncInput;

struct Ufunc {
  const UfuncDef* def;
};

}  // namespace

// True when obj was understood as an operand; false for foreign objects (the
// operators then return NotImplemented). NumPy arrays, lists and tuples are
// never foreign: they raise the TypeError above.
bool to_input(py::handle obj, UfuncInput& in, bool strict) {
  PyObject* o = obj.ptr();
  if (const NDArray* a = ndarray_of(o)) {
    in.array = a;
    int current = runtime::backend().current_device();
    if (a->device() != current)
      throw py::value_error("the array is on device " + std::to_string(in.array->device()) +
                            " but the current device is " + std::to_string(current) +
                            "; move it with kiln.asarray() inside `with kiln.cuda.Device(" +
                            std::to_string(current) + "):`");
    return true;
  }
  ScalarValue& s = in.scalar;
  if (PyBool_Check(o)) {
    s.kind = ScalarValue::Kind::Bool;
    s.i = o == Py_True;
    return true;
  }
  if (PyLong_CheckExact(o) || (PyLong_Check(o) && !py::isinstance(obj, py::module_::import("numpy").attr("generic")))) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      s.kind = ScalarValue::Kind::Int;
      s.i = v;
      return true;
    }
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
        s.kind = ScalarValue::Kind::UInt;
        s.u = u;
        return true;
      }
      PyErr_Clear();
    }
    s.kind = ScalarValue::Kind::BigInt;
    s.re = PyLong_AsDouble(o);
    if (s.re == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      s.re = overflow > 0 ? HUGE_VAL : -HUGE_VAL;
    }
    return true;
  }
  // NumPy scalars first (numpy.float64 and numpy.complex128 are float and
  // complex subclasses, but typed), then Python floats and complexes.
  static const py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  static const py::handle ndarray = py::object(py::module_::import("numpy").attr("ndarray")).release();
  const bool exact = PyFloat_CheckExact(o) || PyComplex_CheckExact(o);
  if (!exact && py::isinstance(obj, generic)) {
    s.kind = ScalarValue::Kind::Typed;
    s.dtype = to_dtype(obj.attr("dtype"));
    Py_buffer view;   // a NumPy scalar's value, through the buffer protocol
    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
    std::memcpy(s.bytes, view.buf, std::min<size_t>(static_cast<size_t>(view.len), sizeof(s.bytes)));
    PyBuffer_Release(&view);
    return true;
  }
  if (PyFloat_Check(o)) {
    s.kind = ScalarValue::Kind::Float;
    s.re = PyFloat_AsDouble(o);
    return true;
  }
  if (PyComplex_Check(o)) {
    s.kind = ScalarValue::Kind::Complex;
    s.re = PyComplex_RealAsDouble(o);
    s.im = PyComplex_ImagAsDouble(o);
    return true;
  }
  // Note [poly1d operands]
  // NumPy's ufuncs and ndarray operators see a numpy.poly1d through its
  // __array__: its coefficient array. A kiln.poly1d is likewise its
  // coefficients (the kiln array it holds, alive as long as the poly1d), so
  // kiln.add(p, x) and x + p are elementwise, as in NumPy; p + x is
  // poly1d.__add__, called before this.
  static const py::handle poly1d = py::object(py::module_::import("kiln._polynomial").attr("poly1d")).release();
  if (py::isinstance(obj, poly1d)) return to_input(obj.attr("_coeffs"), in, strict);
  if (py::object a = foreign_device_array(obj)) {   // Note [Foreign device operands]
    to_input(a, in, strict);   // the device check
    in.owned = std::make_shared<const NDArray>(*in.array);
    in.array = in.owned.get();
    return true;
  }
  if (strict || py::isinstance(obj, ndarray) || PyList_Check(o) || PyTuple_Check(o)) unsupported_operand(obj);
  return false;
}

namespace {

// The outputs as Python objects: a given out= array is returned as the very
// object passed (as NumPy does; `a += b` keeps `a`, its base included); a new
// one takes the type of `like`, the first operand of an ndarray subclass,
// when there is one (Note [Array subclasses]).
py::object wrap_outputs(std::vector<NDArray> outs, const std::vector<py::object>& given, py::handle like) {
  auto one = [&](size_t k) -> py::object {
    if (k < given.size() && given[k]) return given[k];
    if (like) return subclass_instance(py::type::handle_of(like), std::move(outs[k]), like, {});
    return py::cast(std::move(outs[k]));
  };
  if (outs.size() == 1) return one(0);
  py::tuple t(outs.size());
  for (size_t k = 0; k < outs.size(); ++k) t[k] = one(k);
  return t;
}

// Calls the ufunc. UfuncTypeError reaches Python through the translator of
// ufunc_types_binding.cpp; ScalarOverflow is NumPy's OverflowError.
py::object apply(const UfuncDef& def, std::span<const UfuncInput> inputs, const arraycore::UfuncOptions& opts,
                 const std::vector<py::object>& given = {}, py::handle like = {}) {
  try {
    return wrap_outputs(arraycore::ufunc_apply(def, inputs, opts), given, like);
  } catch (const arraycore::ScalarOverflow& e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
    throw py::error_already_set();
  }
}

NDArray out_array(py::handle o, const char* what) {
  if (!py::isinstance<NDArray>(o)) {
    if (py::isinstance(o, py::module_::import("numpy").attr("ndarray")))
      throw py::type_error(std::string(what) + " must be a kiln.ndarray, not numpy.ndarray: " +
                           (std::string(what) == "where" ? "move the mask to the device with kiln.asarray() first"
                                                         : "kernels cannot write host memory; pass a kiln array "
                                                           "(kiln.empty) and copy back with kiln.asnumpy()"));
    throw py::type_error(std::string(what) + " must be a kiln.ndarray, got " + type_name(o));
  }
  return o.cast<NDArray>();
}

py::object call(const Ufunc& self, py::tuple args, py::handle kwargs) {
  const UfuncDef& def = *self.def;
  const size_t nin = def.nin, nargs = def.nin + def.nout;
  if (args.size() < nin || args.size() > nargs)
    throw py::type_error(def.name + "() takes from " + std::to_string(nin) + " to " + std::to_string(nargs) +
                         " positional arguments but " + std::to_string(args.size()) +
                         (args.size() == 1 ? " was given" : " were given"));
  UfuncInput inputs[2];
  py::handle operands[2];
  for (size_t k = 0; k < nin; ++k) {
    to_input(args[k], inputs[k], true);
    operands[k] = args[k];
  }
  arraycore::UfuncOptions opts;
  std::vector<py::object> given(def.nout);
  for (size_t k = nin; k < args.size(); ++k) {
    opts.out.resize(def.nout);
    if (!args[k].is_none()) {
      opts.out[k - nin] = out_array(args[k], "out");
      given[k - nin] = args[k];
    }
  }
  if (kwargs) for (auto item : py::reinterpret_borrow<py::dict>(kwargs)) {
    std::string key = py::str(item.first);
    py::handle v = item.second;
    if (key == "out") {
      if (args.size() > nin) throw py::type_error("cannot specify 'out' as both a positional and keyword argument");
      opts.out.assign(def.nout, std::nullopt);
      if (PyTuple_Check(v.ptr())) {
        py::tuple t = py::reinterpret_borrow<py::tuple>(v);
        if (t.size() != static_cast<size_t>(def.nout))
          throw py::value_error("The 'out' tuple must have exactly " + std::to_string(def.nout) +
                                " entries: one per ufunc output");
        for (size_t k = 0; k < t.size(); ++k)
          if (!t[k].is_none()) {
            opts.out[k] = out_array(t[k], "out");
            given[k] = t[k];
          }
      } else if (!v.is_none()) {
        if (def.nout != 1)
          throw py::type_error("'out' must be a tuple of arrays for ufuncs with " + std::to_string(def.nout) +
                               " outputs");
        opts.out[0] = out_array(v, "out");
        given[0] = py::reinterpret_borrow<py::object>(v);
      }
    } else if (key == "where") {
      if (PyBool_Check(v.ptr())) opts.where_false = v.ptr() == Py_False;
      else opts.where = out_array(v, "where");
    } else if (key == "casting") {
      opts.casting = to_casting(v);
    } else if (key == "dtype") {
      if (!v.is_none()) opts.dtype = to_dtype(v);
    } else if (key == "order") {
      std::string o = v.is_none() ? "K" : std::string(py::str(v));
      if (o.size() != 1 || std::string("KACF").find(static_cast<char>(std::toupper(o[0]))) == std::string::npos)
        throw py::value_error("order must be one of 'C', 'F', 'A', or 'K' (got '" + o + "')");
      opts.order = static_cast<char>(std::toupper(o[0]));
    } else if (key == "subok") {
      // kiln has one array class: nothing to do.
    } else if (key == "signature" || key == "sig") {
      if (!v.is_none()) throw py::type_error("kiln ufuncs do not take signature= yet; use dtype=");
    } else {
      throw py::type_error(def.name + "() got an unexpected keyword argument '" + key + "'");
    }
  }
  return apply(def, {inputs, nin}, opts, given, first_subclass_instance({operands, nin}));
}

py::object identity_value(const UfuncDef& def) {
  using arraycore::Identity;
  switch (def.identity) {
    case Identity::None_: return py::none();
    case Identity::Zero: return py::int_(0);
    case Identity::One: return py::int_(1);
    case Identity::MinusOne: return py::int_(-1);
    case Identity::True_: return py::bool_(true);
    case Identity::False_: return py::bool_(false);
    case Identity::NegInf: return py::float_(-HUGE_VAL);
    case Identity::PosInf: return py::float_(HUGE_VAL);
    case Identity::AllOnes: return py::int_(-1);
  }
  return py::none();
}

py::list type_strings(const UfuncDef& def) {
  // NumPy lists each run of loops over one 64-bit integer dtype ('qq->q',
  // 'Q->Q') twice on Linux, first under C long ('l', 'L'), then under long
  // long ('q', 'Q'): the same dtypes. Loops mixing dtypes keep one name.
  py::list out;
  std::vector<std::string> run;   // consecutive loops over q alone or Q alone
  auto flush = [&] {
    for (std::string t : run) {
      for (char& c : t) c = c == 'q' ? 'l' : c == 'Q' ? 'L' : c;
      out.append(t);
    }
    for (const std::string& t : run) out.append(t);
    run.clear();
  };
  for (size_t i = def.user_loops; i < def.loops.size(); ++i) {   // NumPy's types: Note [Bfloat16 loops]
    const auto& loop = def.loops[i];
    std::string t;
    for (auto d : loop.in) t += arraycore::dtype_info(d).char_code;
    t += "->";
    for (auto d : loop.out) t += arraycore::dtype_info(d).char_code;
    const std::string ins = t.substr(0, loop.in.size());
    if ((ins[0] == 'q' || ins[0] == 'Q') && ins.find_first_not_of(ins[0]) == std::string::npos) {
      run.push_back(std::move(t));
      continue;
    }
    flush();
    out.append(t);
  }
  flush();
  return out;
}

PyObject* g_ufunc_objects = nullptr;   // kiln._core._ufuncs: name -> kiln.ufunc

// Note [Operator overrides]
// An operand kiln cannot convert may override NumPy's ufuncs (NEP 13): when
// its class defines __array_ufunc__, kiln's operator calls it, as NumPy's
// and CuPy's do: `x < y` becomes y.__array_ufunc__(kiln.less, "__call__",
// x, y), never the reflected y > x. __array_ufunc__ = None opts out: the
// operator returns NotImplemented, so Python tries y's reflected method. An
// in-place operator with such an operand is TypeError (CuPy's rule: kiln
// never rebinds `x` to another library's object). Other objects give
// NotImplemented as before.
py::object defer_to_override(const UfuncDef& def, py::handle self, py::handle other, bool reflected,
                             bool inplace) {
  py::object not_implemented = py::reinterpret_borrow<py::object>(Py_NotImplemented);
  PyObject* hook = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(other.ptr())), "__array_ufunc__");
  if (hook == nullptr) {
    PyErr_Clear();
    return not_implemented;
  }
  py::object override_fn = py::reinterpret_steal<py::object>(hook);
  if (override_fn.is_none()) return not_implemented;
  if (inplace)
    throw py::type_error("unsupported operand type for in-place " + def.name + ": '" + type_name(other) +
                         "' (it overrides ufuncs with __array_ufunc__; write x = x op y instead)");
  py::object ufunc = py::reinterpret_borrow<py::dict>(g_ufunc_objects)[py::str(def.name)];
  return reflected ? override_fn(other, ufunc, "__call__", other, self)
                   : override_fn(other, ufunc, "__call__", self, other);
}

// Binary operator: NotImplemented for foreign right operands (so their
// reflected operator may run) unless they override ufuncs (Note [Operator
// overrides]), the ufunc otherwise.
py::object binary(const UfuncDef& def, py::handle a, py::handle b, bool reflected, bool inplace) {
  UfuncInput inputs[2];
  if (!to_input(a, inputs[reflected ? 1 : 0], false)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  if (!to_input(b, inputs[reflected ? 0 : 1], false)) return defer_to_override(def, a, b, reflected, inplace);
  arraycore::UfuncOptions opts;
  std::vector<py::object> given;
  if (inplace) {
    opts.out.push_back(a.cast<NDArray>());
    given.push_back(py::reinterpret_borrow<py::object>(a));
  }
  const py::handle operands[2] = {reflected ? b : a, reflected ? a : b};
  return apply(def, inputs, opts, given, first_subclass_instance(operands));
}

// Note [Comparing with other objects]
// NumPy compares an array with an object it cannot convert (None, a string,
// object(), a sentinel) element by element through Python's ==, which for
// such objects is identity: `a == None` is an all-False array and `a != None`
// an all-True one, never Python's lone False. kiln gives those arrays
// without the object loop whenever the object's == is identity or it is a
// built-in non-sequence (str, bytes, dict, set, None, Ellipsis, object()). An
// object with its own __eq__ decides: == returns NotImplemented, so Python
// calls the object's reflected __eq__ (elementwise if it is written so); for
// != kiln inverts that array when the object has no __ne__ of its own
// (object.__ne__ would otherwise call bool() on an array). Array-likes
// (__array_ufunc__, __array_function__) and lists or tuples are left to
// Python's protocol, as before.
py::object compare_with_object(py::handle a, py::handle b, bool ne) {
  py::object not_implemented = py::reinterpret_borrow<py::object>(Py_NotImplemented);
  PyObject* o = b.ptr();
  if (PyList_Check(o) || PyTuple_Check(o) || PyObject_HasAttrString(o, "__array_ufunc__") ||
      PyObject_HasAttrString(o, "__array_function__"))
    return not_implemented;
  static const UfuncDef& logical_not = arraycore::ufunc("logical_not");
  const py::handle base = reinterpret_cast<PyObject*>(&PyBaseObject_Type);
  const py::object type = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(Py_TYPE(o)));
  const bool builtin = !(Py_TYPE(o)->tp_flags & Py_TPFLAGS_HEAPTYPE);
  const bool own_eq = !type.attr("__eq__").is(base.attr("__eq__"));
  const bool own_ne = !type.attr("__ne__").is(base.attr("__ne__"));
  if (!builtin && ((ne && own_ne) || (!ne && own_eq))) return not_implemented;   // b's reflected method decides
  UfuncInput in[1];
  if (builtin || !own_eq) {   // identity: no element equals b
    NDArray none_equal = NDArray::zeros(ndarray_of(a.ptr())->shape(), DType::Bool);
    if (!ne) return py::cast(std::move(none_equal));
    in[0].array = &none_equal;
    return apply(logical_not, in, {});
  }
  py::object equal = type.attr("__eq__")(b, a);   // what object.__ne__ would invert
  in[0].array = ndarray_of(equal.ptr());
  return in[0].array ? apply(logical_not, in, {}) : not_implemented;
}

// == and != (def is equal or not_equal).
py::object equality(const UfuncDef& def, py::handle a, py::handle b, bool ne) {
  py::object r = binary(def, a, b, false, false);
  return r.ptr() == Py_NotImplemented ? compare_with_object(a, b, ne) : r;
}

py::object unary(const UfuncDef& def, py::handle a) {
  UfuncInput inputs[1];
  to_input(a, inputs[0], true);
  const py::handle operands[1] = {a};
  return apply(def, inputs, {}, {}, first_subclass_instance(operands));
}

// Note [Operator slots]
// The operators are C functions in the type's number slots (and
// tp_richcompare, and the ufunc type's tp_call), set after the dunder methods
// are defined: `a + b` then costs no method lookup and no pybind11 dispatch.
// The dunder attributes stay for explicit calls (kiln.ndarray.__add__(a, b)).
// A number slot serves both orders: `a + b` and the reflected `1 + a` both
// arrive as slot(left, right).
template <class F>
PyObject* guarded(F&& f) {
  try {
    return f().release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
    return nullptr;
  }
}

enum BinaryOp { kAdd, kSub, kMul, kTrueDiv, kFloorDiv, kMod, kPow, kDivmod, kLShift, kRShift, kAnd, kOr, kXor,
                kNumBinary };
const UfuncDef* g_binary[kNumBinary];
enum UnaryOp { kNeg, kPos, kAbs, kInvert, kNumUnary };
const UfuncDef* g_unary[kNumUnary];
const UfuncDef* g_compare[6];   // indexed by Py_LT ... Py_GE

template <int Op>
PyObject* slot_binary(PyObject* a, PyObject* b) {
  return guarded([&] {
    return ndarray_of(a) ? binary(*g_binary[Op], a, b, false, false) : binary(*g_binary[Op], b, a, true, false);
  });
}
template <int Op>
PyObject* slot_inplace(PyObject* a, PyObject* b) {
  return guarded([&] { return binary(*g_binary[Op], a, b, false, true); });
}
PyObject* slot_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;   // pow(a, b, m): no three-argument power
  return slot_binary<kPow>(a, b);
}
PyObject* slot_inplace_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return slot_inplace<kPow>(a, b);
}
template <int Op>
PyObject* slot_unary(PyObject* a) {
  return guarded([&] { return unary(*g_unary[Op], a); });
}
PyObject* slot_richcompare(PyObject* a, PyObject* b, int op) {
  return guarded([&] {
    return op == Py_EQ || op == Py_NE ? equality(*g_compare[op], a, b, op == Py_NE)
                                      : binary(*g_compare[op], a, b, false, false);
  });
}
// Note [ufunc call hook]: kiln.fuse's tracer (Note [Tracing ufunc calls] in
// _fusion.py) sees every ufunc call while a trace runs through this hook,
// called as hook(ufunc, *args, **kwargs); None outside tracing. The class's
// __call__ is never reassigned, so tp_call stays this C function.
PyObject* g_call_hook = nullptr;

PyObject* slot_ufunc_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (g_call_hook != nullptr) {
    py::tuple with_self(PyTuple_GET_SIZE(args) + 1);
    with_self[0] = py::reinterpret_borrow<py::object>(self);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(args); ++k)
      with_self[k + 1] = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(args, k));
    return PyObject_Call(g_call_hook, with_self.ptr(), kwargs);
  }
  return guarded([&] {
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    const Ufunc& u = *static_cast<const Ufunc*>(inst->simple_layout ? inst->simple_value_holder[0]
                                                                    : inst->get_value_and_holder().value_ptr());
    return call(u, py::reinterpret_borrow<py::tuple>(args), kwargs);
  });
}

void install_slots(py::handle ndarray_cls, py::handle ufunc_cls) {
  auto bin = [](BinaryOp op, const char* name) { g_binary[op] = &arraycore::ufunc(name); };
  bin(kAdd, "add"); bin(kSub, "subtract"); bin(kMul, "multiply"); bin(kTrueDiv, "divide");
  bin(kFloorDiv, "floor_divide"); bin(kMod, "remainder"); bin(kPow, "power"); bin(kDivmod, "divmod");
  bin(kLShift, "left_shift"); bin(kRShift, "right_shift"); bin(kAnd, "bitwise_and"); bin(kOr, "bitwise_or");
  bin(kXor, "bitwise_xor");
  g_unary[kNeg] = &arraycore::ufunc("negative");
  g_unary[kPos] = &arraycore::ufunc("positive");
  g_unary[kAbs] = &arraycore::ufunc("absolute");
  g_unary[kInvert] = &arraycore::ufunc("invert");
  g_compare[Py_LT] = &arraycore::ufunc("less");
  g_compare[Py_LE] = &arraycore::ufunc("less_equal");
  g_compare[Py_EQ] = &arraycore::ufunc("equal");
  g_compare[Py_NE] = &arraycore::ufunc("not_equal");
  g_compare[Py_GT] = &arraycore::ufunc("greater");
  g_compare[Py_GE] = &arraycore::ufunc("greater_equal");

  auto* type = reinterpret_cast<PyTypeObject*>(ndarray_cls.ptr());
  PyNumberMethods* nb = type->tp_as_number;
  nb->nb_add = slot_binary<kAdd>;
  nb->nb_subtract = slot_binary<kSub>;
  nb->nb_multiply = slot_binary<kMul>;
  nb->nb_true_divide = slot_binary<kTrueDiv>;
  nb->nb_floor_divide = slot_binary<kFloorDiv>;
  nb->nb_remainder = slot_binary<kMod>;
  nb->nb_power = slot_power;
  nb->nb_divmod = slot_binary<kDivmod>;
  nb->nb_lshift = slot_binary<kLShift>;
  nb->nb_rshift = slot_binary<kRShift>;
  nb->nb_and = slot_binary<kAnd>;
  nb->nb_or = slot_binary<kOr>;
  nb->nb_xor = slot_binary<kXor>;
  nb->nb_inplace_add = slot_inplace<kAdd>;
  nb->nb_inplace_subtract = slot_inplace<kSub>;
  nb->nb_inplace_multiply = slot_inplace<kMul>;
  nb->nb_inplace_true_divide = slot_inplace<kTrueDiv>;
  nb->nb_inplace_floor_divide = slot_inplace<kFloorDiv>;
  nb->nb_inplace_remainder = slot_inplace<kMod>;
  nb->nb_inplace_power = slot_inplace_power;
  nb->nb_inplace_lshift = slot_inplace<kLShift>;
  nb->nb_inplace_rshift = slot_inplace<kRShift>;
  nb->nb_inplace_and = slot_inplace<kAnd>;
  nb->nb_inplace_or = slot_inplace<kOr>;
  nb->nb_inplace_xor = slot_inplace<kXor>;
  nb->nb_negative = slot_unary<kNeg>;
  nb->nb_positive = slot_unary<kPos>;
  nb->nb_absolute = slot_unary<kAbs>;
  nb->nb_invert = slot_unary<kInvert>;
  type->tp_richcompare = slot_richcompare;
  PyType_Modified(type);

  auto* utype = reinterpret_cast<PyTypeObject*>(ufunc_cls.ptr());
  utype->tp_call = slot_ufunc_call;
  PyType_Modified(utype);
}

}  // namespace

bool to_ufunc_input(py::handle obj, UfuncInput& in, bool strict) { return to_input(obj, in, strict); }

const UfuncDef* ufunc_def_of(PyObject* obj) {
  static PyTypeObject* type = nullptr;
  if (type == nullptr) type = reinterpret_cast<PyTypeObject*>(py::type::of<Ufunc>().ptr());
  if (!PyObject_TypeCheck(obj, type)) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(obj);
  const Ufunc& u = *static_cast<const Ufunc*>(inst->simple_layout ? inst->simple_value_holder[0]
                                                                  : inst->get_value_and_holder().value_ptr());
  return u.def;
}

void register_ufunc(py::module_& m) {
  py::class_<Ufunc>(m, "ufunc", py::dynamic_attr(), "A NumPy-style universal function running on the elementwise engine.")
      .def("__call__", [](const Ufunc& u, py::args args, py::kwargs kwargs) { return call(u, args, kwargs); })
      .def_property_readonly("nin", [](const Ufunc& u) { return u.def->nin; })
      .def_property_readonly("nout", [](const Ufunc& u) { return u.def->nout; })
      .def_property_readonly("nargs", [](const Ufunc& u) { return u.def->nin + u.def->nout; })
      .def_property_readonly("ntypes", [](const Ufunc& u) { return type_strings(*u.def).size(); })
      .def_property_readonly("types", [](const Ufunc& u) { return type_strings(*u.def); })
      .def_property_readonly("identity", [](const Ufunc& u) { return identity_value(*u.def); })
      .def_property_readonly("signature", [](const Ufunc&) { return py::none(); })
      .def("__repr__", [](const Ufunc& u) { return "<ufunc '" + u.def->name + "'>"; });

  py::dict ufuncs;
  for (const UfuncDef& def : arraycore::all_ufuncs()) {
    py::object u = py::cast(Ufunc{&def});
    u.attr("__name__") = def.name;   // per instance, as NumPy's ufuncs (Note: the class's own __name__ is "ufunc")
    u.attr("__doc__") = def.doc;
    ufuncs[py::str(def.name)] = u;
  }
  for (const char* alias : {"true_divide", "mod", "conj", "bitwise_not", "abs"})
    ufuncs[alias] = ufuncs[py::str(arraycore::ufunc(alias).name)];
  m.attr("_ufuncs") = ufuncs;
  g_ufunc_objects = ufuncs.inc_ref().ptr();

  // The operators of kiln.ndarray.
  py::object cls = m.attr("ndarray");
  auto def_binary = [&](const char* name, const char* rname, const char* iname, const char* uf) {
    const UfuncDef* d = &arraycore::ufunc(uf);
    cls.attr(name) = py::cpp_function([d](py::handle a, py::handle b) { return binary(*d, a, b, false, false); },
                                      py::is_method(cls), py::name(name));
    if (rname)
      cls.attr(rname) = py::cpp_function([d](py::handle a, py::handle b) { return binary(*d, a, b, true, false); },
                                         py::is_method(cls), py::name(rname));
    if (iname)
      cls.attr(iname) = py::cpp_function([d](py::handle a, py::handle b) { return binary(*d, a, b, false, true); },
                                         py::is_method(cls), py::name(iname));
  };
  def_binary("__add__", "__radd__", "__iadd__", "add");
  def_binary("__sub__", "__rsub__", "__isub__", "subtract");
  def_binary("__mul__", "__rmul__", "__imul__", "multiply");
  def_binary("__truediv__", "__rtruediv__", "__itruediv__", "divide");
  def_binary("__floordiv__", "__rfloordiv__", "__ifloordiv__", "floor_divide");
  def_binary("__mod__", "__rmod__", "__imod__", "remainder");
  def_binary("__pow__", "__rpow__", "__ipow__", "power");
  def_binary("__divmod__", "__rdivmod__", nullptr, "divmod");
  def_binary("__lshift__", "__rlshift__", "__ilshift__", "left_shift");
  def_binary("__rshift__", "__rrshift__", "__irshift__", "right_shift");
  def_binary("__and__", "__rand__", "__iand__", "bitwise_and");
  def_binary("__or__", "__ror__", "__ior__", "bitwise_or");
  def_binary("__xor__", "__rxor__", "__ixor__", "bitwise_xor");
  def_binary("__lt__", nullptr, nullptr, "less");
  def_binary("__le__", nullptr, nullptr, "less_equal");
  def_binary("__gt__", nullptr, nullptr, "greater");
  def_binary("__ge__", nullptr, nullptr, "greater_equal");
  for (const bool ne : {false, true}) {
    const UfuncDef* d = &arraycore::ufunc(ne ? "not_equal" : "equal");
    const char* name = ne ? "__ne__" : "__eq__";
    cls.attr(name) = py::cpp_function([d, ne](py::handle a, py::handle b) { return equality(*d, a, b, ne); },
                                      py::is_method(cls), py::name(name));
  }
  auto def_unary = [&](const char* name, const char* uf) {
    const UfuncDef* d = &arraycore::ufunc(uf);
    cls.attr(name) = py::cpp_function([d](py::handle a) { return unary(*d, a); }, py::is_method(cls), py::name(name));
  };
  def_unary("__neg__", "negative");
  def_unary("__pos__", "positive");
  def_unary("__abs__", "absolute");
  def_unary("__invert__", "invert");
  cls.attr("__hash__") = py::none();
  install_slots(cls, m.attr("ufunc"));
  m.def("_set_ufunc_call_hook", [](py::object hook) {
    Py_XDECREF(g_call_hook);
    g_call_hook = hook.is_none() ? nullptr : hook.release().ptr();
  }, "Routes every kiln ufunc call to hook(ufunc, *args, **kwargs) (None: back to the ufuncs).");
}

}  // namespace kiln::py_bind
