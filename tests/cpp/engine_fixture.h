// The fixture of the engine tests (test_{elementwise,reduction,scan,sort}_engine.cpp):
// arraycore's engines driven through their C++ entry points on the process's
// backend, forced to the host backend, with arrays filled and read on the
// host (host-backend memory is host memory).
//
//   NDArray x = filled<float>({4, 5}, DType::Float32, [](int64_t k) { return float(k); });
//   NDArray v = strided_view(x, {4, 2}, {5, 2});      // elements, not bytes: x[:, ::2]
//   std::vector<float> got = read<float>(y);          // C order, synchronised first
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/ndarray.h"
#include "runtime/backend.h"
#include "runtime/stream.h"

namespace kiln::arraycore::testing {

class EngineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The engines launch on runtime::backend(), chosen once per process from
    // KILN_BACKEND: these tests are the host backend's (no test in this
    // binary asks for another before them: the others make their own).
    setenv("KILN_BACKEND", "host", 0);
    runtime::set_stdlib_include_dir(KILN_SOURCE_STDLIB_DIR);
    ASSERT_EQ(runtime::backend().name(), "host");
  }

  template <class T>
  static NDArray filled(const Shape& shape, DType dtype, const std::function<T(int64_t)>& value) {
    NDArray a = NDArray::empty(shape, dtype);
    T* p = static_cast<T*>(a.data());
    for (int64_t k = 0; k < a.size(); ++k) p[k] = value(k);
    return a;
  }

  // A view of `a` (C-contiguous) with shape and strides counted in elements,
  // starting at element `first`.
  static NDArray strided_view(const NDArray& a, const Shape& shape, const Strides& element_strides,
                              int64_t first = 0) {
    Strides bytes;
    for (int64_t s : element_strides) bytes.push_back(s * static_cast<int64_t>(a.itemsize()));
    return NDArray(a.memory(), a.dtype(), shape, bytes, a.offset() + first * static_cast<int64_t>(a.itemsize()));
  }

  // The elements of `a` in C order, after the current stream's work is done.
  template <class T>
  static std::vector<T> read(const NDArray& a) {
    runtime::backend().synchronize_stream(runtime::current_stream());
    std::vector<T> out;
    std::vector<int64_t> idx(a.ndim(), 0);
    for (int64_t k = 0; k < a.size(); ++k) {
      int64_t off = 0;
      for (int d = 0; d < a.ndim(); ++d) off += idx[d] * a.strides()[d];
      out.push_back(*reinterpret_cast<const T*>(static_cast<const char*>(a.data()) + off));
      for (int d = a.ndim() - 1; d >= 0; --d) {
        if (++idx[d] < a.shape()[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }
};

// The message of what f() throws as E, or "(nothing thrown)".
template <class E = std::exception, class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

}  // namespace kiln::arraycore::testing
