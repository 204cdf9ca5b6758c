#include "arraycore/fft.h"

#include <algorithm>
#include <stdexcept>

#include "arraycore/copy.h"
#include "runtime/backend.h"
#include "runtime/cuda/cufft_api.h"
#include "runtime/cuda/driver_api.h"
#include "runtime/errors.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

namespace rc = runtime::cuda;

void check(rc::CufftResult status, const char* call) {
  if (status == rc::kCufftSuccess) return;
  const std::string what = std::string(call) + " failed: " + rc::describe_cufft_status(status);
  if (status == rc::kCufftAllocFailed) throw runtime::OutOfMemory(what, 0);  // MemoryError: kiln.fft retries
  throw runtime::Error(what);
}

const rc::CufftApi& cufft_or_throw() {
  std::string why;
  if (!fft_usable(&why)) throw runtime::Error("kiln.fft cannot use cuFFT: " + why);
  return *rc::load_cufft_api(nullptr);
}

int cufft_type_of(const FftDesc& d) {
  switch (d.kind) {
    case FftKind::C2C: return d.double_precision ? rc::cufft_type::kZ2Z : rc::cufft_type::kC2C;
    case FftKind::R2C: return d.double_precision ? rc::cufft_type::kD2Z : rc::cufft_type::kR2C;
    case FftKind::C2R: return d.double_precision ? rc::cufft_type::kZ2D : rc::cufft_type::kC2R;
  }
  return 0;
}

// (batch, *n) with the complex side's last extent halved where the kind says.
Shape side_shape(const FftDesc& d, bool complex_side) {
  Shape s{d.batch};
  s.insert(s.end(), d.n.begin(), d.n.end());
  if (complex_side && d.kind != FftKind::C2C) s.back() = s.back() / 2 + 1;
  return s;
}

std::string shape_text(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

void check_operand(const NDArray& x, const char* what, DType dtype, const Shape& shape, int device) {
  if (x.dtype() != dtype)
    throw std::invalid_argument(std::string("FFT plan: ") + what + " must be " + std::string(dtype_info(dtype).name) +
                                ", got " + std::string(dtype_info(x.dtype()).name));
  if (x.size() != shape_size(shape) || !x.c_contiguous())
    throw std::invalid_argument(std::string("FFT plan: ") + what + " must be C-contiguous with the " +
                                std::to_string(shape_size(shape)) + " elements of " + shape_text(shape) +
                                " the plan was made for");
  if (x.device() != device)
    throw std::invalid_argument(std::string("FFT plan: ") + what + " is on device " + std::to_string(x.device()) +
                                ", the plan on device " + std::to_string(device));
}

}  // namespace

bool fft_usable(std::string* why_not) {
  if (runtime::backend().name() != "cuda") {
    if (why_not) *why_not = "the backend is " + std::string(runtime::backend().name()) + ", not cuda";
    return false;
  }
  return rc::load_cufft_api(why_not) != nullptr;
}

FftPlan::FftPlan(FftDesc desc) : desc_(std::move(desc)) {
  if (desc_.n.empty() || desc_.n.size() > 3)
    throw std::invalid_argument("FFT plan: 1 to 3 transform extents, got " + std::to_string(desc_.n.size()));
  for (int64_t e : desc_.n)
    if (e < 1) throw std::invalid_argument("FFT plan: transform extents must be >= 1, got " + shape_text(desc_.n));
  if (desc_.batch < 1) throw std::invalid_argument("FFT plan: batch must be >= 1");
  const rc::CufftApi& api = cufft_or_throw();
  device_ = runtime::backend().current_device();
  rc::make_primary_context_current(device_);
  check(api.create(&handle_), "cufftCreate");
  try {
    // Note [FFT work areas from kiln's pool]: cuFFT allocates nothing itself.
    check(api.set_auto_allocation(handle_, 0), "cufftSetAutoAllocation");
    std::vector<long long> n(desc_.n.begin(), desc_.n.end());
    size_t work_size = 0;
    // Basic layout (Note [FFT plan layout]): null embeds, strides and
    // distances ignored.
    check(api.make_plan_many64(handle_, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0,
                               cufft_type_of(desc_), desc_.batch, &work_size),
          "cufftMakePlanMany64");
    size_t planned = 0;   // the made plan's own figure: the larger of the two is allocated
    check(api.get_size(handle_, &planned), "cufftGetSize");
    work_size = std::max(work_size, planned);
    if (work_size > 0) {
      work_stream_ = runtime::current_stream();
      work_ = allocate_memory(work_size);
      check(api.set_work_area(handle_, work_->ptr()), "cufftSetWorkArea");
    }
  } catch (...) {
    api.destroy(handle_);
    throw;
  }
}

FftPlan::~FftPlan() {
  if (handle_ < 0) return;
  const rc::CufftApi* api = rc::load_cufft_api(nullptr);
  try {
    rc::make_primary_context_current(device_);
  } catch (const std::exception&) {
    return;  // the driver is gone (exit): nothing left to free
  }
  api->destroy(handle_);  // best effort; work_ goes back to the pool after this
  if (work_ && ran_elsewhere_) {
    // Note [FFT work areas from kiln's pool]: the last run on another stream
    // must finish before the pool reuses the work area on work_stream_.
    if (const rc::DriverApi* cu = rc::load_driver_api(nullptr)) cu->ctx_synchronize();
  }
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
  const rc::CufftApi& api = cufft_or_throw();
  rc::make_primary_context_current(device_);
  runtime::StreamHandle stream = runtime::current_stream();
  if (stream != work_stream_) ran_elsewhere_ = true;
  check(api.set_stream(handle_, static_cast<rc::CuStream>(stream)), "cufftSetStream");
  void* i = in.data();
  void* o = out.data();
  const int direction = forward ? rc::kCufftForward : rc::kCufftInverse;
  switch (cufft_type_of(desc_)) {
    case rc::cufft_type::kC2C: check(api.exec_c2c(handle_, i, o, direction), "cufftExecC2C"); break;
    case rc::cufft_type::kZ2Z: check(api.exec_z2z(handle_, i, o, direction), "cufftExecZ2Z"); break;
    case rc::cufft_type::kR2C: check(api.exec_r2c(handle_, i, o), "cufftExecR2C"); break;
    case rc::cufft_type::kD2Z: check(api.exec_d2z(handle_, i, o), "cufftExecD2Z"); break;
    case rc::cufft_type::kC2R: check(api.exec_c2r(handle_, i, o), "cufftExecC2R"); break;
    case rc::cufft_type::kZ2D: check(api.exec_z2d(handle_, i, o), "cufftExecZ2D"); break;
  }
}

}  // namespace kiln::arraycore
