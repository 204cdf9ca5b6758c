// The array: device memory plus dtype, shape, byte strides and byte offset.
// Views share `memory`; an array never owns more than a reference to it.
//
//   NDArray a = NDArray::empty({5, 5}, DType::Float32);   // C order
//   NDArray b = a.reshape({25});                          // a view
//   a.data();                                             // device pointer of element 0
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "arraycore/dtype.h"
#include "arraycore/memory.h"

namespace kiln::arraycore {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;  // bytes, may be negative

enum class Order : uint8_t { C, F };

class NDArray {
 public:
  NDArray(std::shared_ptr<Memory> memory, DType dtype, Shape shape, Strides strides,
          int64_t offset_bytes);

  static NDArray empty(const Shape& shape, DType dtype, Order order = Order::C);
  static NDArray zeros(const Shape& shape, DType dtype, Order order = Order::C);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const;
  size_t itemsize() const { return arraycore::itemsize(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(size()) * itemsize(); }
  int64_t offset() const { return offset_; }
  const std::shared_ptr<Memory>& memory() const { return memory_; }
  int device() const { return memory_->device(); }
  void* data() const { return static_cast<char*>(memory_->ptr()) + offset_; }

  bool c_contiguous() const;
  bool f_contiguous() const;

  // A view with `new_shape` read in C order (one entry may be -1). Throws
  // std::invalid_argument when the sizes differ or no view is possible
  // (arraycore/views.h: reshape, which also copies, and the other views).
  NDArray reshape(Shape new_shape) const;

  // The same bytes seen as `dtype` (numpy.ndarray.view). With a different
  // itemsize the last axis must be contiguous and its byte length divisible
  // by the new itemsize; throws std::invalid_argument naming what is wrong.
  NDArray view(DType dtype) const;

  // numpy's .real / .imag of a complex array: views of the float parts.
  // Throws std::invalid_argument for non-complex arrays (the front end decides
  // what .real/.imag mean there, as NumPy does).
  NDArray complex_part(bool imaginary) const;

 private:
  std::shared_ptr<Memory> memory_;
  DType dtype_;
  Shape shape_;
  Strides strides_;
  int64_t offset_;
};

// Byte strides of a contiguous array of `shape`.
Strides contiguous_strides(const Shape& shape, size_t itemsize, Order order);
int64_t shape_size(const Shape& shape);  // throws std::invalid_argument on negative dims
// Python's repr of a tuple of ints, as NumPy's messages write shapes: "(3, 5)", "(3,)", "()".
std::string shape_repr(std::span<const int64_t> shape);

// Byte span [low, high) that the view touches, relative to data().
std::pair<int64_t, int64_t> byte_extent(const Shape& shape, const Strides& strides,
                                        size_t itemsize);

}  // namespace kiln::arraycore
