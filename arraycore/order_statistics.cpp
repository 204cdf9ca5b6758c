// median, quantile, percentile and their nan-versions (order_statistics.h):
// argument checks, sorted rows, and the kernels, generated here.
//
// Note [Order statistics]
// The reduced axes are moved last and merged, each (m, n) row sorted by the
// sort engine (NaNs last), and one kernel thread per (quantile, row) reads its
// row: for the nan* versions the row's count of non-NaN values (binary search
// for the first NaN) replaces n; otherwise a NaN at the row's end makes the
// result NaN. Methods follow NumPy's definitions on that count c: the virtual
// index v = (c - 1) q ('midpoint': the mean of its floor and ceiling),
// 'lower'/'higher'/'nearest' take element floor(v)/ceil(v)/rint(v) (ties to
// even, as numpy.around) in the input's dtype; 'linear' and 'midpoint'
// interpolate between elements floor(v) and floor(v) + 1 (clipped to the row)
// with NumPy's _lerp, each operation rounded to the result dtype (float16's
// too, as NumPy's float16 arithmetic rounds). The other eight methods of
// Hyndman and Fan are NumPy's too (hyndman_fan_code): virtual index
// c q - 1, or c q + alpha + q (1 - alpha - beta) - 1, rounded in q's dtype
// op by op, out-of-row indices handled as NumPy's (both ends on the bound,
// gamma from the index NumPy sets). median is NumPy's mean of the
// one or two middle elements: their sum and the division by 2 in the mean's
// accumulator (float32 for float16, float64 for integers), then cast. An
// all-NaN row of the nan* versions gives NaN and NumPy's RuntimeWarning (the
// sorted rows' first elements tell: one device-to-host synchronisation); an
// empty median, NumPy's "Mean of empty slice". q is checked and scaled
// (percentile: q / 100 in q's dtype) on the host, as NumPy computes it.
//
// Note [Weighted quantiles]
// weights= (method='inverted_cdf' only, as NumPy) takes the sort's
// permutation with the sorted rows. One thread per row adds the row's weights
// in sorted order in float64, one after another as NumPy's cumsum does (a
// parallel scan would round differently; the cost is a serial pass per row),
// over the c non-NaN elements for the nan* versions (a NaN's weight is
// ignored with it), else over all n. A row whose total is zero, NaN or
// infinite is NumPy's ValueError (one device-to-host synchronisation, and one
// more for the check of negative weights). Then one thread per (quantile,
// row) binary-searches the first sorted element whose normalised cumulative
// weight (cumulative / total in float64, cast to q's dtype as NumPy compares
// it) is at least q and above zero, so leading zero weights are skipped at
// q = 0. Weights are a's shape or 1-d along one reduced axis; a 1-d row is
// read by the sorted element's position along that axis (row stride 0).
#include "arraycore/order_statistics.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/indexing.h"
#include "arraycore/promotion.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/sort_apply.h"
#include "arraycore/transfer.h"
#include "arraycore/ufunc_apply.h"
#include "arraycore/views.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// NumPy's thirteen methods in the order its message lists them, each with the
// number the kernels switch on.
struct Method {
  std::string_view name;
  int number;
  bool takes;   // takes an element (the result in a's dtype); the others interpolate
};
constexpr std::array<Method, 13> kMethods = {{
    {"inverted_cdf", 5, true},  {"averaged_inverted_cdf", 6, false}, {"closest_observation", 7, true},
    {"interpolated_inverted_cdf", 8, false}, {"hazen", 9, false}, {"weibull", 10, false},
    {"linear", 0, false}, {"median_unbiased", 11, false}, {"normal_unbiased", 12, false},
    {"lower", 2, true}, {"higher", 3, true}, {"midpoint", 1, false}, {"nearest", 4, true},
}};

// (alpha, beta) of the continuous methods of Hyndman and Fan (NumPy's table).
struct AlphaBeta {
  int number;
  double alpha, beta;
};
constexpr std::array<AlphaBeta, 5> kAlphaBeta = {{
    {8, 0.0, 1.0}, {9, 0.5, 0.5}, {10, 0.0, 0.0}, {11, 1.0 / 3, 1.0 / 3}, {12, 3.0 / 8, 3.0 / 8}}};

const Method* method_named(std::string_view name) {
  for (const Method& m : kMethods)
    if (m.name == name) return &m;
  return nullptr;
}

std::string methods_tuple() {   // Python's repr of NumPy's tuple of method names
  std::string s = "(";
  for (const Method& m : kMethods) s += (s.size() > 1 ? ", '" : "'") + std::string(m.name) + "'";
  return s + ")";
}

char kind(DType d) { return dtype_info(d).kind; }
std::string name(DType d) { return std::string(dtype_info(d).name); }
std::string flag(bool b) { return b ? "True" : "False"; }

// ---- kernel text --------------------------------------------------------

// The C type arithmetic on dtype's values runs in (float for float16).
std::string wide(DType d) { return d == DType::Float16 || d == DType::BFloat16 ? "float" : c_type(d); }

// expr (computed in wide(d)) rounded to d, as NumPy's arithmetic in d
// rounds each operation.
std::string rd(DType d, const std::string& expr) {
  return "kiln::numpy_cast<" + c_type(d) + ">((" + wide(d) + ")(" + expr + "))";
}

// A double as Python's float.hex spells it (zero and positive normal values).
std::string hex_literal(double v) {
  if (v == 0) return "0x0.0p+0";
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x1.%013" PRIx64 "p%+d", bits & ((uint64_t{1} << 52) - 1),
                static_cast<int>((bits >> 52) & 0x7ff) - 1023);
  return buf;
}

std::string nan_test(DType d, const std::string& x) {
  if (kind(d) == 'c') return "(" + x + " != " + x + ")";   // a NaN in either part, as NumPy's sort sees it
  if (kind(d) != 'f') return "false";
  return itemsize(d) == 2 ? "((float)" + x + " != (float)" + x + ")" : "(" + x + " != " + x + ")";
}

// Device statements setting c, the values of row `row` (n of them) the
// statistic uses, and has_nan, whether a NaN makes it NaN.
std::string row_count_code(DType d, bool skip_nan) {
  std::string code = "long long c = n;\nbool has_nan = false;\n";
  if (kind(d) != 'f' && kind(d) != 'c') return code;
  if (skip_nan)
    return code +
           "{ long long lo = 0, hi = n;\n"
           "  while (lo < hi) { const long long mid = lo + (hi - lo) / 2;\n"
           "    if (" + nan_test(d, "row[mid]") + ") hi = mid; else lo = mid + 1; }\n  c = lo; }\n";
  return code + "has_nan = n > 0 && " + nan_test(d, "row[n - 1]") + ";\n";
}

// b - a in d, as NumPy's _lerp subtracts the two elements: wrapping for
// integers (unsigned arithmetic, so no signed overflow in C++).
std::string difference(DType d) {
  if (kind(d) == 'i' && itemsize(d) >= 4) {
    const std::string u = itemsize(d) == 8 ? "unsigned long long" : "unsigned";
    return "kiln::numpy_cast<" + c_type(d) + ">((" + u + ")b - (" + u + ")a)";
  }
  return rd(d, "(" + wide(d) + ")b - (" + wide(d) + ")a");
}

// Switch cases of the methods of Hyndman and Fan beyond NumPy's classic five,
// as NumPy defines them on the count c (each operation rounded to q's dtype,
// as NumPy computes its virtual index): inverted_cdf and closest_observation
// take element n q - 1 (- 0.5) rounded their way; averaged_inverted_cdf
// interpolates at n q - 1 with gamma 1/2 or 1; the continuous ones at
// n q + alpha + q (1 - alpha - beta) - 1.
std::string hyndman_fan_code(DType qdt, const std::string& r) {
  const std::string wq = wide(qdt), qc = c_type(qdt);
  const std::string cq = "(" + wq + ")kiln::numpy_cast<" + qc + ">((double)c)";
  const std::string nq = rd(qdt, cq + " * (" + wq + ")q[qi]");
  std::string code = "  case 5: case 7: {\n"
                     "    " + wq + " x = " + rd(qdt, "(" + wq + ")" + nq + " - 1") + ";\n"
                     "    if (method == 7) x = " + rd(qdt, "x - (" + wq + ")0.5") + ";\n"
                     "    const " + wq + " p = floor(x);\n"
                     "    long long j = (long long)p + ((x - p == 0 && (method == 5 || fmod(p, (" + wq +
                     ")2) != 0)) ? 0 : 1);\n"
                     "    j = j < 0 ? 0 : (j > c - 1 ? c - 1 : j);\n"
                     "    o[i] = kiln::numpy_cast<" + r + ">(row[j]);\n    return;\n  }\n"
                     "  case 6: v = " + rd(qdt, "(" + wq + ")" + nq + " - 1") + "; break;\n";
  for (const AlphaBeta& ab : kAlphaBeta) {
    const std::string a = "(" + wq + ")kiln::numpy_cast<" + qc + ">(" + hex_literal(ab.alpha) + ")";
    const std::string k = "(" + wq + ")kiln::numpy_cast<" + qc + ">(" + hex_literal(1 - ab.alpha - ab.beta) + ")";
    const std::string inner = rd(qdt, a + " + (" + wq + ")" + rd(qdt, "(" + wq + ")q[qi] * " + k));
    code += "  case " + std::to_string(ab.number) + ": v = " +
            rd(qdt, "(" + wq + ")" + rd(qdt, "(" + wq + ")" + nq + " + (" + wq + ")" + inner) + " - 1") +
            "; break;\n";
  }
  return code;
}

// A NaN of the result's C type r (zero for integer results).
std::string nan_of(DType rdt) {
  return kind(rdt) == 'f' ? rd(rdt, "0.0 / 0.0") : "(" + c_type(rdt) + ")0";
}

// The kernel of one (quantile, row) for the unweighted methods (Note [Order statistics]).
std::string quantile_code(DType sdt, DType rdt, DType qdt, bool skip_nan, bool weak_q) {
  const std::string t = c_type(sdt), r = c_type(rdt), qc = c_type(qdt), wq = wide(qdt), wr = wide(rdt);
  std::string tc, one_minus;
  if (weak_q) {   // NumPy's gamma is then a Python float: 1 - t in double, t converted where used
    tc = "kiln::numpy_cast<" + r + ">((double)g)";
    one_minus = "kiln::numpy_cast<" + r + ">(1.0 - (double)g)";
  } else {
    tc = "kiln::numpy_cast<" + r + ">(g)";
    one_minus = "kiln::numpy_cast<" + r + ">(" + rd(qdt, "1 - (" + wq + ")g") + ")";
  }
  const std::string v = "(" + wq + ")v";
  return "const long long qi = i / m, rr = i - qi * m;\n"
         "const " + t + "* row = &s[rr * n];\n" + row_count_code(sdt, skip_nan) +
         "if (has_nan || c == 0) { o[i] = " + nan_of(rdt) + "; return; }\n" +
         qc + " v = " + rd(qdt, "(" + wq + ")(c - 1) * (" + wq + ")q[qi]") + ";\n"
         "switch (method) {\n"
         "  case 2: o[i] = kiln::numpy_cast<" + r + ">(row[(long long)floor(" + v + ")]); return;\n"
         "  case 3: o[i] = kiln::numpy_cast<" + r + ">(row[(long long)ceil(" + v + ")]); return;\n"
         "  case 4: o[i] = kiln::numpy_cast<" + r + ">(row[(long long)rint(" + v + ")]); return;\n"
         "  case 1: v = " + rd(qdt, "0.5 * (floor(" + v + ") + ceil(" + v + "))") + "; break;\n" +
         hyndman_fan_code(qdt, r) +
         "  default: break;\n}\n" +
         qc + " g = " + rd(qdt, v + " - floor(" + v + ")") + ";\n"
         "long long j0 = (long long)floor(" + v + "), j1 = j0 + 1;\n"
         "if (method >= 6) {   // NumPy's bounds: both indices at the end, gamma from the index it set\n"
         "  const " + wq + " at = " + v + " >= (" + wq + ")(c - 1) ? (" + wq + ")-1 : (" + v + " < 0 ? (" + wq +
         ")0 : floor(" + v + "));\n"
         "  if (" + v + " >= (" + wq + ")(c - 1)) j0 = j1 = c - 1; else if (" + v + " < 0) j0 = j1 = 0;\n"
         "  g = " + rd(qdt, v + " - at") + ";\n"
         "  if (method == 6) g = (" + wq + ")g == 0 ? kiln::numpy_cast<" + qc + ">(0.5) : kiln::numpy_cast<" + qc +
         ">(1.0);\n"
         "}\n"
         "j0 = j0 < 0 ? 0 : (j0 > c - 1 ? c - 1 : j0);\n"
         "j1 = j1 < 0 ? 0 : (j1 > c - 1 ? c - 1 : j1);\n"
         "const " + t + " a = row[j0], b = row[j1];\n"
         "const " + r + " d = kiln::numpy_cast<" + r + ">(" + difference(sdt) + ");\n"
         "const " + r + " ac = kiln::numpy_cast<" + r + ">(a), bc = kiln::numpy_cast<" + r + ">(b);\n"
         "o[i] = (double)g >= 0.5 ? " +
         rd(rdt, "(" + wr + ")bc - (" + wr + ")" + rd(rdt, "(" + wr + ")d * (" + wr + ")" + one_minus)) + " : " +
         rd(rdt, "(" + wr + ")ac + (" + wr + ")" + rd(rdt, "(" + wr + ")d * (" + wr + ")" + tc)) + ";";
}

// The kernel of one row's median (Note [Order statistics]).
std::string median_code(DType sdt, DType rdt, bool skip_nan) {
  const std::string t = c_type(sdt), r = c_type(rdt);
  const std::string acc = rdt == DType::Float16 || rdt == DType::BFloat16 ? "float" : r;
  const std::string nan = kind(rdt) == 'c' ? r + "(0.0 / 0.0, 0.0)"
                                           : "kiln::numpy_cast<" + r + ">((" +
                                                 (kind(rdt) == 'f' ? std::string("double") : acc) + ")(0.0 / 0.0))";
  // A row holding a NaN gives that NaN (its last sorted value), as NumPy's median does.
  return "const " + t + "* row = &s[i * n];\n" + row_count_code(sdt, skip_nan) +
         "if (has_nan) { o[i] = kiln::numpy_cast<" + r + ">(row[n - 1]); return; }\n"
         "if (c == 0) { o[i] = " + nan + "; return; }\n"
         "const " + acc + " x = kiln::numpy_cast<" + acc + ">(row[(c - 1) / 2]), y = kiln::numpy_cast<" + acc +
         ">(row[c / 2]);\n"
         "o[i] = kiln::numpy_cast<" + r + ">((c % 2) ? x : (" + acc + ")((" + acc + ")(x + y) / (" + acc + ")2));";
}

// The cumulative weights of each sorted row and whether the row's total is
// unusable (Note [Weighted quantiles]).
std::string weight_sums_code(DType sdt, bool skip_nan) {
  return "const " + c_type(sdt) + "* row = &s[i * n];\n" + row_count_code(sdt, skip_nan) +
         "const long long* perm = &p[i * n];\nconst double* wr = &w[i * ws];\n"
         "double acc = 0;\n"
         "for (long long j = 0; j < c; ++j) { acc += wr[perm[j]]; cw[i * n + j] = acc; }\n"
         "bad[i] = c > 0 && !(acc > 0 && acc - acc == 0.0);   // zero, NaN or infinite";
}

// The first sorted element whose normalised cumulative weight reaches q.
std::string weighted_quantile_code(DType sdt, DType qdt, DType rdt, bool skip_nan) {
  const std::string wq = wide(qdt);
  return "const long long qi = i / m, rr = i - qi * m;\n"
         "const " + c_type(sdt) + "* row = &s[rr * n];\n" + row_count_code(sdt, skip_nan) +
         "if (has_nan || c == 0) { o[i] = " + nan_of(rdt) + "; return; }\n"
         "const double* cr = &cw[rr * n];\nconst double total = cr[c - 1];\n"
         "const " + wq + " qv = (" + wq + ")q[qi];\n"
         "long long lo = 0, hi = c - 1;   // cr[c - 1] / total is 1\n"
         "while (lo < hi) {\n"
         "  const long long mid = lo + (hi - lo) / 2;\n"
         "  const " + wq + " p = (" + wq + ")kiln::numpy_cast<" + c_type(qdt) + ">(cr[mid] / total);\n"
         "  if (p >= qv && p > 0) hi = mid; else lo = mid + 1;\n}\n"
         "o[i] = kiln::numpy_cast<" + c_type(rdt) + ">(row[lo]);";
}

// Launches the raw-array kernel `name` for i in [0, size); `make` sets its
// params and operation the first time (the name spells every choice they
// depend on).
template <class Make>
void launch(const std::string& name, Make make, std::span<const EwArg> args, int64_t size) {
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "#include <kiln/ufunc_math.h>\n");
    make(s);
    return s;
  });
  if (size) elementwise_launch(spec, args, {size});
}

EwParam raw(const std::string& n, const std::string& ctype) { return {n, ctype, "", EwParam::Raw}; }
EwParam in(const std::string& n, const std::string& ctype) { return {n, ctype, "", EwParam::Input}; }

// ---- host side ----------------------------------------------------------

// Whether any element is nonzero (x.any(): one synchronisation).
bool any_of(const NDArray& x) {
  NDArray r = reduce_apply(ufunc("logical_or"), x, {});
  bool v = false;
  read_back(r, &v);
  return v;
}

std::vector<int> order_axes(const AxisArg& axis, int ndim) {
  std::vector<int> axes;
  if (axis.kind == AxisArg::Kind::None) {
    for (int d = 0; d < ndim; ++d) axes.push_back(d);
    return axes;
  }
  return normalize_axes(axis.values, ndim, "axis", "repeated axis in `axis` argument");
}

struct Rows {
  std::optional<NDArray> sorted;  // (m, n), each row sorted (NaNs last)
  std::optional<NDArray> index;   // (m, n) int64: the sort's permutation
  std::vector<int> perm;          // the kept axes, then the reduced ones
  Shape kept_shape;
  int64_t m = 1, n = 1;
};

// The reduced axes moved last and merged, each row sorted (Note [Order statistics]).
// With overwrite_input (NumPy's leave to change a's contents) the sorted rows
// are also written back into a's reduced axes, as NumPy leaves them partitioned.
Rows sorted_rows(const NDArray& a, const std::vector<int>& axes, bool with_index, bool overwrite_input) {
  Rows r;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
      r.perm.push_back(d);
      r.kept_shape.push_back(a.shape()[d]);
      r.m *= a.shape()[d];
    }
  for (int d : axes) {
    r.perm.push_back(d);
    r.n *= a.shape()[d];
  }
  const NDArray rows = r.m * r.n ? rows_of(a, r.perm, r.m, r.n, a.dtype()) : NDArray::empty({r.m, r.n}, a.dtype());
  r.sorted = NDArray::empty({r.m, r.n}, a.dtype());
  if (with_index) r.index = NDArray::empty({r.m, r.n}, DType::Int64);
  sort_along_axis(rows, 1, &*r.sorted, r.index ? &*r.index : nullptr);
  if (overwrite_input && r.m * r.n) {
    const std::vector<int64_t> perm(r.perm.begin(), r.perm.end());
    const NDArray moved = transpose(a, perm);
    assign(moved, reshape(*r.sorted, moved.shape()));
  }
  return r;
}

// NumPy's warning when a sorted row (NaNs last) holds only NaNs: a look at
// the rows' first elements, which synchronises.
bool has_all_nan_row(const NDArray& rows) {
  if ((kind(rows.dtype()) != 'f' && kind(rows.dtype()) != 'c') || rows.size() == 0) return false;
  const NDArray first(rows.memory(), rows.dtype(), {rows.shape()[0]}, {rows.strides()[0]}, rows.offset());
  const UfuncInput x[] = {UfuncInput::of(first)};
  return any_of(ufunc_apply(ufunc("isnan"), x, {})[0]);
}

// The result reshaped to q's shape then the kept (keepdims: every) axes, or
// cast into out= as numpy.copyto(out, result, casting='unsafe') does.
NDArray finish(const NDArray& result, const Shape& q_shape, const Rows& rows, const std::vector<int>& axes,
               int ndim, bool keepdims, const NDArray* out, bool& complex_to_real) {
  Shape shape = q_shape;
  if (keepdims) {
    size_t k = 0;
    for (int d = 0; d < ndim; ++d)
      shape.push_back(std::find(axes.begin(), axes.end(), d) != axes.end() ? 1 : rows.kept_shape[k++]);
  } else {
    shape.insert(shape.end(), rows.kept_shape.begin(), rows.kept_shape.end());
  }
  NDArray r = result.reshape(shape);
  if (out == nullptr) return r;
  NDArray src = r;
  const size_t extra = shape.size() > out->shape().size() ? shape.size() - out->shape().size() : 0;
  if (extra && std::all_of(shape.begin(), shape.begin() + extra, [](int64_t s) { return s == 1; }))
    src = r.reshape(Shape(shape.begin() + extra, shape.end()));   // copyto drops leading ones
  try {
    src = broadcast_to(src, out->shape());
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("could not broadcast input array from shape " + shape_text(shape) + " into shape " +
                                shape_text(out->shape()));
  }
  complex_to_real = kind(r.dtype()) == 'c' && kind(out->dtype()) != 'c';
  copy_into(src, *out);
  return *out;
}

// q checked and scaled as NumPy does it: at most 2-d (NumPy's limit), q / 100
// in q's dtype for percentile, every value in [0, 1] (NaN is not).
std::vector<double> checked_q(const QuantileQ& q, bool percentile) {
  if (q.shape.size() > 2) throw std::invalid_argument("q must be a scalar or 1d");
  std::vector<double> v = q.values;
  if (percentile)
    for (double& x : v) {
      if (q.dtype == DType::Float64) {
        x = x / 100;
      } else {
        const float f = static_cast<float>(x) / 100.0f;
        if (q.dtype == DType::Float32) {
          x = f;
        } else {   // float16, bfloat16: NumPy divides in float and rounds to the dtype
          unsigned char h[2];
          cast_scalar(&f, DType::Float32, h, q.dtype);
          cast_scalar(h, q.dtype, &x, DType::Float64);
        }
      }
    }
  for (double x : v)
    if (!(x >= 0 && x <= 1))
      throw std::invalid_argument(percentile ? "Percentiles must be in the range [0, 100]"
                                             : "Quantiles must be in the range [0, 1]");
  return v;
}

NDArray device_q(const std::vector<double>& v, DType dtype) {
  NDArray q = NDArray::empty({static_cast<int64_t>(v.size())}, dtype);
  std::vector<unsigned char> bytes(v.size() * itemsize(dtype));
  for (size_t i = 0; i < v.size(); ++i) cast_scalar(&v[i], DType::Float64, &bytes[i * itemsize(dtype)], dtype);
  if (!v.empty()) copy_from_host(q, bytes.data(), runtime::current_stream());
  return q;
}

struct WeightRows {
  NDArray w;
  int64_t stride;   // between rows: n (a's shape), or 0 (1-d along the one reduced axis)
};

// weights as float64 rows matching sorted_rows', after NumPy's checks of
// shape and sign (Note [Weighted quantiles]).
WeightRows weight_rows(const NDArray& w, const NDArray& a, const AxisArg& axis) {
  const bool full = w.shape() == a.shape();
  const std::vector<int> axes = order_axes(axis, a.ndim());
  if (!full) {
    if (axis.kind == AxisArg::Kind::None)
      throw TypeError("Axis must be specified when shapes of a and weights differ.");
    if (w.ndim() != 1 || axes.size() != 1 || w.shape()[0] != a.shape()[axes[0]])
      throw std::invalid_argument("Shape of weights must be consistent with shape of a along specified axis.");
  }
  if (w.size()) {
    UfuncInput in[2] = {UfuncInput::of(w), {}};   // w < 0, 0 a Python int
    if (any_of(ufunc_apply(ufunc("less"), in, {})[0])) throw std::invalid_argument("Weights must be non-negative.");
  }
  if (!full) return {w.dtype() == DType::Float64 && w.c_contiguous() ? w : astype(w, DType::Float64, Order::C), 0};
  int64_t n = 1;
  std::vector<int> perm;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) perm.push_back(d);
  for (int d : axes) {
    perm.push_back(d);
    n *= a.shape()[d];
  }
  if (a.size() == 0) return {astype(w, DType::Float64, Order::C), n};
  return {rows_of(w, perm, a.size() / n, n, DType::Float64), n};
}

// Note [Weighted quantiles]: the cumulative weights of each sorted row,
// NumPy's ValueError for a row without a usable total, then the search.
void weighted(const Rows& rows, const WeightRows& w, const NDArray& qd, DType qdt, bool skip_nan,
              const NDArray& result) {
  const DType sdt = rows.sorted->dtype();
  const NDArray cum = NDArray::empty({rows.m, rows.n}, DType::Float64);
  const NDArray bad = NDArray::empty({rows.m}, DType::Int32);
  const EwArg sums_args[] = {EwArg::of(*rows.sorted), EwArg::of(*rows.index), EwArg::of(w.w),
                             EwArg::value<long long>(w.stride), EwArg::value<long long>(rows.n), EwArg::of(cum),
                             EwArg::of(bad)};
  launch("order_weight_sums_" + name(sdt) + "_" + flag(skip_nan),
         [&](EwSpec& s) {
           s.params = {raw("s", c_type(sdt)), raw("p", "long long"), raw("w", "double"), in("ws", "long long"),
                       in("n", "long long"), raw("cw", "double"), raw("bad", "int")};
           s.operation = weight_sums_code(sdt, skip_nan);
         },
         sums_args, rows.m);
  if (rows.m && any_of(bad)) throw std::invalid_argument("Weights included NaN, inf or were all zero.");
  const EwArg args[] = {EwArg::of(*rows.sorted), EwArg::of(cum), EwArg::value<long long>(rows.n),
                        EwArg::value<long long>(rows.m), EwArg::of(qd), EwArg::of(result)};
  launch("order_weighted_quantile_" + name(sdt) + "_" + name(qdt) + "_" + flag(skip_nan),
         [&](EwSpec& s) {
           s.params = {raw("s", c_type(sdt)), raw("cw", "double"), in("n", "long long"), in("m", "long long"),
                       raw("q", c_type(qdt)), raw("o", c_type(result.dtype()))};
           s.operation = weighted_quantile_code(sdt, qdt, result.dtype(), skip_nan);
         },
         args, result.shape()[0]);
}

StatResult median(const NDArray& a, const OrderArgs& args) {
  std::vector<std::string> warnings;
  const DType sdt = a.dtype(), rdt = kind(sdt) == 'b' || kind(sdt) == 'i' || kind(sdt) == 'u' ? DType::Float64 : sdt;
  const std::vector<int> axes = order_axes(args.axis, a.ndim());
  const Rows rows = sorted_rows(a, axes, false, args.overwrite_input);
  if (rows.n == 0 && rows.m)
    warnings.push_back("Mean of empty slice");
  else if (args.skip_nan && has_all_nan_row(*rows.sorted))
    warnings.push_back("All-NaN slice encountered");
  const NDArray result = NDArray::empty({rows.m}, rdt);
  const EwArg launch_args[] = {EwArg::of(*rows.sorted), EwArg::value<long long>(rows.n), EwArg::of(result)};
  launch("order_median_" + name(sdt) + "_" + flag(args.skip_nan),
         [&](EwSpec& s) {
           s.params = {raw("s", c_type(sdt)), in("n", "long long"), raw("o", c_type(rdt))};
           s.operation = median_code(sdt, rdt, args.skip_nan);
         },
         launch_args, rows.m);
  bool complex_to_real = false;
  NDArray r = finish(result, {}, rows, axes, a.ndim(), args.keepdims, args.out, complex_to_real);
  return {r, warnings, complex_to_real};
}

}  // namespace

StatResult quantile_apply(const NDArray& a, const OrderArgs& args) {
  if (!args.q) return median(a, args);
  const QuantileQ& q = *args.q;
  const DType sdt = a.dtype(), qdt = q.dtype;
  if (kind(sdt) == 'c') throw TypeError("a must be an array of real numbers");
  const std::vector<double> qs = checked_q(q, args.percentile);
  if (args.weights && args.method != "inverted_cdf")
    throw std::invalid_argument("Only method 'inverted_cdf' supports weights. Got: " + args.method + ".");
  const Method* method = method_named(args.method);
  if (method == nullptr)
    throw std::invalid_argument(args.method_repr + " is not a valid method. Use one of: " + methods_tuple());
  std::optional<WeightRows> w;
  if (args.weights) {
    w = weight_rows(*args.weights, a, args.axis);
  } else if (args.skip_nan && a.size() == 0) {
    // NumPy's nan-functions answer an empty array with nanmean's result (NaN
    // per kept position and "Mean of empty slice"), whatever q's shape.
    StatOptions mean;
    mean.axis = args.axis;
    mean.out = args.out;
    mean.keepdims = args.keepdims;
    mean.skip_nan = true;
    return mean_apply(a, mean);
  }
  if (method->name == "linear" && q.integer && !args.percentile)
    method = method_named("lower");   // integer virtual indices: NumPy takes the elements, in a's dtype
  DType rdt = sdt;
  if (!method->takes) {
    if (sdt == DType::Bool)
      throw TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
                      "operator, or the logical_xor function instead.");
    const DType strong[] = {sdt, qdt};
    const WeakScalar weak[] = {WeakScalar::Float};
    rdt = q.weak ? result_type(std::span(strong, 1), weak) : result_type(strong, {});
  }
  const std::vector<int> axes = order_axes(args.axis, a.ndim());
  const Rows rows = sorted_rows(a, axes, w.has_value(), args.overwrite_input);
  if (rows.n == 0 && rows.m) throw std::out_of_range("index -1 is out of bounds for axis 0 with size 0");
  std::vector<std::string> warnings;
  if (args.skip_nan && has_all_nan_row(*rows.sorted)) warnings.push_back("All-NaN slice encountered");
  const NDArray qd = device_q(qs, qdt);
  const NDArray result = NDArray::empty({static_cast<int64_t>(qs.size()) * rows.m}, rdt);
  if (w) {
    weighted(rows, *w, qd, qdt, args.skip_nan, result);
  } else {
    const EwArg launch_args[] = {EwArg::of(*rows.sorted), EwArg::value<long long>(rows.n),
                                 EwArg::value<long long>(rows.m), EwArg::of(qd), EwArg::value<int>(method->number),
                                 EwArg::of(result)};
    launch("order_quantile_" + name(sdt) + "_" + name(rdt) + "_" + name(qdt) + "_" + flag(args.skip_nan) + "_" +
               flag(q.weak),
           [&](EwSpec& s) {
             s.params = {raw("s", c_type(sdt)), in("n", "long long"), in("m", "long long"),
                         raw("q", c_type(qdt)), in("method", "int"), raw("o", c_type(rdt))};
             s.operation = quantile_code(sdt, rdt, qdt, args.skip_nan, q.weak);
           },
           launch_args, result.shape()[0]);
  }
  bool complex_to_real = false;
  NDArray r = finish(result, q.shape, rows, axes, a.ndim(), args.keepdims, args.out, complex_to_real);
  return {r, warnings, complex_to_real};
}

}  // namespace kiln::arraycore
