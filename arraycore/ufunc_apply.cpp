#include "arraycore/ufunc_apply.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"
#include "arraycore/record_dtype.h"
#include "arraycore/small_vector.h"
#include "kiln/cast.h"

namespace kiln::arraycore {
namespace {

template <DType D> struct CType;
template <> struct CType<DType::Bool> { using type = bool; };
template <> struct CType<DType::Int8> { using type = signed char; };
template <> struct CType<DType::Int16> { using type = short; };
template <> struct CType<DType::Int32> { using type = int; };
template <> struct CType<DType::Int64> { using type = long long; };
template <> struct CType<DType::UInt8> { using type = unsigned char; };
template <> struct CType<DType::UInt16> { using type = unsigned short; };
template <> struct CType<DType::UInt32> { using type = unsigned int; };
template <> struct CType<DType::UInt64> { using type = unsigned long long; };
template <> struct CType<DType::Float16> { using type = kiln::half; };
template <> struct CType<DType::Float32> { using type = float; };
template <> struct CType<DType::Float64> { using type = double; };
template <> struct CType<DType::Complex64> { using type = kiln::complex<float>; };
template <> struct CType<DType::Complex128> { using type = kiln::complex<double>; };
template <> struct CType<DType::BFloat16> { using type = kiln::bfloat16; };

// Calls f(T{}) with T the C++ type of `d`.
template <class F>
void with_type(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f(bool{});
    case DType::Int8: return f((signed char)0);
    case DType::Int16: return f((short)0);
    case DType::Int32: return f(0);
    case DType::Int64: return f(0LL);
    case DType::UInt8: return f((unsigned char)0);
    case DType::UInt16: return f((unsigned short)0);
    case DType::UInt32: return f(0U);
    case DType::UInt64: return f(0ULL);
    case DType::Float16: return f(kiln::half(0.0f));
    case DType::Float32: return f(0.0f);
    case DType::Float64: return f(0.0);
    case DType::Complex64: return f(kiln::complex<float>(0.0f));
    case DType::Complex128: return f(kiln::complex<double>(0.0));
    case DType::BFloat16: return f(kiln::bfloat16(0.0f));
  }
}

// A host value of some C++ type written into `dst` as dtype `to`.
template <class From>
void store_as(const From& v, DType to, void* dst) {
  with_type(to, [&](auto t) {
    using To = decltype(t);
    To r;
    if constexpr (std::is_same_v<From, bool>) {
      r = kiln::numpy_cast<To>(v);
    } else if constexpr (std::is_same_v<To, bool>) {
      r = static_cast<bool>(v != From(0));
    } else {
      r = kiln::numpy_cast<To>(v);
    }
    std::memcpy(dst, &r, sizeof(To));
  });
}

std::string dtype_name(DType d) { return std::string(dtype_info(d).name); }

bool int_fits(long long v, DType d) {
  switch (d) {
    case DType::Int8: return v >= -128 && v <= 127;
    case DType::Int16: return v >= -32768 && v <= 32767;
    case DType::Int32: return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
    case DType::Int64: return true;
    case DType::UInt8: return v >= 0 && v <= 255;
    case DType::UInt16: return v >= 0 && v <= 65535;
    case DType::UInt32: return v >= 0 && v <= 4294967295LL;
    case DType::UInt64: return v >= 0;
    default: return true;
  }
}

}  // namespace

// A scalar operand's bytes as the loop's input type `to`, through the dtype
// NEP 50 gave it (`weak`): Python ints must fit an integer `weak` dtype.
void scalar_bytes(const ScalarValue& s, DType weak, DType to, void* dst) {
  unsigned char mid[16] = {};
  const char kind = dtype_info(weak).kind;
  auto overflow = [&](const std::string& text) {
    throw ScalarOverflow("Python integer " + text + " out of bounds for " + dtype_name(weak));
  };
  switch (s.kind) {
    case ScalarValue::Kind::Typed:
      cast_scalar(s.bytes, s.dtype, dst, to);
      return;
    case ScalarValue::Kind::Bool:
      store_as(s.i != 0, weak, mid);
      break;
    case ScalarValue::Kind::Int:
      if ((kind == 'i' || kind == 'u') && !int_fits(s.i, weak)) overflow(std::to_string(s.i));
      store_as(s.i, weak, mid);
      break;
    case ScalarValue::Kind::UInt:
      if (kind == 'b') throw ScalarOverflow("Python int too large to convert to C long");
      if (weak == DType::UInt32) overflow(std::to_string(s.u));   // NumPy converts uint32 through unsigned long
      if (kind == 'i' || (kind == 'u' && weak != DType::UInt64))   // the others through C long, which fails first
        throw ScalarOverflow("Python int too large to convert to C long");
      store_as(s.u, weak, mid);
      break;
    case ScalarValue::Kind::BigInt:
      if (kind == 'i' || kind == 'u' || kind == 'b') throw ScalarOverflow("Python int too large to convert to C long");
      store_as(s.re, weak, mid);
      break;
    case ScalarValue::Kind::Float:
      store_as(s.re, weak, mid);
      break;
    case ScalarValue::Kind::Complex:
      store_as(kiln::complex<double>(s.re, s.im), weak, mid);
      break;
  }
  cast_scalar(mid, weak, dst, to);
}

Operand operand_of(const UfuncInput& in) {
  if (in.array) return {in.array->dtype(), WeakScalar::None_};
  switch (in.scalar.kind) {
    case ScalarValue::Kind::Bool: return {DType::Bool, WeakScalar::Bool};
    case ScalarValue::Kind::Int:
    case ScalarValue::Kind::UInt:
    case ScalarValue::Kind::BigInt: return {DType::Int64, WeakScalar::Int};
    case ScalarValue::Kind::Float: return {DType::Float64, WeakScalar::Float};
    case ScalarValue::Kind::Complex: return {DType::Complex128, WeakScalar::Complex};
    case ScalarValue::Kind::Typed: return {in.scalar.dtype, WeakScalar::None_};
  }
  return {DType::Int64, WeakScalar::None_};
}

namespace {

// Note [ufunc specs]
// One spec per (ufunc, loop, where=): params in0.., [_where], out0..; the
// operation calls the loop's device function. Input and output arrays of
// other dtypes are converted by the engine on load and store (NumPy's casts),
// so mixed-dtype calls need no temporaries.
const EwSpec& spec_for(const UfuncDef& uf, const UfuncLoop& loop, bool masked) {
  static std::mutex mutex;
  static std::map<std::tuple<const UfuncDef*, const UfuncLoop*, bool>, EwSpec> specs;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(&uf, &loop, masked);
  auto it = specs.find(key);
  if (it != specs.end()) return it->second;
  EwSpec s;
  s.name = "kiln_" + uf.name;
  for (DType d : loop.in) s.name += "_" + dtype_name(d);
  s.name += "_to";
  for (DType d : loop.out) s.name += "_" + dtype_name(d);
  if (masked) s.name += "_where";
  std::string call_args;
  for (size_t k = 0; k < loop.in.size(); ++k) {
    s.params.push_back({"in" + std::to_string(k), std::string(dtype_info(loop.in[k]).c_type), "", EwParam::Input});
    call_args += (k ? ", in" : "in") + std::to_string(k);
  }
  if (masked) s.params.push_back({"_where", "bool", "", EwParam::Input});
  for (size_t k = 0; k < loop.out.size(); ++k)
    s.params.push_back({"out" + std::to_string(k), std::string(dtype_info(loop.out[k]).c_type), "", EwParam::Output});
  std::string op;
  if (loop.out.size() == 1) {
    op = "out0 = " + uf.device_fn + "(" + call_args + ");";
  } else {
    op = uf.device_fn + "(" + call_args;
    for (size_t k = 0; k < loop.out.size(); ++k) op += ", out" + std::to_string(k);
    op += ");";
  }
  s.operation = masked ? "if (_where) { " + op + " }" : op;
  s.preamble = "#include <kiln/ufunc_math.h>\n";
  s.options = exact_fp_options();
  s.outputs_write_only = !masked;
  return specs.emplace(key, std::move(s)).first->second;
}

Order output_order(char order, std::span<const UfuncInput> inputs) {
  if (order == 'C') return Order::C;
  if (order == 'F') return Order::F;
  // 'A' and 'K': Fortran when every array input is Fortran- and not C-contiguous.
  bool any = false;
  for (const auto& in : inputs) {
    if (!in.array || in.array->ndim() < 2) continue;
    if (in.array->c_contiguous() || !in.array->f_contiguous()) return Order::C;
    any = true;
  }
  return any ? Order::F : Order::C;
}

// Note [Resolution cache]
// A loop choice depends only on the ufunc, the operands' dtypes and weak
// kinds, dtype=, casting= and the out dtypes, never on values, so it is
// computed once per such key (errors are not cached: they are raised again).
// The entry also remembers the loop's engine specs (plain and where=), so a
// warm call does one hash lookup in all.
struct CachedLoop {
  explicit CachedLoop(LoopChoice c) : choice(std::move(c)) {}
  LoopChoice choice;
  std::atomic<const EwSpec*> spec[2] = {};   // [masked]
};

// The key: the ufunc and one byte per operand (dtype, weak kind), dtype=,
// casting= and out dtype (ufuncs have at most 3 inputs and 2 outputs).
struct ChoiceKey {
  const UfuncDef* uf;
  uint64_t bytes;
  bool operator==(const ChoiceKey&) const = default;
};
struct ChoiceKeyHash {
  size_t operator()(const ChoiceKey& k) const {
    return std::hash<uint64_t>()(k.bytes * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<uintptr_t>(k.uf));
  }
};

CachedLoop& cached_choice(const UfuncDef& uf, std::span<const Operand> ops, std::optional<DType> dtype,
                          Casting casting, std::span<const std::optional<DType>> outs) {
  static std::mutex mutex;
  static std::unordered_map<ChoiceKey, CachedLoop, ChoiceKeyHash> cache;
  if (ops.size() > 3 || outs.size() > 2) throw std::invalid_argument(uf.name + ": too many operands");
  ChoiceKey key{&uf, 0};
  int shift = 0;
  auto put = [&](unsigned v) {
    key.bytes |= static_cast<uint64_t>(v & 0xFF) << shift;
    shift += 8;
  };
  // Every byte is nonzero, so keys of different lengths never collide.
  for (const Operand& o : ops) put((static_cast<unsigned>(o.dtype) | static_cast<unsigned>(o.weak) << 4) + 1);
  put(dtype ? static_cast<unsigned>(*dtype) + 1 : 0xFF);
  put(static_cast<unsigned>(casting) + 1);
  for (const auto& o : outs) put(o ? static_cast<unsigned>(*o) + 1 : 0xFF);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  LoopChoice c = resolve_loop(uf, ops, dtype, casting, outs);
  std::lock_guard<std::mutex> lock(mutex);
  return cache.try_emplace(key, std::move(c)).first->second;
}

const EwSpec& loop_spec(const UfuncDef& uf, CachedLoop& cached, bool masked) {
  const EwSpec* s = cached.spec[masked].load(std::memory_order_acquire);
  if (s == nullptr) {
    s = &spec_for(uf, *cached.choice.loop, masked);
    cached.spec[masked].store(s, std::memory_order_release);
  }
  return *s;
}

// Note [Comparisons with out-of-range Python ints]
// NumPy 2 compares an integer array with a Python int its dtype cannot hold
// exactly (uint8_array > -1 is all True, == 300 all False) instead of raising
// OverflowError. The value is then below (or above) every element, so the
// result is one constant: kiln fills the output with it.
std::optional<bool> constant_comparison(const UfuncDef& uf, std::span<const UfuncInput> inputs,
                                        const LoopChoice& choice) {
  if (uf.resolver != Resolver::Comparison) return std::nullopt;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ScalarValue& s = inputs[k].scalar;
    if (inputs[k].array) continue;
    const bool big = s.kind == ScalarValue::Kind::UInt || s.kind == ScalarValue::Kind::BigInt;
    if (big && inputs.size() == 2 && inputs[1 - k].array && inputs[1 - k].array->dtype() == DType::Bool)
      throw ScalarOverflow("Python int too large to convert to C long");   // NumPy: through a C long
    DType d = choice.weak_dtypes[k];
    char kind = dtype_info(d).kind;
    if (kind != 'i' && kind != 'u' && kind != 'b') continue;
    bool above;  // the value is above every element (else below every element)
    if (s.kind == ScalarValue::Kind::Int) {
      if (kind == 'b' ? (s.i == 0 || s.i == 1) : int_fits(s.i, d)) continue;
      above = s.i > 0;
    } else if (s.kind == ScalarValue::Kind::UInt) {
      if (d == DType::UInt64) continue;
      above = true;
    } else if (s.kind == ScalarValue::Kind::BigInt) {
      above = s.re > 0;
    } else {
      continue;
    }
    const std::string& n = uf.name;
    if (n == "equal") return false;
    if (n == "not_equal") return true;
    const bool less = n == "less" || n == "less_equal";   // else greater, greater_equal
    // array OP value when the value is operand 1, value OP array when operand 0.
    return (k == 1) == less ? above : !above;
  }
  return std::nullopt;
}

// out[...] = value (where mask), through the engine.
void fill_bool(const NDArray& out, bool value, const std::optional<NDArray>& where, const Shape& shape) {
  static const EwSpec plain = [] {
    EwSpec s;
    s.name = "kiln_fill_bool";
    s.params = {{"value", "bool", "", EwParam::Input}, {"out0", "bool", "", EwParam::Output}};
    s.operation = "out0 = value;";
    s.outputs_write_only = true;
    return s;
  }();
  static const EwSpec masked = [] {
    EwSpec s;
    s.name = "kiln_fill_bool_where";
    s.params = {{"value", "bool", "", EwParam::Input}, {"_where", "bool", "", EwParam::Input},
                {"out0", "bool", "", EwParam::Output}};
    s.operation = "if (_where) out0 = value;";
    return s;
  }();
  std::vector<EwArg> args{EwArg::value(value)};
  NDArray mask = where ? broadcast_to(*where, shape) : out;
  if (where) args.push_back(EwArg::of(mask));
  args.push_back(EwArg::of(out));
  elementwise_launch(where ? masked : plain, args, shape);
}

// The broadcast shape of the operands (scalars as ()), the outputs and the
// where= mask; the usual case, every shape equal, costs no copy.
Shape iteration_shape(std::span<const UfuncInput> inputs, const UfuncOptions& options) {
  SmallVector<const Shape*, 8> shapes;
  static const Shape scalar_shape;
  for (const auto& in : inputs) shapes.push_back(in.array ? &in.array->shape() : &scalar_shape);
  for (const auto& o : options.out)
    if (o) shapes.push_back(&o->shape());
  if (options.where) shapes.push_back(&options.where->shape());
  bool equal = true;
  for (const Shape* s : shapes) equal = equal && *s == *shapes[0];
  if (equal) return *shapes[0];
  std::vector<Shape> all;
  for (const Shape* s : shapes) all.push_back(*s);
  return broadcast_shapes(all);
}

}  // namespace

void cast_scalar(const void* src, DType from, void* dst, DType to) {
  with_type(from, [&](auto f) {
    using From = decltype(f);
    From v;
    std::memcpy(&v, src, sizeof(From));
    store_as(v, to, dst);
  });
}

void scalar_to_dtype(const ScalarValue& s, DType to, void* dst) { scalar_bytes(s, to, to, dst); }

// Note [Record dtypes]: equal and not_equal of two records are record_compare
// (with out= cast into); anything else has no loop, as in NumPy (resolve_loop
// says so before the variant keys, which hold numeric dtypes only, are built).
static std::vector<NDArray> record_ufunc(const UfuncDef& uf, std::span<const UfuncInput> inputs, const UfuncOptions& options) {
  const bool compare = uf.name == "equal" || uf.name == "not_equal";
  if (compare && inputs[0].array && inputs[1].array && !options.where && !options.where_false && !options.dtype) {
    NDArray r = record_compare(*inputs[0].array, *inputs[1].array, uf.name == "not_equal");
    if (options.out.empty() || !options.out[0]) return {r};
    copy_into(broadcast_to(r, options.out[0]->shape()), *options.out[0]);
    return {*options.out[0]};
  }
  if (compare && (!inputs[0].array || !inputs[1].array))
    throw TypeError("Cannot compare structured or void to non-void arrays.");
  SmallVector<Operand, 4> ops;
  for (const auto& in : inputs) ops.push_back(operand_of(in));
  resolve_loop(uf, ops, options.dtype, options.casting);
  throw std::logic_error("resolve_loop accepted a record dtype");
}

std::vector<NDArray> ufunc_apply(const UfuncDef& uf, std::span<const UfuncInput> inputs, const UfuncOptions& options) {
  if (static_cast<int>(inputs.size()) != uf.nin)
    throw std::invalid_argument(uf.name + " takes " + std::to_string(uf.nin) + " inputs");
  for (const auto& in : inputs)
    if (in.array && is_record(in.array->dtype())) return record_ufunc(uf, inputs, options);
  SmallVector<Operand, 4> ops;
  for (const auto& in : inputs) ops.push_back(operand_of(in));
  // A lone Python int in [2**63, 2**64) is a uint64 for NumPy (numpy.negative(2**63)).
  if (uf.nin == 1 && !inputs[0].array && inputs[0].scalar.kind == ScalarValue::Kind::UInt)
    ops[0] = {DType::UInt64, WeakScalar::None_};
  SmallVector<std::optional<DType>, 4> out_dtypes;
  for (const auto& o : options.out) out_dtypes.push_back(o ? std::optional<DType>(o->dtype()) : std::nullopt);
  CachedLoop& cached = cached_choice(uf, ops, options.dtype, options.casting, out_dtypes);
  const LoopChoice& choice = cached.choice;

  // The iteration shape: every operand broadcast together (scalars as (), in
  // NumPy's message too); each output must already have it.
  const Shape shape = iteration_shape(inputs, options);
  for (const auto& o : options.out) {
    if (o) require_writeable(*o, kReadOnlyOutput);   // Note [Read-only arrays]
    if (!o || o->shape() == shape) continue;
    auto text = [](const Shape& s) {
      std::string t = "(";
      for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
      return t + (s.size() == 1 ? ",)" : ")");
    };
    throw std::invalid_argument("non-broadcastable output operand with shape " + text(o->shape()) +
                                " doesn't match the broadcast shape " + text(shape));
  }
  // Python scalars are range-checked whatever the size (NumPy raises for empty arrays too).
  SmallVector<EwArg, 4> scalar_args(inputs.size());
  std::optional<bool> constant;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (!inputs[k].array && !(constant = constant_comparison(uf, inputs, choice)))
      scalar_bytes(inputs[k].scalar, choice.weak_dtypes[k], choice.in[k], scalar_args[k].scalar.data());

  Order order = output_order(options.order, inputs);
  std::vector<NDArray> outs;
  outs.reserve(uf.nout);
  for (int k = 0; k < uf.nout; ++k) {
    if (k < static_cast<int>(options.out.size()) && options.out[k]) outs.push_back(*options.out[k]);
    else outs.push_back(NDArray::empty(shape, choice.out[k], order));
  }
  if (options.where_false || shape_size(shape) == 0) return outs;

  if (constant) {
    if (outs[0].dtype() != DType::Bool) {
      NDArray tmp = NDArray::empty(shape, DType::Bool);
      fill_bool(tmp, *constant, std::nullopt, shape);
      if (options.where) copy_into_where(tmp, outs[0], broadcast_to(*options.where, shape));
      else copy_into(tmp, outs[0]);
    } else {
      fill_bool(outs[0], *constant, options.where, shape);
    }
    return outs;
  }
  const bool masked = options.where.has_value();
  const EwSpec& spec = loop_spec(uf, cached, masked);
  // Broadcast views and detached copies, alive for the launch: reserved in
  // full before the first one (args point into it), only when one is needed.
  std::vector<NDArray> held;
  SmallVector<EwArg, 8> args;
  auto add_array = [&](const NDArray& a) {
    const NDArray* use = &a;
    for (const NDArray& o : outs)
      if (overlaps_partially(a, o)) {   // Note [Overlapping copies]: read everything before writing
        held.reserve(2 * (inputs.size() + 1));
        held.push_back(astype(a, a.dtype(), Order::C));
        use = &held.back();
        break;
      }
    if (use->shape() != shape) {
      held.reserve(2 * (inputs.size() + 1));
      held.push_back(broadcast_to(*use, shape));
      use = &held.back();
    }
    args.push_back(EwArg::of(*use));
  };
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].array) {
      add_array(*inputs[k].array);
    } else {
      args.push_back(scalar_args[k]);
    }
  }
  if (masked) {
    if (options.where->dtype() != DType::Bool)
      throw UfuncTypeError(UfuncTypeError::Kind::InputCasting,
                           "Cannot cast array data from dtype('" + dtype_name(options.where->dtype()) +
                               "') to dtype('bool') according to the rule 'safe'");
    add_array(*options.where);
  }
  for (const NDArray& o : outs) args.push_back(EwArg::of(o));
  elementwise_launch(spec, std::span<const EwArg>(args.data(), args.size()), shape);
  return outs;
}

}  // namespace kiln::arraycore
