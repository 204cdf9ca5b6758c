#include "arraycore/statistics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"
#include "arraycore/reduction.h"
#include "arraycore/transfer.h"
#include "arraycore/ufunc_apply.h"
#include "runtime/stream.h"

namespace kiln::arraycore {

// Note [Mean and variance]
// mean sums each output's elements with their count in one pass: the
// accumulator is a kiln::ValueIndex {sum, count}, so where= masks and skipped
// NaNs (nanmean) need no second count pass, and the division is the
// post-map. var is two passes, never E[x^2] - E[x]^2: the mean (kept
// dimensions, broadcast back over the operand), then the sum of |x - mean|^2
// with its count, divided by max(count - ddof, 0) in the post-map (std takes
// the square root there too). Both accumulate in the dtype NumPy computes
// the sum in (float64 for integers and bool, float32 for float16: Note
// [Float16 reductions] in kiln/_ufunc_methods.py) and round once to the
// result dtype, so float16 results are never less accurate than NumPy's,
// which rounds each step.
//
// Note [Arg reductions]
// The accumulator is a kiln::ValueIndex {value, index}: each element maps to
// {x, _j} (`_j` its C-order position among the reduced elements, the flat
// index for axis=None), the identity has index -1, and the combine picks the
// better of a and b: a real element over the identity; a NaN over a number,
// the smaller index between two NaNs; else the greater value (lexicographic
// for complex), the smaller index between equal values. That order is total,
// so the combine commutes and the engine may read out of order (coalesced
// rows, Note [Reduction kernels]), and ties give the first position and the
// first NaN wins, as NumPy's. nanargmax maps NaNs to -inf (nanargmin: +inf), as
// NumPy does, after one pass that finds all-NaN slices (ValueError).
//
// Every combine here commutes (sums, counts, the index-tie-broken arg
// reductions), so every spec is unordered: the engine may read the operands
// out of order for coalescing (Note [Reduction kernels]).

namespace {

const char* const kPreamble = "#include <kiln/statistics.h>\n";

std::string ctype(DType d) { return std::string(dtype_info(d).c_type); }
std::string name_of(DType d) { return std::string(dtype_info(d).name); }
char kind(DType d) { return dtype_info(d).kind; }
bool is_inexact(DType d) { return kind(d) == 'f' || kind(d) == 'c'; }
const char* py_bool(bool b) { return b ? "True" : "False"; }

DType real_of(DType d) {
  if (d == DType::Complex64) return DType::Float32;
  if (d == DType::Complex128) return DType::Float64;
  return d;
}

std::string pair_of(DType d) { return "kiln::ValueIndex<" + ctype(d) + ">"; }

// A C++ expression of d's C type (float or complex) with exactly the bits of
// `value` converted to d.
std::string float_literal(double value, DType d) {
  if (kind(d) == 'c') {
    DType part = real_of(d);
    return ctype(d) + "(" + float_literal(value, part) + ", " + float_literal(0.0, part) + ")";
  }
  unsigned char bytes[8] = {};
  cast_scalar(&value, DType::Float64, bytes, d);
  if (d == DType::Float16 || d == DType::BFloat16) {
    uint16_t bits;
    std::memcpy(&bits, bytes, 2);
    return ctype(d) + "::from_bits((unsigned short)" + std::to_string(bits) + "u)";
  }
  if (d == DType::Float32) {
    uint32_t bits;
    std::memcpy(&bits, bytes, 4);
    return "kiln::detail::bits_float(" + std::to_string(bits) + "u)";
  }
  if (d == DType::Float64) {
    uint64_t bits;
    std::memcpy(&bits, bytes, 8);
    return "kiln::detail::bits_double(" + std::to_string(bits) + "ULL)";
  }
  throw std::logic_error("float_literal: not a float dtype");
}

// ddof in a kernel name, as Python's str(float) spells it ('.' -> 'p', '-' -> 'm').
std::string ddof_name(double ddof) {
  std::string s;
  if (std::isfinite(ddof) && ddof == std::floor(ddof) && std::fabs(ddof) < 1e16) {
    s = std::to_string(static_cast<long long>(ddof)) + ".0";
    if (ddof == 0 && std::signbit(ddof)) s = "-0.0";
  } else {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), ddof);
    s.assign(buf, r.ptr);
  }
  std::string out;
  for (char ch : s) {
    if (ch == '.') out += 'p';
    else if (ch == '-') out += 'm';
    else if (ch != '+') out += ch;
  }
  return out;
}

// The cached spec named `name` (names encode everything the spec depends on);
// `fill` sets the rest of a new one.
const ReductionSpec& spec_named(const std::string& name, const std::function<void(ReductionSpec&)>& fill) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<ReductionSpec>> specs;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = specs[name];
  if (!slot) {
    auto s = std::make_unique<ReductionSpec>();
    s->name = name;
    s->ordered = false;
    s->preamble = kPreamble;
    s->options = exact_fp_options();
    fill(*s);
    slot = std::move(s);
  }
  return *slot;
}

void set_pair(ReductionSpec& s, DType d) {
  s.reduce_dtype = d;
  s.reduce_ctype = pair_of(d);
  s.reduce_itemsize = d == DType::Complex128 ? 24 : 16;
}

std::vector<EwParam> params(std::vector<std::pair<std::string, std::string>> ps) {
  std::vector<EwParam> out;
  for (auto& [name, c] : ps) out.push_back({name, c, "", EwParam::Input});
  return out;
}

Shape kept_shape(const Shape& shape, const std::vector<int>& axes, bool keepdims) {
  Shape out;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) out.push_back(shape[d]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

NDArray launch(const ReductionSpec& spec, std::vector<const NDArray*> inputs, const std::vector<int>& axes,
               DType out_dtype) {
  NDArray out = NDArray::empty(kept_shape(inputs[0]->shape(), axes, false), out_dtype);
  reduction_launch(spec, inputs, axes, out);
  return out;
}

std::vector<int> every_axis(int ndim) {
  std::vector<int> axes(ndim);
  std::iota(axes.begin(), axes.end(), 0);
  return axes;
}

// A full reduction's 0-d result, read back (one synchronisation).
template <class T>
T full_to_host(const ReductionSpec& spec, const NDArray& x, DType out_dtype) {
  NDArray r = launch(spec, {&x}, every_axis(x.ndim()), out_dtype);
  T v{};
  copy_to_host(r, &v, runtime::current_stream(), true);
  return v;
}

// Whether any element of a bool array is true.
bool any_true(const NDArray& bools) {
  const ReductionSpec& spec = spec_named("stat_any", [](ReductionSpec& s) {
    s.params = params({{"x", "bool"}});
    s.map_expr = "x";
    s.reduce_expr = "a || b";
    s.post_map_expr = "out = a;";
    s.identity = "false";
    s.reduce_dtype = DType::Bool;
    s.out_ctype = "bool";
  });
  return bools.size() > 0 && full_to_host<bool>(spec, bools, DType::Bool);
}

// NumPy's check of a float result for NaNs (its nan-functions warn then).
bool has_nan(const NDArray& r) {
  if (!is_inexact(r.dtype()) || r.size() == 0) return false;
  const ReductionSpec& spec = spec_named("stat_any_nan_" + name_of(r.dtype()), [&](ReductionSpec& s) {
    s.params = params({{"x", ctype(r.dtype())}});
    s.map_expr = "kiln::ufn::isnan(x)";
    s.reduce_expr = "a || b";
    s.post_map_expr = "out = a;";
    s.identity = "false";
    s.reduce_dtype = DType::Bool;
    s.out_ctype = "bool";
  });
  return full_to_host<bool>(spec, r, DType::Bool);
}

const ReductionSpec& count_nonzero_spec() {
  return spec_named("count_nonzero", [](ReductionSpec& s) {
    s.params = params({{"x", "bool"}});
    s.map_expr = "(long long)x";
    s.reduce_expr = "a + b";
    s.post_map_expr = "out = a;";
    s.identity = "0LL";
    s.reduce_dtype = DType::Int64;
    s.out_ctype = "long long";
  });
}

int64_t reduced_count(const Shape& shape, const std::vector<int>& axes) {
  int64_t n = 1;
  for (int d : axes) n *= shape[d];
  return n;
}

// The smallest count of elements per output: from the shapes, or with
// where= a masked count on the device (one synchronisation).
int64_t fewest(const NDArray& a, const std::vector<int>& axes, const NDArray* where) {
  if (where == nullptr) return reduced_count(a.shape(), axes);
  int64_t kept = 1;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept *= a.shape()[d];
  if (kept == 0) return 0;
  NDArray counts = launch(count_nonzero_spec(), {where}, axes, DType::Int64);
  const ReductionSpec& spec = spec_named("stat_min_count", [](ReductionSpec& s) {
    s.params = params({{"x", "long long"}});
    s.map_expr = "x";
    s.reduce_expr = "b < a ? b : a";
    s.post_map_expr = "out = a;";
    s.identity = "9223372036854775807LL";
    s.reduce_dtype = DType::Int64;
    s.out_ctype = "long long";
  });
  return full_to_host<int64_t>(spec, counts, DType::Int64);
}

std::string shape_repr(const Shape& shape) {
  std::string s = "(";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// ufunc.reduce's check of out= (named as add.reduce's, which NumPy's mean uses).
void check_out(const NDArray& out, const Shape& shape, bool keepdims) {
  if (out.ndim() != static_cast<int>(shape.size()))
    throw std::invalid_argument(
        "output parameter for reduction operation add has the wrong number of dimensions: Found " +
        std::to_string(out.ndim()) + " but expected " + std::to_string(shape.size()) +
        (keepdims ? " (must match the operand's when keepdims=True)" : ""));
  if (out.shape() != shape)
    throw std::invalid_argument("output parameter for reduction operation add has shape " + shape_repr(out.shape()) +
                                ", expected " + shape_repr(shape));
}

// `result` (the kept shape) reshaped to `shape`, or written into out.
StatResult finish(NDArray result, const Shape& shape, const NDArray* out, std::vector<std::string> warnings) {
  NDArray shaped = result.reshape(shape);
  if (out == nullptr) return {std::move(shaped), std::move(warnings), false};
  copy_into(shaped, *out);
  return {*out, std::move(warnings), kind(result.dtype()) == 'c' && kind(out->dtype()) != 'c'};
}

struct Prepared {
  std::vector<int> axes;
  Shape shape;             // the result's, keepdims applied
  DType acc, result;       // accumulator and result dtypes
  bool skip_nan;           // and the operand can hold NaNs
  std::optional<NDArray> where;
};

// The axes (NumPy's nan-functions reduce float operands with ufunc.reduce's
// axis rules; mean and var reject axis 0 of a 0-d operand), out= and where=
// checked, and the dtypes of Note [Mean and variance].
Prepared prepare(const NDArray& a, const StatOptions& o) {
  Prepared p;
  p.skip_nan = o.skip_nan && is_inexact(a.dtype());
  if (!p.skip_nan && a.ndim() == 0 && o.axis.kind == AxisArg::Kind::Int) normalize_axis(o.axis.values[0], 0);
  p.axes = reduction_axes(o.axis, a.ndim());
  p.shape = kept_shape(a.shape(), p.axes, o.keepdims);
  if (o.out != nullptr) check_out(*o.out, p.shape, o.keepdims);
  if (o.dtype) {
    p.acc = itemsize(*o.dtype) == 2 && kind(*o.dtype) == 'f' ? DType::Float32 : *o.dtype;
    p.result = *o.dtype;
  } else if (kind(a.dtype()) == 'b' || kind(a.dtype()) == 'i' || kind(a.dtype()) == 'u') {
    p.acc = p.result = DType::Float64;
  } else {
    p.acc = itemsize(a.dtype()) == 2 && kind(a.dtype()) == 'f' ? DType::Float32 : a.dtype();
    p.result = a.dtype();
  }
  if (o.where != nullptr) p.where = broadcast_to(*o.where, a.shape());
  return p;
}

// The engine's mean of a over axes in acc, cast to result (kept shape).
NDArray mean_of(const NDArray& a, const std::vector<int>& axes, DType acc, DType result, const NDArray* where,
                bool skip_nan) {
  const std::string name = std::string("mean_") + name_of(acc) + "_" + name_of(result) + "_" + py_bool(where) + "_" +
                           py_bool(skip_nan);
  const ReductionSpec& spec = spec_named(name, [&](ReductionSpec& s) {
    const std::string c = ctype(acc), pair = pair_of(acc), zero = pair + "{(" + c + ")0, 0LL}";
    std::string value = pair + "{x, 1LL}";
    if (skip_nan) value = "(kiln::ufn::isnan(x) ? " + zero + " : " + value + ")";
    s.params = params({{"x", c}});
    if (where) s.params.push_back({"_where", "bool", "", EwParam::Input});
    s.map_expr = where ? "_where ? " + value + " : " + zero : value;
    s.reduce_expr = pair + "{a.value + b.value, a.index + b.index}";
    s.post_map_expr = "out = kiln::numpy_cast<" + ctype(result) + ">(kiln::stat_div(a.value, (" +
                      ctype(real_of(acc)) + ")a.index));";
    s.identity = zero;
    set_pair(s, acc);
    s.out_ctype = ctype(result);
  });
  std::vector<const NDArray*> inputs{&a};
  if (where) inputs.push_back(where);
  return launch(spec, inputs, axes, result);
}

}  // namespace

std::vector<int> reduction_axes(const AxisArg& axis, int ndim) {
  switch (axis.kind) {
    case AxisArg::Kind::None:
      return every_axis(ndim);
    case AxisArg::Kind::Tuple:
      return normalize_axes(axis.values, ndim);
    case AxisArg::Kind::Int:
      break;
  }
  const int64_t v = axis.values.at(0);
  if (ndim == 0 && (v == 0 || v == -1)) return {};   // NumPy accepts axis 0 (the default) and -1 on 0-d operands
  return {normalize_axis(v, ndim)};
}

StatResult mean_apply(const NDArray& a, const StatOptions& o) {
  Prepared p = prepare(a, o);
  std::vector<std::string> warnings;
  const NDArray* where = p.where ? &*p.where : nullptr;
  if (fewest(a, p.axes, where) == 0) warnings.push_back("Mean of empty slice.");
  NDArray r = mean_of(a, p.axes, p.acc, p.result, where, p.skip_nan);
  if (p.skip_nan && has_nan(r)) warnings.push_back("Mean of empty slice");
  return finish(std::move(r), p.shape, o.out, std::move(warnings));
}

StatResult var_apply(const NDArray& a, const VarOptions& o) {
  Prepared p = prepare(a, o);
  const NDArray* where = p.where ? &*p.where : nullptr;
  DType result = p.result;
  if (!o.dtype || kind(*o.dtype) != 'c') result = real_of(result);   // real unless dtype= asks for a complex one
  std::vector<std::string> warnings;
  if (!p.skip_nan && static_cast<double>(fewest(a, p.axes, where)) - o.ddof <= 0)
    warnings.push_back("Degrees of freedom <= 0 for slice");
  NDArray m = o.mean != nullptr ? *o.mean
                                : mean_of(a, p.axes, p.acc, p.acc, where, p.skip_nan).reshape(
                                      kept_shape(a.shape(), p.axes, true));
  const DType acc = p.acc, racc = real_of(acc);
  const bool skip_nan = p.skip_nan;
  const std::string name = std::string(o.root ? "std_" : "var_") + name_of(acc) + "_" + name_of(result) + "_" +
                           py_bool(where) + "_" + py_bool(skip_nan) + "_" + ddof_name(o.ddof);
  const ReductionSpec& spec = spec_named(name, [&](ReductionSpec& s) {
    const std::string c = ctype(acc), r = ctype(racc), pair = pair_of(racc), zero = pair + "{(" + r + ")0, 0LL}";
    std::string value = pair + "{kiln::stat_abs2(x - m), 1LL}";
    if (skip_nan) value = "(kiln::ufn::isnan(x) ? " + zero + " : " + value + ")";
    std::string quotient = "a.value / (_n > (" + r + ")0 ? _n : (" + r + ")0)";
    if (o.root) quotient = "kiln::ufn::sqrt(" + quotient + ")";
    s.params = params({{"x", c}, {"m", c}});
    if (where) s.params.push_back({"_where", "bool", "", EwParam::Input});
    s.map_expr = where ? "_where ? " + value + " : " + zero : value;
    s.reduce_expr = pair + "{a.value + b.value, a.index + b.index}";
    s.post_map_expr = r + " _n = (" + r + ")a.index - (" + r + ")" + float_literal(o.ddof, DType::Float64) +
                      ";\nout = kiln::numpy_cast<" + ctype(result) + ">(" + quotient + ");";
    s.identity = zero;
    set_pair(s, racc);
    s.out_ctype = ctype(result);
  });
  NDArray mb = broadcast_to(m, a.shape());
  std::vector<const NDArray*> inputs{&a, &mb};
  if (where) inputs.push_back(where);
  NDArray v = launch(spec, inputs, p.axes, result);
  if (skip_nan && has_nan(v)) warnings.push_back("Degrees of freedom <= 0 for slice.");
  return finish(std::move(v), p.shape, o.out, std::move(warnings));
}

namespace {

// The combine of Note [Arg reductions] for b later than a's elements (Note
// [Reduction folds]): b wins only if strictly better, a NaN in a stays, a
// NaN in b beats a number.
std::string arg_fold(DType d, bool largest, const std::string& better) {
  if (!is_inexact(d)) return std::string("(a.index < 0 || b.value ") + (largest ? ">" : "<") + " a.value) ? b : a";
  if (d == DType::Float32 || d == DType::Float64)   // !(b <= a) is b > a or a NaN b
    return std::string("(a.index < 0 || (a.value == a.value && !(b.value ") + (largest ? "<=" : ">=") +
           " a.value))) ? b : a";
  return "(a.index < 0 || (!kiln::ufn::isnan(a.value) && (kiln::ufn::isnan(b.value) || " + better + "))) ? b : a";
}

}  // namespace

NDArray arg_reduce_apply(const NDArray& a, const AxisArg& axis, const NDArray* out, bool keepdims, bool largest,
                         bool skip_nan) {
  const std::string name = largest ? "argmax" : "argmin";
  const DType d = a.dtype();
  std::vector<int> axes;
  if (axis.kind == AxisArg::Kind::None) {
    axes = every_axis(a.ndim());
  } else if (a.ndim() == 0 && skip_nan && is_inexact(d)) {
    // NumPy checks a 0-d operand's axis as a 1-d one's (its nanarg* on
    // floats as ufunc.reduce does: 0 and -1 pass).
    axes = reduction_axes(axis, 0);
  } else {
    if (axis.kind == AxisArg::Kind::Tuple) throw TypeError("'tuple' object cannot be interpreted as an integer");
    int ax = normalize_axis(axis.values.at(0), a.ndim() ? a.ndim() : 1);
    if (a.ndim()) axes = {ax};
  }
  if (reduced_count(a.shape(), axes) == 0) throw std::invalid_argument("attempt to get " + name + " of an empty sequence");
  skip_nan = skip_nan && is_inexact(d);
  const std::string c = ctype(d), pair = pair_of(d);
  if (skip_nan) {
    const ReductionSpec& all_nan = spec_named("all_nan_" + name_of(d), [&](ReductionSpec& s) {
      s.params = params({{"x", c}});
      s.map_expr = "kiln::ufn::isnan(x)";
      s.reduce_expr = "a && b";
      s.post_map_expr = "out = a;";
      s.identity = "true";
      s.reduce_dtype = DType::Bool;
      s.out_ctype = "bool";
    });
    if (any_true(launch(all_nan, {&a}, axes, DType::Bool))) throw std::invalid_argument("All-NaN slice encountered");
  }
  const ReductionSpec& spec = spec_named(name + "_" + name_of(d) + "_" + py_bool(skip_nan), [&](ReductionSpec& s) {
    std::string value = "x";
    if (skip_nan)
      value = "(kiln::ufn::isnan(x) ? " +
              float_literal(largest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(),
                            d) +
              " : x)";
    const std::string better = largest ? "kiln::stat_greater(b.value, a.value)" : "kiln::stat_greater(a.value, b.value)";
    const std::string worse = largest ? "kiln::stat_greater(a.value, b.value)" : "kiln::stat_greater(b.value, a.value)";
    s.params = params({{"x", c}});
    s.map_expr = pair + "{" + value + ", _j}";
    s.reduce_expr =
        "(b.index >= 0 && (a.index < 0 || (kiln::ufn::isnan(a.value)"
        " ? kiln::ufn::isnan(b.value) && b.index < a.index"
        " : kiln::ufn::isnan(b.value) || " +
        better + " || (!" + worse + " && b.index < a.index)))) ? b : a";
    s.post_map_expr = "out = a.index;";
    s.identity = pair + "{(" + c + ")0, -1LL}";
    set_pair(s, d);
    s.out_ctype = "long long";
    s.fold_expr = arg_fold(d, largest, better);
  });
  NDArray result = launch(spec, {&a}, axes, DType::Int64);
  Shape shape = axis.kind != AxisArg::Kind::None ? kept_shape(a.shape(), axes, keepdims)
                                                 : Shape(keepdims ? a.ndim() : 0, 1);
  result = result.reshape(shape);
  if (out == nullptr) return result;
  if (out->shape() != shape) throw std::invalid_argument("output array does not match result of np." + name + ".");
  if (kind(out->dtype()) != 'i' && kind(out->dtype()) != 'u')
    throw TypeError("Cannot cast array data from dtype('int64') to dtype('" + name_of(out->dtype()) +
                    "') according to the rule 'safe'");
  copy_into(result, *out);
  return *out;
}

NDArray count_nonzero_apply(const NDArray& a, const AxisArg& axis, bool keepdims) {
  std::vector<int> axes = reduction_axes(axis, a.ndim());
  return launch(count_nonzero_spec(), {&a}, axes, DType::Int64).reshape(kept_shape(a.shape(), axes, keepdims));
}

}  // namespace kiln::arraycore
