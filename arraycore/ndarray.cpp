#include "arraycore/ndarray.h"

#include <stdexcept>
#include <string>

#include "arraycore/record_dtype.h"
#include "arraycore/views.h"
#include "runtime/backend.h"
#include "runtime/stream.h"

namespace kiln::arraycore {

std::string shape_repr(std::span<const int64_t> shape) {
  std::string t = "(";
  for (size_t i = 0; i < shape.size(); ++i) t += (i ? ", " : "") + std::to_string(shape[i]);
  return t + (shape.size() == 1 ? ",)" : ")");
}

int64_t checked_nbytes(const Shape& shape, size_t itemsize) {
  // Note [Array size limit]: zero extents are skipped, so they do not hide
  // an overflowing product of the others.
  int64_t n = static_cast<int64_t>(itemsize);
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("negative dimensions are not allowed");
    if (d == 0) empty = true;
    else if (__builtin_mul_overflow(n, d, &n)) throw std::invalid_argument(kArrayTooBig);
  }
  return empty ? 0 : n;
}

int64_t shape_size(const Shape& shape) { return checked_nbytes(shape, 1); }

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw std::invalid_argument(kArrayTooBig);
  return r;
}

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw std::invalid_argument(kArrayTooBig);
  return r;
}

Strides contiguous_strides(const Shape& shape, size_t itemsize, Order order) {
  Strides strides(shape.size());
  int64_t step = static_cast<int64_t>(itemsize);
  if (order == Order::C) {
    for (size_t i = shape.size(); i-- > 0;) {
      strides[i] = step;
      step *= std::max<int64_t>(shape[i], 1);
    }
  } else {
    for (size_t i = 0; i < shape.size(); ++i) {
      strides[i] = step;
      step *= std::max<int64_t>(shape[i], 1);
    }
  }
  return strides;
}

std::pair<int64_t, int64_t> byte_extent(const Shape& shape, const Strides& strides,
                                        size_t itemsize) {
  int64_t low = 0, high = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return {0, 0};
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    // Checked: strides given by hand (as_strided, foreign memory) may reach beyond int64.
    int64_t reach = checked_mul(shape[i] - 1, strides[i]);
    int64_t& side = reach < 0 ? low : high;
    side = checked_add(side, reach);
  }
  return {low, checked_add(high, static_cast<int64_t>(itemsize))};
}

NDArray::NDArray(std::shared_ptr<Memory> memory, DType dtype, Shape shape, Strides strides,
                 int64_t offset_bytes)
    : memory_(std::move(memory)),
      dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset_bytes) {
  checked_nbytes(shape_, itemsize());  // Note [Array size limit]
}

void require_within_memory(const Memory& memory, int64_t offset, DType dtype, const Shape& shape,
                           const Strides& strides) {
  if (strides.size() != shape.size())
    throw std::invalid_argument("strides must have one entry per dimension: shape " + shape_repr(shape) +
                                ", strides " + shape_repr(strides));
  const size_t item = itemsize(dtype);
  checked_nbytes(shape, item);   // Note [Array size limit]
  if (shape_size(shape) == 0) return;
  auto [low, high] = byte_extent(shape, strides, item);
  const auto size = static_cast<int64_t>(memory.nbytes());
  if (checked_add(offset, low) < 0 || checked_add(offset, high) > size)
    throw std::invalid_argument("shape " + shape_repr(shape) + " with strides " + shape_repr(strides) +
                                " at offset " + std::to_string(offset) + " reaches bytes [" +
                                std::to_string(offset + low) + ", " + std::to_string(offset + high) +
                                ") of a memory of " + std::to_string(size) + " bytes");
}

NDArray array_over_memory(std::shared_ptr<Memory> memory, int64_t offset, DType dtype, Shape shape,
                          Strides strides) {
  require_within_memory(*memory, offset, dtype, shape, strides);
  return NDArray(std::move(memory), dtype, std::move(shape), std::move(strides), offset);
}

void check_ndim(size_t ndim) {
  if (ndim > kMaxNdim)
    throw std::invalid_argument("maximum supported dimension for an ndarray is currently " +
                                std::to_string(kMaxNdim) + ", found " + std::to_string(ndim));
}

Strides new_array_strides(const Shape& shape, size_t itemsize, Order order) {
  return shape_size(shape) == 0 ? Strides(shape.size(), 0) : contiguous_strides(shape, itemsize, order);
}

NDArray NDArray::empty(const Shape& shape, DType dtype, Order order) {
  check_ndim(shape.size());
  const size_t bytes = static_cast<size_t>(checked_nbytes(shape, arraycore::itemsize(dtype)));
  return NDArray(allocate_memory(bytes), dtype, shape, new_array_strides(shape, arraycore::itemsize(dtype), order), 0);
}

NDArray NDArray::zeros(const Shape& shape, DType dtype, Order order) {
  NDArray a = empty(shape, dtype, order);
  if (a.nbytes() > 0)
    runtime::backend().memset_async(a.data(), 0, a.nbytes(), runtime::current_stream());
  return a;
}

void require_writeable(const NDArray& a, const char* message) {
  if (!a.writeable()) throw std::invalid_argument(message);   // Note [Read-only arrays]
}

int64_t NDArray::size() const {
  // The constructor checked the product (Note [Array size limit]): no
  // overflow check on this path, which every operation takes.
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

bool NDArray::c_contiguous() const {
  if (size() == 0) return true;
  int64_t step = static_cast<int64_t>(itemsize());
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != step) return false;
    step *= shape_[i];
  }
  return true;
}

bool NDArray::f_contiguous() const {
  if (size() == 0) return true;
  int64_t step = static_cast<int64_t>(itemsize());
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != step) return false;
    step *= shape_[i];
  }
  return true;
}

NDArray NDArray::reshape(Shape new_shape) const {
  return arraycore::reshape(*this, new_shape, 'C', CopyMode::Never);
}

NDArray NDArray::view(DType dtype) const {
  const int64_t old_size = static_cast<int64_t>(itemsize());
  const int64_t new_size = static_cast<int64_t>(arraycore::itemsize(dtype));
  if (old_size == new_size) {
    NDArray v(memory_, dtype, shape_, strides_, offset_);
    v.writeable_ = writeable_;
    return v;
  }
  if (shape_.empty())
    throw std::invalid_argument("Changing the dtype of a 0d array is only supported if the itemsize is unchanged");
  const size_t last = shape_.size() - 1;
  // Without elements the last axis need not be contiguous (NumPy's rule); it is rescaled all the same.
  if (shape_[last] != 1 && shape_size(shape_) != 0 && strides_[last] != old_size)
    throw std::invalid_argument("To change to a dtype of a different size, the last axis must be contiguous");
  const int64_t bytes = shape_[last] * old_size;
  if (bytes % new_size != 0)
    throw std::invalid_argument("When changing to a " + std::string(old_size < new_size ? "larger" : "smaller") +
                                " dtype, its size must be a divisor of the total size in bytes of the last "
                                "axis of the array");
  Shape shape = shape_;
  Strides strides = strides_;
  shape[last] = bytes / new_size;
  strides[last] = new_size;
  // Note [Aligned arrays]: a kernel reading a misaligned element aborts the
  // whole CUDA context, so kiln refuses views NumPy would mark unaligned.
  // Records are moved as bytes (Note [Record dtypes]); their fields are checked when taken.
  const int64_t align = is_record(dtype) ? 1 : dtype_info(dtype).kind == 'c' ? new_size / 2 : new_size;
  bool aligned = offset_ % align == 0;
  for (size_t d = 0; d < shape.size(); ++d) aligned = aligned && (shape[d] < 2 || strides[d] % align == 0);
  if (!aligned)
    throw std::invalid_argument("the view would not be aligned for " + std::string(dtype_info(dtype).name) +
                                " (byte offset " + std::to_string(offset_) + ", strides in bytes not all multiples of " +
                                std::to_string(align) + "); kiln arrays must be aligned: copy first, e.g. "
                                "a.copy().view(dtype)");
  NDArray v(memory_, dtype, std::move(shape), std::move(strides), offset_);
  v.writeable_ = writeable_;
  return v;
}

NDArray NDArray::complex_part(bool imaginary) const {
  DType part;
  if (dtype_ == DType::Complex64) part = DType::Float32;
  else if (dtype_ == DType::Complex128) part = DType::Float64;
  else throw std::invalid_argument("complex_part needs a complex array");
  int64_t shift = imaginary ? static_cast<int64_t>(arraycore::itemsize(part)) : 0;
  NDArray v(memory_, part, shape_, strides_, offset_ + shift);
  v.writeable_ = writeable_;
  return v;
}

}  // namespace kiln::arraycore
