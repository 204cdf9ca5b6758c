#include "arraycore/convolution.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "arraycore/generated_kernel.h"
#include "arraycore/promotion.h"
#include "arraycore/ufunc_apply.h"
#include "arraycore/views.h"

namespace kiln::arraycore {
namespace {

// Operands at least this long on both sides take the FFT route (Note
// [Correlation by FFT]): below it the direct sums, min(n1, n2) per output,
// cost less than three transforms.
constexpr int64_t kFftMinLength = 256;

std::string dtype_name(DType d) { return std::string(dtype_info(d).name); }

// NumPy's depth check of a correlate operand (PyArray_FromAny with depth 1).
void check_1d(const NDArray& x) {
  if (x.ndim() > 1) throw std::invalid_argument("object too deep for desired array");
  if (x.ndim() < 1) throw std::invalid_argument("object of too small depth for desired array");
}

// The accumulator's C++ type and how one product adds to it (Note [Correlation lags]).
std::string accumulator(DType d) {
  switch (dtype_info(d).kind) {
    case 'b': return "bool";
    case 'i':
    case 'u': return "unsigned long long";
    default: return d == DType::Float16 || d == DType::BFloat16 ? "float" : c_type(d);
  }
}

}  // namespace

CorrelateWindow correlate_window(int64_t n1, int64_t n2, CorrelateMode mode) {
  const bool swapped = n1 < n2;
  const int64_t big = swapped ? n2 : n1, small = swapped ? n1 : n2;
  int64_t length = 0, n_left = 0;
  switch (mode) {
    case CorrelateMode::Valid: length = big - small + 1; break;
    case CorrelateMode::Same: length = big; n_left = small / 2; break;
    case CorrelateMode::Full: length = big + small - 1; n_left = small - 1; break;
  }
  const int64_t offset = swapped ? length - 1 - n_left : n_left;
  return {n2 - 1 - offset, length};
}

CorrelatePlan correlate_plan(const NDArray& a, const NDArray& v, CorrelateMode mode, CorrelateKind kind) {
  NDArray x = a, w = v;
  bool conjugate = false;
  if (kind == CorrelateKind::Convolve) {
    // numpy.convolve: ndmin=1, the longer operand first, then correlate with v reversed.
    if (x.ndim() == 0) x = x.view_as({1}, {0}, x.offset());
    if (w.ndim() == 0) w = w.view_as({1}, {0}, w.offset());
    if (x.shape()[0] == 0) throw std::invalid_argument("a cannot be empty");
    if (w.shape()[0] == 0) throw std::invalid_argument("v cannot be empty");
    if (w.shape()[0] > x.shape()[0]) std::swap(x, w);
    check_1d(x);
    check_1d(w);
    w = flip(w, std::vector<int64_t>{0});
  } else {
    check_1d(x);
    check_1d(w);
    if (x.size() == 0) throw std::invalid_argument("first array argument cannot be empty");
    if (w.size() == 0) throw std::invalid_argument("second array argument cannot be empty");
    conjugate = dtype_info(w.dtype()).kind == 'c';
  }
  const DType dtype = promote_types(x.dtype(), w.dtype());
  const char k = dtype_info(dtype).kind;
  const bool by_fft = (k == 'f' || k == 'c') && std::min(x.size(), w.size()) >= kFftMinLength;
  const CorrelateWindow window = correlate_window(x.size(), w.size(), mode);
  return CorrelatePlan{x, w, conjugate, dtype, window, by_fft};
}

NDArray correlate_direct(const CorrelatePlan& p) {
  const DType d = p.dtype;
  const std::string acc = accumulator(d), ct = c_type(d);
  const std::string name = "correlate_" + dtype_name(p.a.dtype()) + "_" + dtype_name(p.w.dtype()) + "_" +
                           dtype_name(d) + (p.conjugate ? "_conj" : "");
  const EwSpec& spec = generated_spec(name, [&] {
    EwSpec s = exact_spec(name, "#include <kiln/ufunc_math.h>\n");
    s.params = {raw_param("a", c_type(p.a.dtype())), raw_param("w", c_type(p.w.dtype())),
                input_param("start", "long long"), output_param("out", d)};
    const std::string x = "kiln::numpy_cast<" + ct + ">(a[n + m])";
    std::string y = "kiln::numpy_cast<" + ct + ">(w[n])";
    if (p.conjugate) y = "kiln::conj(" + y + ")";
    std::string add;
    switch (dtype_info(d).kind) {
      case 'b': add = "s = s || (" + x + " && " + y + ");"; break;
      case 'i':
        add = "s += (unsigned long long)(long long)" + x + " * (unsigned long long)(long long)" + y + ";";
        break;
      case 'u': add = "s += (unsigned long long)" + x + " * (unsigned long long)" + y + ";"; break;
      default: add = "s += (" + acc + ")" + x + " * (" + acc + ")" + y + ";";
    }
    const std::string result = dtype_info(d).kind == 'i' ? "(long long)s" : "s";
    // Output k is the full correlation at index start + k, lag m = start + k - (n2 - 1).
    s.operation = "const long long n1 = a.size(), n2 = w.size();\n"
                  "const long long m = start + (long long)i - (n2 - 1);\n"
                  "const long long lo = m < 0 ? -m : 0, hi = n1 - m < n2 ? n1 - m : n2;\n" +
                  acc + " s = (" + acc + ")0;\n"
                  "for (long long n = lo; n < hi; ++n) " + add + "\n"
                  "out = kiln::numpy_cast<" + ct + ">(" + result + ");";
    return s;
  });
  NDArray out = NDArray::empty({p.window.length}, d);
  if (p.window.length == 0) return out;
  EwArg args[] = {EwArg::of(p.a), EwArg::of(p.w), EwArg::value<long long>(p.window.start), EwArg::of(out)};
  elementwise_launch(spec, args, out.shape());
  return out;
}

NDArray fft_operand(const CorrelatePlan& p) {
  NDArray u = flip(p.w, std::vector<int64_t>{0});
  if (!p.conjugate) return u;
  UfuncInput in[] = {UfuncInput::of(u)};
  return ufunc_apply(ufunc("conjugate"), in, {})[0];
}

}  // namespace kiln::arraycore
