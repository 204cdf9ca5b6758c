#include "arraycore/blas.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "runtime/backend.h"
#include "runtime/errors.h"
#include "runtime/libraries.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

using runtime::ElementType;
using runtime::Transpose;

// The library's element type of a dtype; false for dtypes BLAS does not
// multiply (integers, bool: kiln's kernel).
bool blas_type(DType dtype, ElementType* type) {
  switch (dtype) {
    case DType::Float16: *type = ElementType::Float16; return true;
    case DType::Float32: *type = ElementType::Float32; return true;
    case DType::Float64: *type = ElementType::Float64; return true;
    case DType::Complex64: *type = ElementType::Complex64; return true;
    case DType::Complex128: *type = ElementType::Complex128; return true;
    default: return false;
  }
}

// How a column-major BLAS sees x: op N with x itself, or op T with x's
// transpose, leading dimension ld. False when neither fits.
bool column_major_view(const GemmMatrix& x, Transpose* op, int64_t* ld) {
  const int64_t r = std::max<int64_t>(x.rows, 1), c = std::max<int64_t>(x.cols, 1);
  if (x.rows <= 1 || x.row_stride == 1) {
    const int64_t l = x.cols <= 1 ? r : x.col_stride;
    if (l >= r && l <= INT_MAX) {
      *op = Transpose::None;
      *ld = l;
      return true;
    }
  }
  if (x.cols <= 1 || x.col_stride == 1) {
    const int64_t l = x.rows <= 1 ? c : x.row_stride;
    if (l >= c && l <= INT_MAX) {
      *op = Transpose::Trans;
      *ld = l;
      return true;
    }
  }
  return false;
}

Transpose flip(Transpose op) { return op == Transpose::None ? Transpose::Trans : Transpose::None; }

}  // namespace

BlasConfig& blas_config() {
  static BlasConfig config;
  return config;
}

bool blas_layout_ok(const GemmMatrix& x) {
  Transpose op = Transpose::None;
  int64_t ld = 0;
  return x.rows <= INT_MAX && x.cols <= INT_MAX && column_major_view(x, &op, &ld);
}

bool blas_usable(DType dtype, std::string* why_not) {
  ElementType type{};
  if (!blas_type(dtype, &type)) {
    if (why_not) *why_not = std::string("cuBLAS does not multiply ") + std::string(dtype_info(dtype).name);
    return false;
  }
  if (!blas_config().use_cublas.load(std::memory_order_relaxed)) {
    if (why_not) *why_not = "cuBLAS is switched off (kiln.config.use_cublas = False)";
    return false;
  }
  return runtime::backend().libraries().blas(why_not) != nullptr;
}

bool blas_gemm(DType dtype, const GemmMatrix& a, const GemmMatrix& b, const GemmMatrix& c, int64_t batch) {
  ElementType type{};
  if (!blas_type(dtype, &type) || !blas_usable(dtype, nullptr)) return false;
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX) return false;
  const size_t size = itemsize(dtype);
  for (const GemmMatrix* x : {&a, &b, &c}) {
    if (reinterpret_cast<uintptr_t>(x->ptr) % size != 0) return false;
  }
  Transpose op_a{}, op_b{}, op_c{};
  int64_t ld_a = 0, ld_b = 0, ld_c = 0;
  if (!column_major_view(a, &op_a, &ld_a) || !column_major_view(b, &op_b, &ld_b) ||
      !column_major_view(c, &op_c, &ld_c))
    return false;
  if (batch > 1 && c.batch_stride == 0) return false;

  runtime::BlasLibrary& blas = *runtime::backend().libraries().blas(nullptr);
  const bool tf32 = blas_config().allow_tf32.load(std::memory_order_relaxed);   // Note [TF32]
  const runtime::StreamHandle stream = runtime::current_stream();

  // Column-major C = op(A) op(B), or, for row-major C, C^T = B^T A^T.
  const void *p1 = a.ptr, *p2 = b.ptr;
  Transpose op1 = op_a, op2 = op_b;
  int64_t ld1 = ld_a, ld2 = ld_b, s1 = a.batch_stride, s2 = b.batch_stride, rows = m, cols = n;
  if (op_c == Transpose::Trans) {
    std::swap(p1, p2);
    op1 = flip(op_b);
    op2 = flip(op_a);
    std::swap(ld1, ld2);
    std::swap(s1, s2);
    std::swap(rows, cols);
  }
  for (int64_t done = 0; done < batch;) {
    const int64_t count = std::min<int64_t>(batch - done, INT_MAX);
    const char* q1 = static_cast<const char*>(p1) + done * s1 * static_cast<int64_t>(size);
    const char* q2 = static_cast<const char*>(p2) + done * s2 * static_cast<int64_t>(size);
    char* qc = static_cast<char*>(const_cast<void*>(c.ptr)) + done * c.batch_stride * static_cast<int64_t>(size);
    if (count == 1) {
      blas.gemm(stream, type, tf32, op1, op2, static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(k), q1,
                static_cast<int>(ld1), q2, static_cast<int>(ld2), qc, static_cast<int>(ld_c));
    } else {
      blas.gemm_strided_batched(stream, type, tf32, op1, op2, static_cast<int>(rows), static_cast<int>(cols),
                                static_cast<int>(k), q1, static_cast<int>(ld1), s1, q2, static_cast<int>(ld2), s2, qc,
                                static_cast<int>(ld_c), c.batch_stride, static_cast<int>(count));
    }
    done += count;
  }
  return true;
}

}  // namespace kiln::arraycore
