#include "arraycore/fft.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/copy.h"
#include "runtime/backend.h"
#include "runtime/errors.h"
#include "runtime/libraries.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

runtime::FftLibrary& fft_or_throw() {
  std::string why;
  runtime::FftLibrary* library = runtime::backend().libraries().fft(&why);
  if (!library) throw runtime::Error("kiln.fft cannot use cuFFT: " + why);
  return *library;
}

runtime::FftType fft_type_of(FftKind kind) {
  switch (kind) {
    case FftKind::C2C: return runtime::FftType::C2C;
    case FftKind::R2C: return runtime::FftType::R2C;
    case FftKind::C2R: return runtime::FftType::C2R;
  }
  return runtime::FftType::C2C;
}

// (batch, *n) with the complex side's last extent halved where the kind says.
Shape side_shape(const FftDesc& d, bool complex_side) {
  Shape s{d.batch};
  s.insert(s.end(), d.n.begin(), d.n.end());
  if (complex_side && d.kind != FftKind::C2C) s.back() = s.back() / 2 + 1;
  return s;
}

void check_operand(const NDArray& x, const char* what, DType dtype, const Shape& shape, int device) {
  if (x.dtype() != dtype)
    throw std::invalid_argument(std::string("FFT plan: ") + what + " must be " + std::string(dtype_info(dtype).name) +
                                ", got " + std::string(dtype_info(x.dtype()).name));
  if (x.size() != shape_size(shape) || !x.c_contiguous())
    throw std::invalid_argument(std::string("FFT plan: ") + what + " must be C-contiguous with the " +
                                std::to_string(shape_size(shape)) + " elements of " + shape_repr(shape) +
                                " the plan was made for");
  if (x.device() != device)
    throw std::invalid_argument(std::string("FFT plan: ") + what + " is on device " + std::to_string(x.device()) +
                                ", the plan on device " + std::to_string(device));
}

}  // namespace

bool fft_usable(std::string* why_not) { return runtime::backend().libraries().fft(why_not) != nullptr; }

FftPlan::FftPlan(FftDesc desc) : desc_(std::move(desc)) {
  if (desc_.n.empty() || desc_.n.size() > 3)
    throw std::invalid_argument("FFT plan: 1 to 3 transform extents, got " + std::to_string(desc_.n.size()));
  for (int64_t e : desc_.n)
    if (e < 1) throw std::invalid_argument("FFT plan: transform extents must be >= 1, got " + shape_repr(desc_.n));
  if (desc_.batch < 1) throw std::invalid_argument("FFT plan: batch must be >= 1");
  runtime::FftLibrary& library = fft_or_throw();
  device_ = runtime::backend().current_device();
  size_t work_size = 0;
  const int64_t plan = library.make_plan(device_, fft_type_of(desc_.kind), desc_.double_precision,
                                         std::vector<int64_t>(desc_.n.begin(), desc_.n.end()), desc_.batch,
                                         &work_size);
  try {
    // Note [FFT work areas from kiln's pool]: the library allocates nothing itself.
    if (work_size > 0) {
      work_stream_ = runtime::current_stream();
      work_ = allocate_memory(work_size);
      library.set_work_area(plan, work_->ptr());
    }
  } catch (...) {
    library.destroy_plan(plan, device_, false);
    throw;
  }
  library_ = &library;
  plan_ = plan;
}

FftPlan::~FftPlan() {
  if (plan_ < 0) return;
  // Note [FFT work areas from kiln's pool]: the last run on another stream
  // must finish before the pool reuses the work area on work_stream_ (work_
  // goes back to the pool after this).
  library_->destroy_plan(plan_, device_, work_ && ran_elsewhere_);
}

size_t FftPlan::work_bytes() const { return work_ ? work_->nbytes() : 0; }

DType FftPlan::input_dtype() const {
  const bool real = desc_.kind == FftKind::R2C;
  if (real) return desc_.double_precision ? DType::Float64 : DType::Float32;
  return desc_.double_precision ? DType::Complex128 : DType::Complex64;
}

DType FftPlan::output_dtype() const {
  const bool real = desc_.kind == FftKind::C2R;
  if (real) return desc_.double_precision ? DType::Float64 : DType::Float32;
  return desc_.double_precision ? DType::Complex128 : DType::Complex64;
}

Shape FftPlan::input_shape() const { return side_shape(desc_, desc_.kind == FftKind::C2R); }
Shape FftPlan::output_shape() const { return side_shape(desc_, desc_.kind == FftKind::R2C); }

void FftPlan::execute(const NDArray& in, const NDArray& out, bool forward) const {
  check_operand(in, "the input", input_dtype(), input_shape(), device_);
  check_operand(out, "the output", output_dtype(), output_shape(), device_);
  // In place means the very same elements; any other overlap is refused.
  const bool in_place = in.memory() == out.memory() && in.data() == out.data();
  if (desc_.kind != FftKind::C2C ? shares_bytes(in, out) : (!in_place && shares_bytes(in, out)))
    throw std::invalid_argument(desc_.kind != FftKind::C2C
                                    ? "FFT plan: real-to-complex and complex-to-real transforms run out of place"
                                    : "FFT plan: the output overlaps the input without being the same array");
  if (runtime::backend().current_device() != device_)
    throw std::invalid_argument("FFT plan: made on device " + std::to_string(device_) + ", the current device is " +
                                std::to_string(runtime::backend().current_device()));
  runtime::FftLibrary& library = fft_or_throw();
  runtime::StreamHandle stream = runtime::current_stream();
  if (stream != work_stream_) ran_elsewhere_ = true;
  library.execute(plan_, device_, stream, fft_type_of(desc_.kind), desc_.double_precision, in.data(), out.data(),
                  forward);
}

}  // namespace kiln::arraycore
