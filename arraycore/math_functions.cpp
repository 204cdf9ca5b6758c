#include "arraycore/math_functions.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "arraycore/axes.h"
#include "arraycore/expression_kernel.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/promotion.h"

namespace kiln::arraycore {
namespace {

bool is_weak(const UfuncInput& v) { return !v.array && v.scalar.kind != ScalarValue::Kind::Typed; }
DType dtype_of(const UfuncInput& v) { return operand_of(v).dtype; }
char kind_of(DType d) { return dtype_info(d).kind; }

DType real_dtype(DType d) {
  return d == DType::Complex64 ? DType::Float32 : d == DType::Complex128 ? DType::Float64 : d;
}

std::string cast_text(const std::string& text, DType d) { return "kiln::numpy_cast<" + c_type(d) + ">(" + text + ")"; }

Value weak_int(long long v) {
  Value r;
  r.weak = true;
  r.weak_value = ScalarValue::python_int(v);
  return r;
}

// Whether the Python int `v` lies at or below the integer dtype's minimum
// (below = true) or at or above its maximum.
bool int_beyond(const ScalarValue& v, DType d, bool below) {
  const bool is_unsigned = kind_of(d) == 'u';
  const int bits = 8 * static_cast<int>(itemsize(d));
  const long long min = is_unsigned ? 0 : (bits == 64 ? std::numeric_limits<long long>::min() : -(1LL << (bits - 1)));
  const unsigned long long max = is_unsigned ? (bits == 64 ? ~0ULL : (1ULL << bits) - 1) : (1ULL << (bits - 1)) - 1;
  switch (v.kind) {
    case ScalarValue::Kind::Int:
      return below ? v.i <= min : v.i >= 0 && static_cast<unsigned long long>(v.i) >= max;
    case ScalarValue::Kind::UInt: return !below && v.u >= max;
    case ScalarValue::Kind::BigInt: return below ? v.re < 0 : v.re > 0;
    default: return false;
  }
}
bool python_int(const std::optional<UfuncInput>& v) {
  if (!v || v->array) return false;
  auto k = v->scalar.kind;
  return k == ScalarValue::Kind::Int || k == ScalarValue::Kind::UInt || k == ScalarValue::Kind::BigInt;
}

// Note [isclose]
// NumPy's isclose steps on kernel values: |a - b| <= atol + rtol * |b| with
// b finite, or a == b; b first made inexact (result_type(b, 1.0); a Python
// bool or int b becomes a Python float); NaNs equal each other when
// equal_nan.
Value isclose_value(ExpressionKernel& k, const UfuncInput& a, const UfuncInput& b, const UfuncInput& rtol,
                    const UfuncInput& atol, bool equal_nan) {
  const Value xv = k.input(a);
  Value yv;
  if (is_weak(b)) {
    UfuncInput f = b;
    if (b.scalar.kind == ScalarValue::Kind::Bool || b.scalar.kind == ScalarValue::Kind::Int) {
      f.scalar = ScalarValue::python_float(static_cast<double>(b.scalar.i));
    } else if (b.scalar.kind == ScalarValue::Kind::UInt) {
      f.scalar = ScalarValue::python_float(static_cast<double>(b.scalar.u));
    } else if (b.scalar.kind == ScalarValue::Kind::BigInt) {
      f.scalar.kind = ScalarValue::Kind::Float;
    }
    yv = k.input(f);
  } else {
    DType strong[] = {dtype_of(b)};
    WeakScalar weak[] = {WeakScalar::Float};
    yv = k.input(b, result_type(strong, weak));
  }
  const Value diff = k.call("absolute", {k.call("subtract", {xv, yv})});
  const Value atol_v = k.input(atol);
  const Value rtol_v = k.input(rtol);
  const Value abs_y = k.call("absolute", {yv});
  const Value tol = k.call("add", {atol_v, k.call("multiply", {rtol_v, abs_y})});
  const Value le = k.call("less_equal", {diff, tol});
  const Value finite = k.call("isfinite", {yv});
  const Value eq = k.call("equal", {xv, yv});
  Value r = k.expr(DType::Bool, "(" + le.name + " && " + finite.name + ") || " + eq.name);
  if (equal_nan) {
    const Value nx = k.call("isnan", {xv});
    const Value ny = k.call("isnan", {yv});
    r = k.expr(DType::Bool, r.name + " || (" + nx.name + " && " + ny.name + ")");
  }
  return r;
}

// Note [NumPy's rounding]
// NumPy rounds by ufunc steps: t = a * f (a / f for negative decimals) into
// the result, rint, then t / f (t * f), where f = 10**|decimals| is a Python
// float (so weak: float32 stays float32; integers and bool compute in
// float64) built by repeated multiplication by 10 past 1e8 (so past 1e22 it
// differs from 10.0**n). decimals=0 is rint alone (bool gives float16, as
// rint's loops do). Integers with decimals >= 0 are copied; with
// negative decimals the float64 result is cast back to the integer type.
// Complex values round their real and imaginary parts apart. With ``out=``
// every step stores into out's dtype, so each step here is cast to it.
// around runs these steps in one kernel with the same loops and roundings
// (Note [One kernel per function]): bit for bit.
double power_of_ten(int64_t n) {
  static const double small[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (n < 9) return small[n];
  double f = 1e9;
  for (int64_t i = 0; i < n - 9; ++i) {
    f *= 10.0;
    if (std::isinf(f)) break;
  }
  return f;
}

Value round_steps(ExpressionKernel& k, const Value& v, int64_t decimals, DType out_dtype) {
  const Value f = weak_float(power_of_ten(decimals < 0 ? -decimals : decimals));
  const char* first = decimals >= 0 ? "multiply" : "divide";
  const char* last = decimals >= 0 ? "divide" : "multiply";
  Value t = k.call(first, {v, f}, out_dtype);
  t = k.call("rint", {t}, out_dtype);
  return k.call(last, {t, f}, out_dtype);
}


}  // namespace

NDArray where(const UfuncInput& condition, const UfuncInput& x, const UfuncInput& y) {
  const UfuncInput xy[] = {x, y};
  const DType dtype = result_type_of(xy);
  ExpressionKernel k("kiln_where");
  const Value c = k.input(condition, DType::Bool);
  // A Python int that does not fit the result dtype is an OverflowError
  // (NumPy 2.5; 2.4 still wrapped it), as everywhere a Python scalar is
  // converted (Note [Assigned host values] in pyfrontend/ndarray_binding.cpp).
  auto operand = [&](const UfuncInput& v) { return is_weak(v) ? k.scalar(v.scalar, dtype) : k.input(v, dtype); };
  const Value xv = operand(x);
  const Value yv = operand(y);
  return k.run(k.expr(dtype, c.name + " ? " + xv.name + " : " + yv.name));
}

// Note [clip]
// NumPy's dtype (a Python int beyond an integer array's range drops that
// bound), its NaN propagation (a's NaN first, then lo's, then hi's) and its
// signed-zero ties: with both bounds scalars a float32/float64 tie keeps a's
// zero, with array bounds it takes the bound's, as NumPy's two loops do.
// Complex: lexicographic order, a NaN in a wins, a bound holding a NaN is
// taken only where the comparison with it fails (NumPy's loop).
NDArray clip(const UfuncInput& a, std::optional<UfuncInput> lo, std::optional<UfuncInput> hi, const NDArray* out) {
  if (!is_weak(a) && (kind_of(dtype_of(a)) == 'i' || kind_of(dtype_of(a)) == 'u')) {
    if (python_int(lo) && int_beyond(lo->scalar, dtype_of(a), true)) lo.reset();
    if (python_int(hi) && int_beyond(hi->scalar, dtype_of(a), false)) hi.reset();
  }
  ExpressionKernel k("kiln_clip");
  if (!lo && !hi) return k.run(k.call("positive", {k.input(a)}), out, "positive");
  if (!lo) {
    const Value av = k.input(a);
    return k.run(k.call("minimum", {av, k.input(*hi)}), out, "minimum");
  }
  if (!hi) {
    const Value av = k.input(a);
    return k.run(k.call("maximum", {av, k.input(*lo)}), out, "maximum");
  }
  const UfuncInput all[] = {a, *lo, *hi};
  // NumPy's clip ufunc has no bfloat16 loop (Note [Bfloat16 loops]): it runs ff->f.
  const DType common = result_type_of(all);
  const DType dtype = common == DType::BFloat16 ? DType::Float32 : common;
  // A Python int bound out of the dtype's range raises OverflowError here.
  auto operand = [&](const UfuncInput& v) { return is_weak(v) ? k.scalar(v.scalar, dtype) : k.input(v, dtype); };
  const Value xv = operand(a);
  const Value lv = operand(*lo);
  const Value hv = operand(*hi);
  const bool scalar_bounds = (!lo->array || lo->array->size() == 1) && (!hi->array || hi->array->size() == 1);
  Value r;
  if (kind_of(dtype) == 'f' && itemsize(dtype) > 2 && scalar_bounds) {
    // NumPy's loop for scalar bounds: a NaN bound wins (lo's first), then
    // x's NaN; ties keep x.
    const Value t = k.expr(dtype, "(" + xv.name + " < " + lv.name + ") ? " + lv.name + " : " + xv.name);
    r = k.expr(dtype, "(" + lv.name + " != " + lv.name + ") ? " + lv.name + " : ((" + hv.name + " != " + hv.name +
                          ") ? " + hv.name + " : ((" + t.name + " > " + hv.name + ") ? " + hv.name + " : " + t.name +
                          "))");
  } else if (kind_of(dtype) == 'c') {
    // NumPy's complex clip: min(max(x, lo), hi), each keeping its first
    // operand when that has a NaN part or compares beyond the bound, else
    // taking the bound (ties too). Its order is plain lexicographic (real
    // parts, then imaginary where the real parts are equal), not the
    // comparison ufuncs' (where a NaN imaginary part makes a real-part
    // decision false): x = 1 against lo = 0 + NaN j keeps x.
    auto pick = [&](const Value& p, const Value& q, const char* op) {
      const std::string a_ = p.name, b_ = q.name, o = op;
      return k.expr(dtype, "(kiln::ufn::isnan(" + a_ + ") || (" + a_ + ".real() == " + b_ + ".real() ? " + a_ +
                               ".imag() " + o + " " + b_ + ".imag() : " + a_ + ".real() " + o + " " + b_ +
                               ".real())) ? " + a_ + " : " + b_);
    };
    r = pick(pick(xv, lv, ">"), hv, "<");
  } else {
    r = k.call("minimum", {k.call("maximum", {xv, lv}), hv});
  }
  return k.run(r, out, "clip");
}

NDArray nan_to_num(const NDArray& x, const ScalarValue& nan, const ScalarValue& posinf, const ScalarValue& neginf,
                   const NDArray* out) {
  const DType real = real_dtype(x.dtype());
  ExpressionKernel k("kiln_nan_to_num");
  const Value xv = k.input(UfuncInput::of(x));
  const Value fill_nan = k.scalar(nan, real), fill_pos = k.scalar(posinf, real), fill_neg = k.scalar(neginf, real);
  auto replaced = [&](const std::string& part) {
    return k.expr(real, "kiln::ufn::isnan(" + part + ") ? " + fill_nan.name + " : (kiln::ufn::isinf(" + part +
                            ") ? (kiln::ufn::signbit(" + part + ") ? " + fill_neg.name + " : " + fill_pos.name +
                            ") : " + part + ")");
  };
  Value r;
  if (kind_of(x.dtype()) == 'c') {
    const Value re = replaced(xv.name + ".real()");
    const Value im = replaced(xv.name + ".imag()");
    r = k.expr(x.dtype(), c_type(x.dtype()) + "(" + re.name + ", " + im.name + ")");
  } else {
    r = replaced(xv.name);
  }
  return k.run(r, out);
}

NDArray complex_part_test(const NDArray& x, bool nonzero) {
  ExpressionKernel k(nonzero ? "kiln_iscomplex" : "kiln_isreal");
  const Value xv = k.input(UfuncInput::of(x));
  return k.run(k.expr(DType::Bool, xv.name + (nonzero ? ".imag() != 0" : ".imag() == 0")));
}

NDArray angle(const UfuncInput& z, bool deg) {
  ExpressionKernel k("kiln_angle");
  const Value zv = k.input(z);
  Value a;
  if (!zv.weak && kind_of(zv.dtype) == 'c') {
    const DType part = real_dtype(zv.dtype);
    const Value im = k.expr(part, zv.name + ".imag()");
    const Value re = k.expr(part, zv.name + ".real()");
    a = k.call("arctan2", {im, re});
  } else {
    a = k.call("arctan2", {weak_int(0), zv});
  }
  if (deg) a = k.call("multiply", {a, weak_float(180 / std::numbers::pi)});
  return k.run(a);
}

NDArray i0(const UfuncInput& x) {
  const DType dtype = dtype_of(x);
  if (kind_of(dtype) == 'c') throw TypeError("i0 not supported for complex values");
  const DType out_dtype = kind_of(dtype) == 'f' ? dtype : DType::Float64;
  ExpressionKernel k("kiln_i0");
  const DType compute = itemsize(out_dtype) == 2 ? DType::Float32 : out_dtype;
  const Value xv = k.input(x, compute);
  return k.run(k.expr(out_dtype, cast_text("kiln::ufn::i0(" + xv.name + ")", out_dtype)));
}

NDArray sinc(const UfuncInput& x) {
  ExpressionKernel k("kiln_sinc");
  const Value xv = k.input(x);
  const Value t = k.call("multiply", {weak_float(std::numbers::pi), xv});
  if (kind_of(t.dtype) == 'f') {
    const Value xt = k.as_type(xv, t.dtype);
    return k.run(k.expr(t.dtype, "kiln::ufn::sinc(" + xt.name + ")"));
  }
  // where(t, t, 1e-20): NumPy's sinc guard for complex t.
  const Value e = k.scalar(ScalarValue::python_float(1e-20), t.dtype);
  const Value y = k.expr(t.dtype, "(" + t.name + " != " + c_type(t.dtype) + "(0)) ? " + t.name + " : " + e.name);
  const Value s = k.call("sin", {y});
  return k.run(k.call("divide", {s, y}));
}

NDArray isclose(const UfuncInput& a, const UfuncInput& b, const UfuncInput& rtol, const UfuncInput& atol,
                bool equal_nan) {
  ExpressionKernel k("kiln_isclose");
  return k.run(isclose_value(k, a, b, rtol, atol, equal_nan));
}

bool allclose(const UfuncInput& a, const UfuncInput& b, const UfuncInput& rtol, const UfuncInput& atol,
              bool equal_nan) {
  ExpressionKernel k("kiln_allclose");
  return k.run_all(isclose_value(k, a, b, rtol, atol, equal_nan));
}

bool array_equal(const UfuncInput& a1, const UfuncInput& a2, bool equal_nan) {
  ExpressionKernel k("kiln_array_equal");
  const Value v1 = k.input(a1);
  const Value v2 = k.input(a2);
  Value r = k.call("equal", {v1, v2});
  auto inexact = [](const Value& v) { return !v.weak && (kind_of(v.dtype) == 'f' || kind_of(v.dtype) == 'c'); };
  if (equal_nan && inexact(v1) && inexact(v2)) {
    const Value n1 = k.call("isnan", {v1});
    const Value n2 = k.call("isnan", {v2});
    r = k.expr(DType::Bool, r.name + " || (" + n1.name + " && " + n2.name + ")");
  }
  return k.run_all(r);
}

NDArray around(const NDArray& a, int64_t decimals, const NDArray* out) {
  ExpressionKernel k("kiln_round");
  const char kind = kind_of(a.dtype());
  if ((kind == 'i' || kind == 'u') && decimals >= 0) {
    if (!out) throw std::invalid_argument("around: an integer array with decimals >= 0 is a copy");
    if (!can_cast(a.dtype(), out->dtype(), Casting::SameKind))
      throw TypeError("Cannot cast array data from " + dtype_repr(a.dtype()) + " to " + dtype_repr(out->dtype()) +
                      " according to the rule 'same_kind'");
    return k.run(k.input(UfuncInput::of(a)), out, "round");
  }
  if (kind == 'c') {
    if (out && kind_of(out->dtype()) != 'c') throw TypeError("array does not have imaginary part to set");
    const DType real = real_dtype(a.dtype());
    const Value v = k.input(UfuncInput::of(a));
    const Value re = round_steps(k, k.expr(real, v.name + ".real()"), decimals, real);
    const Value im = round_steps(k, k.expr(real, v.name + ".imag()"), decimals, real);
    return k.run(k.expr(a.dtype(), c_type(a.dtype()) + "(" + re.name + ", " + im.name + ")"), out, "round");
  }
  if (out) return k.run(round_steps(k, k.input(UfuncInput::of(a)), decimals, out->dtype()), out, "round");
  const DType work = kind == 'i' || kind == 'u' ? DType::Float64 : a.dtype();
  const Value r = round_steps(k, k.input(UfuncInput::of(a)), decimals, work);
  return k.run(k.as_type(r, a.dtype()));
}

}  // namespace kiln::arraycore
