// numpy.correlate and numpy.convolve of 1-d arrays (convolution.cpp): NumPy's
// checks, modes and result dtypes, and the direct method, one thread per
// output element. kiln/_numeric.py takes the FFT route instead where
// correlate_by_fft says so (Note [Correlation by FFT]).
//
//   NDArray c = correlate(a, v, CorrelateMode::Same, CorrelateKind::Correlate);
//   NDArray k = correlate(a, v, CorrelateMode::Full, CorrelateKind::Convolve);
//
// Note [Correlation lags]
// NumPy's correlate(a, v) for n1 = len(a) >= n2 = len(v) is
// out[k] = sum_n a[n + k - n_left] * conj(v[n]) for k < length, with
// (length, n_left) = (n1 - n2 + 1, 0) 'valid', (n1, n2 / 2) 'same',
// (n1 + n2 - 1, n2 - 1) 'full'. For n1 < n2 it swaps the operands, computes
// the same with the shorter a, and reverses the result: out[k] is then the
// same sum at lag k - (length - 1 - n_left), n_left from the swapped
// lengths. Both are one formula, out[k] = c[k - offset] for the full
// correlation c at lags -(n2 - 1) .. n1 - 1: correlate_window gives offset
// and length, and the direct kernel sums each output's overlap of a and v
// (integers in 64-bit wrapping arithmetic: NumPy's modular results; float16
// in float, as NumPy's dot; bool: any a[i] and v[j]). convolve(a, v) is
// NumPy's: ndmin=1 operands, the longer first, correlate of v reversed and
// not conjugated.
//
// Note [Correlation by FFT]
// As CuPy, floating and complex operands above a size are correlated as a
// product of FFTs: kiln/_numeric.py transforms a and v reversed (conjugated
// for correlate) zero-padded to n1 + n2 - 1, multiplies, transforms back and
// takes the correlate_window slice, cast to the result dtype. Its rounding
// differs from the direct sum's by the FFT's (relative to the largest
// outputs). Integers and bool are always summed directly, exactly.
#pragma once

#include <cstdint>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

enum class CorrelateMode : int { Valid = 0, Same = 1, Full = 2 };
enum class CorrelateKind : int { Correlate, Convolve };

// The output's lags in the full correlation (Note [Correlation lags]):
// out[k] = c[start + k], start = n2 - 1 - offset, for k < length.
struct CorrelateWindow {
  int64_t start = 0;
  int64_t length = 0;
};
CorrelateWindow correlate_window(int64_t n1, int64_t n2, CorrelateMode mode);

// What numpy.correlate(a, v, mode) / numpy.convolve(a, v, mode) computes,
// after NumPy's checks (ValueError: operands not 1-d, or empty; convolve
// takes 0-d operands as 1-d and the longer first): the correlation of the
// 1-d `a` and `w` (v for correlate, conjugated in the sum; v reversed for
// convolve), its result dtype and lags, and whether the FFT route is the
// faster (Note [Correlation by FFT]).
struct CorrelatePlan {
  NDArray a, w;
  bool conjugate = false;
  DType dtype = DType::Float64;
  CorrelateWindow window;
  bool by_fft = false;
};
CorrelatePlan correlate_plan(const NDArray& a, const NDArray& v, CorrelateMode mode, CorrelateKind kind);

// The correlation by the direct method: one thread per output element.
NDArray correlate_direct(const CorrelatePlan& plan);

// The operand u the FFT route convolves `a` with: w reversed, conjugated for correlate.
NDArray fft_operand(const CorrelatePlan& plan);

}  // namespace kiln::arraycore
