#include "arraycore/reduce_apply.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"
#include "arraycore/record_dtype.h"
#include "arraycore/reduction.h"
#include "runtime/kernel_memo.h"

namespace kiln::arraycore {

// Note [Pairwise passes]
// A reorderable reduction runs on the reduction engine (reduction.h, Note
// [Reduction kernels]): the operand read in place, each element cast to the
// loop dtype as it is read (masked-out ones replaced by the engine's
// identity: engine_identity), combined by kiln::ufn::<name> in element
// order, a bracketing of x0 op x1 op ... op x(n-1): maximum/minimum, which
// return their first argument when it is NaN, give the first NaN as NumPy
// does (it matters for complex NaNs). Rounding: a float sum is within
// d * u * sum|x| of the exact sum, d the engine's rounding depth (Note
// [Reduction rounding]: ceil(log2 n) along a contiguous axis of n <= 64, or
// n <= 256 for a full reduction; n - 1 for a column, summed in order as NumPy
// does; between the two for long rows), u the unit roundoff of the
// loop dtype (float32's for float16, plus one final rounding: Note [Float16
// reductions]).
// NumPy's own sums are pairwise along a contiguous axis (8 accumulators per
// block of 128) and sequential along other axes, so results differ from
// NumPy's within those bounds; products, logaddexp and hypot likewise differ
// by rounding. Integer, bool, bitwise, logical, maximum and minimum results
// are exact and equal NumPy's.
//
// accumulate on a reorderable ufunc scans the same (m, n) rows with the scan
// engine (Note [Scan engine] in scan.h: tiles, their totals, the prefixes
// added; its rounding bound is Note [Scan rounding]).

// Note [Identity as the start value]
// NumPy starts a reduction from the ufunc's identity whenever it has one, not
// only when the reduction is empty: add.reduce([-0.0]) is 0.0 and
// hypot.reduce([-3.0]) is 3.0. So the result here is f(start, reduce(x))
// with start = initial, else the identity; masked-out elements (where=) count
// as the engine's identity (engine_identity: for maximum/minimum/fmax/fmin,
// which have none, a value every element beats), so they drop out.

// Note [Float16 reductions]
// NumPy's float16 add, subtract, multiply and divide reductions keep their
// running value in float32 and round to float16 once, at the end, when the
// reduced axis is its innermost loop; otherwise (a column reduction, say)
// they round every step to float16. bfloat16 (ml_dtypes) rounds every step in
// NumPy; CuPy, and kiln, treat it as float16. kiln always runs the passes or the fold
// in float32 and rounds once: never less accurate than NumPy, and where NumPy
// rounds every step, results may differ from NumPy's in the last bits. Scans
// (accumulate) round every partial result to float16, in NumPy and here.

// Note [fmax identity]
// fmax/fmin skip a NaN second argument and keep a NaN first one, so an
// all-NaN reduction gives its first NaN, bits included: no value is a
// two-sided identity (NaN loses to a NaN, -inf beats one). The engine starts
// them from a quiet NaN of one payload (kSentinelNan) that their combine
// drops on either side by its bits. (A data NaN with exactly those bits would
// be dropped too: its row's result is then another NaN or the sentinel.)

namespace {

const char* const kInclude = "#include <kiln/ufunc_math.h>\n";
const char* const kSameBits =
    "template <class T> KILN_DEVICE bool _kiln_same_bits(const T& a, const T& b) {\n"
    "  const unsigned char* p = (const unsigned char*)&a; const unsigned char* q = (const unsigned char*)&b;\n"
    "  for (int k = 0; k < (int)sizeof(T); ++k) if (p[k] != q[k]) return false;\n  return true;\n}\n";

std::string name_of(DType d) { return std::string(dtype_info(d).name); }
std::string ctype_of(DType d) { return std::string(dtype_info(d).c_type); }
char kind_of(DType d) { return dtype_info(d).kind; }

// A scalar's bytes, at most 16.
struct Bytes {
  unsigned char b[16] = {};
};

DType complex_part(DType d) { return d == DType::Complex64 ? DType::Float32 : DType::Float64; }

// The ufunc's identity in `dtype` (numpy.asarray(uf.identity).astype(dtype)),
// or false when it has none. -1 (bitwise_and) is all ones in any integer type.
bool identity_bytes(const UfuncDef& uf, DType dtype, void* dst) {
  long long i = 0;
  double f = 0;
  bool b = false;
  switch (uf.identity) {
    case Identity::None_: return false;
    case Identity::Zero: i = 0; cast_scalar(&i, DType::Int64, dst, dtype); return true;
    case Identity::One: i = 1; cast_scalar(&i, DType::Int64, dst, dtype); return true;
    case Identity::MinusOne:
    case Identity::AllOnes: i = -1; cast_scalar(&i, DType::Int64, dst, dtype); return true;
    case Identity::True_: b = true; cast_scalar(&b, DType::Bool, dst, dtype); return true;
    case Identity::False_: b = false; cast_scalar(&b, DType::Bool, dst, dtype); return true;
    case Identity::NegInf: f = -HUGE_VAL; cast_scalar(&f, DType::Float64, dst, dtype); return true;
    case Identity::PosInf: f = HUGE_VAL; cast_scalar(&f, DType::Float64, dst, dtype); return true;
  }
  return false;
}

// Note [fmax identity]: the sentinel NaN's bits per float size (2 bytes:
// float16's, or bfloat16's when `bfloat16`).
unsigned long long sentinel_nan(size_t itemsize, bool bfloat16 = false) {
  if (bfloat16) return 0x7FDAULL;
  return itemsize == 2 ? 0x7E5AULL : itemsize == 4 ? 0x7FC5A5A5ULL : 0x7FF8A5A5A5A5A5A5ULL;
}

// The reduction engine's start value for uf in dtype: the ufunc's identity,
// else for maximum/minimum the value every element beats (-inf, the least
// integer, (-inf, -inf)), for fmax/fmin on floats the sentinel NaN, which
// their combine skips (Note [fmax identity]). Each is two-sided, signed zeros
// and NaNs included (Note [NaN in maximum and fmax], ufunc_arith.h), so the
// engine's extra combines change no result.
Bytes engine_identity(const UfuncDef& uf, DType dtype) {
  Bytes r;
  if (identity_bytes(uf, dtype, r.b)) return r;
  const bool low = uf.name == "maximum" || uf.name == "fmax";
  const char kind = kind_of(dtype);
  const size_t size = itemsize(dtype);
  if (kind == 'b') {
    r.b[0] = low ? 0 : 1;
    return r;
  }
  if (kind == 'i' || kind == 'u') {
    unsigned long long bits;
    if (kind == 'u') bits = low ? 0 : ~0ULL;
    else bits = low ? (1ULL << (8 * size - 1)) : ((1ULL << (8 * size - 1)) - 1);
    std::memcpy(r.b, &bits, size);   // little-endian: the low bytes
    return r;
  }
  const size_t part = kind == 'c' ? size / 2 : size;
  unsigned long long bits;
  const bool bf16 = dtype == DType::BFloat16;
  if (uf.name == "fmax" || uf.name == "fmin") {
    bits = sentinel_nan(part, bf16);
  } else {
    const unsigned long long sign = low ? 1ULL << (8 * part - 1) : 0;
    bits = sign | (bf16 ? 0x7F80ULL : part == 2 ? 0x7C00ULL : part == 4 ? 0x7F800000ULL : 0x7FF0000000000000ULL);
  }
  std::memcpy(r.b, &bits, part);
  if (kind == 'c') std::memcpy(r.b + part, &bits, part);
  return r;
}

// The engine's reduce_expr for uf: kiln::ufn::<name>(a, b), the sentinel
// dropped for fmax/fmin on floats (Note [fmax identity]).
std::string engine_combine(const UfuncDef& uf, DType dtype, const std::string& ident) {
  std::string call = "kiln::ufn::" + uf.name + "(a, b)";
  if ((uf.name == "fmax" || uf.name == "fmin") && (kind_of(dtype) == 'f' || kind_of(dtype) == 'c'))
    return "_kiln_same_bits(a, " + ident + ") ? b : _kiln_same_bits(b, " + ident + ") ? a : " + call;
  return call;
}

// Whether the engine may combine uf's operands out of element order (Note
// [Reduction kernels]): every reorderable ufunc but the ones whose first-NaN
// rule (maximum, minimum) or sentinel (fmax, fmin) watches the order on
// floating dtypes.
bool commutes(const UfuncDef& uf, DType dtype) {
  const bool watched = uf.name == "maximum" || uf.name == "minimum" || uf.name == "fmax" || uf.name == "fmin";
  return !watched || (kind_of(dtype) != 'f' && kind_of(dtype) != 'c');
}

// The spec of a reorderable uf reduced in `work`: elements where _where is
// false, and NaNs when skip_nan (nansum, nanprod), count as the engine's
// identity (Note [Identity as the start value]); from_identity (uf has one)
// folds the start, uf(identity, result), into the kernel's last step.
std::unique_ptr<ReductionSpec> make_reduction_spec(const UfuncDef& uf, DType work, bool masked, bool skip_nan,
                                                  bool from_identity) {
  const std::string c = ctype_of(work);
  const Bytes id = engine_identity(uf, work);
  const std::string ident = literal_of(id.b, work);
  const std::string value = skip_nan ? "(kiln::ufn::isnan(x) ? " + ident + " : x)" : "x";
  auto s = std::make_unique<ReductionSpec>();
  s->name = "ufunc_reduce_" + uf.name + "_" + name_of(work) + (masked ? "_where" : "") + (skip_nan ? "_nan" : "") +
            (from_identity ? "_start" : "");
  s->params.push_back({"x", c, "", EwParam::Input});
  if (masked) s->params.push_back({"_where", "bool", "", EwParam::Input});
  s->map_expr = masked ? "_where ? " + value + " : " + ident : value;
  s->reduce_expr = engine_combine(uf, work, ident);
  s->post_map_expr = from_identity ? "out = kiln::ufn::" + uf.name + "(" + ident + ", a);" : "out = a;";
  s->identity = ident;
  s->reduce_dtype = work;
  s->out_ctype = c;
  s->preamble = std::string(kInclude) + kSameBits;
  s->options = exact_fp_options();
  s->ordered = !commutes(uf, work);
  return s;
}

// Specs are made once per key and live as long as the process (the engine
// caches its compiled variants on them: Note [Kernel memo]).
struct SpecKey {
  const UfuncDef* uf;
  DType work;
  unsigned char flags;   // masked | skip_nan << 1 | from_identity << 2
  bool operator==(const SpecKey&) const = default;
};
struct SpecKeyHash {
  size_t operator()(const SpecKey& k) const {
    return std::hash<const void*>()(k.uf) ^ (static_cast<size_t>(k.work) << 3 | k.flags) * 0x9E3779B97F4A7C15ULL;
  }
};

const ReductionSpec& reduction_spec(const UfuncDef& uf, DType work, bool masked, bool skip_nan, bool from_identity) {
  static runtime::KernelMemo<SpecKey, std::unique_ptr<ReductionSpec>, SpecKeyHash> specs;
  const SpecKey key{&uf, work, static_cast<unsigned char>(masked | skip_nan << 1 | from_identity << 2)};
  return *specs.get(key, [&] { return make_reduction_spec(uf, work, masked, skip_nan, from_identity); });
}

// Folds each row of a C-contiguous (m, n) array in order, skipping elements
// where the (m, n) bool `mask` is false (a mask needs a start): the
// reduction of the ufuncs that do not reorder, one thread per row.
NDArray sequential_reduce(const UfuncDef& uf, const NDArray& x, const NDArray* mask, const Bytes* start) {
  const int64_t m = x.shape()[0], n = x.shape()[1];
  const DType d = x.dtype();
  static runtime::KernelMemo<SpecKey, std::unique_ptr<EwSpec>, SpecKeyHash> specs;
  const SpecKey key{&uf, d, static_cast<unsigned char>((mask != nullptr) | (start != nullptr) << 1)};
  const EwSpec* spec = specs.get(key, [&] {
    const std::string c = ctype_of(d);
    auto s = std::make_unique<EwSpec>();
    s->name = "ufunc_reduce_seq_" + uf.name + "_" + name_of(d) + (mask ? "_True" : "_False") +
              (start ? "_True" : "_False");
    s->params = {{"x", c, "", EwParam::Raw}, {"n", "long long", "", EwParam::Input}};
    if (mask) s->params.push_back({"mask", "bool", "", EwParam::Raw});
    if (start) s->params.push_back({"start", c, "", EwParam::Input});
    s->params.push_back({"y", c, "", EwParam::Output});
    std::string step = "acc = kiln::ufn::" + uf.name + "(acc, x[i * n + k]);";
    if (mask) step = "if (mask[i * n + k]) " + step;
    s->operation = c + " acc = " + (start ? "start" : "x[i * n]") + ";\nfor (long long k = " +
                   (start ? "0" : "1") + "; k < n; ++k) " + step + "\ny = acc;";
    s->preamble = kInclude;
    s->options = exact_fp_options();
    return s;
  }).get();
  NDArray y = NDArray::empty({m}, d);
  std::vector<EwArg> args{EwArg::of(x), EwArg::value(static_cast<long long>(n))};
  if (mask) args.push_back(EwArg::of(*mask));
  if (start) {
    EwArg s;
    std::memcpy(s.scalar.data(), start->b, itemsize(d));
    args.push_back(s);
  }
  args.push_back(EwArg::of(y));
  elementwise_launch(*spec, args, {m});
  return y;
}

// A new array of `shape` filled with the value at `bytes` (of dtype d).
NDArray filled(const Shape& shape, DType d, const void* bytes) {
  static runtime::KernelMemo<DType, std::unique_ptr<EwSpec>> specs;
  const EwSpec* spec = specs.get(d, [&] {
    auto s = std::make_unique<EwSpec>();
    s->name = "kiln_reduce_fill_" + name_of(d);
    s->params = {{"value", ctype_of(d), "", EwParam::Input}, {"out0", ctype_of(d), "", EwParam::Output}};
    s->operation = "out0 = value;";
    s->outputs_write_only = true;
    return s;
  }).get();
  NDArray out = NDArray::empty(shape, d);
  if (out.size() == 0) return out;
  EwArg value;
  std::memcpy(value.scalar.data(), bytes, itemsize(d));
  EwArg args[] = {value, EwArg::of(out)};
  elementwise_launch(*spec, args, shape);
  return out;
}

NDArray as_dtype(const NDArray& a, DType d) { return a.dtype() == d ? a : astype(a, d, Order::C); }

bool float16_in_float32(const UfuncDef& uf) {
  return uf.name == "add" || uf.name == "subtract" || uf.name == "multiply" || uf.name == "divide";
}

}  // namespace

bool reorderable(const UfuncDef& uf) {
  return uf.identity != Identity::None_ || uf.name == "maximum" || uf.name == "minimum" || uf.name == "fmax" ||
         uf.name == "fmin";
}

std::string literal_of(const void* bytes, DType dtype) {
  const char kind = kind_of(dtype);
  const size_t size = itemsize(dtype);
  if (kind == 'b') return *static_cast<const unsigned char*>(bytes) ? "true" : "false";
  if (kind == 'c') {
    const DType part = complex_part(dtype);
    return ctype_of(dtype) + "(" + literal_of(bytes, part) + ", " +
           literal_of(static_cast<const unsigned char*>(bytes) + size / 2, part) + ")";
  }
  unsigned long long bits = 0;
  std::memcpy(&bits, bytes, size);
  const std::string b = std::to_string(bits);
  if (kind == 'i' || kind == 'u') return "(" + ctype_of(dtype) + ")" + b + "ULL";
  if (dtype == DType::BFloat16) return "kiln::bfloat16::from_bits((unsigned short)" + b + "u)";
  if (size == 2) return "kiln::half::from_bits((unsigned short)" + b + "u)";
  if (size == 4) return "kiln::detail::bits_float(" + b + "u)";
  return "kiln::detail::bits_double(" + b + "ULL)";
}

void check_binary_method(const UfuncDef& uf, const std::string& method) {
  if (uf.nin != 2) throw std::invalid_argument(method + " only supported for binary functions");
  if (uf.nout != 1) throw std::invalid_argument(method + " only supported for functions returning a single value");
}

std::vector<int> reduction_axes(const std::optional<std::vector<int64_t>>& axes, bool single, int ndim) {
  std::vector<int> r;
  if (!axes) {
    for (int d = 0; d < ndim; ++d) r.push_back(d);
    return r;
  }
  if (single && ndim == 0 && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1))
    return r;   // NumPy accepts axis 0 (the default) and -1 on 0-d operands
  return normalize_axes(*axes, ndim);
}

Shape reduced_shape(const Shape& shape, std::span<const int> axes, bool keepdims) {
  Shape r;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) r.push_back(shape[d]);
    else if (keepdims) r.push_back(1);
  }
  return r;
}

void check_reduction_out(const std::string& name, const NDArray& out, const Shape& shape, bool keepdims) {
  require_writeable(out, kReadOnlyOutput);   // Note [Read-only arrays]
  if (out.ndim() != static_cast<int>(shape.size()))
    throw std::invalid_argument("output parameter for reduction operation " + name +
                                " has the wrong number of dimensions: Found " + std::to_string(out.ndim()) +
                                " but expected " + std::to_string(shape.size()) +
                                (keepdims ? " (must match the operand's when keepdims=True)" : ""));
  if (out.shape() != shape)
    throw std::invalid_argument("output parameter for reduction operation " + name + " has shape " +
                                shape_repr(out.shape()) + ", expected " + shape_repr(shape));
}

NDArray finish_reduction(const NDArray& result, const Shape& shape, const std::optional<NDArray>& out) {
  NDArray r = result.shape() == shape ? result : result.reshape(shape);
  if (!out) return r;
  copy_into(r, *out);
  return *out;
}

std::optional<NDArray> row_view(const NDArray& a, std::span<const int> perm, int64_t m, int64_t n) {
  std::vector<int> kept;
  for (size_t k = 0; k + 1 < perm.size(); ++k)
    if (a.shape()[perm[k]] != 1) kept.push_back(perm[k]);
  for (size_t k = 0; k + 1 < kept.size(); ++k)
    if (a.strides()[kept[k]] != a.strides()[kept[k + 1]] * a.shape()[kept[k + 1]]) return std::nullopt;
  return NDArray(a.memory(), a.dtype(), {m, n}, {kept.empty() ? 0 : a.strides()[kept.back()], a.strides()[perm.back()]},
                 a.offset());
}

NDArray rows_of(const NDArray& a, std::span<const int> perm, int64_t m, int64_t n, DType dtype) {
  Shape shape;
  Strides strides;
  for (int d : perm) {
    shape.push_back(a.shape()[d]);
    strides.push_back(a.strides()[d]);
  }
  NDArray t(a.memory(), a.dtype(), shape, strides, a.offset());
  if (t.dtype() != dtype || !t.c_contiguous()) t = astype(t, dtype, Order::C);
  return t.reshape({m, n});
}

DType reduction_loop_dtype(const UfuncDef& uf, DType in, std::optional<DType> requested, std::optional<DType> out) {
  const DType first = !out || requested ? in : *out;
  const char kind = kind_of(in);
  if (!requested && !out && (uf.name == "add" || uf.name == "multiply") &&
      (kind == 'b' || kind == 'i' || kind == 'u') && itemsize(in) < 8)
    requested = kind == 'u' ? DType::UInt64 : DType::Int64;
  Operand ops[] = {{first}, {in}};
  LoopChoice c;
  try {
    c = resolve_loop(uf, ops, requested, Casting::Unsafe);
  } catch (const UfuncTypeError& e) {
    // NumPy names a reduction's operands (None, dtype) when out is not given.
    const std::string& message = e.message;
    const std::string head = "matching types (";
    const size_t at = message.find(head);
    // (Records keep both: NumPy's record reductions fail on the loop itself.)
    if (e.kind != UfuncTypeError::Kind::NoLoop || at == std::string::npos || out || is_record(in)) throw;
    const size_t start = at + head.size();
    const size_t comma = message.find(", ", start);
    if (comma == std::string::npos) throw;
    throw UfuncTypeError(e.kind, message.substr(0, start) + "None" + message.substr(comma));
  }
  if (c.in[0] == c.in[1] && c.in[1] == c.out[0]) return c.out[0];
  if (uf.resolver == Resolver::Logical && !requested) return DType::Bool;   // logical_and.reduce(ints): ??->?
  throw TypeError("No loop matching the specified signature and casting was found for ufunc " + uf.name);
}

namespace {

// reduction_loop_dtype without dtype= and out=, found once per ufunc and
// operand dtype (the common call, x.sum(), pays a hash lookup).
DType default_loop_dtype(const UfuncDef& uf, DType in) {
  static runtime::KernelMemo<SpecKey, DType, SpecKeyHash> loops;
  return loops.get(SpecKey{&uf, in, 0}, [&] { return reduction_loop_dtype(uf, in, std::nullopt, std::nullopt); });
}

}  // namespace

NDArray reduce_apply(const UfuncDef& uf, const NDArray& a, const ReduceOptions& options) {
  check_binary_method(uf, "reduce");
  const std::vector<int> axes = reduction_axes(options.axes, options.single, a.ndim());
  const DType loop = options.dtype || options.out
                         ? reduction_loop_dtype(uf, a.dtype(), options.dtype,
                                                options.out ? std::optional<DType>(options.out->dtype()) : std::nullopt)
                         : default_loop_dtype(uf, a.dtype());
  if (axes.size() > 1 && !reorderable(uf))
    throw std::invalid_argument("reduction operation '" + uf.name +
                                "' is not reorderable, so at most one axis may be specified");
  // The start value in the loop dtype (Note [Identity as the start value]).
  Bytes start;
  bool has_start = false;
  if (options.initial_kind == ReduceOptions::Initial::Default) {
    has_start = identity_bytes(uf, loop, start.b);
  } else if (options.initial_kind == ReduceOptions::Initial::Value) {
    // numpy.array(1j, dtype=loop): Python's own conversion errors for a real loop.
    if (options.initial.kind == ScalarValue::Kind::Complex && kind_of(loop) == 'f')
      throw TypeError("float() argument must be a string or a real number, not 'complex'");
    if (options.initial.kind == ScalarValue::Kind::Complex && (kind_of(loop) == 'i' || kind_of(loop) == 'u'))
      throw TypeError("int() argument must be a string, a bytes-like object or a real number, not 'complex'");
    scalar_to_dtype(options.initial, loop, start.b);
    has_start = true;
  }
  const bool masked = options.where.has_value();
  if (masked && !has_start)
    throw std::invalid_argument("reduction operation '" + uf.name +
                                "' does not have an identity, so to use a where mask one has to specify 'initial'");
  std::vector<int> kept;
  int64_t m = 1, n = 1;
  for (int d = 0; d < a.ndim(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
      kept.push_back(d);
      m *= a.shape()[d];
    } else {
      n *= a.shape()[d];
    }
  }
  if (n == 0 && !has_start)
    throw std::invalid_argument("zero-size array to reduction operation " + uf.name + " which has no identity");
  const Shape shape = reduced_shape(a.shape(), axes, options.keepdims);
  if (options.out) check_reduction_out(uf.name, *options.out, shape, options.keepdims);

  NDArray result = [&]() -> NDArray {
    if (m == 0) return NDArray::empty({0}, loop);
    if (n == 0) return filled({m}, loop, start.b);
    const DType work =
        (loop == DType::Float16 || loop == DType::BFloat16) && float16_in_float32(uf) ? DType::Float32 : loop;
    Bytes work_start;
    if (has_start) cast_scalar(start.b, loop, work_start.b, work);
    if (!reorderable(uf)) {
      std::vector<int> perm = kept;
      std::vector<int> sorted_axes = axes;
      std::sort(sorted_axes.begin(), sorted_axes.end());
      perm.insert(perm.end(), sorted_axes.begin(), sorted_axes.end());
      NDArray x = rows_of(a, perm, m, n, work);
      std::optional<NDArray> mask;
      if (masked) mask = rows_of(broadcast_to(*options.where, a.shape()), perm, m, n, DType::Bool);
      return as_dtype(sequential_reduce(uf, x, mask ? &*mask : nullptr, has_start ? &work_start : nullptr), loop);
    }
    const bool from_identity = has_start && options.initial_kind == ReduceOptions::Initial::Default;
    const bool skip_nan = options.skip_nan && (kind_of(work) == 'f' || kind_of(work) == 'c');
    const ReductionSpec& spec = reduction_spec(uf, work, masked, skip_nan, from_identity);
    NDArray r = NDArray::empty(options.keepdims ? reduced_shape(a.shape(), axes, false) : shape, work);
    std::optional<NDArray> mask;
    if (masked) mask = broadcast_to(*options.where, a.shape());
    const NDArray* inputs[] = {&a, mask ? &*mask : nullptr};
    reduction_launch(spec, std::span<const NDArray* const>(inputs, masked ? 2 : 1), axes, r);
    if (has_start && !from_identity) {
      UfuncInput in[2];
      in[0].scalar.kind = ScalarValue::Kind::Typed;
      in[0].scalar.dtype = work;
      std::memcpy(in[0].scalar.bytes, work_start.b, itemsize(work));
      in[1] = UfuncInput::of(r);
      UfuncOptions o;
      o.dtype = work;
      r = std::move(ufunc_apply(uf, in, o)[0]);
    }
    return as_dtype(r, loop);
  }();
  return finish_reduction(result, shape, options.out);
}

}  // namespace kiln::arraycore
