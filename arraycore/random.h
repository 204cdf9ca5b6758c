// kiln.random's kernels: one table of distributions (random.cpp) made into
// elementwise-engine specs (arraycore/elementwise.h) over the device
// functions of stdlib_kernels/kiln/philox.h and random_distributions.h, and
// the launches that draw from them. The Python layer (pyfrontend/kiln/random)
// checks the arguments and shapes; the numbers come from here.
//
//   PhiloxTake take = [&](int64_t units) { return generator.take(units); };
//   RandomParam loc{.value = 0.0}, scale{.array = &scales};     // scalars or arrays
//   RandomParam params[] = {loc, scale};
//   NDArray x = random_draw("normal", DType::Float32, params, {2, 3}, take);
//
// A distribution is of one of four kinds (Note [Random counters] in
// stdlib_kernels/kiln/philox.h):
// - UniformCO / UniformOO: a map of one uniform u in [0, 1) or (0, 1);
// - Normal: a map of one standard normal z (Box-Muller pairs);
// - Stream: a sampler with its own Stream `s` per element (rejection).
// The first three take a whole block of 4 words per unit: 4 float or 2
// double outputs. With scalar parameters one thread makes a unit's outputs
// and stores them at once (the "unit" kernel); with array parameters each
// element finds its unit and lane and computes the same value (the
// "element" kernel), so the numbers do not depend on how the parameters
// were given.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// The kernels' (key0, key1, ctr_lo, ctr_hi): a generator's 64-bit key and
// the 128-bit counter a launch starts from.
struct PhiloxKey {
  uint32_t key0 = 0, key1 = 0;
  uint64_t ctr_lo = 0, ctr_hi = 0;
};

// Called once per launch with the number of units the launch uses: the key
// and counter to start from, the generator's counter moved past them.
using PhiloxTake = std::function<PhiloxKey(int64_t units)>;

enum class RandomKind { UniformCO, UniformOO, Normal, Stream };

struct RandomDistribution {
  std::string_view name;
  RandomKind kind;
  std::array<std::string_view, 3> params;  // parameter names, in the kernel's order ("" after the last)
  int nparams;
  // C++ of the value: of u, z or s and the params, all of the arithmetic type F.
  std::string_view expr;
  // The output dtype, or none for the float dtype asked for. Integer-valued
  // distributions compute in double.
  std::optional<DType> out;
};

// The table's row for `name`; std::invalid_argument for an unknown one.
const RandomDistribution& random_distribution(std::string_view name);

// (F, output dtype) of `dist` asked for in `dtype`: TypeError unless dtype is
// float32 or float64, or, for a distribution whose output is its own (F is
// then float64), that output dtype.
std::pair<DType, DType> random_types(const RandomDistribution& dist, DType dtype);

// A distribution's parameter: a scalar, or an array broadcastable to the
// output's shape (converted to F).
struct RandomParam {
  const NDArray* array = nullptr;
  double value = 0;
};

// Samples of `dist` of `shape`, in a new array of the output dtype, or in
// `out` (C-contiguous, of that shape and dtype) when given.
NDArray random_draw(std::string_view dist, DType dtype, std::span<const RandomParam> params, const Shape& shape,
                    const PhiloxTake& take, const NDArray* out = nullptr);

// Note [Samples in any dtype]
// NumPy's Generator draws only in its own dtypes (float32/float64, or int64
// for the discrete distributions): random_draw raises TypeError for others.
// CuPy's legacy API (RandomState and the module functions) takes any dtype:
// int8 binomial counts, float16 betas, even an integer dtype for a
// continuous distribution. random_draw_as draws in the natural dtype
// (float32 for float16 and float32, else float64; int64 for discrete) and
// casts, as NumPy's asarray(samples, dtype) would.
NDArray random_draw_as(std::string_view dist, DType dtype, std::span<const RandomParam> params, const Shape& shape,
                       const PhiloxTake& take);

// Philox words as they come: uint32 (4 a block) or uint64 (2 a block, high word first).
NDArray random_words(DType dtype, const Shape& shape, const PhiloxTake& take);

// A bound of random_integers: a uint64 scalar or a uint64 array.
struct RandomBound {
  const NDArray* array = nullptr;
  uint64_t value = 0;
};

// Uniform integers low + [0, span] (span = high - low, at most 2^64 - 1) in
// `dtype`, without bias (kiln::random::bounded); low and span broadcast to
// `shape` (low is taken mod 2^64 and the sum wraps into dtype as two's
// complement).
NDArray random_integers(DType dtype, const Shape& shape, RandomBound low, RandomBound span, const PhiloxTake& take);

// Counts of n[r] draws over the k categories of pvals[r] for each row r of
// `shape` (output shape + (k,), int64): binomials of what is left, category
// by category, each row from its own Stream. `n` is a C-contiguous int64
// array of shape `shape` (or of one element, for every row); `pvals` a
// float64 one of shape `shape` + (k,) (or (k,), for every row).
NDArray random_multinomial(const NDArray& n, const NDArray& pvals, const Shape& shape, const PhiloxTake& take);

// Counts of each colour among nsample items drawn without replacement from
// colors[j] items of colour j (total in all), per row of `shape` (output
// shape + (k,), int64): hypergeometric draws colour by colour from what is
// left, each row from its own Stream. `colors` is a C-contiguous int64 array
// of shape (k,).
NDArray random_multivariate_hypergeometric(const NDArray& colors, int64_t total, int64_t nsample, const Shape& shape,
                                           const PhiloxTake& take);

// Dirichlet samples of shape `shape` (size + (k,): it ends in k) in `dtype`
// (float32 or float64, TypeError otherwise) for the k alphas of the float64
// array `alpha`: log gammas of shapes alpha, then per row exp(logs - max) /
// sum (Note [Dirichlet in logarithms] in stdlib_kernels/kiln/random_distributions.h).
// With `any_dtype` (the legacy API, Note [Samples in any dtype]) any other
// dtype is a cast of the float64 rows.
NDArray random_dirichlet(const NDArray& alpha, const Shape& shape, DType dtype, const PhiloxTake& take,
                         bool any_dtype = false);

}  // namespace kiln::arraycore
