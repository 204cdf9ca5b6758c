// kiln.random's kernels (random.h): the distribution table, the engine specs
// made from it and the launches.
#include "arraycore/random.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"

namespace kiln::arraycore {
namespace {

using K = RandomKind;
#define KILN_F "kiln::random::"

// name, kind, params, nparams, expr, output dtype (none: the float dtype asked for).
const RandomDistribution kDistributions[] = {
    {"random", K::UniformCO, {}, 0, "u", {}},
    {"uniform", K::UniformCO, {"low", "high"}, 2, KILN_F "uniform(u, low, high)", {}},
    {"standard_normal", K::Normal, {}, 0, "z", {}},
    {"normal", K::Normal, {"loc", "scale"}, 2, "loc + scale * z", {}},
    {"lognormal", K::Normal, {"mean", "sigma"}, 2, "::exp(mean + sigma * z)", {}},
    {"standard_exponential", K::UniformOO, {}, 0, "-::log(u)", {}},
    {"exponential", K::UniformOO, {"scale"}, 1, KILN_F "exponential(u, scale)", {}},
    {"laplace", K::UniformOO, {"loc", "scale"}, 2, KILN_F "laplace(u, loc, scale)", {}},
    {"logistic", K::UniformOO, {"loc", "scale"}, 2, KILN_F "logistic(u, loc, scale)", {}},
    {"gumbel", K::UniformOO, {"loc", "scale"}, 2, KILN_F "gumbel(u, loc, scale)", {}},
    {"rayleigh", K::UniformOO, {"scale"}, 1, KILN_F "rayleigh(u, scale)", {}},
    {"weibull", K::UniformOO, {"a"}, 1, KILN_F "weibull(u, a)", {}},
    {"pareto", K::UniformOO, {"a"}, 1, KILN_F "pareto(u, a)", {}},
    {"standard_cauchy", K::UniformOO, {}, 0, KILN_F "standard_cauchy(u)", {}},
    {"power", K::UniformOO, {"a"}, 1, KILN_F "power(u, a)", {}},
    {"triangular", K::UniformCO, {"left", "mode", "right"}, 3, KILN_F "triangular(u, left, mode, right)", {}},
    {"geometric", K::UniformOO, {"p"}, 1, KILN_F "geometric(u, p)", DType::Int64},
    {"standard_gamma", K::Stream, {"shape"}, 1, KILN_F "gamma<F>(s, shape)", {}},
    {"log_gamma", K::Stream, {"shape"}, 1, KILN_F "log_gamma(s, shape)", DType::Float64},
    {"gamma", K::Stream, {"shape", "scale"}, 2, KILN_F "gamma<F>(s, shape) * scale", {}},
    {"beta", K::Stream, {"a", "b"}, 2, KILN_F "beta<F>(s, a, b)", {}},
    {"chisquare", K::Stream, {"df"}, 1, KILN_F "chisquare<F>(s, df)", {}},
    {"standard_t", K::Stream, {"df"}, 1, KILN_F "standard_t<F>(s, df)", {}},
    {"f", K::Stream, {"dfnum", "dfden"}, 2, KILN_F "f<F>(s, dfnum, dfden)", {}},
    {"noncentral_chisquare", K::Stream, {"df", "nonc"}, 2, KILN_F "noncentral_chisquare<F>(s, df, nonc)", {}},
    {"noncentral_f", K::Stream, {"dfnum", "dfden", "nonc"}, 3, KILN_F "noncentral_f<F>(s, dfnum, dfden, nonc)", {}},
    {"wald", K::Stream, {"mean", "scale"}, 2, KILN_F "wald<F>(s, mean, scale)", {}},
    {"negative_binomial", K::Stream, {"n", "p"}, 2, KILN_F "negative_binomial(s, n, p)", DType::Int64},
    {"vonmises", K::Stream, {"mu", "kappa"}, 2, KILN_F "vonmises(s, mu, kappa)", {}},
    {"zipf", K::Stream, {"a"}, 1, KILN_F "zipf(s, a)", DType::Int64},
    {"logseries", K::Stream, {"p"}, 1, KILN_F "logseries(s, p)", DType::Int64},
    {"hypergeometric", K::Stream, {"ngood", "nbad", "nsample"}, 3,
     KILN_F "hypergeometric(s, (long long)ngood, (long long)nbad, (long long)nsample)", DType::Int64},
    {"poisson", K::Stream, {"lam"}, 1, KILN_F "poisson(s, lam)", DType::Int64},
    {"binomial", K::Stream, {"n", "p"}, 2, KILN_F "binomial(s, (long long)n, p)", DType::Int64},
};
#undef KILN_F

// Every kernel here is an ElementwiseKernel-shaped spec: its source is the
// one kiln.ElementwiseKernel made of the same parameters and operation
// (Note [Random kernel source]).
struct Param {
  std::string name;
  DType dtype;
  EwParam::Role role;
};

// Note [Random kernel source]
// These kernels were ElementwiseKernels written in Python; the specs below
// spell the same source byte for byte (preamble, operation with its trailing
// "\n;", operation file name, options), so every compile cache entry, and
// every draw, stays what it was. Changing any text here changes the kernels'
// cache keys (not the numbers, unless the arithmetic changes).
const EwSpec& spec_for(const std::string& name, const std::vector<Param>& params, const std::string& operation,
                       bool exact) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<EwSpec>> specs;   // specs stay put: the engine caches on them
  std::string key = name;
  for (const Param& p : params) key += "," + std::string(dtype_info(p.dtype).name);
  key += "\n" + operation;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<EwSpec>& slot = specs[key];
  if (!slot) {
    auto s = std::make_unique<EwSpec>();
    s->name = name;
    for (const Param& p : params) s->params.push_back({p.name, std::string(dtype_info(p.dtype).c_type), "", p.role});
    s->operation = operation + "\n;";
    s->preamble = "#include <kiln/random_distributions.h>\n\n";
    if (exact) s->options = exact_fp_options();   // Note [Exact floating point]: uniform's low + (high - low) * u
    s->operation_file = "<ElementwiseKernel " + name + " operation>";
    slot = std::move(s);
  }
  return *slot;
}

// The key and counter parameters every kernel but dirichlet's starts with.
std::vector<Param> key_params() {
  return {{"key0", DType::UInt32, EwParam::Input},
          {"key1", DType::UInt32, EwParam::Input},
          {"ctr_lo", DType::UInt64, EwParam::Input},
          {"ctr_hi", DType::UInt64, EwParam::Input}};
}

void push_key(std::vector<EwArg>& args, const PhiloxKey& k) {
  args.push_back(EwArg::value(k.key0));
  args.push_back(EwArg::value(k.key1));
  args.push_back(EwArg::value(k.ctr_lo));
  args.push_back(EwArg::value(k.ctr_hi));
}

std::string ctype(DType d) { return std::string(dtype_info(d).c_type); }

// Outputs one unit makes: 4 float or 2 double from a block; 1 for stream samplers.
int per_unit(const RandomDistribution& d, DType f) {
  if (d.kind == K::Stream) return 1;
  return f == DType::Float32 ? 4 : 2;
}

// The statement filling w_ from the block x_, and the name of the value.
std::pair<std::string, std::string> value_of(RandomKind kind) {
  if (kind == K::Normal) return {"kiln::random::normals<F>(x_, w_);\n", "z"};
  return {std::string("kiln::random::uniforms_") + (kind == K::UniformCO ? "co" : "oo") + "<F>(x_, w_);\n", "u"};
}

std::vector<Param> dist_params(const RandomDistribution& d, DType f) {
  std::vector<Param> params;
  for (int j = 0; j < d.nparams; ++j) params.push_back({std::string(d.params[j]), f, EwParam::Input});
  return params;
}

// (key..., n, params..., raw out) over units: one thread makes a unit's outputs.
const EwSpec& unit_spec(const RandomDistribution& d, DType f, DType out) {
  const std::string F = ctype(f), T = ctype(out), per = std::to_string(per_unit(d, f));
  auto [fill, var] = value_of(d.kind);
  std::string op = "typedef " + F + " F;\nunsigned x_[4];\n"
                   "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)i, 0ull);\n"
                   "F w_[" + per + "];\n" + fill + T + " v_[" + per + "];\n"
                   "#pragma unroll\nfor (int k_ = 0; k_ < " + per + "; ++k_) { const F " + var + " = w_[k_]; v_[k_] = (" +
                   T + ")(" + std::string(d.expr) + "); }\n"
                   "kiln::random::store<" + T + ", " + per + ">(out.data, n, i, v_);\n";
  std::vector<Param> params = key_params();
  params.push_back({"n", DType::Int64, EwParam::Input});
  for (Param& p : dist_params(d, f)) params.push_back(std::move(p));
  params.push_back({"out", out, EwParam::Raw});
  return spec_for("kiln_random_" + std::string(d.name) + "_units", params, op, d.kind == K::UniformCO);
}

// (key..., params..., out) over elements: params broadcast; the value of
// element i is the unit kernel's.
const EwSpec& element_spec(const RandomDistribution& d, DType f, DType out) {
  const std::string F = ctype(f), T = ctype(out), expr(d.expr);
  std::string op;
  if (d.kind == K::Stream) {
    op = "typedef " + F + " F;\n"
         "kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
         "out = (" + T + ")(" + expr + ");\n";
  } else {
    const std::string per = std::to_string(per_unit(d, f));
    auto [fill, var] = value_of(d.kind);
    op = "typedef " + F + " F;\nunsigned x_[4];\n"
         "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)(i / " + per + "), 0ull);\n"
         "F w_[" + per + "];\n" + fill + "const F " + var + " = w_[i % " + per + "];\nout = (" + T + ")(" + expr + ");\n";
  }
  std::vector<Param> params = key_params();
  for (Param& p : dist_params(d, f)) params.push_back(std::move(p));
  params.push_back({"out", out, EwParam::Output});
  return spec_for("kiln_random_" + std::string(d.name), params, op, d.kind == K::UniformCO);
}

// `a` seen with `shape` (itself when it has it already).
const NDArray& shaped(const NDArray& a, const Shape& shape, std::vector<NDArray>& keep) {
  if (a.shape() == shape) return a;
  keep.push_back(broadcast_to(a, shape));
  return keep.back();
}

// A new int64 array of shape + (k,), `spec` run with a unit (a Stream) per
// row of k counts; `args` hold the arguments between the key and `out`.
NDArray count_rows(const EwSpec& spec, const Shape& shape, int64_t k, std::vector<EwArg> middle,
                   const PhiloxTake& take) {
  Shape full = shape;
  full.push_back(k);
  NDArray out = NDArray::empty(full, DType::Int64);
  const int64_t rows = k ? out.size() / k : 0;
  if (rows) {
    std::vector<EwArg> args;
    push_key(args, take(rows));
    args.insert(args.end(), middle.begin(), middle.end());
    args.push_back(EwArg::of(out));
    elementwise_launch(spec, args, Shape{rows});
  }
  return out;
}

}  // namespace

const RandomDistribution& random_distribution(std::string_view name) {
  for (const RandomDistribution& d : kDistributions)
    if (d.name == name) return d;
  throw std::invalid_argument("kiln.random: unknown distribution '" + std::string(name) + "'");
}

std::pair<DType, DType> random_types(const RandomDistribution& dist, DType dtype) {
  if (dist.out) {
    if (dtype != *dist.out)
      throw TypeError("kiln.random: " + std::string(dist.name) + " gives " + std::string(dtype_info(*dist.out).name) +
                      ", not " + std::string(dtype_info(dtype).name));
    return {DType::Float64, *dist.out};
  }
  if (dtype != DType::Float32 && dtype != DType::Float64)
    throw TypeError("kiln.random: dtype must be float32 or float64, got " + std::string(dtype_info(dtype).name));
  return {dtype, dtype};
}

NDArray random_draw_as(std::string_view dist, DType dtype, std::span<const RandomParam> params, const Shape& shape,
                       const PhiloxTake& take) {
  const RandomDistribution& d = random_distribution(dist);
  const DType natural = d.out ? *d.out
                        : (dtype == DType::Float32 || dtype == DType::Float16) ? DType::Float32
                                                                               : DType::Float64;
  NDArray samples = random_draw(dist, natural, params, shape, take);
  return natural == dtype ? samples : astype(samples, dtype, Order::C);
}

NDArray random_draw(std::string_view dist, DType dtype, std::span<const RandomParam> params, const Shape& shape,
                    const PhiloxTake& take, const NDArray* out) {
  const RandomDistribution& d = random_distribution(dist);
  if (static_cast<int>(params.size()) != d.nparams)
    throw std::invalid_argument("kiln.random: " + std::string(d.name) + " takes " + std::to_string(d.nparams) +
                                " parameters");
  const auto [f, out_dtype] = random_types(d, dtype);
  NDArray result = out ? *out : NDArray::empty(shape, out_dtype);
  if (out && !out->writeable())   // Note [Read-only arrays], NumPy's message
    throw std::invalid_argument("Supplied output array must be contiguous, writable, aligned, and in machine byte-order.");
  if (out && (out->dtype() != out_dtype || out->shape() != shape || !out->c_contiguous()))
    throw std::invalid_argument("kiln.random: out must be a C-contiguous array of the samples' shape and dtype");
  const int64_t n = result.size();
  if (n == 0) return result;
  const int per = per_unit(d, f);
  const int64_t units = (n + per - 1) / per;
  bool any_array = false;
  for (const RandomParam& p : params) any_array = any_array || p.array != nullptr;
  std::vector<EwArg> args;
  args.reserve(params.size() + 6);
  auto push_scalar = [&](double v) {
    args.push_back(f == DType::Float32 ? EwArg::value(static_cast<float>(v)) : EwArg::value(v));
  };
  if (per > 1 && !any_array) {
    push_key(args, take(units));
    args.push_back(EwArg::value(n));
    for (const RandomParam& p : params) push_scalar(p.value);
    args.push_back(EwArg::of(result));
    elementwise_launch(unit_spec(d, f, out_dtype), args, Shape{units});
    return result;
  }
  push_key(args, take(units));
  std::vector<NDArray> keep;   // converted and broadcast params, alive for the launch
  keep.reserve(2 * params.size());
  for (const RandomParam& p : params) {
    if (!p.array) {
      push_scalar(p.value);
      continue;
    }
    const NDArray* a = p.array;
    if (a->dtype() != f) {
      keep.push_back(astype(*a, f, Order::C));
      a = &keep.back();
    }
    args.push_back(EwArg::of(shaped(*a, shape, keep)));
  }
  args.push_back(EwArg::of(result));
  elementwise_launch(element_spec(d, f, out_dtype), args, shape);
  return result;
}

NDArray random_words(DType dtype, const Shape& shape, const PhiloxTake& take) {
  if (dtype != DType::UInt32 && dtype != DType::UInt64)
    throw TypeError("kiln.random: words are uint32 or uint64, not " + std::string(dtype_info(dtype).name));
  NDArray out = NDArray::empty(shape, dtype);
  const int64_t n = out.size();
  if (n == 0) return out;
  const bool u32 = dtype == DType::UInt32;
  const int per = u32 ? 4 : 2;
  const int64_t units = (n + per - 1) / per;
  std::string op = "unsigned x_[4];\n"
                   "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)i, 0ull);\n";
  op += u32 ? "kiln::random::store<unsigned int, 4>(out.data, n, i, x_);\n"
            : "unsigned long long v_[2] = {((unsigned long long)x_[0] << 32) | x_[1],"
              " ((unsigned long long)x_[2] << 32) | x_[3]};\n"
              "kiln::random::store<unsigned long long, 2>(out.data, n, i, v_);\n";
  std::vector<Param> params = key_params();
  params.push_back({"n", DType::Int64, EwParam::Input});
  params.push_back({"out", dtype, EwParam::Raw});
  const EwSpec& spec = spec_for(u32 ? "kiln_random_words32" : "kiln_random_words64", params, op, false);
  std::vector<EwArg> args;
  push_key(args, take(units));
  args.push_back(EwArg::value(n));
  args.push_back(EwArg::of(out));
  elementwise_launch(spec, args, Shape{units});
  return out;
}

NDArray random_integers(DType dtype, const Shape& shape, RandomBound low, RandomBound span, const PhiloxTake& take) {
  const char kind = dtype_info(dtype).kind;
  if (kind != 'b' && kind != 'i' && kind != 'u')
    throw TypeError("Unsupported dtype " + std::string(dtype_info(dtype).name) + " for integers");
  NDArray out = NDArray::empty(shape, dtype);
  const int64_t n = out.size();
  if (n == 0) return out;
  const std::string op = "kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
                         "out = (" + ctype(dtype) + ")(low + kiln::random::bounded(s, span));\n";
  std::vector<Param> params = key_params();
  params.push_back({"low", DType::UInt64, EwParam::Input});
  params.push_back({"span", DType::UInt64, EwParam::Input});
  params.push_back({"out", dtype, EwParam::Output});
  const EwSpec& spec = spec_for("kiln_random_integers", params, op, false);
  std::vector<EwArg> args;
  push_key(args, take(n));
  std::vector<NDArray> keep;
  keep.reserve(4);
  for (const RandomBound& b : {low, span}) {
    if (!b.array) {
      args.push_back(EwArg::value(b.value));
      continue;
    }
    const NDArray* a = b.array;
    if (a->dtype() != DType::UInt64) {
      keep.push_back(astype(*a, DType::UInt64, Order::C));
      a = &keep.back();
    }
    args.push_back(EwArg::of(shaped(*a, shape, keep)));
  }
  args.push_back(EwArg::of(out));
  elementwise_launch(spec, args, shape);
  return out;
}

NDArray random_multinomial(const NDArray& n, const NDArray& pvals, const Shape& shape, const PhiloxTake& take) {
  if (n.dtype() != DType::Int64 || pvals.dtype() != DType::Float64 || !n.c_contiguous() || !pvals.c_contiguous() ||
      pvals.ndim() == 0)
    throw std::invalid_argument("kiln.random: multinomial takes C-contiguous int64 n and float64 pvals");
  const std::string op =
      "kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
      "long long left = nv[i * nstride];\ndouble rest = 1.0;\n"
      "for (long long j = 0; j < k - 1; ++j) {\n"
      "  const double p = pvals[i * pstride + j];\n"
      "  long long x = 0;\n"
      "  if (left > 0 && rest > 0.0) x = kiln::random::binomial(s, left, p < rest ? p / rest : 1.0);\n"
      "  out[i * k + j] = x;\n  left -= x;\n  rest -= p;\n}\n"
      "out[i * k + k - 1] = left;\n";
  std::vector<Param> params = key_params();
  params.push_back({"nv", DType::Int64, EwParam::Raw});
  params.push_back({"nstride", DType::Int64, EwParam::Input});
  params.push_back({"k", DType::Int64, EwParam::Input});
  params.push_back({"pvals", DType::Float64, EwParam::Raw});
  params.push_back({"pstride", DType::Int64, EwParam::Input});
  params.push_back({"out", DType::Int64, EwParam::Raw});
  const EwSpec& spec = spec_for("kiln_random_multinomial", params, op, false);
  const int64_t k = pvals.shape().back();
  return count_rows(spec, shape, k,
                    {EwArg::of(n), EwArg::value<int64_t>(n.size() == 1 ? 0 : 1), EwArg::value(k), EwArg::of(pvals),
                     EwArg::value<int64_t>(pvals.ndim() == 1 ? 0 : k)},
                    take);
}

NDArray random_multivariate_hypergeometric(const NDArray& colors, int64_t total, int64_t nsample, const Shape& shape,
                                           const PhiloxTake& take) {
  if (colors.dtype() != DType::Int64 || colors.ndim() != 1 || !colors.c_contiguous())
    throw std::invalid_argument("kiln.random: multivariate_hypergeometric takes a C-contiguous int64 1-d colors");
  const std::string op =
      "kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
      "long long items = total, left = nsample;\n"
      "for (long long j = 0; j < k; ++j) {\n"
      "  const long long c = colors[j];\n"
      "  const long long x = kiln::random::hypergeometric(s, c, items - c, left);\n"
      "  out[i * k + j] = x;\n  items -= c;\n  left -= x;\n}\n";
  std::vector<Param> params = key_params();
  params.push_back({"colors", DType::Int64, EwParam::Raw});
  params.push_back({"k", DType::Int64, EwParam::Input});
  params.push_back({"total", DType::Int64, EwParam::Input});
  params.push_back({"nsample", DType::Int64, EwParam::Input});
  params.push_back({"out", DType::Int64, EwParam::Raw});
  const EwSpec& spec = spec_for("kiln_random_multivariate_hypergeometric", params, op, false);
  const int64_t k = colors.shape()[0];
  return count_rows(spec, shape, k, {EwArg::of(colors), EwArg::value(k), EwArg::value(total), EwArg::value(nsample)},
                    take);
}

NDArray random_dirichlet(const NDArray& alpha, const Shape& shape, DType dtype, const PhiloxTake& take,
                         bool any_dtype) {
  if (any_dtype && dtype != DType::Float32 && dtype != DType::Float64)
    return astype(random_dirichlet(alpha, shape, DType::Float64, take), dtype, Order::C);
  dtype = random_types(random_distribution("standard_gamma"), dtype).second;
  if (alpha.ndim() != 1 || shape.empty() || shape.back() != alpha.shape()[0])
    throw std::invalid_argument("kiln.random: dirichlet's shape must end with len(alpha)");
  // Note [Dirichlet in logarithms]: gammas of small shapes underflow; their logs do not.
  const RandomParam shapes[] = {{&alpha, 0}};
  NDArray logs = random_draw("log_gamma", DType::Float64, shapes, shape, take);
  NDArray out = NDArray::empty(shape, dtype);
  const int64_t cols = shape.back();
  if (out.size() == 0) return out;
  // A thread per row, not the reduction engine: rows are short, and many.
  // It overwrites `logs`: a row with a NaN is NaN; a row of -inf (zero
  // alphas only) is zeros.
  const std::string op =
      "double* row = logs.data + i * k;\n"
      "double top = -1.7976931348623157e308;\n"
      "for (long long j = 0; j < k; ++j) top = row[j] > top ? row[j] : top;\n"
      "double sum = 0.0;\n"
      "for (long long j = 0; j < k; ++j) {\n  row[j] = ::exp(row[j] - top);\n  sum += row[j];\n}\n"
      "sum = sum < 1.0 ? 1.0 : sum;   // the top gives 1 unless the row is all -inf; NaN stays\n"
      "for (long long j = 0; j < k; ++j) out.data[i * k + j] = (" + ctype(dtype) + ")(row[j] / sum);\n";
  const std::vector<Param> params = {
      {"logs", DType::Float64, EwParam::Raw}, {"k", DType::Int64, EwParam::Input}, {"out", dtype, EwParam::Raw}};
  const EwSpec& spec = spec_for("kiln_random_dirichlet_rows", params, op, false);
  const EwArg args[] = {EwArg::of(logs), EwArg::value(cols), EwArg::of(out)};
  elementwise_launch(spec, args, Shape{out.size() / cols});
  return out;
}

}  // namespace kiln::arraycore
