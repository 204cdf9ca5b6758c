// The vendor libraries an operation may hand work to: BLAS (matrix
// products), a dense solver (LAPACK's factorisations, one matrix at a time
// and batched) and FFT, each a small abstract class over kiln's own types,
// provided by the backend (Backend::libraries()).
//
//   runtime::Libraries& libs = runtime::backend().libraries();
//   std::string why;
//   if (runtime::BlasLibrary* blas = libs.blas(&why))
//     blas->gemm(runtime::current_stream(), runtime::ElementType::Float32, false,
//                runtime::Transpose::None, runtime::Transpose::None, m, n, k, a, m, b, k, c, m);
//   else
//     ...  // kiln's own kernel; `why` says why not
//
// Note [Libraries]
// arraycore asks for "a batched LU" or "a C2C plan", never for cusolverDn...:
// what to compute (layouts, batches, results, when to fall back) is
// arraycore's (blas.h, solver.h, fft.h); how a vendor does it is the
// provider's. Providers:
//  - cuda (runtime/cuda/cuda_libraries.cpp): cuBLAS, cuSOLVER and cuFFT
//    through their dlopen tables (cublas_api.h, cusolver_api.h,
//    cufft_api.h), with per-thread, per-device handles; each library is
//    unavailable (with why) when it does not load.
//  - host (runtime/host/host_libraries.cpp): kiln has no BLAS, LAPACK or FFT
//    in C++ for the CPU today, so each is unavailable and says why. The
//    Python layer keeps its host paths: SciPy's LAPACK (kiln/linalg/
//    _lapack.py), numpy.fft (kiln/fft/_fft.py); matmul runs kiln's own
//    kernel. The one exception is the cuSOLVER test double (Note [cuSOLVER
//    test double] in host_libraries.cpp), a solver over host memory.
// Conventions of every routine: matrices are column-major with a leading
// dimension (lda, ...) in elements; every call is queued on the stream given
// (or the session's) of the current device and never waits for it; `info`
// arguments are int32 and live where the library writes them (device memory
// on cuda); failures throw runtime::Error naming the vendor routine and its
// status (runtime::OutOfMemory where the library ran out of memory). The
// objects live as long as the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backend.h"

namespace kiln::runtime {

// The element types the libraries compute in (arraycore maps its DType).
enum class ElementType : uint8_t { Float16, Float32, Float64, Complex64, Complex128 };

enum class Transpose : uint8_t { None, Trans, ConjTrans };  // op(A) = A, A^T, A^H
enum class Triangle : uint8_t { Lower, Upper };             // which triangle is read or written

// Matrix products.
class BlasLibrary {
 public:
  virtual ~BlasLibrary() = default;

  // c = op_a(a) op_b(b) (c is m x n, k the inner extent; alpha 1, beta 0),
  // on `stream`. Float16 accumulates in float32; allow_tf32 lets float32 and
  // complex64 products round their inputs to TF32 (Note [TF32] in
  // arraycore/blas.h); float64 and complex128 compute in their own precision.
  virtual void gemm(StreamHandle stream, ElementType type, bool allow_tf32, Transpose op_a, Transpose op_b, int m,
                    int n, int k, const void* a, int lda, const void* b, int ldb, void* c, int ldc) = 0;
  // The same for `batch` products whose matrices lie stride_* elements apart.
  virtual void gemm_strided_batched(StreamHandle stream, ElementType type, bool allow_tf32, Transpose op_a,
                                    Transpose op_b, int m, int n, int k, const void* a, int lda, int64_t stride_a,
                                    const void* b, int ldb, int64_t stride_b, void* c, int ldc, int64_t stride_c,
                                    int batch) = 0;
};

// Work memory one call of a routine needs: device bytes (kiln's pool) and
// host bytes (the heap), allocated by the caller.
struct WorkSize {
  size_t device_bytes = 0;
  size_t host_bytes = 0;
};
struct WorkArea {
  void* device = nullptr;
  size_t device_bytes = 0;
  void* host = nullptr;
  size_t host_bytes = 0;
};

// One primitive's calls to the dense solver, bound to the current device and
// one stream (SolverLibrary::session). LAPACK's routines, one matrix per call
// (`a` of `type`; real results such as singular values and Hermitian
// eigenvalues are of its real type); each *_work asks for the work memory of
// one call with those arguments, which the caller may reuse for every
// matrix of that shape. Pivots are 1-based; infos as LAPACK's.
class SolverSession {
 public:
  virtual ~SolverSession() = default;

  // ?getrf: LU with partial pivoting of the m x n a, in place; ipiv min(m, n).
  virtual WorkSize getrf_work(ElementType type, int64_t m, int64_t n, const void* a, int64_t lda) = 0;
  virtual void getrf(ElementType type, int64_t m, int64_t n, void* a, int64_t lda, int64_t* ipiv,
                     const WorkArea& work, int* info) = 0;
  // ?getrs: b (n x nrhs) <- op(A)^-1 b with getrf's a and ipiv; no work memory.
  virtual void getrs(ElementType type, Transpose op, int64_t n, int64_t nrhs, const void* a, int64_t lda,
                     const int64_t* ipiv, void* b, int64_t ldb, int* info) = 0;
  // ?potrf: Cholesky of the n x n a in place, into `uplo`.
  virtual WorkSize potrf_work(ElementType type, Triangle uplo, int64_t n, const void* a, int64_t lda) = 0;
  virtual void potrf(ElementType type, Triangle uplo, int64_t n, void* a, int64_t lda, const WorkArea& work,
                     int* info) = 0;
  // ?geqrf: QR of the m x n a in place; tau min(m, n) of a's type.
  virtual WorkSize geqrf_work(ElementType type, int64_t m, int64_t n, const void* a, int64_t lda,
                              const void* tau) = 0;
  virtual void geqrf(ElementType type, int64_t m, int64_t n, void* a, int64_t lda, void* tau, const WorkArea& work,
                     int* info) = 0;
  // ?orgqr / ?ungqr: a (m x n) <- the first n columns of H_1 ... H_k. int
  // sizes; the work memory is device memory of `*elements` elements of a's
  // type (this routine has no 64-bit form).
  virtual void orgqr_work(ElementType type, int m, int n, int k, const void* a, int lda, const void* tau,
                          int* elements) = 0;
  virtual void orgqr(ElementType type, int m, int n, int k, void* a, int lda, const void* tau, void* work,
                     int elements, int* info) = 0;
  // ?gesvd of the m x n a (destroyed); jobu, jobvt as LAPACK's ('A', 'S',
  // 'O', 'N'); s of the real type; u, vt null when not asked for.
  virtual WorkSize gesvd_work(ElementType type, char jobu, char jobvt, int64_t m, int64_t n, const void* a,
                              int64_t lda, const void* s, const void* u, int64_t ldu, const void* vt,
                              int64_t ldvt) = 0;
  virtual void gesvd(ElementType type, char jobu, char jobvt, int64_t m, int64_t n, void* a, int64_t lda, void* s,
                     void* u, int64_t ldu, void* vt, int64_t ldvt, const WorkArea& work, int* info) = 0;
  // ?syevd / ?heevd: eigenvalues w (real type, ascending) of the Hermitian
  // n x n a read from `uplo`, and with `vectors` its eigenvectors into a.
  virtual WorkSize syevd_work(ElementType type, bool vectors, Triangle uplo, int64_t n, const void* a, int64_t lda,
                              const void* w) = 0;
  virtual void syevd(ElementType type, bool vectors, Triangle uplo, int64_t n, void* a, int64_t lda, void* w,
                     const WorkArea& work, int* info) = 0;
  // ?geev of the n x n a (destroyed): eigenvalues w always complex (complex64
  // for float32/complex64 a, complex128 otherwise) and, with `vectors`,
  // right eigenvectors vr of a's type (LAPACK's packing for real a); no left
  // ones. Optional: has_geev says whether the library has it, else why not.
  virtual bool has_geev(std::string* why_not) = 0;
  virtual WorkSize geev_work(ElementType type, bool vectors, int64_t n, const void* a, int64_t lda, const void* w,
                             const void* vr, int64_t ldvr) = 0;
  virtual void geev(ElementType type, bool vectors, int64_t n, void* a, int64_t lda, void* w, void* vr,
                    int64_t ldvr, const WorkArea& work, int* info) = 0;

  // Batched routines over arrays of device pointers to n x n matrices (one
  // call for the whole stack; Note [Batched primitives] in
  // arraycore/solver.cpp), int sizes, int32 pivots and infos on the device;
  // each optional: has_* says whether this library has it for `type`.
  virtual bool has_getrf_batched(ElementType type) = 0;
  virtual void getrf_batched(ElementType type, int n, void* const* a, int lda, int* ipiv, int* info, int batch) = 0;
  // `arg_error`: a HOST int, argument errors only.
  virtual bool has_getrs_batched(ElementType type) = 0;
  virtual void getrs_batched(ElementType type, Transpose op, int n, int nrhs, const void* const* a, int lda,
                             const int* ipiv, void* const* b, int ldb, int* arg_error, int batch) = 0;
  virtual bool has_potrf_batched(ElementType type) = 0;
  virtual void potrf_batched(ElementType type, Triangle uplo, int n, void* const* a, int lda, int* info,
                             int batch) = 0;
};

// The dense solver.
class SolverLibrary {
 public:
  virtual ~SolverLibrary() = default;
  // A session for one primitive's calls on `stream` of the current device.
  virtual std::unique_ptr<SolverSession> session(StreamHandle stream) = 0;
};

enum class FftType : uint8_t { C2C, R2C, C2R };

// FFT plans. A plan is an id the library gives (>= 0), made on one device.
class FftLibrary {
 public:
  virtual ~FftLibrary() = default;

  // A plan of `batch` transforms of extents n (1 to 3) lying back to back in
  // C order (Note [FFT plan layout] in arraycore/fft.h), in double or single
  // precision, on `device`; it allocates no work memory itself:
  // *work_bytes is what set_work_area must be given (0: none).
  virtual int64_t make_plan(int device, FftType type, bool double_precision, const std::vector<int64_t>& n,
                            int64_t batch, size_t* work_bytes) = 0;
  virtual void set_work_area(int64_t plan, void* work) = 0;
  // out = the unnormalised transform of in, on `stream` of the plan's device;
  // `forward` picks the sign of C2C (R2C is forward, C2R inverse).
  virtual void execute(int64_t plan, int device, StreamHandle stream, FftType type, bool double_precision, void* in,
                       void* out, bool forward) = 0;
  // Frees the plan; never throws, does nothing when the driver is already
  // gone (exit). `synchronize`: then waits until the device has finished
  // its queued work (Note [FFT work areas from kiln's pool] in
  // arraycore/fft.h).
  virtual void destroy_plan(int64_t plan, int device, bool synchronize) noexcept = 0;
};

// A backend's libraries (Note [Libraries]): each nullptr, with `why_not`
// (optional) filled, when it cannot be used now.
class Libraries {
 public:
  virtual ~Libraries() = default;
  virtual BlasLibrary* blas(std::string* why_not) = 0;
  virtual SolverLibrary* solver(std::string* why_not) = 0;
  virtual FftLibrary* fft(std::string* why_not) = 0;
};

}  // namespace kiln::runtime
