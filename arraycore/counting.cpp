#include "arraycore/counting.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/promotion.h"
#include "arraycore/transfer.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr const char* kPreamble = "#include <kiln/ufunc_math.h>\n#include <kiln/search.h>\n";

std::string dtype_name(DType d) { return std::string(dtype_info(d).name); }

// The statement adding one count (or the weight w) to bin `j` of the raw c
// (Note [Atomic bin sums]).
std::string atomic_add(BinSum kind) {
  switch (kind) {
    case BinSum::Complex:
      return "atomicAdd(reinterpret_cast<double*>(&c[j]), w.real());\n"
             "atomicAdd(reinterpret_cast<double*>(&c[j]) + 1, w.imag());";
    case BinSum::Float: return "atomicAdd(&c[j], w);";
    case BinSum::Int: return "atomicAdd((unsigned long long*)&c[j], (unsigned long long)w);";
    case BinSum::Count: break;
  }
  return "atomicAdd((unsigned long long*)&c[j], 1ULL);";
}

// The weights' name part and param (none for counts).
std::string weight_key(BinSum kind, const NDArray* weights) {
  return kind == BinSum::Count ? std::string() : dtype_name(weights->dtype());
}
void add_weight_param(EwSpec& s, BinSum kind, const NDArray* weights) {
  if (kind != BinSum::Count) s.params.push_back(input_param("w", bin_sum_dtype(kind), c_type(weights->dtype())));
}

// A NumPy scalar argument (a Typed ScalarValue): its dtype and bytes.
DType typed_dtype(const ScalarValue& v, const char* what) {
  if (v.kind != ScalarValue::Kind::Typed)
    throw std::invalid_argument(std::string(what) + " must be a NumPy scalar of the arithmetic's dtype");
  return v.dtype;
}
EwArg typed_arg(const ScalarValue& v) { return scalar_arg_bytes(v.bytes, v.dtype); }

NDArray as_dtype(const NDArray& a, DType d) { return a.dtype() == d ? a : astype(a, d, Order::C); }

bool is_zero(const ScalarValue& v) {
  double z[2] = {};   // as complex128: real, imaginary
  cast_scalar(v.bytes, v.dtype, z, DType::Complex128);
  return z[0] == 0 && z[1] == 0;
}

}  // namespace

BinSum bin_sum_for(DType weights) {
  switch (dtype_info(weights).kind) {
    case 'f': return BinSum::Float;
    case 'c': return BinSum::Complex;
    default: return BinSum::Int;
  }
}

DType bin_sum_dtype(BinSum kind) {
  switch (kind) {
    case BinSum::Float: return DType::Float64;
    case BinSum::Complex: return DType::Complex128;
    default: return DType::Int64;
  }
}

int bins_direction(const NDArray& bins) {
  if (bins.size() < 2) return 1;
  const NDArray b = as_dtype(bins, DType::Float64);
  constexpr unsigned long long kNone = std::numeric_limits<unsigned long long>::max();
  // f[0]: some step down, f[1]: some step up, f[2]: 2 (i + 1) + (step down) of
  // the first element differing from b[0].
  unsigned long long flags[3] = {0, 0, kNone};
  NDArray f = NDArray::empty({3}, DType::UInt64);
  copy_from_host(f, flags, runtime::current_stream());
  const std::string name = "digitize_monotonicity";
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    s.params = {raw_param("b", "double"), raw_param("f", "unsigned long long")};
    s.operation =
        "const double prev = b[i], next = b[i + 1];\n"
        "if (prev > next) atomicOr(&f[0], 1ULL);\n"
        "if (prev < next) atomicOr(&f[1], 1ULL);\n"
        "if (next != b[0])\n"
        "  atomicMin(&f[2], 2ULL * (unsigned long long)(i + 1) + (b[0] < next ? 0ULL : 1ULL));";
    return s;
  });
  EwArg args[] = {EwArg::of(b), EwArg::of(f)};
  elementwise_launch(spec, args, {bins.size() - 1});
  read_back(f, flags);
  if (flags[2] == kNone) return 1;
  if (flags[2] % 2 == 0) return flags[0] ? 0 : 1;
  return flags[1] ? 0 : -1;
}

NDArray bin_counts(const NDArray& x, const NDArray* weights, int64_t length) {
  const BinSum kind = weights ? BinSum::Float : BinSum::Count;
  NDArray counts = NDArray::zeros({length}, bin_sum_dtype(kind));
  const std::string name = "bincount_" + dtype_name(x.dtype()) + "_" + weight_key(kind, weights);
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    s.params.push_back(input_param("x", "long long", c_type(x.dtype())));
    add_weight_param(s, kind, weights);
    s.params.push_back(raw_param("c", c_type(counts.dtype())));
    s.operation = "const long long j = x;\n" + atomic_add(kind);
    return s;
  });
  std::vector<EwArg> args{EwArg::of(x)};
  if (weights) args.push_back(EwArg::of(*weights));
  args.push_back(EwArg::of(counts));
  elementwise_launch(spec, args, x.shape());
  return counts;
}

NDArray linspace_edges(const ScalarValue& start, const ScalarValue& stop, const ScalarValue& delta,
                       const ScalarValue& step, int64_t num, DType dtype) {
  const DType dt = typed_dtype(start, "start");
  if (typed_dtype(stop, "stop") != dt || typed_dtype(delta, "delta") != dt || typed_dtype(step, "step") != dt)
    throw std::invalid_argument("linspace_edges: start, stop, delta and step must have one dtype");
  const bool scaled = is_zero(step);
  const std::string c = c_type(dt);
  const std::string name = "histogram_edges_" + dtype_name(dt) + "_" + dtype_name(dtype) + (scaled ? "_True" : "_False");
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    s.params = {input_param("start", c), input_param("stop", c), input_param("step", c),
                input_param("num", "long long"), output_param("y", dtype)};
    const std::string k_step = scaled ? "k / kiln::numpy_cast<" + c + ">(num - 1) * step" : "k * step";
    s.operation = "const " + c + " k = kiln::numpy_cast<" + c + ">(i);\n" + "y = kiln::numpy_cast<" + c_type(dtype) +
                  ">(i == num - 1 ? stop : " + k_step + " + start);";
    return s;
  });
  NDArray y = NDArray::empty({num}, dtype);
  EwArg args[] = {typed_arg(start), typed_arg(stop), typed_arg(scaled ? delta : step), EwArg::value<long long>(num),
                  EwArg::of(y)};
  elementwise_launch(spec, args, {num});
  return y;
}

NDArray uniform_bin_counts(const NDArray& a, const NDArray* weights, const ScalarValue& lo, const ScalarValue& hi,
                           const ScalarValue& first, const ScalarValue& denom, int64_t nbins, const NDArray& edges) {
  const BinSum kind = weights ? bin_sum_for(weights->dtype()) : BinSum::Count;
  const DType cmp_dt = typed_dtype(lo, "lo"), sub_dt = typed_dtype(first, "first"), div_dt = typed_dtype(denom, "denom");
  if (typed_dtype(hi, "hi") != cmp_dt) throw std::invalid_argument("uniform_bin_counts: lo and hi must have one dtype");
  const DType edge_dt = edges.dtype();
  const std::string name = "histogram_uniform_" + dtype_name(a.dtype()) + "_" + dtype_name(cmp_dt) + "_" +
                           dtype_name(edge_dt) + "_" + dtype_name(sub_dt) + "_" + dtype_name(div_dt) + "_" +
                           weight_key(kind, weights);
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    const std::string ce = c_type(edge_dt), cs = c_type(sub_dt), cd = c_type(div_dt);
    s.params.push_back(input_param("x", cmp_dt, c_type(a.dtype())));
    add_weight_param(s, kind, weights);
    s.params.push_back(input_param("lo", cmp_dt));
    s.params.push_back(input_param("hi", cmp_dt));
    s.params.push_back(input_param("first", cs));
    s.params.push_back(input_param("denom", cd));
    s.params.push_back(input_param("nbins", "long long"));
    s.params.push_back(raw_param("e", ce));
    s.params.push_back(raw_param("c", c_type(bin_sum_dtype(kind))));
    s.operation = "if (x >= lo && x <= hi) {\n"
                  "  const " + ce + " xe = kiln::numpy_cast<" + ce + ">(x);\n"
                  "  const " + cd + " f = kiln::numpy_cast<" + cd + ">(kiln::numpy_cast<" + cs + ">(xe) - first) / denom * "
                  "kiln::numpy_cast<" + cd + ">(nbins);\n"
                  "  long long j = (long long)f;\n"
                  "  if (j == nbins) j -= 1;\n"
                  "  if (xe < e[j]) j -= 1;\n"
                  "  else if (j != nbins - 1 && xe >= e[j + 1]) j += 1;\n"
                  "  " + atomic_add(kind) + "\n}";
    return s;
  });
  NDArray counts = NDArray::zeros({nbins}, bin_sum_dtype(kind));
  std::vector<EwArg> args{EwArg::of(a)};
  if (weights) args.push_back(EwArg::of(*weights));
  for (const ScalarValue* v : {&lo, &hi, &first, &denom}) args.push_back(typed_arg(*v));
  args.push_back(EwArg::value<long long>(nbins));
  args.push_back(EwArg::of(edges));
  args.push_back(EwArg::of(counts));
  elementwise_launch(spec, args, {a.size()});
  return counts;
}

NDArray edge_bin_counts(const NDArray& a, const NDArray* weights, const NDArray& edges) {
  const BinSum kind = weights ? bin_sum_for(weights->dtype()) : BinSum::Count;
  const DType work = promote_types(a.dtype(), edges.dtype());
  const NDArray e = as_dtype(edges, work);
  const std::string name = "histogram_edges_search_" + dtype_name(a.dtype()) + "_" + dtype_name(work) + "_" +
                           weight_key(kind, weights);
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    s.params.push_back(input_param("x", work, c_type(a.dtype())));
    add_weight_param(s, kind, weights);
    s.params.push_back(input_param("n", "long long"));
    s.params.push_back(raw_param("e", c_type(work)));
    s.params.push_back(raw_param("c", c_type(bin_sum_dtype(kind))));
    s.operation = "long long j = kiln::search::position<true>([&](long long k) { return e[k]; }, n, x);\n"
                  "if (j == n && !kiln::search::less(e[n - 1], x)) j = n - 1;\n"
                  "if (j > 0 && j < n) {\n  j -= 1;\n  " + atomic_add(kind) + "\n}";
    return s;
  });
  NDArray counts = NDArray::zeros({edges.size() - 1}, bin_sum_dtype(kind));
  std::vector<EwArg> args{EwArg::of(a)};
  if (weights) args.push_back(EwArg::of(*weights));
  args.push_back(EwArg::value<long long>(edges.size()));
  args.push_back(EwArg::of(e));
  args.push_back(EwArg::of(counts));
  elementwise_launch(spec, args, {a.size()});
  return counts;
}

NDArray histogram2d_counts(const NDArray& x, const NDArray& y, const NDArray* weights, const NDArray& ex,
                           const NDArray& ey) {
  const int64_t nx = std::max<int64_t>(ex.size() - 1, 0), ny = std::max<int64_t>(ey.size() - 1, 0);
  NDArray hist = NDArray::zeros({nx, ny}, DType::Float64);
  if (!x.size() || !nx || !ny) return hist;
  const BinSum kind = weights ? BinSum::Float : BinSum::Count;
  const DType sample_dt = promote_types(x.dtype(), y.dtype());
  const DType wx = promote_types(sample_dt, ex.dtype()), wy = promote_types(sample_dt, ey.dtype());
  const std::string name = "histogram2d_" + dtype_name(x.dtype()) + "_" + dtype_name(y.dtype()) + "_" +
                           dtype_name(wx) + "_" + dtype_name(wy) + "_" + weight_key(kind, weights);
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    const std::string cx = c_type(wx), cy = c_type(wy);
    s.params.push_back(input_param("x", cx, c_type(x.dtype())));
    s.params.push_back(input_param("y", cy, c_type(y.dtype())));
    add_weight_param(s, kind, weights);
    s.params.push_back(input_param("nx", "long long"));
    s.params.push_back(input_param("ny", "long long"));
    s.params.push_back(raw_param("ex", cx));
    s.params.push_back(raw_param("ey", cy));
    s.params.push_back(raw_param("c", "double"));
    s.operation =
        "long long p = kiln::search::position<true>([&](long long k) { return ex[k]; }, nx, x);\n"
        "if (x == ex[nx - 1]) p -= 1;\n"
        "long long q = kiln::search::position<true>([&](long long k) { return ey[k]; }, ny, y);\n"
        "if (y == ey[ny - 1]) q -= 1;\n"
        "if (p > 0 && p < nx && q > 0 && q < ny) atomicAdd(&c[(p - 1) * (ny - 1) + (q - 1)], " +
        std::string(weights ? "w" : "1.0") + ");";
    return s;
  });
  const NDArray exw = as_dtype(ex, wx), eyw = as_dtype(ey, wy);
  std::vector<EwArg> args{EwArg::of(x), EwArg::of(y)};
  if (weights) args.push_back(EwArg::of(*weights));
  args.push_back(EwArg::value<long long>(ex.size()));
  args.push_back(EwArg::value<long long>(ey.size()));
  args.push_back(EwArg::of(exw));
  args.push_back(EwArg::of(eyw));
  args.push_back(EwArg::of(hist));
  elementwise_launch(spec, args, {x.size()});
  return hist;
}

NDArray histogramdd_counts(const NDArray& sample, const NDArray* weights, const std::vector<NDArray>& edges) {
  if (sample.ndim() != 2 || static_cast<size_t>(sample.shape()[1]) != edges.size())
    throw std::invalid_argument("histogramdd_counts: sample must be (N, D) with D edge arrays");
  Shape shape;
  DType work = sample.dtype();
  std::vector<long long> offsets{0};
  for (const NDArray& e : edges) {
    shape.push_back(std::max<int64_t>(e.size() - 1, 0));
    work = promote_types(work, e.dtype());
    offsets.push_back(offsets.back() + e.size());
  }
  NDArray hist = NDArray::zeros(shape, DType::Float64);
  if (!sample.shape()[0] || !hist.size()) return hist;
  // Every axis's edges back to back in one array of the work dtype, and where each axis's start.
  NDArray all_edges = NDArray::empty({offsets.back()}, work);
  for (size_t d = 0; d < edges.size(); ++d)
    copy_into(edges[d], all_edges.view_as({edges[d].size()}, {static_cast<int64_t>(itemsize(work))},
                                          all_edges.offset() + offsets[d] * static_cast<int64_t>(itemsize(work))));
  NDArray starts = NDArray::empty({static_cast<int64_t>(offsets.size())}, DType::Int64);
  copy_from_host(starts, offsets.data(), runtime::current_stream());
  const BinSum kind = weights ? BinSum::Float : BinSum::Count;
  const std::string name = "histogramdd_" + dtype_name(sample.dtype()) + "_" + dtype_name(work) + "_" +
                           weight_key(kind, weights);
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, kPreamble);
    const std::string cw = c_type(work);
    add_weight_param(s, kind, weights);
    s.params.push_back(raw_param("x", c_type(sample.dtype())));
    s.params.push_back(raw_param("e", cw));
    s.params.push_back(raw_param("o", "long long"));
    s.params.push_back(raw_param("c", "double"));
    // Point i's bin along each axis, in C order over the bins (outliers dropped).
    s.operation =
        "const long long dims = o.size() - 1;\n"
        "long long flat = 0;\n"
        "bool inside = true;\n"
        "for (long long d = 0; d < dims && inside; ++d) {\n"
        "  const " + cw + " v = kiln::numpy_cast<" + cw + ">(x[i * dims + d]);\n"
        "  const long long base = o[d], n = o[d + 1] - base;\n"
        "  long long p = kiln::search::position<true>([&](long long k) { return e[base + k]; }, n, v);\n"
        "  if (v == e[base + n - 1]) p -= 1;\n"
        "  inside = p > 0 && p < n;\n"
        "  flat = flat * (n - 1) + (p - 1);\n"
        "}\n"
        "if (inside) atomicAdd(&c[flat], " + std::string(weights ? "w" : "1.0") + ");";
    return s;
  });
  std::vector<EwArg> args;
  if (weights) args.push_back(EwArg::of(*weights));
  args.push_back(EwArg::of(sample));
  args.push_back(EwArg::of(all_edges));
  args.push_back(EwArg::of(starts));
  args.push_back(EwArg::of(hist));
  elementwise_launch(spec, args, {sample.shape()[0]});
  return hist;
}

}  // namespace kiln::arraycore
