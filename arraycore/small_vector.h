// A vector whose first N elements live inside the object: the per-call
// scratch lists of the launch paths (kernel arguments, operands) without a
// heap allocation each, which a microsecond-scale call cannot afford.
//
//   SmallVector<void*, 8> kargs;   // on the stack up to 8 entries
//   kargs.reserve(n);              // one heap block if n > 8; pointers into it stay valid
//   kargs.push_back(p);
//
// Not copyable or movable (element addresses are handed to launches), for
// trivially copyable T only.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace kiln::arraycore {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "SmallVector holds trivially copyable values");

 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, const T& value = T()) { resize(n, value); }
  SmallVector(const SmallVector&) = delete;
  SmallVector& operator=(const SmallVector&) = delete;

  void reserve(size_t n) {
    if (n <= capacity_) return;
    auto bigger = std::make_unique<T[]>(n);
    std::memcpy(static_cast<void*>(bigger.get()), data_, size_ * sizeof(T));
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ = n;
  }
  void resize(size_t n, const T& value = T()) {
    reserve(n);
    for (size_t k = size_; k < n; ++k) data_[k] = value;
    size_ = n;
  }
  void push_back(const T& v) {
    if (size_ == capacity_) reserve(2 * capacity_);
    data_[size_++] = v;
  }
  void clear() { size_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t k) { return data_[k]; }
  const T& operator[](size_t k) const { return data_[k]; }
  T& back() { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  T inline_[N];   // only [0, size_) is ever read
  std::unique_ptr<T[]> heap_;
  T* data_ = inline_;
  size_t size_ = 0, capacity_ = N;
};

}  // namespace kiln::arraycore
