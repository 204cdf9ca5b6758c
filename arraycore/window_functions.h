// NumPy's window functions (window_functions.cpp): bartlett, blackman,
// hamming, hanning and kaiser, each NumPy's ufunc steps in one
// ExpressionKernel over n = arange(1 - M, M, 2) (kaiser: arange(0, M)), in
// float64 (Note [One kernel per function]).
//
//   NDArray w = window(Window::Hanning, 64, 0);       // numpy.hanning(64)
//   NDArray k = window(Window::Kaiser, 10, 8.6);      // numpy.kaiser(10, 8.6)
#pragma once

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

enum class Window { Bartlett, Blackman, Hamming, Hanning, Kaiser };

// The window of M points (float64; empty for M < 1, [1.0] for M == 1).
NDArray window(Window kind, double M, double beta);

}  // namespace kiln::arraycore
