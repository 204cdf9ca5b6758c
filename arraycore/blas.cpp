#include "arraycore/blas.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "runtime/backend.h"
#include "runtime/cuda/cublas_api.h"
#include "runtime/errors.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

namespace rc = runtime::cuda;

// cuBLAS's data type and compute type of a dtype (Note [TF32]); false for
// dtypes cuBLAS does not multiply (integers, bool: kiln's kernel).
bool blas_types(DType dtype, int* data_type, int* compute_type) {
  const bool tf32 = blas_config().allow_tf32.load(std::memory_order_relaxed);
  switch (dtype) {
    case DType::Float16: *data_type = rc::cuda_type::kR16F; *compute_type = rc::cublas_compute::k32F; return true;
    case DType::Float32:
      *data_type = rc::cuda_type::kR32F;
      *compute_type = tf32 ? rc::cublas_compute::k32FFastTF32 : rc::cublas_compute::k32F;
      return true;
    case DType::Float64: *data_type = rc::cuda_type::kR64F; *compute_type = rc::cublas_compute::k64F; return true;
    case DType::Complex64:
      *data_type = rc::cuda_type::kC32F;
      *compute_type = tf32 ? rc::cublas_compute::k32FFastTF32 : rc::cublas_compute::k32F;
      return true;
    case DType::Complex128: *data_type = rc::cuda_type::kC64F; *compute_type = rc::cublas_compute::k64F; return true;
    default: return false;
  }
}

// How cuBLAS (column-major) sees x: op N with x itself, or op T with x's
// transpose, leading dimension ld. False when neither fits.
bool column_major_view(const GemmMatrix& x, int* op, int64_t* ld) {
  const int64_t r = std::max<int64_t>(x.rows, 1), c = std::max<int64_t>(x.cols, 1);
  if (x.rows <= 1 || x.row_stride == 1) {
    const int64_t l = x.cols <= 1 ? r : x.col_stride;
    if (l >= r && l <= INT_MAX) {
      *op = rc::cublas_op::kN;
      *ld = l;
      return true;
    }
  }
  if (x.cols <= 1 || x.col_stride == 1) {
    const int64_t l = x.rows <= 1 ? c : x.row_stride;
    if (l >= c && l <= INT_MAX) {
      *op = rc::cublas_op::kT;
      *ld = l;
      return true;
    }
  }
  return false;
}

int flip(int op) { return op == rc::cublas_op::kN ? rc::cublas_op::kT : rc::cublas_op::kN; }

}  // namespace

BlasConfig& blas_config() {
  static BlasConfig config;
  return config;
}

bool blas_layout_ok(const GemmMatrix& x) {
  int op = 0;
  int64_t ld = 0;
  return x.rows <= INT_MAX && x.cols <= INT_MAX && column_major_view(x, &op, &ld);
}

bool blas_usable(DType dtype, std::string* why_not) {
  int data_type = 0, compute_type = 0;
  if (!blas_types(dtype, &data_type, &compute_type)) {
    if (why_not) *why_not = std::string("cuBLAS does not multiply ") + std::string(dtype_info(dtype).name);
    return false;
  }
  if (!blas_config().use_cublas.load(std::memory_order_relaxed)) {
    if (why_not) *why_not = "cuBLAS is switched off (kiln.config.use_cublas = False)";
    return false;
  }
  if (runtime::backend().name() != "cuda") {
    if (why_not) *why_not = "the backend is " + std::string(runtime::backend().name()) + ", not cuda";
    return false;
  }
  return rc::load_cublas_api(why_not) != nullptr;
}

bool blas_gemm(DType dtype, const GemmMatrix& a, const GemmMatrix& b, const GemmMatrix& c, int64_t batch) {
  int data_type = 0, compute_type = 0;
  if (!blas_types(dtype, &data_type, &compute_type) || !blas_usable(dtype, nullptr)) return false;
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX) return false;
  const size_t size = itemsize(dtype);
  for (const GemmMatrix* x : {&a, &b, &c}) {
    if (reinterpret_cast<uintptr_t>(x->ptr) % size != 0) return false;
  }
  int op_a = 0, op_b = 0, op_c = 0;
  int64_t ld_a = 0, ld_b = 0, ld_c = 0;
  if (!column_major_view(a, &op_a, &ld_a) || !column_major_view(b, &op_b, &ld_b) ||
      !column_major_view(c, &op_c, &ld_c))
    return false;
  if (batch > 1 && c.batch_stride == 0) return false;

  const rc::CublasApi& api = *rc::load_cublas_api(nullptr);
  auto& be = runtime::backend();
  rc::CublasHandle handle = rc::cublas_handle_for_current_thread(api, be.current_device());
  rc::CublasStatus st = api.set_stream(handle, static_cast<rc::CuStream>(runtime::current_stream()));
  if (st != rc::kCublasSuccess)
    throw runtime::Error("cublasSetStream_v2 failed: " + rc::describe_cublas_status(api, st));

  // alpha = 1, beta = 0 in the compute type's scalar (complex: two parts).
  const bool wide = compute_type == rc::cublas_compute::k64F;
  const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
  const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
  const void* alpha = wide ? static_cast<const void*>(one_d) : static_cast<const void*>(one_f);
  const void* beta = wide ? static_cast<const void*>(zero_d) : static_cast<const void*>(zero_f);

  // Column-major C = op(A) op(B), or, for row-major C, C^T = B^T A^T.
  const void *p1 = a.ptr, *p2 = b.ptr;
  int op1 = op_a, op2 = op_b;
  int64_t ld1 = ld_a, ld2 = ld_b, s1 = a.batch_stride, s2 = b.batch_stride, rows = m, cols = n;
  if (op_c == rc::cublas_op::kT) {
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
      st = api.gemm_ex(handle, op1, op2, static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(k), alpha,
                       q1, data_type, static_cast<int>(ld1), q2, data_type, static_cast<int>(ld2), beta, qc,
                       data_type, static_cast<int>(ld_c), compute_type, rc::kCublasGemmDefault);
      if (st != rc::kCublasSuccess)
        throw runtime::Error("cublasGemmEx failed: " + rc::describe_cublas_status(api, st));
    } else {
      st = api.gemm_strided_batched_ex(handle, op1, op2, static_cast<int>(rows), static_cast<int>(cols),
                                       static_cast<int>(k), alpha, q1, data_type, static_cast<int>(ld1), s1, q2,
                                       data_type, static_cast<int>(ld2), s2, beta, qc, data_type,
                                       static_cast<int>(ld_c), c.batch_stride, static_cast<int>(count),
                                       compute_type, rc::kCublasGemmDefault);
      if (st != rc::kCublasSuccess)
        throw runtime::Error("cublasGemmStridedBatchedEx failed: " + rc::describe_cublas_status(api, st));
    }
    done += count;
  }
  return true;
}

}  // namespace kiln::arraycore
