// The cuda backend's Libraries (Note [Libraries] in runtime/libraries.h):
// kiln's element types, operations and triangles mapped to cuBLAS's,
// cuSOLVER's and cuFFT's, every status checked at its call.
#include "runtime/cuda/cuda_libraries.h"

#include <algorithm>
#include <cstdlib>

#include "runtime/capture.h"
#include "runtime/cuda/cublas_api.h"
#include "runtime/cuda/cufft_api.h"
#include "runtime/cuda/cusolver_api.h"
#include "runtime/cuda/driver_api.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {
namespace {

int data_type(ElementType t) {   // cudaDataType
  switch (t) {
    case ElementType::Float16: return cuda_type::kR16F;
    case ElementType::Float32: return cuda_type::kR32F;
    case ElementType::Float64: return cuda_type::kR64F;
    case ElementType::Complex64: return cuda_type::kC32F;
    case ElementType::Complex128: return cuda_type::kC64F;
  }
  return cuda_type::kC64F;
}

ElementType real_of(ElementType t) {
  return t == ElementType::Complex64 ? ElementType::Float32 : t == ElementType::Complex128 ? ElementType::Float64 : t;
}

ElementType complex_of(ElementType t) {
  return t == ElementType::Float32 || t == ElementType::Complex64 ? ElementType::Complex64 : ElementType::Complex128;
}

int op_of(Transpose op) {
  return op == Transpose::None ? cublas_op::kN : op == Transpose::Trans ? cublas_op::kT : cublas_op::kC;
}

int fill_of(Triangle uplo) { return uplo == Triangle::Lower ? cublas_fill::kLower : cublas_fill::kUpper; }

// Index of the typed legacy entry points (S, D, C, Z); float16 never gets here.
int precision(ElementType t) {
  switch (t) {
    case ElementType::Float32: return static_cast<int>(CusolverPrecision::kS);
    case ElementType::Float64: return static_cast<int>(CusolverPrecision::kD);
    case ElementType::Complex64: return static_cast<int>(CusolverPrecision::kC);
    default: return static_cast<int>(CusolverPrecision::kZ);
  }
}

// ---- BLAS -------------------------------------------------------------------

void check_blas(const CublasApi& api, CublasStatus st, const char* call) {
  if (st != kCublasSuccess) throw Error(std::string(call) + " failed: " + describe_cublas_status(api, st));
}

// cuBLAS's compute type of a product (Note [TF32] in arraycore/blas.h).
int compute_type(ElementType t, bool allow_tf32) {
  switch (t) {
    case ElementType::Float32:
    case ElementType::Complex64: return allow_tf32 ? cublas_compute::k32FFastTF32 : cublas_compute::k32F;
    case ElementType::Float64:
    case ElementType::Complex128: return cublas_compute::k64F;
    default: return cublas_compute::k32F;   // float16 accumulates in float32
  }
}

class CudaBlas final : public BlasLibrary {
 public:
  void gemm(StreamHandle stream, ElementType type, bool allow_tf32, Transpose op_a, Transpose op_b, int m, int n,
            int k, const void* a, int lda, const void* b, int ldb, void* c, int ldc) override {
    Call call(stream, type, allow_tf32);
    check_blas(*call.api,
               call.api->gemm_ex(call.h, op_of(op_a), op_of(op_b), m, n, k, call.alpha(), a, call.data, lda, b,
                                 call.data, ldb, call.beta(), c, call.data, ldc, call.compute, kCublasGemmDefault),
               "cublasGemmEx");
  }

  void gemm_strided_batched(StreamHandle stream, ElementType type, bool allow_tf32, Transpose op_a, Transpose op_b,
                            int m, int n, int k, const void* a, int lda, int64_t stride_a, const void* b, int ldb,
                            int64_t stride_b, void* c, int ldc, int64_t stride_c, int batch) override {
    Call call(stream, type, allow_tf32);
    check_blas(*call.api,
               call.api->gemm_strided_batched_ex(call.h, op_of(op_a), op_of(op_b), m, n, k, call.alpha(), a,
                                                 call.data, lda, stride_a, b, call.data, ldb, stride_b, call.beta(),
                                                 c, call.data, ldc, stride_c, batch, call.compute,
                                                 kCublasGemmDefault),
               "cublasGemmStridedBatchedEx");
  }

 private:
  // The calling thread's handle of the current device on `stream`, and the
  // product's types; alpha = 1, beta = 0 in the compute type's scalar
  // (complex: two parts).
  struct Call {
    const CublasApi* api;
    CublasHandle h;
    int data, compute;
    Call(StreamHandle stream, ElementType type, bool allow_tf32)
        : api(load_cublas_api(nullptr)), data(data_type(type)), compute(compute_type(type, allow_tf32)) {
      if (!api) throw Error("cuBLAS (libcublas) is not loaded");
      check_not_capturing(stream, "calling cuBLAS");  // Note [Stream capture]
      h = cublas_handle_for_current_thread(*api, backend().current_device());
      check_blas(*api, api->set_stream(h, static_cast<CuStream>(stream)), "cublasSetStream_v2");
    }
    bool wide() const { return compute == cublas_compute::k64F; }
    const void* alpha() const {
      static const float one_f[2] = {1.0f, 0.0f};
      static const double one_d[2] = {1.0, 0.0};
      return wide() ? static_cast<const void*>(one_d) : static_cast<const void*>(one_f);
    }
    const void* beta() const {
      static const float zero_f[2] = {0.0f, 0.0f};
      static const double zero_d[2] = {0.0, 0.0};
      return wide() ? static_cast<const void*>(zero_d) : static_cast<const void*>(zero_f);
    }
  };
};

// ---- solver -----------------------------------------------------------------

void check(CusolverStatus st, const std::string& call) {
  if (st != kCusolverSuccess) throw Error(call + " failed: " + describe_cusolver_status(st));
}

// cuSOLVER's handle and options bound to one stream of the current device
// (host_memory: a new handle of no device, for the test double), and cuBLAS
// for the batched LU, bound at its first use.
class CudaSolverSession final : public SolverSession {
 public:
  CudaSolverSession(const CusolverApi& api, bool host_memory, StreamHandle stream)
      : api_(api), host_memory_(host_memory), stream_(stream) {
    check_not_capturing(stream, "calling cuSOLVER");  // Note [Stream capture]
    if (host_memory_) {   // no device, no context: a handle per session
      check(api_.create(&h_), "cusolverDnCreate");
      check(api_.create_params(&p_), "cusolverDnCreateParams");
    } else {
      const CusolverContext ctx = cusolver_context_for_current_thread(api_, backend().current_device());
      h_ = ctx.handle;
      p_ = ctx.params;
    }
    check(api_.set_stream(h_, static_cast<CuStream>(stream_)), "cusolverDnSetStream");
  }

  WorkSize getrf_work(ElementType type, int64_t m, int64_t n, const void* a, int64_t lda) override {
    const int t = data_type(type);
    WorkSize w;
    check(api_.xgetrf_buffer_size(h_, p_, m, n, t, a, lda, t, &w.device_bytes, &w.host_bytes),
          "cusolverDnXgetrf_bufferSize");
    return w;
  }
  void getrf(ElementType type, int64_t m, int64_t n, void* a, int64_t lda, int64_t* ipiv, const WorkArea& work,
             int* info) override {
    const int t = data_type(type);
    check(api_.xgetrf(h_, p_, m, n, t, a, lda, ipiv, t, work.device, work.device_bytes, work.host, work.host_bytes,
                      info),
          "cusolverDnXgetrf");
  }
  void getrs(ElementType type, Transpose op, int64_t n, int64_t nrhs, const void* a, int64_t lda,
             const int64_t* ipiv, void* b, int64_t ldb, int* info) override {
    const int t = data_type(type);
    check(api_.xgetrs(h_, p_, op_of(op), n, nrhs, t, a, lda, ipiv, t, b, ldb, info), "cusolverDnXgetrs");
  }
  WorkSize potrf_work(ElementType type, Triangle uplo, int64_t n, const void* a, int64_t lda) override {
    const int t = data_type(type);
    WorkSize w;
    check(api_.xpotrf_buffer_size(h_, p_, fill_of(uplo), n, t, a, lda, t, &w.device_bytes, &w.host_bytes),
          "cusolverDnXpotrf_bufferSize");
    return w;
  }
  void potrf(ElementType type, Triangle uplo, int64_t n, void* a, int64_t lda, const WorkArea& work,
             int* info) override {
    const int t = data_type(type);
    check(api_.xpotrf(h_, p_, fill_of(uplo), n, t, a, lda, t, work.device, work.device_bytes, work.host,
                      work.host_bytes, info),
          "cusolverDnXpotrf");
  }
  WorkSize geqrf_work(ElementType type, int64_t m, int64_t n, const void* a, int64_t lda, const void* tau) override {
    const int t = data_type(type);
    WorkSize w;
    check(api_.xgeqrf_buffer_size(h_, p_, m, n, t, a, lda, t, tau, t, &w.device_bytes, &w.host_bytes),
          "cusolverDnXgeqrf_bufferSize");
    return w;
  }
  void geqrf(ElementType type, int64_t m, int64_t n, void* a, int64_t lda, void* tau, const WorkArea& work,
             int* info) override {
    const int t = data_type(type);
    check(api_.xgeqrf(h_, p_, m, n, t, a, lda, t, tau, t, work.device, work.device_bytes, work.host,
                      work.host_bytes, info),
          "cusolverDnXgeqrf");
  }
  void orgqr_work(ElementType type, int m, int n, int k, const void* a, int lda, const void* tau,
                  int* elements) override {
    check(api_.orgqr_buffer_size[precision(type)](h_, m, n, k, a, lda, tau, elements), "cusolverDn?orgqr_bufferSize");
  }
  void orgqr(ElementType type, int m, int n, int k, void* a, int lda, const void* tau, void* work, int elements,
             int* info) override {
    check(api_.orgqr[precision(type)](h_, m, n, k, a, lda, tau, work, elements, info), "cusolverDn?orgqr");
  }
  WorkSize gesvd_work(ElementType type, char jobu, char jobvt, int64_t m, int64_t n, const void* a, int64_t lda,
                      const void* s, const void* u, int64_t ldu, const void* vt, int64_t ldvt) override {
    const int t = data_type(type), r = data_type(real_of(type));
    WorkSize w;
    check(api_.xgesvd_buffer_size(h_, p_, static_cast<signed char>(jobu), static_cast<signed char>(jobvt), m, n, t,
                                  a, lda, r, s, t, u, ldu, t, vt, ldvt, t, &w.device_bytes, &w.host_bytes),
          "cusolverDnXgesvd_bufferSize");
    return w;
  }
  void gesvd(ElementType type, char jobu, char jobvt, int64_t m, int64_t n, void* a, int64_t lda, void* s, void* u,
             int64_t ldu, void* vt, int64_t ldvt, const WorkArea& work, int* info) override {
    const int t = data_type(type), r = data_type(real_of(type));
    check(api_.xgesvd(h_, p_, static_cast<signed char>(jobu), static_cast<signed char>(jobvt), m, n, t, a, lda, r, s,
                      t, u, ldu, t, vt, ldvt, t, work.device, work.device_bytes, work.host, work.host_bytes, info),
          "cusolverDnXgesvd");
  }
  WorkSize syevd_work(ElementType type, bool vectors, Triangle uplo, int64_t n, const void* a, int64_t lda,
                      const void* w) override {
    const int t = data_type(type), r = data_type(real_of(type));
    WorkSize ws;
    check(api_.xsyevd_buffer_size(h_, p_, eig_mode(vectors), fill_of(uplo), n, t, a, lda, r, w, t, &ws.device_bytes,
                                  &ws.host_bytes),
          "cusolverDnXsyevd_bufferSize");
    return ws;
  }
  void syevd(ElementType type, bool vectors, Triangle uplo, int64_t n, void* a, int64_t lda, void* w,
             const WorkArea& work, int* info) override {
    const int t = data_type(type), r = data_type(real_of(type));
    check(api_.xsyevd(h_, p_, eig_mode(vectors), fill_of(uplo), n, t, a, lda, r, w, t, work.device,
                      work.device_bytes, work.host, work.host_bytes, info),
          "cusolverDnXsyevd");
  }
  bool has_geev(std::string* why_not) override {
    if (api_.xgeev && api_.xgeev_buffer_size) return true;
    if (why_not) {
      int version = 0;
      const std::string found = api_.get_version && api_.get_version(&version) == kCusolverSuccess
                                    ? " (cuSOLVER version " + std::to_string(version) + ")"
                                    : "";
      *why_not = "the loaded libcusolver, " + api_.library_path + found +
                 ", has no cusolverDnXgeev, which eig and eigvals need: it came with cuSOLVER 11.7 (CUDA 12.6); "
                 "point KILN_CUSOLVER_PATH at a newer libcusolver";
    }
    return false;
  }
  // Right vectors only: jobvl NOVECTOR, VL null with ldvl n (Note [cuSOLVER
  // geev] in arraycore/solver.cpp).
  WorkSize geev_work(ElementType type, bool vectors, int64_t n, const void* a, int64_t lda, const void* w,
                     const void* vr, int64_t ldvr) override {
    const int t = data_type(type), wt = data_type(complex_of(type));
    WorkSize ws;
    check(api_.xgeev_buffer_size(h_, p_, cusolver_eig_mode::kNoVector, eig_mode(vectors), n, t, a, lda, wt, w, t,
                                 nullptr, n, t, vr, ldvr, t, &ws.device_bytes, &ws.host_bytes),
          "cusolverDnXgeev_bufferSize");
    return ws;
  }
  void geev(ElementType type, bool vectors, int64_t n, void* a, int64_t lda, void* w, void* vr, int64_t ldvr,
            const WorkArea& work, int* info) override {
    const int t = data_type(type), wt = data_type(complex_of(type));
    check(api_.xgeev(h_, p_, cusolver_eig_mode::kNoVector, eig_mode(vectors), n, t, a, lda, wt, w, t, nullptr, n, t,
                     vr, ldvr, t, work.device, work.device_bytes, work.host, work.host_bytes, info),
          "cusolverDnXgeev");
  }

  bool has_getrf_batched(ElementType type) override {
    const CublasApi* b = batched_blas();
    return b && b->getrf_batched[precision(type)] != nullptr;
  }
  void getrf_batched(ElementType type, int n, void* const* a, int lda, int* ipiv, int* info, int batch) override {
    const CublasApi& b = bind_blas();
    check_blas(b, b.getrf_batched[precision(type)](blas_h_, n, a, lda, ipiv, info, batch), "cublas?getrfBatched");
  }
  bool has_getrs_batched(ElementType type) override {
    const CublasApi* b = batched_blas();
    return b && b->getrs_batched[precision(type)] != nullptr;
  }
  void getrs_batched(ElementType type, Transpose op, int n, int nrhs, const void* const* a, int lda, const int* ipiv,
                     void* const* b, int ldb, int* arg_error, int batch) override {
    const CublasApi& api = bind_blas();
    check_blas(api,
               api.getrs_batched[precision(type)](blas_h_, op_of(op), n, nrhs, a, lda, ipiv, b, ldb, arg_error, batch),
               "cublas?getrsBatched");
  }
  bool has_potrf_batched(ElementType type) override { return api_.potrf_batched[precision(type)] != nullptr; }
  void potrf_batched(ElementType type, Triangle uplo, int n, void* const* a, int lda, int* info, int batch) override {
    check(api_.potrf_batched[precision(type)](h_, fill_of(uplo), n, const_cast<void**>(a), lda, info, batch),
          "cusolverDn?potrfBatched");
  }

 private:
  static int eig_mode(bool vectors) { return vectors ? cusolver_eig_mode::kVector : cusolver_eig_mode::kNoVector; }

  // cuBLAS for the batched LU (Note [Batched primitives] in
  // arraycore/solver.cpp), null where it does not load. Over host memory
  // (the test double) only a stand-in that KILN_CUBLAS_PATH names, never the
  // SDK's real library, which needs device memory.
  const CublasApi* batched_blas() const {
    if (host_memory_ && !std::getenv("KILN_CUBLAS_PATH")) return nullptr;
    return load_cublas_api(nullptr);
  }

  // batched_blas() bound to the session's stream (once).
  const CublasApi& bind_blas() {
    const CublasApi* api = batched_blas();
    if (!api) throw Error("cuBLAS (libcublas) is not loaded");
    if (blas_h_ == nullptr) {
      CublasHandle h = nullptr;
      CublasStatus st = kCublasSuccess;
      if (host_memory_)
        st = api->create(&h);
      else
        h = cublas_handle_for_current_thread(*api, backend().current_device());
      if (st == kCublasSuccess) st = api->set_stream(h, static_cast<CuStream>(stream_));
      if (st != kCublasSuccess) throw Error("cuBLAS setup failed: " + describe_cublas_status(*api, st));
      blas_h_ = h;
    }
    return *api;
  }

  const CusolverApi& api_;
  const bool host_memory_;
  const StreamHandle stream_;
  CusolverHandle h_ = nullptr;
  CusolverParams p_ = nullptr;
  CublasHandle blas_h_ = nullptr;
};

class CudaSolver final : public SolverLibrary {
 public:
  explicit CudaSolver(bool host_memory) : host_memory_(host_memory) {}
  std::unique_ptr<SolverSession> session(StreamHandle stream) override {
    const CusolverApi* api = load_cusolver_api(nullptr);
    if (!api) throw Error("cuSOLVER (libcusolver) is not loaded");
    return std::make_unique<CudaSolverSession>(*api, host_memory_, stream);
  }

 private:
  const bool host_memory_;
};

// ---- FFT --------------------------------------------------------------------

void check_fft(CufftResult status, const char* call) {
  if (status == kCufftSuccess) return;
  const std::string what = std::string(call) + " failed: " + describe_cufft_status(status);
  if (status == kCufftAllocFailed) throw OutOfMemory(what, 0);  // MemoryError: kiln.fft retries
  throw Error(what);
}

int cufft_type_of(FftType type, bool double_precision) {
  switch (type) {
    case FftType::C2C: return double_precision ? cufft_type::kZ2Z : cufft_type::kC2C;
    case FftType::R2C: return double_precision ? cufft_type::kD2Z : cufft_type::kR2C;
    case FftType::C2R: return double_precision ? cufft_type::kZ2D : cufft_type::kC2R;
  }
  return 0;
}

const CufftApi& cufft() {
  const CufftApi* api = load_cufft_api(nullptr);
  if (!api) throw Error("cuFFT (libcufft) is not loaded");
  return *api;
}

class CudaFft final : public FftLibrary {
 public:
  int64_t make_plan(int device, FftType type, bool double_precision, const std::vector<int64_t>& extents,
                    int64_t batch, size_t* work_bytes) override {
    const CufftApi& api = cufft();
    make_primary_context_current(device);
    CufftHandle h = -1;
    check_fft(api.create(&h), "cufftCreate");
    try {
      // Note [FFT work areas from kiln's pool]: cuFFT allocates nothing itself.
      check_fft(api.set_auto_allocation(h, 0), "cufftSetAutoAllocation");
      std::vector<long long> n(extents.begin(), extents.end());
      size_t work_size = 0;
      // Basic layout (Note [FFT plan layout]): null embeds, strides and
      // distances ignored.
      check_fft(api.make_plan_many64(h, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0,
                                     cufft_type_of(type, double_precision), batch, &work_size),
                "cufftMakePlanMany64");
      size_t planned = 0;   // the made plan's own figure: the larger of the two is allocated
      check_fft(api.get_size(h, &planned), "cufftGetSize");
      *work_bytes = std::max(work_size, planned);
    } catch (...) {
      api.destroy(h);
      throw;
    }
    return h;
  }

  void set_work_area(int64_t plan, void* work) override {
    check_fft(cufft().set_work_area(static_cast<CufftHandle>(plan), work), "cufftSetWorkArea");
  }

  void execute(int64_t plan, int device, StreamHandle stream, FftType type, bool double_precision, void* i, void* o,
               bool forward) override {
    check_not_capturing(stream, "calling cuFFT");  // Note [Stream capture]
    const CufftApi& api = cufft();
    const CufftHandle h = static_cast<CufftHandle>(plan);
    make_primary_context_current(device);
    check_fft(api.set_stream(h, static_cast<CuStream>(stream)), "cufftSetStream");
    const int direction = forward ? kCufftForward : kCufftInverse;
    switch (cufft_type_of(type, double_precision)) {
      case cufft_type::kC2C: check_fft(api.exec_c2c(h, i, o, direction), "cufftExecC2C"); break;
      case cufft_type::kZ2Z: check_fft(api.exec_z2z(h, i, o, direction), "cufftExecZ2Z"); break;
      case cufft_type::kR2C: check_fft(api.exec_r2c(h, i, o), "cufftExecR2C"); break;
      case cufft_type::kD2Z: check_fft(api.exec_d2z(h, i, o), "cufftExecD2Z"); break;
      case cufft_type::kC2R: check_fft(api.exec_c2r(h, i, o), "cufftExecC2R"); break;
      case cufft_type::kZ2D: check_fft(api.exec_z2d(h, i, o), "cufftExecZ2D"); break;
    }
  }

  void destroy_plan(int64_t plan, int device, bool synchronize) noexcept override {
    const CufftApi* api = load_cufft_api(nullptr);
    if (!api) return;
    try {
      make_primary_context_current(device);
    } catch (const std::exception&) {
      return;  // the driver is gone (exit): nothing left to free
    }
    api->destroy(static_cast<CufftHandle>(plan));  // best effort
    if (synchronize) {
      if (const DriverApi* cu = load_driver_api(nullptr)) cu->ctx_synchronize();
    }
  }
};

class CudaLibraries final : public Libraries {
 public:
  BlasLibrary* blas(std::string* why_not) override { return load_cublas_api(why_not) ? &blas_ : nullptr; }
  SolverLibrary* solver(std::string* why_not) override { return load_cusolver_api(why_not) ? &solver_ : nullptr; }
  FftLibrary* fft(std::string* why_not) override { return load_cufft_api(why_not) ? &fft_ : nullptr; }

 private:
  CudaBlas blas_;
  CudaSolver solver_{false};
  CudaFft fft_;
};

}  // namespace

Libraries& cuda_libraries() {
  static auto* libraries = new CudaLibraries;  // never destroyed: plans may go at exit
  return *libraries;
}

SolverLibrary* host_memory_solver(std::string* why_not) {
  static auto* solver = new CudaSolver(true);
  return load_cusolver_api(why_not) ? solver : nullptr;
}

}  // namespace kiln::runtime::cuda
