#include "arraycore/sets.h"

#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/creation.h"
#include "arraycore/promotion.h"
#include "arraycore/scan.h"
#include "arraycore/sort.h"
#include "arraycore/sort_apply.h"
#include "arraycore/transfer.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr auto Raw = EwParam::Raw;
constexpr auto In = EwParam::Input;
const std::string kLL = "long long";

std::string ctype_of(DType d) { return std::string(dtype_info(d).c_type); }
std::string name_of(DType d) { return std::string(dtype_info(d).name); }

// Runs `spec` for i in [0, size) (raw-array kernels).
void launch(const EwSpec& spec, std::vector<EwArg> args, int64_t size) {
  if (size != 0) elementwise_launch(spec, args, {size});
}

EwArg ll(int64_t v) { return EwArg::value<long long>(v); }

// Device expression: a and b are one value for unique.
std::string equal_expr(DType dtype, bool equal_nan) {
  const DTypeInfo& info = dtype_info(dtype);
  const std::string nan = equal_nan ? "1" : "0";
  if (info.kind == 'c') {
    auto isnan = [](const std::string& x) {
      return "(" + x + ".real() != " + x + ".real() || " + x + ".imag() != " + x + ".imag())";
    };
    return "((a.real() == b.real() && a.imag() == b.imag()) || (" + nan + " && " + isnan("a") + " && " +
           isnan("b") + "))";
  }
  if (info.kind == 'f') {
    const std::string fa = info.itemsize == 2 ? "(float)a" : "a", fb = info.itemsize == 2 ? "(float)b" : "b";
    return "(" + fa + " == " + fb + " || (" + nan + " && " + fa + " != " + fa + " && " + fb + " != " + fb + "))";
  }
  return "(a == b)";
}

// int64 marks of the (R, L) C-contiguous sorted rows: 1 where a row differs
// from the one before (and at row 0).
NDArray group_starts(const NDArray& rows, bool equal_nan) {
  const int64_t r = rows.shape()[0], width = rows.shape()[1];
  const std::string c = ctype_of(rows.dtype());
  NDArray marks = NDArray::empty({r}, DType::Int64);
  const EwSpec& spec = keyed_spec(
      "sets_starts_" + name_of(rows.dtype()) + (equal_nan ? "_True" : "_False"),
      {{"k", c, "", Raw}, {"w", kLL, "", In}, {"f", kLL, "", Raw}},
      "long long s = i == 0;\nfor (long long q = 0; q < w && !s; ++q) {\n  const " + c +
          " a = k[(i - 1) * w + q], b = k[i * w + q];\n  if (!" + equal_expr(rows.dtype(), equal_nan) +
          ") s = 1;\n}\nf[i] = s;");
  launch(spec, {EwArg::of(rows), ll(width), EwArg::of(marks)}, r);
  return marks;
}

// Running sum of the 1-d int64 x (the scan engine).
NDArray inclusive_sum(const NDArray& x) {
  NDArray out = NDArray::empty(x.shape(), DType::Int64);
  if (x.size() != 0) {
    ScanSpec spec;
    spec.name = "kiln_sets_cumsum";
    spec.combine = "a + b";
    spec.acc = DType::Int64;
    scan_rows(spec, x.reshape({1, -1}), out.reshape({1, -1}));
  }
  return out;
}

// The last element of the 1-d int64 x (0 when empty), on the host.
int64_t last(const NDArray& x) {
  const int64_t n = x.shape()[0];
  if (n == 0) return 0;
  NDArray one(x.memory(), DType::Int64, {1}, {8}, x.offset() + (n - 1) * x.strides()[0]);
  int64_t v = 0;
  copy_to_host(one, &v, runtime::current_stream());
  return v;
}

// Unique of the sorted (R, L) rows, perm their original positions
// (Note [Unique by sorting]).
UniqueResult unique_rows(const NDArray& rows, const NDArray& perm, bool equal_nan, bool want_index,
                         bool want_inverse, bool want_counts) {
  const int64_t r = rows.shape()[0], width = rows.shape()[1];
  const NDArray marks = group_starts(rows, equal_nan);
  const NDArray group = inclusive_sum(marks);   // 1 + group of each sorted row
  const int64_t u = last(group);
  const std::string c = ctype_of(rows.dtype());
  UniqueResult res{NDArray::empty({u, width}, rows.dtype()), {}, {}, {}};
  launch(keyed_spec("sets_values_" + name_of(rows.dtype()),
                    {{"k", c, "", Raw}, {"f", kLL, "", Raw}, {"g", kLL, "", Raw}, {"w", kLL, "", In}, {"v", c, "", Raw}},
                    "if (f[i]) for (long long q = 0; q < w; ++q) v[(g[i] - 1) * w + q] = k[i * w + q];"),
         {EwArg::of(rows), EwArg::of(marks), EwArg::of(group), ll(width), EwArg::of(res.values)}, r);
  if (want_index) {
    res.index = NDArray::empty({u}, DType::Int64);
    launch(keyed_spec("sets_first", {{"p", kLL, "", Raw}, {"f", kLL, "", Raw}, {"g", kLL, "", Raw}, {"o", kLL, "", Raw}},
                      "if (f[i]) o[g[i] - 1] = p[i];"),
           {EwArg::of(perm), EwArg::of(marks), EwArg::of(group), EwArg::of(*res.index)}, r);
  }
  if (want_inverse) {
    res.inverse = NDArray::empty({r}, DType::Int64);
    launch(keyed_spec("sets_inverse", {{"p", kLL, "", Raw}, {"g", kLL, "", Raw}, {"o", kLL, "", Raw}},
                      "o[p[i]] = g[i] - 1;"),
           {EwArg::of(perm), EwArg::of(group), EwArg::of(*res.inverse)}, r);
  }
  if (want_counts) {
    NDArray starts = NDArray::empty({u}, DType::Int64);
    launch(keyed_spec("sets_group_start", {{"f", kLL, "", Raw}, {"g", kLL, "", Raw}, {"o", kLL, "", Raw}},
                      "if (f[i]) o[g[i] - 1] = i;"),
           {EwArg::of(marks), EwArg::of(group), EwArg::of(starts)}, r);
    res.counts = NDArray::empty({u}, DType::Int64);
    launch(keyed_spec("sets_counts", {{"s", kLL, "", Raw}, {"u", kLL, "", In}, {"r", kLL, "", In}, {"o", kLL, "", Raw}},
                      "o[i] = (i + 1 < u ? s[i + 1] : r) - s[i];"),
           {EwArg::of(starts), ll(u), ll(r), EwArg::of(*res.counts)}, u);
  }
  return res;
}

// The 1-d x sorted, with its permutation.
std::pair<NDArray, NDArray> sorted_with_perm(const NDArray& flat) {
  NDArray keys = NDArray::empty(flat.shape(), flat.dtype());
  NDArray perm = NDArray::empty(flat.shape(), DType::Int64);
  sort_along_axis(flat, 0, &keys, &perm);
  return {keys, perm};
}

// Flat element positions of rows perm[0], perm[1], ... of width `width`: (1, R L).
NDArray row_offsets(const NDArray& perm, int64_t width) {
  const int64_t r = perm.shape()[0];
  NDArray out = NDArray::empty({1, r * width}, DType::Int64);
  launch(keyed_spec("sets_row_offsets", {{"p", kLL, "", Raw}, {"w", kLL, "", In}, {"o", kLL, "", Raw}},
                    "o[i] = p[i / w] * w + i % w;"),
         {EwArg::of(perm), ll(width), EwArg::of(out)}, r * width);
  return out;
}

// For each query (of sorted_keys' dtype, C-contiguous), the first position p
// with sorted_keys[p] not before it in the sort's order, and whether
// sorted_keys[p] == query: (positions int64, found bool).
std::pair<NDArray, NDArray> search(const NDArray& sorted_keys, const NDArray& queries) {
  const DType dt = sorted_keys.dtype();
  const std::string c = ctype_of(dt);
  NDArray pos = NDArray::empty(queries.shape(), DType::Int64);
  NDArray found = NDArray::empty(queries.shape(), DType::Bool);
  launch(keyed_spec("sets_search_" + name_of(dt),
                    {{"s", c, "", Raw}, {"n", kLL, "", In}, {"q", c, "", Raw}, {"p", kLL, "", Raw}, {"f", "bool", "", Raw}},
                    "typedef kiln_sort_" + name_of(dt) +
                        "_digit D;\n"
                        "const _key_t* keys = reinterpret_cast<const _key_t*>(&s[0]);\n"
                        "const _key_t x = reinterpret_cast<const _key_t*>(&q[0])[i];\n"
                        "long long lo = 0, hi = n;\n"
                        "while (lo < hi) {\n  const long long mid = lo + (hi - lo) / 2;\n"
                        "  if (kiln::sort::key_less(D{}, keys[mid], x)) lo = mid + 1; else hi = mid;\n}\n"
                        "p[i] = lo;\n"
                        "bool eq = false;\n"
                        "if (lo < n) { const " + c + " a = s[lo], b = q[i]; eq = " + equal_expr(dt, false) +
                        "; }\nf[i] = eq;",
                    sort_key_source(dt)),
         {EwArg::of(sorted_keys), ll(sorted_keys.shape()[0]), EwArg::of(queries), EwArg::of(pos), EwArg::of(found)},
         queries.size());
  return {pos, found};
}

// x flattened (C order) in dtype, C-contiguous (x itself when it is one).
NDArray flat_as(const NDArray& x, DType dtype) {
  return (x.dtype() == dtype ? c_contiguous_copy(x) : astype(x, dtype, Order::C)).reshape({-1});
}

// moveaxis(x, 0, axis), a view.
NDArray axis_zero_to(const NDArray& x, int axis) {
  std::vector<int> perm;
  for (int d = 1; d <= axis; ++d) perm.push_back(d);
  perm.push_back(0);
  for (int d = axis + 1; d < x.ndim(); ++d) perm.push_back(d);
  Shape shape;
  Strides strides;
  for (int d : perm) {
    shape.push_back(x.shape()[d]);
    strides.push_back(x.strides()[d]);
  }
  return NDArray(x.memory(), x.dtype(), shape, strides, x.offset());
}

}  // namespace

UniqueResult unique_apply(const NDArray& a, std::optional<int64_t> axis, bool equal_nan, bool want_index,
                          bool want_inverse, bool want_counts) {
  if (!axis) {
    auto [keys, perm] = sorted_with_perm(c_contiguous_copy(a).reshape({-1}));
    UniqueResult res = unique_rows(keys.reshape({-1, 1}), perm, equal_nan, want_index, want_inverse, want_counts);
    res.values = res.values.reshape({-1});
    if (res.inverse) res.inverse = res.inverse->reshape(a.shape());
    return res;
  }
  const int d = normalize_axis(*axis, a.ndim());
  // moveaxis(a, d, 0) as C-contiguous (R, L) rows.
  std::vector<int> order{d};
  for (int k = 0; k < a.ndim(); ++k)
    if (k != d) order.push_back(k);
  Shape moved_shape, rest;
  Strides moved_strides;
  for (int k : order) {
    moved_shape.push_back(a.shape()[k]);
    moved_strides.push_back(a.strides()[k]);
  }
  rest.assign(moved_shape.begin() + 1, moved_shape.end());
  const int64_t r = moved_shape[0];
  int64_t width = 1;
  for (int64_t s : rest) width *= s;
  const NDArray rows =
      c_contiguous_copy(NDArray(a.memory(), a.dtype(), moved_shape, moved_strides, a.offset())).reshape({r, width});
  const int64_t item = static_cast<int64_t>(a.itemsize());
  NDArray perm = arange_int(0, 1, r, DType::Int64);
  for (int64_t q = width - 1; q >= 0; --q) {   // LSD: last column first
    const NDArray column(rows.memory(), rows.dtype(), {r, 1}, {rows.strides()[0], item}, rows.offset() + q * item);
    const NDArray col = gather_rows(astype(column, a.dtype(), Order::C).reshape({1, r}), perm.reshape({1, r}));
    NDArray step = NDArray::empty({1, r}, DType::Int64);
    if (r != 0) sort_rows(col, nullptr, &step);
    perm = gather_rows(perm.reshape({1, r}), step).reshape({r});
  }
  const NDArray ordered = gather_rows(rows.reshape({1, r * width}), row_offsets(perm, width)).reshape({r, width});
  // Subarrays holding NaNs never compare equal, whatever equal_nan says: NumPy's axis= rule.
  UniqueResult res = unique_rows(ordered, perm, false, want_index, want_inverse, want_counts);
  Shape values_shape{res.values.shape()[0]};
  values_shape.insert(values_shape.end(), rest.begin(), rest.end());
  res.values = axis_zero_to(res.values.reshape(values_shape), d);
  return res;
}

NDArray isin_apply(const NDArray& element, const NDArray& test_elements) {
  const DType dt = promote_types(element.dtype(), test_elements.dtype());
  const NDArray e = element.dtype() == dt ? c_contiguous_copy(element) : astype(element, dt, Order::C);
  const NDArray t = flat_as(test_elements, dt);
  if (t.size() == 0) return NDArray::zeros(e.shape(), DType::Bool);
  NDArray sorted = NDArray::empty({t.size()}, dt);
  sort_along_axis(t, 0, &sorted, nullptr);
  return search(sorted, e.reshape({-1})).second.reshape(e.shape());
}

NDArray compress_flat(const NDArray& x, const NDArray& mask) {
  const NDArray marks = astype(mask, DType::Int64, Order::C);
  const NDArray pos = inclusive_sum(marks);
  NDArray out = NDArray::empty({last(pos)}, x.dtype());
  const std::string c = ctype_of(x.dtype());
  launch(keyed_spec("sets_compress_" + name_of(x.dtype()),
                    {{"x", c, "", Raw}, {"f", kLL, "", Raw}, {"g", kLL, "", Raw}, {"o", c, "", Raw}},
                    "if (f[i]) o[g[i] - 1] = x[i];"),
         {EwArg::of(x), EwArg::of(marks), EwArg::of(pos), EwArg::of(out)}, x.shape()[0]);
  return out;
}

IntersectResult intersect1d_apply(const NDArray& a_in, const NDArray& b_in, bool assume_unique,
                                  bool return_indices) {
  const DType dt = promote_types(a_in.dtype(), b_in.dtype());
  const NDArray a = flat_as(a_in, dt), b = flat_as(b_in, dt);
  NDArray sa = a, ia = a, sb = b, ib = b;
  if (assume_unique) {
    std::tie(sa, ia) = sorted_with_perm(a);
    std::tie(sb, ib) = sorted_with_perm(b);
  } else {
    UniqueResult ua = unique_apply(a, std::nullopt, true, true, false, false);
    UniqueResult ub = unique_apply(b, std::nullopt, true, true, false, false);
    sa = ua.values, ia = *ua.index, sb = ub.values, ib = *ub.index;
  }
  IntersectResult res{NDArray::empty({0}, dt), {}, {}};
  if (sb.size() == 0 || sa.size() == 0) {
    if (return_indices) {
      res.index_a = NDArray::empty({0}, DType::Int64);
      res.index_b = NDArray::empty({0}, DType::Int64);
    }
    return res;
  }
  auto [pos, found] = search(sb, sa);
  res.values = compress_flat(sa, found);
  if (return_indices) {
    res.index_a = compress_flat(ia, found);
    const NDArray at = compress_flat(pos, found);
    res.index_b = gather_rows(ib.reshape({1, -1}), at.reshape({1, -1})).reshape(at.shape());
  }
  return res;
}

}  // namespace kiln::arraycore
