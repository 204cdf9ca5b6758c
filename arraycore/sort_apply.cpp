#include "arraycore/sort_apply.h"

#include <algorithm>
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/sort.h"

namespace kiln::arraycore {
namespace {

// a with its axes in the order `perm` (a view).
NDArray permuted(const NDArray& a, const std::vector<int>& perm) {
  Shape shape;
  Strides strides;
  for (int d : perm) {
    shape.push_back(a.shape()[d]);
    strides.push_back(a.strides()[d]);
  }
  return NDArray(a.memory(), a.dtype(), std::move(shape), std::move(strides), a.offset());
}

// Every axis but `axis`, then `axis` (Note [Sort along an axis]).
std::vector<int> axis_last(int ndim, int axis) {
  std::vector<int> perm;
  for (int d = 0; d < ndim; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  return perm;
}

// The operand of an axis argument: a flattened (C order) for nullopt.
std::pair<NDArray, int> operand(const NDArray& a, std::optional<int64_t> axis) {
  if (!axis) return {c_contiguous_copy(a).reshape({-1}), 0};
  return {a, normalize_axis(*axis, a.ndim())};
}

}  // namespace

NDArray c_contiguous_copy(const NDArray& x) { return x.c_contiguous() ? x : astype(x, x.dtype(), Order::C); }

const EwSpec& keyed_spec(const std::string& name, const std::vector<EwParam>& params, const std::string& operation,
                         const std::string& preamble) {
  return generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "#include <kiln/ufunc_math.h>\n" + preamble);
    s.params = params;
    s.operation = operation;
    return s;
  });
}

void check_sort_kind(std::optional<std::string_view> kind, std::string_view kind_repr, bool order_given,
                     bool stable_given) {
  static constexpr std::string_view kKinds[] = {"quicksort", "quick", "mergesort", "merge",
                                                "heapsort",  "heap",  "stable"};
  if (kind && std::find(std::begin(kKinds), std::end(kKinds), *kind) == std::end(kKinds))
    throw std::invalid_argument("sort kind must be one of 'quick', 'heap', or 'stable' (got " +
                                std::string(kind_repr) + ")");
  if (kind && stable_given)
    throw std::invalid_argument(
        "`kind` and keyword parameters can't be provided at the same time. Use only one of them.");
  if (order_given) throw std::invalid_argument("Cannot specify order when the array has no fields.");
}

void sort_along_axis(const NDArray& a, int axis, const NDArray* keys_out, const NDArray* index_out) {
  if (a.size() == 0) return;
  const int64_t n = a.shape()[axis], m = a.size() / n;
  const std::vector<int> perm = axis_last(a.ndim(), axis);
  std::optional<NDArray> x = row_view(a, perm, m, n);
  if (!x) x = rows_of(a, perm, m, n, a.dtype());
  // Each result's (m, n) view, or a C-contiguous temporary copied back after.
  std::optional<NDArray> rows[2];
  const NDArray* results[2] = {keys_out, index_out};
  bool temporary[2] = {false, false};
  for (int k = 0; k < 2; ++k) {
    if (results[k] == nullptr) continue;
    rows[k] = row_view(*results[k], perm, m, n);
    if (!rows[k]) {
      rows[k] = NDArray::empty({m, n}, results[k]->dtype());
      temporary[k] = true;
    }
  }
  sort_rows(*x, rows[0] ? &*rows[0] : nullptr, rows[1] ? &*rows[1] : nullptr);
  for (int k = 0; k < 2; ++k) {
    if (!temporary[k]) continue;
    NDArray moved = permuted(*results[k], perm);
    copy_into(rows[k]->reshape(moved.shape()), moved);
  }
}

NDArray sort_apply(const NDArray& a, std::optional<int64_t> axis) {
  auto [x, d] = operand(a, axis);
  NDArray out = NDArray::empty(x.shape(), x.dtype());
  sort_along_axis(x, d, &out, nullptr);
  return out;
}

NDArray argsort_apply(const NDArray& a, std::optional<int64_t> axis) {
  auto [x, d] = operand(a, axis);
  NDArray out = NDArray::empty(x.shape(), DType::Int64);
  sort_along_axis(x, d, nullptr, &out);
  return out;
}

void sort_in_place(const NDArray& a, int64_t axis) {
  require_writeable(a, "sort array is read-only");   // Note [Read-only arrays]
  sort_along_axis(a, normalize_axis(axis, a.ndim()), &a, nullptr);
}

NDArray partition_apply(const NDArray& a, const KthArgument& kth, std::optional<int64_t> axis,
                        std::optional<std::string_view> kind, std::string_view kind_repr, bool order_given,
                        bool indices) {
  if (kind != "introselect")
    throw std::invalid_argument("select kind must be 'introselect' (got " + std::string(kind_repr) + ")");
  check_sort_kind(std::nullopt, "", order_given, false);
  auto [x, d] = operand(a, axis);
  if (!kth.integer) throw TypeError("Partition index must be integer");
  if (kth.ndim > 1) throw std::invalid_argument("kth must be scalar or 1-D");
  const int64_t n = x.shape()[d];
  for (int64_t v : kth.values)
    if (v < -n || v >= n)
      throw std::invalid_argument("kth(=" + std::to_string(v) + ") out of bounds (" + std::to_string(n) + ")");
  return indices ? argsort_apply(x, d) : sort_apply(x, d);
}

NDArray gather_rows(const NDArray& src, const NDArray& idx) {
  const int64_t m = idx.shape()[0], k = idx.shape()[1];
  NDArray out = NDArray::empty({m, k}, src.dtype());
  if (out.size() == 0) return out;
  const std::string c(dtype_info(src.dtype()).c_type);
  const EwSpec& spec = keyed_spec("sort_gather_rows_" + std::string(dtype_info(src.dtype()).name),
                                  {{"src", c, "", EwParam::Raw},
                                   {"idx", "long long", "", EwParam::Raw},
                                   {"n", "long long", "", EwParam::Input},
                                   {"k", "long long", "", EwParam::Input},
                                   {"out", c, "", EwParam::Raw}},
                                  "out[i] = src[(i / k) * n + idx[i]];");
  const EwArg args[] = {EwArg::of(src), EwArg::of(idx), EwArg::value<long long>(src.shape()[1]),
                        EwArg::value<long long>(k), EwArg::of(out)};
  elementwise_launch(spec, args, {m * k});
  return out;
}

NDArray lexsort_apply(std::span<const NDArray> keys, int64_t axis) {
  if (keys.empty()) throw TypeError("need sequence of keys with len > 0 in lexsort");
  const Shape& shape = keys[0].shape();
  for (const NDArray& k : keys)
    if (k.shape() != shape) throw std::invalid_argument("all keys need to be the same shape");
  const int ndim = static_cast<int>(shape.size());
  if (ndim == 0) return NDArray::zeros({}, DType::Int64);
  const int d = normalize_axis(axis, ndim);
  NDArray result = NDArray::empty(shape, DType::Int64);
  if (result.size() == 0) return result;
  const int64_t n = shape[d], m = result.size() / n;
  const std::vector<int> perm = axis_last(ndim, d);
  NDArray idx = NDArray::empty({m, n}, DType::Int64);
  sort_rows(rows_of(keys[0], perm, m, n, keys[0].dtype()), nullptr, &idx);
  for (size_t q = 1; q < keys.size(); ++q) {
    NDArray ordered = gather_rows(rows_of(keys[q], perm, m, n, keys[q].dtype()), idx);
    NDArray step = NDArray::empty({m, n}, DType::Int64);
    sort_rows(ordered, nullptr, &step);
    idx = gather_rows(idx, step);
  }
  // idx holds the result with `axis` last: write it back through that view.
  NDArray moved = permuted(result, perm);
  copy_into(idx.reshape(moved.shape()), moved);
  return result;
}

}  // namespace kiln::arraycore
