// The ufunc table: one row per NumPy ufunc (name, arity, identity, type
// loops, resolver, doc), read through ufunc() / all_ufuncs() (ufunc.h).
//
//   const UfuncDef& d = ufunc("true_divide");   // the `divide` row: d.name == "divide"
//   d.loops[d.user_loops].in == {Float16, Float16}   // "ee->e", NumPy's first loop for kiln dtypes
//
// Note [Loop lists]
// Each row's loops are NumPy's `ufunc.types`, in NumPy's order, restricted to
// kiln's dtypes: loops using long double, object, datetime or timedelta are
// left out, NumPy's 'l'/'L' (int64/uint64 on LP64) are written as 'q'/'Q', and
// a loop that repeats an earlier one (NumPy lists ee->e twice for exp2, and
// ll->l right before qq->q) keeps its first position only. The order is what
// the linear search of ufunc_types.cpp walks, so it decides the result dtype;
// tests/python/core/test_ufunc_types.py compares every row with NumPy's.
// (Bool loops are spelled "?\?->?": "??-" would read as a trigraph.)
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "arraycore/ufunc.h"

namespace kiln::arraycore {
namespace {

// Loop lists shared by several ufuncs, as NumPy type strings.
constexpr const char* kInts2 = "bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q";
constexpr const char* kIntsFloats2 = "bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q ee->e ff->f dd->d";
constexpr const char* kNumeric2 = "bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q ee->e ff->f dd->d FF->F DD->D";
constexpr const char* kAll2 = "?\?->? bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q ee->e ff->f dd->d FF->F DD->D";
constexpr const char* kFloats2 = "ee->e ff->f dd->d";
constexpr const char* kNumeric1 = "b->b B->B h->h H->H i->i I->I q->q Q->Q e->e f->f d->d F->F D->D";
constexpr const char* kFloats1 = "e->e f->f d->d";
constexpr const char* kInexact1 = "e->e f->f d->d F->F D->D";
constexpr const char* kRounding1 = "?->? b->b B->B h->h H->H i->i I->I q->q Q->Q e->e f->f d->d";
constexpr const char* kComparison =
    "?\?->? bb->? BB->? hh->? HH->? ii->? II->? qq->? QQ->? qQ->? Qq->? ee->? ff->? dd->? FF->? DD->?";
constexpr const char* kLogical2 = "?\?->? bb->? BB->? hh->? HH->? ii->? II->? qq->? QQ->? ee->? ff->? dd->? FF->? DD->?";
constexpr const char* kPredicate1 = "?->? b->? B->? h->? H->? i->? I->? q->? Q->? e->? f->? d->? F->? D->?";

struct Row {
  const char* name;
  int nin, nout;
  Identity identity;
  const char* loops;
  Resolver resolver;
  const char* doc;
};

using I = Identity;
using R = Resolver;

// clang-format off
constexpr Row kRows[] = {
  {"add", 2, 1, I::Zero, kAll2, R::Default, "Sum of the arguments, elementwise."},
  {"subtract", 2, 1, I::None_, kNumeric2, R::NoBoolArithmetic, "Difference of the arguments, elementwise."},
  {"multiply", 2, 1, I::One, kAll2, R::Default, "Product of the arguments, elementwise."},
  {"divide", 2, 1, I::None_, "ee->e ff->f dd->d FF->F DD->D", R::TrueDivide,
   "True division of the arguments, elementwise; integers divide as float64."},
  {"floor_divide", 2, 1, I::None_, kIntsFloats2, R::Default,
   "Largest integer not above the quotient of the arguments, elementwise."},
  {"power", 2, 1, I::None_, kNumeric2, R::Default, "First argument raised to the second, elementwise."},
  {"float_power", 2, 1, I::None_, "dd->d DD->D", R::Default,
   "First argument raised to the second, computed in float64 or complex128."},
  {"remainder", 2, 1, I::None_, kIntsFloats2, R::Default,
   "Remainder of floor division, with the sign of the divisor, elementwise."},
  {"fmod", 2, 1, I::None_, kIntsFloats2, R::Default,
   "Remainder of truncated division, with the sign of the dividend, elementwise (C fmod)."},
  {"divmod", 2, 2, I::None_,
   "bb->bb BB->BB hh->hh HH->HH ii->ii II->II qq->qq QQ->QQ ee->ee ff->ff dd->dd", R::Default,
   "Floor quotient and remainder of the arguments, elementwise, as two outputs."},
  {"negative", 1, 1, I::None_, kNumeric1, R::NoBoolArithmetic, "Numerical negative, elementwise."},
  {"positive", 1, 1, I::None_, kNumeric1, R::Promoted, "Numerical positive (a copy of the value), elementwise."},
  {"absolute", 1, 1, I::None_,
   "?->? b->b B->B h->h H->H i->i I->I q->q Q->Q e->e f->f d->d F->f D->d", R::Absolute,
   "Absolute value elementwise; the magnitude, as a real number, for complex input."},
  {"fabs", 1, 1, I::None_, kFloats1, R::Default, "Absolute value of real floats, elementwise."},
  {"sign", 1, 1, I::None_, kNumeric1, R::Promoted,
   "-1, 0 or 1 by the sign of each element (x/|x| for complex), nan for nan."},
  {"heaviside", 2, 1, I::None_, kFloats2, R::Default,
   "Heaviside step: 0 below zero, 1 above, the second argument at zero."},
  {"conjugate", 1, 1, I::None_, kNumeric1, R::Default, "Complex conjugate, elementwise (the value for reals)."},
  {"exp", 1, 1, I::None_, kInexact1, R::Default, "e to the power of each element."},
  {"exp2", 1, 1, I::None_, kInexact1, R::Default, "2 to the power of each element."},
  {"expm1", 1, 1, I::None_, kInexact1, R::Default, "exp(x) - 1, accurate for small x, elementwise."},
  {"log", 1, 1, I::None_, kInexact1, R::Default, "Natural logarithm, elementwise."},
  {"log2", 1, 1, I::None_, kInexact1, R::Default, "Base-2 logarithm, elementwise."},
  {"log10", 1, 1, I::None_, kInexact1, R::Default, "Base-10 logarithm, elementwise."},
  {"log1p", 1, 1, I::None_, kInexact1, R::Default, "log(1 + x), accurate for small x, elementwise."},
  {"logaddexp", 2, 1, I::NegInf, kFloats2, R::Default, "log(exp(x1) + exp(x2)) without overflow, elementwise."},
  {"logaddexp2", 2, 1, I::NegInf, kFloats2, R::Default,
   "log2(2**x1 + 2**x2) without overflow, elementwise."},
  {"sqrt", 1, 1, I::None_, kInexact1, R::Default, "Non-negative square root, elementwise."},
  {"cbrt", 1, 1, I::None_, kFloats1, R::Default, "Real cube root, elementwise."},
  {"square", 1, 1, I::None_, kNumeric1, R::Default, "x * x, elementwise."},
  {"reciprocal", 1, 1, I::None_, kNumeric1, R::Default, "1 / x, elementwise (integer division for integers)."},
  {"gcd", 2, 1, I::Zero, kInts2, R::Promoted, "Greatest common divisor of the absolute values, elementwise."},
  {"lcm", 2, 1, I::None_, kInts2, R::Promoted, "Lowest common multiple of the absolute values, elementwise."},
  {"sin", 1, 1, I::None_, kInexact1, R::Default, "Sine of radians, elementwise."},
  {"cos", 1, 1, I::None_, kInexact1, R::Default, "Cosine of radians, elementwise."},
  {"tan", 1, 1, I::None_, kInexact1, R::Default, "Tangent of radians, elementwise."},
  {"arcsin", 1, 1, I::None_, kInexact1, R::Default, "Inverse sine, in radians, elementwise."},
  {"arccos", 1, 1, I::None_, kInexact1, R::Default, "Inverse cosine, in radians, elementwise."},
  {"arctan", 1, 1, I::None_, kInexact1, R::Default, "Inverse tangent, in radians, elementwise."},
  {"arctan2", 2, 1, I::None_, kFloats2, R::Default,
   "Angle of the point (x2, x1) from the positive x axis, in radians, elementwise."},
  {"hypot", 2, 1, I::Zero, kFloats2, R::Default, "sqrt(x1**2 + x2**2) without undue overflow, elementwise."},
  {"sinh", 1, 1, I::None_, kInexact1, R::Default, "Hyperbolic sine, elementwise."},
  {"cosh", 1, 1, I::None_, kInexact1, R::Default, "Hyperbolic cosine, elementwise."},
  {"tanh", 1, 1, I::None_, kInexact1, R::Default, "Hyperbolic tangent, elementwise."},
  {"arcsinh", 1, 1, I::None_, kInexact1, R::Default, "Inverse hyperbolic sine, elementwise."},
  {"arccosh", 1, 1, I::None_, kInexact1, R::Default, "Inverse hyperbolic cosine, elementwise."},
  {"arctanh", 1, 1, I::None_, kInexact1, R::Default, "Inverse hyperbolic tangent, elementwise."},
  {"deg2rad", 1, 1, I::None_, kFloats1, R::Default, "Degrees converted to radians, elementwise."},
  {"rad2deg", 1, 1, I::None_, kFloats1, R::Default, "Radians converted to degrees, elementwise."},
  {"degrees", 1, 1, I::None_, kFloats1, R::Default, "Radians converted to degrees, elementwise (rad2deg)."},
  {"radians", 1, 1, I::None_, kFloats1, R::Default, "Degrees converted to radians, elementwise (deg2rad)."},
  {"bitwise_and", 2, 1, I::AllOnes, "?\?->? bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q", R::Default,
   "Bitwise AND of integers or booleans, elementwise."},
  {"bitwise_or", 2, 1, I::Zero, "?\?->? bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q", R::Default,
   "Bitwise OR of integers or booleans, elementwise."},
  {"bitwise_xor", 2, 1, I::Zero, "?\?->? bb->b BB->B hh->h HH->H ii->i II->I qq->q QQ->Q", R::Default,
   "Bitwise XOR of integers or booleans, elementwise."},
  {"invert", 1, 1, I::None_, "?->? b->b B->B h->h H->H i->i I->I q->q Q->Q", R::Default,
   "Bitwise NOT of integers, logical NOT of booleans, elementwise."},
  {"left_shift", 2, 1, I::None_, kInts2, R::Default, "Bits of x1 shifted left by x2 places, elementwise."},
  {"right_shift", 2, 1, I::None_, kInts2, R::Default, "Bits of x1 shifted right by x2 places, elementwise."},
  {"greater", 2, 1, I::None_, kComparison, R::Comparison, "x1 > x2, elementwise."},
  {"greater_equal", 2, 1, I::None_, kComparison, R::Comparison, "x1 >= x2, elementwise."},
  {"less", 2, 1, I::None_, kComparison, R::Comparison, "x1 < x2, elementwise."},
  {"less_equal", 2, 1, I::None_, kComparison, R::Comparison, "x1 <= x2, elementwise."},
  {"equal", 2, 1, I::None_, kComparison, R::Comparison, "x1 == x2, elementwise."},
  {"not_equal", 2, 1, I::None_, kComparison, R::Comparison, "x1 != x2, elementwise."},
  {"logical_and", 2, 1, I::True_, kLogical2, R::Logical, "Truth of x1 AND x2, elementwise."},
  {"logical_or", 2, 1, I::False_, kLogical2, R::Logical, "Truth of x1 OR x2, elementwise."},
  {"logical_xor", 2, 1, I::False_, kLogical2, R::Logical, "Truth of x1 XOR x2, elementwise."},
  {"logical_not", 1, 1, I::None_, kPredicate1, R::Default, "Truth of NOT x, elementwise."},
  {"maximum", 2, 1, I::None_, kAll2, R::Default, "Larger of the arguments, elementwise; nan if either is nan."},
  {"minimum", 2, 1, I::None_, kAll2, R::Default, "Smaller of the arguments, elementwise; nan if either is nan."},
  {"fmax", 2, 1, I::None_, kAll2, R::Default, "Larger of the arguments, elementwise, ignoring a single nan."},
  {"fmin", 2, 1, I::None_, kAll2, R::Default, "Smaller of the arguments, elementwise, ignoring a single nan."},
  {"isfinite", 1, 1, I::None_, kPredicate1, R::Default, "True where the element is neither infinite nor nan."},
  {"isinf", 1, 1, I::None_, kPredicate1, R::Default, "True where the element is positive or negative infinity."},
  {"isnan", 1, 1, I::None_, kPredicate1, R::Default, "True where the element is nan."},
  {"signbit", 1, 1, I::None_, "e->? f->? d->?", R::Default, "True where the sign bit is set (-0.0 included)."},
  {"copysign", 2, 1, I::None_, kFloats2, R::Default, "Magnitude of x1 with the sign of x2, elementwise."},
  {"nextafter", 2, 1, I::None_, kFloats2, R::Default, "Next representable float after x1 towards x2, elementwise."},
  {"spacing", 1, 1, I::None_, kFloats1, R::Default,
   "Distance from x to the next representable float away from zero, elementwise."},
  {"modf", 1, 2, I::None_, "e->ee f->ff d->dd", R::Default,
   "Fractional and integral parts, both with the sign of x, elementwise."},
  {"ldexp", 2, 1, I::None_, "ei->e fi->f eq->e fq->f di->d dq->d", R::MixedInputs,
   "x1 * 2**x2 for an integer x2, elementwise."},
  {"frexp", 1, 2, I::None_, "e->ei f->fi d->di", R::Default,
   "Mantissa in [0.5, 1) and integer exponent of x, elementwise."},
  {"floor", 1, 1, I::None_, kRounding1, R::Default, "Largest integer not above x, elementwise."},
  {"ceil", 1, 1, I::None_, kRounding1, R::Default, "Smallest integer not below x, elementwise."},
  {"trunc", 1, 1, I::None_, kRounding1, R::Default, "x rounded towards zero, elementwise."},
  {"rint", 1, 1, I::None_, kInexact1, R::Default, "x rounded to the nearest integer, ties to even, elementwise."},
};
// clang-format on

// Names that are the same ufunc object in NumPy.
constexpr std::pair<const char*, const char*> kAliases[] = {
    {"true_divide", "divide"}, {"mod", "remainder"}, {"conj", "conjugate"},
    {"bitwise_not", "invert"}, {"abs", "absolute"},
};

DType dtype_of_char(char c) {
  std::optional<DType> d = dtype_from_char(c);
  if (!d) throw std::logic_error(std::string("ufunc table: no kiln dtype for type char '") + c + "'");
  return *d;
}

// "bb->b BB->B" -> loops; the arity is checked against the row.
std::vector<UfuncLoop> parse_loops(const Row& row) {
  std::vector<UfuncLoop> loops;
  std::string_view spec = row.loops;
  while (!spec.empty()) {
    size_t end = spec.find(' ');
    std::string_view one = spec.substr(0, end);
    spec = end == std::string_view::npos ? std::string_view() : spec.substr(end + 1);
    size_t arrow = one.find("->");
    if (arrow != size_t(row.nin) || one.size() != arrow + 2 + row.nout)
      throw std::logic_error("ufunc table: loop '" + std::string(one) + "' of " + row.name + " has the wrong arity");
    UfuncLoop loop;
    for (char c : one.substr(0, arrow)) loop.in.push_back(dtype_of_char(c));
    for (char c : one.substr(arrow + 2)) loop.out.push_back(dtype_of_char(c));
    loops.push_back(std::move(loop));
  }
  return loops;
}

// Note [Bfloat16 loops]
// ml_dtypes registers a bfloat16 loop for every ufunc that has a float16 one
// (the same signature with 'E' for 'e'), except degrees and radians (which
// then run ff->f, as NumPy does) and, for ldexp, only Ei->E. NumPy searches a
// user dtype's loops before its own ones, and only when an operand (or
// dtype=) is bfloat16: so they come first here, and ufunc_types.cpp skips
// them otherwise. NumPy's `types` does not list them, nor does kiln's
// (UfuncDef::user_loops); CuPy's does (its tests drop them).
std::vector<UfuncLoop> bfloat16_loops(const Row& row, const std::vector<UfuncLoop>& loops) {
  std::vector<UfuncLoop> out;
  const std::string_view name = row.name;
  if (name == "degrees" || name == "radians") return out;
  for (const UfuncLoop& loop : loops) {
    auto is_half = [](DType d) { return d == DType::Float16; };
    if (std::none_of(loop.in.begin(), loop.in.end(), is_half) && std::none_of(loop.out.begin(), loop.out.end(), is_half))
      continue;
    if (name == "ldexp" && loop.in[1] != DType::Int32) continue;
    UfuncLoop b = loop;
    for (DType& d : b.in) d = is_half(d) ? DType::BFloat16 : d;
    for (DType& d : b.out) d = is_half(d) ? DType::BFloat16 : d;
    out.push_back(std::move(b));
  }
  return out;
}

struct Table {
  std::vector<UfuncDef> defs;
  std::unordered_map<std::string_view, const UfuncDef*> by_name;
};

const Table& table() {
  static const Table t = [] {
    Table t;
    t.defs.reserve(std::size(kRows));
    for (const Row& row : kRows) {
      UfuncDef d;
      d.name = row.name;
      d.nin = row.nin;
      d.nout = row.nout;
      d.identity = row.identity;
      d.loops = parse_loops(row);
      std::vector<UfuncLoop> bf16 = bfloat16_loops(row, d.loops);
      d.loops.insert(d.loops.begin(), bf16.begin(), bf16.end());
      d.user_loops = bf16.size();
      d.device_fn = std::string("kiln::ufn::") + row.name;
      d.resolver = row.resolver;
      d.doc = row.doc;
      t.defs.push_back(std::move(d));
    }
    for (const UfuncDef& d : t.defs) t.by_name.emplace(d.name, &d);
    for (auto [alias, name] : kAliases) t.by_name.emplace(alias, t.by_name.at(name));
    return t;
  }();
  return t;
}

}  // namespace

const UfuncDef& ufunc(std::string_view name) {
  const auto& by_name = table().by_name;
  auto it = by_name.find(name);
  if (it == by_name.end()) throw std::out_of_range("kiln has no ufunc named '" + std::string(name) + "'");
  return *it->second;
}

const std::vector<UfuncDef>& all_ufuncs() { return table().defs; }

}  // namespace kiln::arraycore
