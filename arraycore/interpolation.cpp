#include "arraycore/interpolation.h"

#include <stdexcept>
#include <string>

#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"

namespace kiln::arraycore {
namespace {

NDArray as_dtype(const NDArray& a, DType d) { return a.dtype() == d ? a : astype(a, d, Order::C); }

// One part (real, or the real or imaginary part of a complex fp) of Note [interp]'s formula.
std::string interpolated(const std::string& part, const std::string& scale, const std::string& target) {
  const std::string y0 = "fp[j]" + part, y1 = "fp[j + 1]" + part;
  return "{\n"
         "  const double slope = (" + y1 + " - " + y0 + ")" + scale + ";\n"
         "  double r = slope * (v - xp[j]) + " + y0 + ";\n"
         "  if (r != r) {\n"
         "    r = slope * (v - xp[j + 1]) + " + y1 + ";\n"
         "    if (r != r && " + y0 + " == " + y1 + ") r = " + y0 + ";\n"
         "  }\n"
         "  " + target + " = r;\n"
         "}\n";
}

}  // namespace

NDArray interp(const NDArray& x, const NDArray& xp, const NDArray& fp, const std::optional<ScalarValue>& left,
               const std::optional<ScalarValue>& right) {
  const bool complex = dtype_info(fp.dtype()).kind == 'c';
  const DType out_dtype = complex ? DType::Complex128 : DType::Float64;
  if (fp.ndim() != 1 || xp.ndim() != 1)
    throw std::invalid_argument(fp.ndim() > 1 || xp.ndim() > 1 ? "object too deep for desired array"
                                                                : "object of too small depth for desired array");
  if (xp.size() == 0) throw std::invalid_argument("array of sample points is empty");
  if (fp.size() != xp.size()) throw std::invalid_argument("fp and xp are not of the same length.");
  const NDArray xs = as_dtype(xp, DType::Float64), fs = as_dtype(fp, out_dtype);
  const std::string ct = c_type(out_dtype);
  const std::string name = std::string("interp_") + std::string(dtype_info(x.dtype()).name) + (complex ? "_complex" : "");
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "#include <kiln/ufunc_math.h>\n");
    s.params = {input_param("v", DType::Float64, c_type(x.dtype())), raw_param("xp", "double"), raw_param("fp", ct),
                input_param("left", out_dtype),  input_param("right", out_dtype),
                input_param("has_left", "int"),  input_param("has_right", "int"),
                output_param("out", out_dtype)};
    const std::string formula =
        complex ? "    double re, im;\n    const double inv = 1.0 / (xp[j + 1] - xp[j]);\n" +
                      interpolated(".real()", " * inv", "re") + interpolated(".imag()", " * inv", "im") +
                      "    out = " + ct + "(re, im);\n"
                : "    double res;\n" + interpolated("", " / (xp[j + 1] - xp[j])", "res") + "    out = res;\n";
    s.operation =
        "const long long n = xp.size();\n"
        "const " + ct + " lo = has_left ? left : fp[0], hi = has_right ? right : fp[n - 1];\n"
        "if (n == 1) { out = v < xp[0] ? lo : (v > xp[0] ? hi : fp[0]); }\n"
        "else if (v > xp[n - 1]) { out = hi; }\n"
        "else if (v < xp[0]) { out = lo; }\n"
        "else {\n"
        "  long long a = 1;   // one past the last point at or below v (a NaN v: j = 0)\n"
        "  if (v == v) {\n"
        "    long long b = n;\n"
        "    a = 0;\n"
        "    while (a < b) { const long long mid = a + (b - a) / 2; if (v >= xp[mid]) a = mid + 1; else b = mid; }\n"
        "  }\n"
        "  const long long j = a - 1;\n"
        "  if (j == n - 1 || xp[j] == v) { out = fp[j]; }\n"
        "  else {\n" + formula + "  }\n"
        "}";
    return s;
  });
  NDArray out = NDArray::empty(x.shape(), out_dtype);
  if (out.size() == 0) return out;
  const ScalarValue zero;
  EwArg args[] = {EwArg::of(x),
                  EwArg::of(xs),
                  EwArg::of(fs),
                  scalar_arg_as(left ? *left : zero, out_dtype),
                  scalar_arg_as(right ? *right : zero, out_dtype),
                  EwArg::value<int>(left ? 1 : 0),
                  EwArg::value<int>(right ? 1 : 0),
                  EwArg::of(out)};
  elementwise_launch(spec, args, x.shape());
  return out;
}

}  // namespace kiln::arraycore
