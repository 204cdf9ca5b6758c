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

  // Note [Read-only arrays]
  // An array may be read-only (NumPy's flags.writeable False): the result of
  // broadcast_to, and every view of a read-only array (view_as keeps the
  // flag; views.cpp, indexing.cpp and the view bindings build views through
  // it). Every write path refuses one with NumPy's ValueError through
  // require_writeable: setitem, fill and copyto ("assignment destination is
  // read-only"), ufunc, reduction, scan and kernel outputs ("output array is
  // read-only"). The flag is per array object, as NumPy's: Python's
  // a.flags.writeable flips it on the array itself (hence `mutable`). Raw
  // pointers handed to RawKernel carry no flag (CuPy has none at all).
  bool writeable() const { return writeable_; }
  void set_writeable(bool writeable) const { writeable_ = writeable; }
  // A view of the same memory and dtype with this array's read-only flag.
  NDArray view_as(Shape shape, Strides strides, int64_t offset_bytes) const {
    NDArray v(memory_, dtype_, std::move(shape), std::move(strides), offset_bytes);
    v.writeable_ = writeable_;
    return v;
  }

 private:
  std::shared_ptr<Memory> memory_;
  DType dtype_;
  Shape shape_;
  Strides strides_;
  int64_t offset_;
  mutable bool writeable_ = true;
};

// std::invalid_argument(message) when `a` is read-only (Note [Read-only arrays]).
inline constexpr const char* kReadOnlyDestination = "assignment destination is read-only";
inline constexpr const char* kReadOnlyOutput = "output array is read-only";
void require_writeable(const NDArray& a, const char* message = kReadOnlyDestination);

// NumPy's limit on the number of axes (NPY_MAXDIMS): new arrays and
// reshapes keep it (std::invalid_argument "maximum supported dimension ...").
// Kernels take at most kiln::kMaxDims (32, stdlib_kernels) of them.
inline constexpr size_t kMaxNdim = 64;
void check_ndim(size_t ndim);

// Byte strides of a contiguous array of `shape`.
Strides contiguous_strides(const Shape& shape, size_t itemsize, Order order);
// The strides of a new array of `shape` (and of an imported one that gives
// none): contiguous, or all 0 when it has no elements, as NumPy 2's and CuPy's.
Strides new_array_strides(const Shape& shape, size_t itemsize, Order order);

// Note [Array size limit]
// Every array, views included, has itemsize * (product of its extents) below
// 2**63 bytes, checked as NumPy does it: itemsize times the product of the
// non-zero extents must fit int64, so (2**62, 2**62, 0) is refused like
// NumPy although it holds no element. The NDArray constructor checks it, so
// size(), nbytes() and every offset inside an array's extent fit int64, and
// creation routines, views, broadcasts and copies all refuse the same
// shapes. Whether the memory exists is the allocator's question: a
// representable size that no device holds is runtime::OutOfMemory
// (MemoryError, kiln.cuda.memory.OutOfMemoryError).
inline constexpr const char* kArrayTooBig =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";
// Throws std::invalid_argument(kArrayTooBig) when `shape` breaks Note [Array
// size limit] for `itemsize`, "negative dimensions are not allowed" for a
// negative extent; returns the byte count.
int64_t checked_nbytes(const Shape& shape, size_t itemsize);
// The element count; throws as checked_nbytes(shape, 1) does.
int64_t shape_size(const Shape& shape);
// a * b, a + b in int64; std::invalid_argument(kArrayTooBig) on overflow
// (byte_extent of strides given by hand).
int64_t checked_mul(int64_t a, int64_t b);
int64_t checked_add(int64_t a, int64_t b);
// Python's repr of a tuple of ints, as NumPy's messages write shapes: "(3, 5)", "(3,)", "()".
std::string shape_repr(std::span<const int64_t> shape);

// Byte span [low, high) that the view touches, relative to data().
std::pair<int64_t, int64_t> byte_extent(const Shape& shape, const Strides& strides,
                                        size_t itemsize);

// std::invalid_argument unless every byte that `shape` and `strides` reach
// from `offset` lies inside `memory` (and the shape keeps Note [Array size
// limit]): unlike NumPy's as_strided, no view made by hand reaches past its
// allocation.
void require_within_memory(const Memory& memory, int64_t offset, DType dtype, const Shape& shape,
                           const Strides& strides);
// An array over memory that exists (kiln.ndarray(shape, dtype, memptr,
// strides)), starting `offset` bytes into it; checked as above.
NDArray array_over_memory(std::shared_ptr<Memory> memory, int64_t offset, DType dtype, Shape shape,
                          Strides strides);

}  // namespace kiln::arraycore
