// kiln.random's distributions on top of kiln/philox.h: maps of one uniform
// (u in (0, 1) unless said) and samplers that draw from an element's own
// Stream (rejection loops). F is float or double: the arithmetic type; the
// integer-valued ones compute in double.
//
//   double e = kiln::random::exponential(u, 2.0);              // scale 2
//   kiln::random::Stream s(k0, k1, ctr_lo, ctr_hi, i);
//   float g = kiln::random::gamma<float>(s, 0.5f);            // shape 0.5, scale 1
//   long long k = kiln::random::poisson(s, 30.0);
#pragma once

#include "kiln/philox.h"

namespace kiln {
namespace random {

// ---- maps of one uniform ----
template <class F>
KILN_DEVICE F uniform(F u, F low, F high) {   // u in [0, 1)
  return low + (high - low) * u;
}
template <class F>
KILN_DEVICE F exponential(F u, F scale) {
  return -scale * ::log(u);
}
template <class F>
KILN_DEVICE F laplace(F u, F loc, F scale) {
  return u < F(0.5) ? loc + scale * ::log(F(2) * u) : loc - scale * ::log(F(2) * (F(1) - u));
}
template <class F>
KILN_DEVICE F logistic(F u, F loc, F scale) {
  return loc + scale * ::log(u / (F(1) - u));
}
template <class F>
KILN_DEVICE F gumbel(F u, F loc, F scale) {
  return loc - scale * ::log(-::log(u));
}
template <class F>
KILN_DEVICE F rayleigh(F u, F scale) {
  return scale * ::sqrt(F(-2) * ::log(u));
}
template <class F>
KILN_DEVICE F weibull(F u, F a) {
  return a == F(0) ? F(0) : ::pow(-::log(u), F(1) / a);
}
// NumPy's pareto is the Lomax (Pareto II) distribution: U^(-1/a) - 1.
template <class F>
KILN_DEVICE F pareto(F u, F a) {
  return ::expm1(-::log(u) / a);
}
template <class F>
KILN_DEVICE F standard_cauchy(F u) {   // tan of a uniform angle, in double near the poles
  return static_cast<F>(::tan(3.141592653589793 * (static_cast<double>(u) - 0.5)));
}
// Failures up to and including the first success: ceil(log U / log(1 - p)).
KILN_DEVICE long long geometric(double u, double p) {
  if (p >= 1.0) return 1;
  const double k = ::ceil(::log(u) / ::log1p(-p));
  return k < 9.2e18 ? (k < 1.0 ? 1 : static_cast<long long>(k)) : 9200000000000000000LL;
}
// Power-function distribution on [0, 1]: CDF x^a.
template <class F>
KILN_DEVICE F power(F u, F a) {
  return ::pow(u, F(1) / a);
}
template <class F>
KILN_DEVICE F triangular(F u, F left, F mode, F right) {   // u in [0, 1)
  const F width = right - left;
  if (u * width <= mode - left) return left + ::sqrt(u * width * (mode - left));
  return right - ::sqrt((F(1) - u) * width * (right - mode));
}

// ---- samplers with rejection: each element's own Stream ----

// Gamma(a, 1), a >= 1, by Marsaglia and Tsang ("A simple method for
// generating gamma variables", 2000).
template <class F>
KILN_DEVICE F gamma_marsaglia_tsang(Stream& s, F a) {
  const F d = a - F(1) / F(3);
  const F c = F(1) / ::sqrt(F(9) * d);
  for (;;) {
    F x, v;
    do {
      x = s.normal<F>();
      v = F(1) + c * x;
    } while (v <= F(0));
    v = v * v * v;
    const F u = s.uniform_oo<F>();
    const F x2 = x * x;
    if (u < F(1) - F(0.0331) * x2 * x2 || ::log(u) < F(0.5) * x2 + d * (F(1) - v + ::log(v))) return d * v;
  }
}

// Gamma(a, 1); a < 1 through Gamma(a + 1) * U^(1/a).
template <class F>
KILN_DEVICE F gamma(Stream& s, F a) {
  if (a <= F(0)) return F(0);
  if (a >= F(1)) return gamma_marsaglia_tsang<F>(s, a);
  const F g = gamma_marsaglia_tsang<F>(s, a + F(1));
  return g * ::pow(s.uniform_oo<F>(), F(1) / a);
}

// Note [Dirichlet in logarithms]
// A Dirichlet(alpha) row is G / sum(G) for independent G_i ~ Gamma(alpha_i).
// For alpha_i far below 1 the G_i underflow: Gamma(a) = Gamma(a + 1) U^(1/a)
// is below 1e-308 with probability about exp(-709 a), a half at a = 1e-3,
// and a row of zeros gives 0/0. kiln.random's dirichlet draws L_i = log G_i
// instead, log Gamma(a + 1) + log(U) / a, which is finite (log U >= -37), and
// returns exp(L_i - max L) / sum_j exp(L_j - max L) (a thread per row:
// dirichlet_rows in pyfrontend/kiln/random/_kernels.py): the same ratios,
// with the largest term exactly 1, so the sum is at least 1 and every row
// sums to 1 with no NaN. Components far below the largest underflow to 0,
// as their true values do in double. (NumPy's Generator reaches the same end by
// stick-breaking with beta draws when every alpha is below 0.1.) alpha_i = 0
// gives L_i = -inf, a zero component, as NumPy's Generator allows; L_i is
// clamped to -DBL_MAX, which only alphas below about 1e-307 reach.
KILN_DEVICE double log_gamma(Stream& s, double a) {
  if (!(a > 0.0)) return a == 0.0 ? __longlong_as_double(static_cast<long long>(0xFFF0000000000000ull)) : a;   // -inf, NaN
  if (a >= 1.0) return ::log(gamma_marsaglia_tsang<double>(s, a));
  const double g = ::log(gamma_marsaglia_tsang<double>(s, a + 1.0)) + ::log(s.uniform_oo<double>()) / a;
  return g > -1.7976931348623157e308 ? g : -1.7976931348623157e308;
}

// Beta(a, b): Johnk's method when both are at most 1 (in logarithms when the
// powers underflow), else X / (X + Y) of two gammas.
template <class F>
KILN_DEVICE F beta(Stream& s, F a, F b) {
  if (a <= F(1) && b <= F(1)) {
    for (;;) {
      const F u = s.uniform_oo<F>(), v = s.uniform_oo<F>();
      const F x = ::pow(u, F(1) / a), y = ::pow(v, F(1) / b);
      if (x + y <= F(1)) {
        if (x + y > F(0)) return x / (x + y);
        F lx = ::log(u) / a, ly = ::log(v) / b;
        const F lm = lx > ly ? lx : ly;
        lx -= lm;
        ly -= lm;
        return ::exp(lx - ::log(::exp(lx) + ::exp(ly)));
      }
    }
  }
  const F x = gamma<F>(s, a), y = gamma<F>(s, b);
  return x / (x + y);
}

template <class F>
KILN_DEVICE F chisquare(Stream& s, F df) {
  return F(2) * gamma<F>(s, df / F(2));
}

template <class F>
KILN_DEVICE F standard_t(Stream& s, F df) {
  const F z = s.normal<F>();
  return z / ::sqrt(chisquare<F>(s, df) / df);
}

template <class F>
KILN_DEVICE F f(Stream& s, F dfnum, F dfden) {
  const F x = chisquare<F>(s, dfnum), y = chisquare<F>(s, dfden);
  return (x * dfden) / (y * dfnum);
}

// Inverse Gaussian (Michael, Schucany and Haas 1976), with the root taken
// in the form that does not cancel: x = mean - 2 mean y / (y + sqrt(4 scale y + y^2)).
template <class F>
KILN_DEVICE F wald(Stream& s, F mean, F scale) {
  const F z = s.normal<F>();
  const F y = mean * z * z;
  const F x = mean - F(2) * mean * y / (y + ::sqrt(F(4) * scale * y + y * y));
  const F u = s.uniform_oo<F>();
  return u <= mean / (mean + x) ? x : mean * mean / x;
}

// Poisson(lam): multiplication of uniforms below 10, else Hormann's
// transformed rejection PTRS ("The transformed rejection method for
// generating Poisson random variables", 1993).
KILN_DEVICE long long poisson(Stream& s, double lam) {
  if (lam <= 0.0) return 0;
  if (lam < 10.0) {
    const double limit = ::exp(-lam);
    long long k = 0;
    double prod = s.uniform_oo<double>();
    while (prod > limit) {
      ++k;
      prod *= s.uniform_oo<double>();
    }
    return k;
  }
  const double slam = ::sqrt(lam), loglam = ::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = s.uniform_oo<double>() - 0.5, v = s.uniform_oo<double>();
    const double us = 0.5 - ::fabs(u);
    const double k = ::floor((2.0 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<long long>(k);
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (::log(v) + ::log(inv_alpha) - ::log(a / (us * us) + b) <= -lam + k * loglam - ::lgamma(k + 1.0))
      return static_cast<long long>(k);
  }
}

// log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2]: Stirling's
// remainder, by its series from k = 10 on.
KILN_DEVICE double stirling_remainder(double k) {
  if (k < 10.0) return ::lgamma(k + 1.0) - ((k + 0.5) * ::log(k + 1.0) - (k + 1.0) + 0.9189385332046728);
  const double x = k + 1.0, x2 = x * x;
  return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * x2)) / x2) / x;
}

// Binomial(n, p), p <= 1/2: inversion by the pmf's recurrence while
// n p < 10, else Hormann's BTRD ("The generation of binomial random
// variates", 1993).
KILN_DEVICE long long binomial_low(Stream& s, long long n, double p) {
  const double q = 1.0 - p;
  if (n * p < 10.0) {
    const double ratio = p / q, a = (n + 1) * ratio, first = ::pow(q, static_cast<double>(n));
    for (;;) {
      double u = s.uniform_co<double>(), r = first;
      long long x = 0;
      while (u > r && x <= n) {
        u -= r;
        ++x;
        r *= a / x - ratio;
      }
      if (x <= n) return x;
    }
  }
  const double np = n * p, npq = np * q, spq = ::sqrt(npq);
  const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = np + 0.5;
  const double alpha = (2.83 + 5.1 / b) * spq, vr = 0.92 - 4.2 / b, urvr = 0.86 * vr;
  const double m = ::floor((n + 1) * p), r = p / q, nr = (n + 1) * r;
  for (;;) {
    double v = s.uniform_oo<double>(), u;
    if (v <= urvr) {
      u = v / vr - 0.43;
      return static_cast<long long>(::floor((2.0 * a / (0.5 - ::fabs(u)) + b) * u + c));
    }
    if (v >= vr) {
      u = s.uniform_oo<double>() - 0.5;
    } else {
      u = v / vr - 0.93;
      u = (u < 0.0 ? -0.5 : 0.5) - u;
      v = s.uniform_oo<double>() * vr;
    }
    const double us = 0.5 - ::fabs(u);
    const double k = ::floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > static_cast<double>(n)) continue;
    v = v * alpha / (a / (us * us) + b);
    const double km = ::fabs(k - m);
    if (km <= 15.0) {
      double f = 1.0;
      if (m < k) {
        for (double i = m + 1.0; i <= k; i += 1.0) f *= nr / i - r;
      } else {
        for (double i = k + 1.0; i <= m; i += 1.0) v *= nr / i - r;
      }
      if (v <= f) return static_cast<long long>(k);
      continue;
    }
    v = ::log(v);
    const double rho = (km / npq) * (((km / 3.0 + 0.625) * km + 1.0 / 6.0) / npq + 0.5);
    const double t = -km * km / (2.0 * npq);
    if (v < t - rho) return static_cast<long long>(k);
    if (v > t + rho) continue;
    const double nm = n - m + 1.0;
    const double h = (m + 0.5) * ::log((m + 1.0) / (r * nm)) + stirling_remainder(m) + stirling_remainder(n - m);
    const double nk = n - k + 1.0;
    if (v <= h + (n + 1.0) * ::log(nm / nk) + (k + 0.5) * ::log(nk * r / (k + 1.0)) - stirling_remainder(k) -
                 stirling_remainder(n - k))
      return static_cast<long long>(k);
  }
}

KILN_DEVICE long long binomial(Stream& s, long long n, double p) {
  if (n <= 0 || p <= 0.0) return 0;
  if (p >= 1.0) return n;
  return p <= 0.5 ? binomial_low(s, n, p) : n - binomial_low(s, n, 1.0 - p);
}

// Poisson(lam) of a Gamma(n, (1 - p) / p) rate.
KILN_DEVICE long long negative_binomial(Stream& s, double n, double p) {
  if (p >= 1.0) return 0;
  return poisson(s, gamma<double>(s, n) * (1.0 - p) / p);
}

// Chi-square with non-centrality: a central chi-square of df - 1 plus a
// shifted normal squared when df > 1, else a Poisson mixture of central ones.
template <class F>
KILN_DEVICE F noncentral_chisquare(Stream& s, F df, F nonc) {
  if (nonc == F(0)) return chisquare<F>(s, df);
  if (df > F(1)) {
    const F c = chisquare<F>(s, df - F(1));
    const F z = s.normal<F>() + ::sqrt(nonc);
    return c + z * z;
  }
  const long long i = poisson(s, static_cast<double>(nonc) / 2.0);
  return chisquare<F>(s, df + F(2) * static_cast<F>(i));
}

// von Mises(mu, kappa) on [-pi, pi] by Best and Fisher's rejection (1979),
// in double; uniform angles below kappa = 1e-8, a wrapped normal above 1e6.
KILN_DEVICE double vonmises(Stream& s, double mu, double kappa) {
  const double pi = 3.141592653589793;
  double theta;
  if (kappa < 1e-8) {
    theta = pi * (2.0 * s.uniform_oo<double>() - 1.0);
  } else if (kappa > 1e6) {
    theta = s.normal<double>() / ::sqrt(kappa);
  } else {
    const double tau = 1.0 + ::sqrt(1.0 + 4.0 * kappa * kappa);
    const double rho = (tau - ::sqrt(2.0 * tau)) / (2.0 * kappa);
    const double r = (1.0 + rho * rho) / (2.0 * rho);
    double w;
    for (;;) {
      const double z = ::cos(pi * s.uniform_oo<double>());
      w = (1.0 + r * z) / (r + z);
      const double c = kappa * (r - w);
      const double v = s.uniform_oo<double>();
      if (c * (2.0 - c) - v > 0.0 || ::log(c / v) + 1.0 - c >= 0.0) break;
    }
    w = w > 1.0 ? 1.0 : (w < -1.0 ? -1.0 : w);
    theta = ::acos(w);
    if (s.uniform_oo<double>() < 0.5) theta = -theta;
  }
  theta += mu;
  theta = ::fmod(theta + pi, 2.0 * pi);   // wrapped into [-pi, pi)
  if (theta < 0.0) theta += 2.0 * pi;
  return theta - pi;
}

// Zipf(a), a > 1, by Devroye's rejection from a continuous Pareto.
KILN_DEVICE long long zipf(Stream& s, double a) {
  const double am1 = a - 1.0, b = ::pow(2.0, am1);
  for (;;) {
    const double u = s.uniform_oo<double>(), v = s.uniform_oo<double>();
    const double x = ::floor(::pow(u, -1.0 / am1));
    if (!(x < 9.2e18) || x < 1.0) continue;
    const double t = ::pow(1.0 + 1.0 / x, am1);
    if (v * x * (t - 1.0) / (b - 1.0) <= t / b) return static_cast<long long>(x);
  }
}

// Logarithmic series(p), 0 < p < 1, by Kemp's second method (1981).
KILN_DEVICE long long logseries(Stream& s, double p) {
  const double r = ::log1p(-p);
  for (;;) {
    const double v = s.uniform_oo<double>();
    if (v >= p) return 1;
    const double q = -::expm1(r * s.uniform_oo<double>());
    if (v <= q * q) {
      const double k = ::floor(1.0 + ::log(v) / ::log(q));
      if (k < 1.0 || !(k < 9.2e18)) continue;
      return static_cast<long long>(k);
    }
    return v >= q ? 1 : 2;
  }
}

// Hypergeometric(good, bad, sample): inversion searched outwards from the
// mode (p(k + 1) / p(k) = (good - k)(sample - k) / ((k + 1)(bad - sample + k + 1))),
// O(standard deviation) steps; the search restarts in the rare case that
// rounding leaves u above the total.
KILN_DEVICE long long hypergeometric(Stream& s, long long good, long long bad, long long sample) {
  const long long low = sample > bad ? sample - bad : 0, high = sample < good ? sample : good;
  if (low == high) return low;
  const double g = static_cast<double>(good), b = static_cast<double>(bad), n = static_cast<double>(sample);
  long long mode = static_cast<long long>(::floor((n + 1.0) * (g + 1.0) / (g + b + 2.0)));
  mode = mode < low ? low : (mode > high ? high : mode);
  const double m = static_cast<double>(mode);
  const double log_pm = ::lgamma(g + 1.0) - ::lgamma(m + 1.0) - ::lgamma(g - m + 1.0) + ::lgamma(b + 1.0) -
                        ::lgamma(n - m + 1.0) - ::lgamma(b - n + m + 1.0) - ::lgamma(g + b + 1.0) +
                        ::lgamma(n + 1.0) + ::lgamma(g + b - n + 1.0);
  const double pm = ::exp(log_pm);
  for (;;) {
    double u = s.uniform_co<double>() - pm;
    if (u < 0.0) return mode;
    long long down = mode, up = mode;
    double p_down = pm, p_up = pm;
    while (down > low || up < high) {
      if (up < high) {
        const double k = static_cast<double>(up);
        p_up *= (g - k) * (n - k) / ((k + 1.0) * (b - n + k + 1.0));
        ++up;
        u -= p_up;
        if (u < 0.0) return up;
      }
      if (down > low) {
        const double k = static_cast<double>(down);   // p(k - 1) = p(k) k (b - n + k) / ((g - k + 1)(n - k + 1))
        p_down *= k * (b - n + k) / ((g - k + 1.0) * (n - k + 1.0));
        --down;
        u -= p_down;
        if (u < 0.0) return down;
      }
    }
  }
}

template <class F>
KILN_DEVICE F noncentral_f(Stream& s, F dfnum, F dfden, F nonc) {
  const F x = noncentral_chisquare<F>(s, dfnum, nonc), y = chisquare<F>(s, dfden);
  return (x * dfden) / (y * dfnum);
}

}  // namespace random
}  // namespace kiln
