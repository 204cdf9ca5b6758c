#include "arraycore/scan_apply.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/scan.h"

namespace kiln::arraycore {
namespace {

const char* const kInclude = "#include <kiln/ufunc_math.h>\n";

std::string name_of(DType d) { return std::string(dtype_info(d).name); }
std::string ctype_of(DType d) { return std::string(dtype_info(d).c_type); }

// The sequential scan of each row of a C-contiguous (m, n) array: one thread
// per row, x0, x0 op x1, ... in NumPy's order (the ufuncs that do not reorder).
NDArray sequential_scan(const UfuncDef& uf, const NDArray& x) {
  static std::mutex mutex;
  static std::map<std::tuple<const UfuncDef*, DType>, std::unique_ptr<EwSpec>> specs;
  const int64_t m = x.shape()[0], n = x.shape()[1];
  const EwSpec* spec;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = specs[std::make_tuple(&uf, x.dtype())];
    if (!slot) {
      const std::string c = ctype_of(x.dtype());
      slot = std::make_unique<EwSpec>();
      slot->name = "ufunc_accumulate_seq_" + uf.name + "_" + name_of(x.dtype());
      slot->params = {{"x", c, "", EwParam::Raw}, {"n", "long long", "", EwParam::Input}, {"y", c, "", EwParam::Raw}};
      slot->operation = "const long long base = i * n;\n" + c +
                        " acc = x[base];\ny[base] = acc;\n"
                        "for (long long k = 1; k < n; ++k) { acc = kiln::ufn::" + uf.name +
                        "(acc, x[base + k]); y[base + k] = acc; }";
      slot->preamble = kInclude;
      slot->options = exact_fp_options();
    }
    spec = slot.get();
  }
  NDArray y = NDArray::empty({m, n}, x.dtype());
  EwArg args[] = {EwArg::of(x), EwArg::value(static_cast<long long>(n)), EwArg::of(y)};
  elementwise_launch(*spec, args, {m});
  return y;
}

// Inclusive scan of each row of the (m, n) array x into y (the loop dtype,
// any strides) on the scan engine.
void parallel_scan(const UfuncDef& uf, const NDArray& x, const NDArray& y) {
  static std::mutex mutex;
  static std::map<std::tuple<const UfuncDef*, DType>, std::unique_ptr<ScanSpec>> specs;
  const ScanSpec* spec;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = specs[std::make_tuple(&uf, y.dtype())];
    if (!slot) {
      slot = std::make_unique<ScanSpec>();
      slot->name = "ufunc_accumulate_" + uf.name + "_" + name_of(y.dtype());
      slot->combine = "kiln::ufn::" + uf.name + "(a, b)";
      slot->acc = y.dtype();
      slot->preamble = kInclude;
      slot->options = exact_fp_options();
    }
    spec = slot.get();
  }
  scan_rows(*spec, x, y);
}

}  // namespace

NDArray accumulate_apply(const UfuncDef& uf, const NDArray& a, const AccumulateOptions& options) {
  check_binary_method(uf, "accumulate");
  if (a.ndim() == 0) throw TypeError("cannot accumulate on a scalar");
  int64_t axis = 0;
  if (!options.axes) {
    if (a.ndim() != 1) throw std::invalid_argument("accumulate does not allow multiple axes");
  } else {
    if (options.axes->size() != 1) throw std::invalid_argument("accumulate does not allow multiple axes");
    axis = (*options.axes)[0];
  }
  const int ax = normalize_axis(axis, a.ndim());
  if (options.out) require_writeable(*options.out, kReadOnlyOutput);   // Note [Read-only arrays]
  if (options.out && options.out->shape() != a.shape())
    throw std::invalid_argument("output parameter for accumulate has shape " + shape_repr(options.out->shape()) +
                                ", expected " + shape_repr(a.shape()));
  const DType loop = reduction_loop_dtype(uf, a.dtype(), options.dtype,
                                          options.out ? std::optional<DType>(options.out->dtype()) : std::nullopt);
  std::vector<int> perm;
  for (int d = 0; d < a.ndim(); ++d)
    if (d != ax) perm.push_back(d);
  perm.push_back(ax);
  const int64_t n = a.shape()[ax];
  const int64_t m = n ? a.size() / n : 0;
  NDArray result = NDArray::empty(a.shape(), loop);
  std::optional<NDArray> rows;
  if (a.size() && reorderable(uf)) rows = row_view(result, perm, m, n);
  if (rows) {
    // Straight from a's layout (no copy when it has the loop dtype) into the result's.
    std::optional<NDArray> x;
    if (a.dtype() == loop) x = row_view(a, perm, m, n);
    if (!x) x = rows_of(a, perm, m, n, loop);
    parallel_scan(uf, *x, *rows);
  } else if (a.size()) {
    NDArray x = rows_of(a, perm, m, n, loop);
    NDArray y = reorderable(uf) ? NDArray::empty({m, n}, loop) : sequential_scan(uf, x);
    if (reorderable(uf)) parallel_scan(uf, x, y);
    // y holds the axes in perm's order: back to a's order, then C order.
    Shape yshape;
    for (int d : perm) yshape.push_back(a.shape()[d]);
    Strides ystrides = contiguous_strides(yshape, y.itemsize(), Order::C);
    Strides strides(a.ndim());
    for (int k = 0; k < a.ndim(); ++k) strides[perm[k]] = ystrides[k];
    NDArray moved(y.memory(), loop, a.shape(), strides, y.offset());
    result = moved.c_contiguous() ? moved : astype(moved, loop, Order::C);
  }
  if (!options.out) return result;
  copy_into(result, *options.out);
  return *options.out;
}

NDArray nan_replaced(const NDArray& a, int value) {
  const char kind = dtype_info(a.dtype()).kind;
  if (kind != 'f' && kind != 'c') return a;
  static std::mutex mutex;
  static std::map<std::tuple<DType, int>, std::unique_ptr<EwSpec>> specs;
  const EwSpec* spec;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = specs[std::make_tuple(a.dtype(), value)];
    if (!slot) {
      const std::string c = ctype_of(a.dtype());
      long long v = value;
      unsigned char bytes[16] = {};
      cast_scalar(&v, DType::Int64, bytes, a.dtype());
      slot = std::make_unique<EwSpec>();
      slot->name = "nan_as_" + std::to_string(value) + "_" + name_of(a.dtype());
      slot->params = {{"x", c, "", EwParam::Input}, {"y", c, "", EwParam::Output}};
      slot->operation = "y = kiln::ufn::isnan(x) ? " + literal_of(bytes, a.dtype()) + " : x;";
      slot->preamble = kInclude;
      slot->options = exact_fp_options();
    }
    spec = slot.get();
  }
  NDArray y = NDArray::empty(a.shape(), a.dtype());
  EwArg args[] = {EwArg::of(a), EwArg::of(y)};
  elementwise_launch(*spec, args, a.shape());
  return y;
}

}  // namespace kiln::arraycore
