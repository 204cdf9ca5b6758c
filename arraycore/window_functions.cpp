#include "arraycore/window_functions.h"

#include <cmath>
#include <numbers>

#include "arraycore/creation.h"
#include "arraycore/expression_kernel.h"

namespace kiln::arraycore {

NDArray window(Window kind, double M, double beta) {
  if (M == 1) {
    NDArray one = arange(1.0, 0.0, 1, DType::Float64);
    return one;
  }
  // numpy.arange(start, M, step)'s length, and NumPy's values start + i * step.
  const double start = kind == Window::Kaiser ? 0.0 : 1.0 - M, step = kind == Window::Kaiser ? 1.0 : 2.0;
  const double len = std::ceil((M - start) / step);
  if (M < 1 || !(len > 0)) return NDArray::empty({0}, DType::Float64);
  const NDArray n = arange(start, step, static_cast<int64_t>(len), DType::Float64);
  ExpressionKernel k("kiln_window");
  const Value nv = k.input(UfuncInput::of(n));
  const Value m1 = weak_float(M - 1);   // NumPy's M - 1: a float64 scalar, as weak here (float64 arithmetic either way)
  auto cosine = [&](double c) {         // cos(c * n / (M - 1))
    return k.call("cos", {k.call("divide", {k.call("multiply", {weak_float(c), nv}), m1})});
  };
  auto term = [&](double a, const Value& v) { return k.call("multiply", {weak_float(a), v}); };
  const double pi = std::numbers::pi;
  Value r;
  switch (kind) {
    case Window::Bartlett: {
      const Value ratio = k.call("divide", {nv, m1});
      const Value up = k.call("add", {weak_float(1.0), ratio}), down = k.call("subtract", {weak_float(1.0), ratio});
      const Value le = k.call("less_equal", {nv, weak_float(0.0)});
      r = k.expr(DType::Float64, le.name + " ? " + up.name + " : " + down.name);
      break;
    }
    case Window::Blackman:
      r = k.call("add", {k.call("add", {weak_float(0.42), term(0.5, cosine(pi))}), term(0.08, cosine(2.0 * pi))});
      break;
    case Window::Hamming: r = k.call("add", {weak_float(0.54), term(0.46, cosine(pi))}); break;
    case Window::Hanning: r = k.call("add", {weak_float(0.5), term(0.5, cosine(pi))}); break;
    case Window::Kaiser: {
      // i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / i0(beta), alpha = (M - 1) / 2.0.
      const Value alpha = weak_float((M - 1) / 2.0);
      const Value t = k.call("divide", {k.call("subtract", {nv, alpha}), alpha});
      const Value root = k.call("sqrt", {k.call("subtract", {weak_float(1.0), k.call("square", {t})})});
      const Value arg = k.call("multiply", {weak_float(beta), root});
      const Value top = k.expr(DType::Float64, "kiln::ufn::i0(" + arg.name + ")");
      const Value bottom = k.expr(DType::Float64, "kiln::ufn::i0(" + k.as_type(weak_float(beta), DType::Float64).name + ")");
      r = k.call("divide", {top, bottom});
      break;
    }
  }
  return k.run(r);
}

}  // namespace kiln::arraycore
