// Elements picked from several operands (selection.cpp): by an index array
// (numpy.choose) or by the first true condition (numpy.select).
//
//   UfuncInput cs[] = {UfuncInput::of(x), UfuncInput::of(y)};   // arrays or scalars
//   NDArray r = choose(idx, cs, ChooseMode::Clip);                // x or y per element, by idx
//   UfuncInput conds[] = {UfuncInput::of(c0)}, vals[] = {UfuncInput::of(x), zero};
//   NDArray s = select(conds, vals);                              // x where c0, else 0
//
// Note [Selection kernels]
// Each call is one elementwise-engine launch over the broadcast shape of
// every array operand, generated per number of operands (a switch over the
// choices, a chain of ifs over the conditions) and per operand dtypes; a
// scalar operand is a scalar param holding its value cast to the result
// dtype as NumPy casts numpy.asarray(value) (unsafely: choose([...],
// [int8s, 500]) wraps 500 as NumPy does). choose's ChooseMode::Raise checks
// indices on the device and reads one flag back (one sync) to raise.
#pragma once

#include <optional>
#include <span>

#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

enum class ChooseMode { Raise, Wrap, Clip };

// choices[index[...]][...] per element, in the choices' common dtype (NEP
// 50: Python scalars weak). `index` must hold integers or bools (TypeError,
// NumPy's 'safe' cast message, otherwise); no choices: std::invalid_argument
// "0-length sequence."; an index out of range with ChooseMode::Raise:
// std::invalid_argument "invalid entry in choice array".
NDArray choose(const NDArray& index, std::span<const UfuncInput> choices, ChooseMode mode);

// Per element, values[k] for the first k whose conditions[k] holds, else
// values.back() (the default): conditions are bool arrays or bool scalars,
// values.size() == conditions.size() + 1, all broadcast together. The result
// has the common dtype of the values; each choice (not the default) must
// cast to it under same_kind (a Python scalar as NumPy's default dtype of its
// kind), as NumPy's select checks (TypeError).
NDArray select(std::span<const UfuncInput> conditions, std::span<const UfuncInput> values);

}  // namespace kiln::arraycore
