#include "arraycore/flat_access.h"

#include <stdexcept>
#include <string>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/promotion.h"
#include "arraycore/transfer.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// The unsigned integer of each itemsize the kernels move elements as (Note
// [Flat positions]); 16-byte elements move as complex<double>.
DType unit_dtype(size_t itemsize) {
  switch (itemsize) {
    case 1: return DType::UInt8;
    case 2: return DType::UInt16;
    case 4: return DType::UInt32;
    case 8: return DType::UInt64;
    default: return DType::Complex128;
  }
}

std::string unit_type(const NDArray& a) { return c_type(unit_dtype(a.itemsize())); }

// `values` in a's dtype, not sharing a's memory (Note [Flat positions]).
NDArray values_for(const NDArray& a, const NDArray& values) {
  if (values.dtype() != a.dtype() || shares_bytes(values, a)) return astype(values, a.dtype(), Order::C);
  return values;
}

// Positions start + i * step of `a` (i < count) = values[i % n], or, with a
// mask, position i = values[i % n] where mask[i]: one launch over count.
void flat_store(const NDArray& a, int64_t start, int64_t step, int64_t count, const NDArray& values,
                const NDArray* mask) {
  require_writeable(a);
  if (count == 0 || values.size() == 0) return;
  const NDArray v = values_for(a, values);
  const std::string t = unit_type(a);
  const std::string name = std::string(mask ? "flat_putmask_" : "flat_store_") + std::to_string(a.itemsize());
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "");
    s.params = {raw_param("t", t), raw_param("v", t), input_param("start", "long long"),
                input_param("step", "long long")};
    if (mask) s.params.push_back(raw_param("m", "bool"));
    s.operation = std::string(mask ? "if (m[i]) " : "") + "t[start + i * step] = v[i % v.size()];";
    return s;
  });
  std::vector<EwArg> args = {EwArg::of(a), EwArg::of(v), EwArg::value<long long>(start),
                             EwArg::value<long long>(step)};
  if (mask) args.push_back(EwArg::of(*mask));
  elementwise_launch(spec, args, {count});
}

}  // namespace

NDArray flat_slice_get(const NDArray& a, int64_t start, int64_t step, int64_t count) {
  NDArray out = NDArray::empty({count}, a.dtype());
  if (count == 0) return out;
  const std::string t = unit_type(a);
  const std::string name = "flat_gather_" + std::to_string(a.itemsize());
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "");
    s.params = {raw_param("t", t), input_param("start", "long long"), input_param("step", "long long"),
                raw_param("y", t)};
    s.operation = "y[i] = t[start + i * step];";
    return s;
  });
  const EwArg args[] = {EwArg::of(a), EwArg::value<long long>(start), EwArg::value<long long>(step),
                        EwArg::of(out)};
  elementwise_launch(spec, args, {count});
  return out;
}

void flat_slice_set(const NDArray& a, int64_t start, int64_t step, int64_t count, const NDArray& values) {
  flat_store(a, start, step, count, values, nullptr);
}

void putmask(const NDArray& a, const NDArray& mask, const NDArray& values, bool unsafe) {
  if (mask.size() != a.size()) throw std::invalid_argument("putmask: mask and data must be the same size");
  if (!unsafe && !can_cast(values.dtype(), a.dtype(), Casting::Safe))
    throw TypeError(std::string("Cannot cast ") + (values.ndim() ? "array data" : "scalar") + " from dtype('" +
                    std::string(dtype_info(values.dtype()).name) + "') to dtype('" +
                    std::string(dtype_info(a.dtype()).name) + "') according to the rule 'safe'");
  const NDArray m = mask.dtype() == DType::Bool ? mask : astype(mask, DType::Bool, Order::C);
  flat_store(a, 0, 1, a.size(), values, &m);
}

void fill_diagonal(const NDArray& a, const NDArray& values, bool wrap) {
  if (a.ndim() < 2) throw std::invalid_argument("array must be at least 2-d");
  const Shape& s = a.shape();
  int64_t step = 1, end = a.size();
  if (a.ndim() == 2) {
    step = s[1] + 1;
    if (!wrap) end = std::min(end, s[1] * s[1]);
  } else {
    int64_t prod = 1;
    for (int d = 0; d + 1 < a.ndim(); ++d) {
      if (s[d] != s[d + 1]) throw std::invalid_argument("All dimensions of input must be of equal length");
      prod *= s[d];
      step += prod;
    }
  }
  flat_store(a, 0, step, end > 0 ? (end - 1) / step + 1 : 0, values, nullptr);
}

NDArray resize(const NDArray& a, const Shape& shape) {
  NDArray out = NDArray::zeros(shape, a.dtype());
  flat_store(out, 0, 1, out.size(), a, nullptr);
  return out;
}

std::vector<std::pair<int64_t, int64_t>> nonzero_bounds(const NDArray& a) {
  const int nd = a.ndim();
  std::vector<long long> b(2 * nd);
  for (int d = 0; d < nd; ++d) b[2 * d] = a.shape()[d], b[2 * d + 1] = -1;
  if (a.size() && nd) {
    const NDArray mask = a.dtype() == DType::Bool ? a : astype(a, DType::Bool, Order::C);
    NDArray bounds = NDArray::empty({2 * nd}, DType::Int64);
    copy_from_host(bounds, b.data(), runtime::current_stream());
    const std::string name = "nonzero_bounds";
    const EwSpec& spec = generated_spec(name, [&] {
      EwSpec s = exact_spec(name, "");
      s.params = {raw_param("x", "bool"), raw_param("b", "long long")};
      s.operation =
          "if (x[i]) {\n"
          "  long long k = i;\n"
          "  for (int d = x.ndim - 1; d >= 0; --d) {\n"
          "    const long long c = k % x.shape[d];\n"
          "    k /= x.shape[d];\n"
          "    atomicMin(&b[2 * d], c);\n"
          "    atomicMax(&b[2 * d + 1], c);\n"
          "  }\n"
          "}";
      return s;
    });
    const EwArg args[] = {EwArg::of(mask), EwArg::of(bounds)};
    elementwise_launch(spec, args, {a.size()});
    read_back(bounds, b.data());
  }
  std::vector<std::pair<int64_t, int64_t>> out(nd, {0, 0});
  if (nd && b[1] >= 0)
    for (int d = 0; d < nd; ++d) out[d] = {b[2 * d], b[2 * d + 1] + 1};
  return out;
}

NDArray byteswap(const NDArray& a, bool inplace) {
  if (inplace) require_writeable(a);
  NDArray out = inplace ? a : NDArray::empty(a.shape(), a.dtype());
  const bool complex = dtype_info(a.dtype()).kind == 'c';
  const size_t unit = complex ? a.itemsize() / 2 : a.itemsize();
  if (unit == 1) {
    if (!inplace) copy_into(a, out);
    return out;
  }
  const DType u = unit_dtype(unit);
  const std::string name = "byteswap_" + std::to_string(unit);
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "");
    s.params = {input_param("x", u), output_param("y", u)};
    s.operation = c_type(u) + " v = x, r = 0;\nfor (int b = 0; b < " + std::to_string(unit) +
                  "; ++b) { r = (r << 8) | (v & 0xff); v >>= 8; }\ny = r;";
    return s;
  });
  for (int part = 0; part < (complex ? 2 : 1); ++part) {
    const NDArray src = (complex ? a.complex_part(part == 1) : a).view(u);
    const NDArray dst = (complex ? out.complex_part(part == 1) : out).view(u);
    const EwArg args[] = {EwArg::of(src), EwArg::of(dst)};
    if (a.size()) elementwise_launch(spec, args, a.shape());
  }
  return out;
}

}  // namespace kiln::arraycore
