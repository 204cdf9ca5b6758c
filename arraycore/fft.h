// The FFT adapter: a plan for one transform shape, type and batch on one
// device, executed on the current stream (fft.cpp), through the backend's
// FFT library (cuFFT on the cuda backend: runtime/libraries.h's FftLibrary,
// Note [Libraries]). kiln.fft (Python)
// prepares the operands, caches plans (kiln/fft/config.py) and normalises;
// on backends without an FFT library it computes with numpy.fft instead and
// makes no FftPlan (Note [FFT on the host backend] in pyfrontend/kiln/fft/_fft.py).
//
//   FftPlan plan({FftKind::C2C, /*double_precision=*/false, {512, 512}, /*batch=*/256});
//   plan.execute(in, out, /*forward=*/true);      // in, out: C-contiguous complex64, 256*512*512 elements
//
// Note [FFT plan layout]
// A plan transforms `batch` arrays of shape `n` (1 to 3 extents) lying back
// to back in C order: cuFFT's basic layout (no inembed/onembed), the one
// layout every caller can produce with one copy (kiln.fft moves the
// transformed axes last, casts and pads in that same copy). Complex sides
// of R2C and C2R plans hold n[-1] / 2 + 1 elements on the last axis.
//
// Note [FFT work areas from kiln's pool]
// cuFFT would allocate each plan's scratch memory itself with cudaMalloc,
// outside kiln's pool: memory kiln's limits and free_all_blocks never see,
// and a cudaMalloc (synchronising) per new plan. kiln turns that off
// (cufftSetAutoAllocation 0), asks the plan for its size (cufftMakePlanMany64's
// work_size) and hands it an allocation from allocate_memory, held by the
// plan and given back when the plan goes. The plan cache's memory limit
// counts these bytes (FftPlan::work_bytes). The work area belongs to the
// plan: two streams must not run one plan at once (as with any cuFFT plan).
// It is allocated in the order of the stream current at creation, and the
// pool hands it out again at once on that stream when the plan goes; a plan
// that ran on another stream therefore synchronises its device before
// giving the work area back (rare: the caches are per thread).
//
// Note [C2R overwrites its input]
// cuFFT's complex-to-real transforms use their input as scratch (multi-
// dimensional ones always; cuFFT documents the input as overwritten for
// out-of-place C2R). execute() therefore takes a C2R input that the caller
// may lose: kiln.fft always passes its own copy (the prepared, padded
// buffer), never the user's array.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "arraycore/ndarray.h"

namespace kiln::runtime {
class FftLibrary;  // runtime/libraries.h
}

namespace kiln::arraycore {

enum class FftKind : uint8_t { C2C, R2C, C2R };

// What a plan transforms (Note [FFT plan layout]).
struct FftDesc {
  FftKind kind = FftKind::C2C;
  bool double_precision = false;  // complex128/float64, else complex64/float32
  Shape n;                        // 1 to 3 extents, each >= 1; the real side's for R2C and C2R
  int64_t batch = 1;              // >= 1
};

class FftPlan {
 public:
  // Makes the library's plan on the current device, its work area from
  // kiln's pool (Note [FFT work areas from kiln's pool]). Throws
  // std::invalid_argument for a bad desc, runtime::Error when the backend
  // has no FFT library (not cuda, or libcufft does not load) or the library
  // fails (naming its status).
  explicit FftPlan(FftDesc desc);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  const FftDesc& desc() const { return desc_; }
  int device() const { return device_; }
  size_t work_bytes() const;             // the work area's size (0: none)
  DType input_dtype() const;
  DType output_dtype() const;
  Shape input_shape() const;             // (batch, *extents) of the input
  Shape output_shape() const;

  // out = the transform of in, queued on the current stream of the plan's
  // device; `forward` picks the sign of C2C transforms (R2C is forward, C2R
  // inverse, whatever it says). Unnormalised, as cuFFT computes. in and out
  // are C-contiguous, of input_dtype()/output_dtype() and input_shape()/
  // output_shape()'s sizes, on the plan's device; C2C may run in place
  // (in and out the same array). A C2R input is overwritten (Note [C2R
  // overwrites its input]). Throws std::invalid_argument naming what does
  // not match, runtime::Error when cuFFT fails.
  void execute(const NDArray& in, const NDArray& out, bool forward) const;

 private:
  FftDesc desc_;
  int device_ = 0;
  runtime::FftLibrary* library_ = nullptr;  // the backend's, which lives as long as the process
  int64_t plan_ = -1;                    // the library's plan id
  std::shared_ptr<Memory> work_;         // the plan's work area (null when it needs none)
  void* work_stream_ = nullptr;          // the stream current when work_ was allocated
  mutable bool ran_elsewhere_ = false;   // executed on a stream other than work_stream_
};

// Whether FftPlan can be made now: the backend has an FFT library (cuda,
// and libcufft loads); `why_not` (optional) says why not.
bool fft_usable(std::string* why_not);

}  // namespace kiln::arraycore
