// A stand-in for libcusolver (Note [cuSOLVER test double] in runtime/host/host_libraries.cpp):
// the entry points kiln resolves (runtime/cuda/cusolver_api.h), with
// cuSOLVER's documented conventions (generic API with cudaDataType and
// int64 sizes and pivots, workspace sizes in bytes for device and host,
// ?orgqr workspaces in elements, V^H from gesvd, ascending eigenvalues, geev's
// complex W with real VR in LAPACK's packing for real types), over
// reference LAPACK on host memory (?syev for syevd: the same results). It checks what kiln passes (types, leading
// dimensions, that the workspaces are the sizes it reported, null U/VT
// exactly for job 'N', no A^H for real types) and answers
// CUSOLVER_STATUS_INVALID_VALUE otherwise. Built by
// tests/python/linalg/test_linalg_solver_primitives.py:
//   c++ -std=c++17 -shared -fPIC fake_libcusolver.cpp -o libfakecusolver.so -l:liblapack.so.3
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

using c8 = std::complex<float>;
using z16 = std::complex<double>;

extern "C" {
// Reference LAPACK (Fortran ABI: arguments by pointer, character lengths last).
#define KILN_LAPACK(T, p, orgqr)                                                                             \
  void p##getrf_(int*, int*, T*, int*, int*, int*);                                                            \
  void p##getrs_(const char*, int*, int*, const T*, int*, int*, T*, int*, int*, size_t);                       \
  void p##potrf_(const char*, int*, T*, int*, int*, size_t);                                                   \
  void p##geqrf_(int*, int*, T*, int*, T*, T*, int*, int*);                                                    \
  void orgqr(int*, int*, int*, T*, int*, const T*, T*, int*, int*);
KILN_LAPACK(float, s, sorgqr_)
KILN_LAPACK(double, d, dorgqr_)
KILN_LAPACK(c8, c, cungqr_)
KILN_LAPACK(z16, z, zungqr_)
#undef KILN_LAPACK
void sgesvd_(const char*, const char*, int*, int*, float*, int*, float*, float*, int*, float*, int*, float*, int*,
             int*, size_t, size_t);
void dgesvd_(const char*, const char*, int*, int*, double*, int*, double*, double*, int*, double*, int*, double*,
             int*, int*, size_t, size_t);
void cgesvd_(const char*, const char*, int*, int*, c8*, int*, float*, c8*, int*, c8*, int*, c8*, int*, float*, int*,
             size_t, size_t);
void zgesvd_(const char*, const char*, int*, int*, z16*, int*, double*, z16*, int*, z16*, int*, z16*, int*, double*,
             int*, size_t, size_t);
void ssyev_(const char*, const char*, int*, float*, int*, float*, float*, int*, int*, size_t, size_t);
void dsyev_(const char*, const char*, int*, double*, int*, double*, double*, int*, int*, size_t, size_t);
void cheev_(const char*, const char*, int*, c8*, int*, float*, c8*, int*, float*, int*, size_t, size_t);
void zheev_(const char*, const char*, int*, z16*, int*, double*, z16*, int*, double*, int*, size_t, size_t);
void sgeev_(const char*, const char*, int*, float*, int*, float*, float*, float*, int*, float*, int*, float*, int*,
            int*, size_t, size_t);
void dgeev_(const char*, const char*, int*, double*, int*, double*, double*, double*, int*, double*, int*, double*,
            int*, int*, size_t, size_t);
void cgeev_(const char*, const char*, int*, c8*, int*, c8*, c8*, int*, c8*, int*, c8*, int*, float*, int*, size_t,
            size_t);
void zgeev_(const char*, const char*, int*, z16*, int*, z16*, z16*, int*, z16*, int*, z16*, int*, double*, int*,
            size_t, size_t);
}

namespace {

using Status = int;
constexpr Status kOk = 0, kInvalid = 3;
constexpr int kR32 = 0, kR64 = 1, kC32 = 4, kC64 = 5;   // cudaDataType
constexpr size_t kDeviceBytes = 96, kHostBytes = 40;   // what every bufferSize answers

// One name per LAPACK operation for the four types (real ones ignore rwork).
#define KILN_OVERLOADS(T, p)                                                                                 \
  void getrf(int* m, int* n, T* a, int* lda, int* ipiv, int* info) { p##getrf_(m, n, a, lda, ipiv, info); }     \
  void getrs(const char* tr, int* n, int* k, const T* a, int* lda, int* ipiv, T* b, int* ldb, int* info) {      \
    p##getrs_(tr, n, k, a, lda, ipiv, b, ldb, info, 1);                                                        \
  }                                                                                                            \
  void potrf(const char* uplo, int* n, T* a, int* lda, int* info) { p##potrf_(uplo, n, a, lda, info, 1); }     \
  void geqrf(int* m, int* n, T* a, int* lda, T* tau, T* w, int* lw, int* info) {                               \
    p##geqrf_(m, n, a, lda, tau, w, lw, info);                                                                 \
  }
KILN_OVERLOADS(float, s)
KILN_OVERLOADS(double, d)
KILN_OVERLOADS(c8, c)
KILN_OVERLOADS(z16, z)
#undef KILN_OVERLOADS
void gesvd(const char* ju, const char* jv, int* m, int* n, float* a, int* lda, float* s, float* u, int* ldu, float* vt,
           int* ldvt, float* w, int* lw, float*, int* info) {
  sgesvd_(ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, w, lw, info, 1, 1);
}
void gesvd(const char* ju, const char* jv, int* m, int* n, double* a, int* lda, double* s, double* u, int* ldu,
           double* vt, int* ldvt, double* w, int* lw, double*, int* info) {
  dgesvd_(ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, w, lw, info, 1, 1);
}
void gesvd(const char* ju, const char* jv, int* m, int* n, c8* a, int* lda, float* s, c8* u, int* ldu, c8* vt,
           int* ldvt, c8* w, int* lw, float* rw, int* info) {
  cgesvd_(ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, w, lw, rw, info, 1, 1);
}
void gesvd(const char* ju, const char* jv, int* m, int* n, z16* a, int* lda, double* s, z16* u, int* ldu, z16* vt,
           int* ldvt, z16* w, int* lw, double* rw, int* info) {
  zgesvd_(ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, w, lw, rw, info, 1, 1);
}
void syev(const char* jz, const char* ul, int* n, float* a, int* lda, float* w, float* wk, int* lw, float*, int* info) {
  ssyev_(jz, ul, n, a, lda, w, wk, lw, info, 1, 1);
}
void syev(const char* jz, const char* ul, int* n, double* a, int* lda, double* w, double* wk, int* lw, double*,
          int* info) {
  dsyev_(jz, ul, n, a, lda, w, wk, lw, info, 1, 1);
}
void syev(const char* jz, const char* ul, int* n, c8* a, int* lda, float* w, c8* wk, int* lw, float* rw, int* info) {
  cheev_(jz, ul, n, a, lda, w, wk, lw, rw, info, 1, 1);
}
void syev(const char* jz, const char* ul, int* n, z16* a, int* lda, double* w, z16* wk, int* lw, double* rw,
          int* info) {
  zheev_(jz, ul, n, a, lda, w, wk, lw, rw, info, 1, 1);
}

// geev with cuSOLVER's complex W for every type: real types get wr + i wi
// (VR stays real, LAPACK's packing), complex ones LAPACK's w.
template <class T> void geev_into(const char* jr, int* n, T* a, int* lda, std::complex<T>* w, T* vr, int* ldvr,
                                  int* info) {
  int lw = 64 * *n + 64, one = 1;
  std::vector<T> wr(*n), wi(*n), work(lw);
  T vl;
  if constexpr (std::is_same_v<T, float>)
    sgeev_("N", jr, n, a, lda, wr.data(), wi.data(), &vl, &one, vr, ldvr, work.data(), &lw, info, 1, 1);
  else
    dgeev_("N", jr, n, a, lda, wr.data(), wi.data(), &vl, &one, vr, ldvr, work.data(), &lw, info, 1, 1);
  for (int j = 0; j < *n; ++j) w[j] = std::complex<T>(wr[j], wi[j]);
}
template <class T> void geev_into(const char* jr, int* n, std::complex<T>* a, int* lda, std::complex<T>* w,
                                  std::complex<T>* vr, int* ldvr, int* info) {
  int lw = 64 * *n + 64, one = 1;
  std::vector<std::complex<T>> work(lw);
  std::vector<T> rwork(2 * *n);
  std::complex<T> vl;
  if constexpr (std::is_same_v<T, float>)
    cgeev_("N", jr, n, a, lda, w, &vl, &one, vr, ldvr, work.data(), &lw, rwork.data(), info, 1, 1);
  else
    zgeev_("N", jr, n, a, lda, w, &vl, &one, vr, ldvr, work.data(), &lw, rwork.data(), info, 1, 1);
}

template <class T> struct Real { using type = T; };
template <class T> struct Real<std::complex<T>> { using type = T; };

// Calls f with a null pointer of the C++ type of cudaDataType `type` (false: not one of the four).
template <class F> bool with_type(int type, F&& f) {
  switch (type) {
    case kR32: f(static_cast<float*>(nullptr)); return true;
    case kR64: f(static_cast<double*>(nullptr)); return true;
    case kC32: f(static_cast<c8*>(nullptr)); return true;
    case kC64: f(static_cast<z16*>(nullptr)); return true;
    default: return false;
  }
}

int real_of(int type) { return type == kC32 ? kR32 : type == kC64 ? kR64 : type; }

bool workspace_ok(const void* device, size_t device_bytes, const void* host, size_t host_bytes) {
  return device && device_bytes == kDeviceBytes && host && host_bytes == kHostBytes;
}

Status sizes(size_t* device, size_t* host) {
  *device = kDeviceBytes;
  *host = kHostBytes;
  return kOk;
}

}  // namespace

extern "C" {
// Reference LAPACK's own error handler stops the process (a NaN input makes
// ?lascl report an illegal value); this one, found first, lets the routine
// return with its negative info, as cuSOLVER would.
void xerbla_(const char*, const int*, size_t) {}

// How many batched calls (cuBLAS's getrf/getrs, cuSOLVER's potrf) this
// library has served: tests read it through ctypes to see the batched path ran.
int kiln_fake_batched_calls = 0;

Status cusolverDnCreate(void** handle) {
  static int h;
  *handle = &h;
  return kOk;
}
Status cusolverDnSetStream(void*, void*) { return kOk; }
Status cusolverDnCreateParams(void** params) {
  static int p;
  *params = &p;
  return kOk;
}
Status cusolverGetVersion(int* version) {
  *version = 0;
  return kOk;
}

Status cusolverDnXgetrf_bufferSize(void*, void*, int64_t m, int64_t, int type, const void*, int64_t lda,
                                   int compute, size_t* device, size_t* host) {
  return type != compute || lda < m ? kInvalid : sizes(device, host);
}
Status cusolverDnXgetrf(void*, void*, int64_t m, int64_t n, int type, void* a, int64_t lda, int64_t* ipiv,
                        int compute, void* dw, size_t db, void* hw, size_t hb, int* info) {
  if (type != compute || lda < m || !workspace_ok(dw, db, hw, hb)) return kInvalid;
  int mi = m, ni = n, ld = lda;
  std::vector<int> p(std::min(mi, ni));
  with_type(type, [&](auto* t) { getrf(&mi, &ni, static_cast<decltype(t)>(a), &ld, p.data(), info); });
  for (size_t i = 0; i < p.size(); ++i) ipiv[i] = p[i];
  return kOk;
}
Status cusolverDnXgetrs(void*, void*, int op, int64_t n, int64_t k, int type_a, const void* a, int64_t lda,
                        const int64_t* ipiv, int type_b, void* b, int64_t ldb, int* info) {
  if (type_a != type_b || lda < n || ldb < n || op < 0 || op > 2 || (op == 2 && real_of(type_a) == type_a))
    return kInvalid;
  int ni = n, ki = k, la = lda, lb = ldb;
  std::vector<int> p(ipiv, ipiv + n);
  const char* tr = op == 0 ? "N" : op == 1 ? "T" : "C";
  with_type(type_a, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    getrs(tr, &ni, &ki, static_cast<const T*>(a), &la, p.data(), static_cast<T*>(b), &lb, info);
  });
  return kOk;
}
Status cusolverDnXpotrf_bufferSize(void*, void*, int uplo, int64_t n, int type, const void*, int64_t lda,
                                   int compute, size_t* device, size_t* host) {
  return type != compute || lda < n || uplo < 0 || uplo > 1 ? kInvalid : sizes(device, host);
}
Status cusolverDnXpotrf(void*, void*, int uplo, int64_t n, int type, void* a, int64_t lda, int compute, void* dw,
                        size_t db, void* hw, size_t hb, int* info) {
  if (type != compute || !workspace_ok(dw, db, hw, hb)) return kInvalid;
  int ni = n, ld = lda;
  with_type(type, [&](auto* t) { potrf(uplo == 0 ? "L" : "U", &ni, static_cast<decltype(t)>(a), &ld, info); });
  return kOk;
}
// Batched Cholesky (Note [Batched primitives] in arraycore/solver.cpp): the
// pointer array holds host addresses here.
#define KILN_POTRF_BATCHED(name, T)                                                                            \
  Status cusolverDn##name(void*, int uplo, int n, T* a[], int lda, int* info, int batch) {                     \
    if (uplo < 0 || uplo > 1 || n < 0 || lda < n || batch < 0 || !a || !info) return kInvalid;                 \
    ++kiln_fake_batched_calls;                                                                                 \
    for (int i = 0; i < batch; ++i) potrf(uplo == 0 ? "L" : "U", &n, a[i], &lda, info + i);                    \
    return kOk;                                                                                                \
  }
KILN_POTRF_BATCHED(SpotrfBatched, float)
KILN_POTRF_BATCHED(DpotrfBatched, double)
KILN_POTRF_BATCHED(CpotrfBatched, c8)
KILN_POTRF_BATCHED(ZpotrfBatched, z16)
#undef KILN_POTRF_BATCHED

Status cusolverDnXgeqrf_bufferSize(void*, void*, int64_t m, int64_t, int type, const void*, int64_t lda,
                                   int type_tau, const void*, int compute, size_t* device, size_t* host) {
  return type != compute || type != type_tau || lda < m ? kInvalid : sizes(device, host);
}
Status cusolverDnXgeqrf(void*, void*, int64_t m, int64_t n, int type, void* a, int64_t lda, int type_tau, void* tau,
                        int compute, void* dw, size_t db, void* hw, size_t hb, int* info) {
  if (type != compute || type != type_tau || !workspace_ok(dw, db, hw, hb)) return kInvalid;
  int mi = m, ni = n, ld = lda, lw = 64 * ni + 64;
  with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    std::vector<T> w(lw);
    geqrf(&mi, &ni, static_cast<T*>(a), &ld, static_cast<T*>(tau), w.data(), &lw, info);
  });
  return kOk;
}
#define KILN_ORGQR(name, T, lapack)                                                                            \
  Status cusolverDn##name##_bufferSize(void*, int m, int n, int k, const void*, int lda, const void*,          \
                                       int* lwork) {                                                           \
    if (!(m >= n && n >= k && k >= 0) || lda < m) return kInvalid;                                             \
    *lwork = 64 * n + 64;                                                                                      \
    return kOk;                                                                                                \
  }                                                                                                            \
  Status cusolverDn##name(void*, int m, int n, int k, void* a, int lda, const void* tau, void* work, int lwork, \
                          int* info) {                                                                         \
    if (lwork != 64 * n + 64 || !work) return kInvalid;                                                        \
    lapack(&m, &n, &k, static_cast<T*>(a), &lda, static_cast<const T*>(tau), static_cast<T*>(work), &lwork,    \
           info);                                                                                              \
    return kOk;                                                                                                \
  }
KILN_ORGQR(Sorgqr, float, sorgqr_)
KILN_ORGQR(Dorgqr, double, dorgqr_)
KILN_ORGQR(Cungqr, c8, cungqr_)
KILN_ORGQR(Zungqr, z16, zungqr_)
#undef KILN_ORGQR
Status cusolverDnXgesvd_bufferSize(void*, void*, signed char, signed char, int64_t m, int64_t n, int type,
                                   const void*, int64_t lda, int type_s, const void*, int type_u, const void*,
                                   int64_t ldu, int type_vt, const void*, int64_t ldvt, int compute, size_t* device,
                                   size_t* host) {
  if (m < n || type != compute || type != type_u || type != type_vt || type_s != real_of(type) || lda < m ||
      ldu < m || ldvt < n)
    return kInvalid;
  return sizes(device, host);
}
Status cusolverDnXgesvd(void*, void*, signed char jobu, signed char jobvt, int64_t m, int64_t n, int type, void* a,
                        int64_t lda, int, void* s, int, void* u, int64_t ldu, int, void* vt, int64_t ldvt, int,
                        void* dw, size_t db, void* hw, size_t hb, int* info) {
  if (m < n || !workspace_ok(dw, db, hw, hb) || (jobu == 'N') != (u == nullptr) || (jobvt == 'N') != (vt == nullptr))
    return kInvalid;
  const char ju[2] = {static_cast<char>(jobu), 0}, jv[2] = {static_cast<char>(jobvt), 0};
  int mi = m, ni = n, la = lda, lu = ldu, lv = ldvt, lw = 64 * mi + 64;
  with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    using R = typename Real<T>::type;
    std::vector<T> w(lw);
    std::vector<R> rw(5 * ni);
    gesvd(ju, jv, &mi, &ni, static_cast<T*>(a), &la, static_cast<R*>(s), static_cast<T*>(u), &lu,
          static_cast<T*>(vt), &lv, w.data(), &lw, rw.data(), info);
  });
  return kOk;
}
Status cusolverDnXsyevd_bufferSize(void*, void*, int jobz, int uplo, int64_t n, int type, const void*, int64_t lda,
                                   int type_w, const void*, int compute, size_t* device, size_t* host) {
  if (type != compute || type_w != real_of(type) || lda < n || jobz < 0 || jobz > 1 || uplo < 0 || uplo > 1)
    return kInvalid;
  return sizes(device, host);
}
Status cusolverDnXsyevd(void*, void*, int jobz, int uplo, int64_t n, int type, void* a, int64_t lda, int, void* w,
                        int, void* dw, size_t db, void* hw, size_t hb, int* info) {
  if (!workspace_ok(dw, db, hw, hb)) return kInvalid;
  int ni = n, ld = lda, lw = 64 * ni + 64;
  with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    using R = typename Real<T>::type;
    std::vector<T> wk(lw);
    std::vector<R> rw(3 * ni);
    syev(jobz ? "V" : "N", uplo == 0 ? "L" : "U", &ni, static_cast<T*>(a), &ld, static_cast<R*>(w), wk.data(), &lw,
         rw.data(), info);
  });
  return kOk;
}
// The part of cuBLAS kiln resolves (runtime/cuda/cublas_api.h), so that this
// library also stands in for libcublas (KILN_CUBLAS_PATH) in the batched LU
// (Note [Batched primitives]); the products are never called on the host.
using BlasStatus = int;
constexpr BlasStatus kBlasOk = 0, kBlasInvalid = 7;   // CUBLAS_STATUS_INVALID_VALUE
BlasStatus cublasCreate_v2(void** handle) {
  static int h;
  *handle = &h;
  return kBlasOk;
}
BlasStatus cublasSetStream_v2(void*, void*) { return kBlasOk; }
BlasStatus cublasSetMathMode(void*, int) { return kBlasOk; }
BlasStatus cublasGetVersion_v2(void*, int* version) {
  *version = 0;
  return kBlasOk;
}
BlasStatus cublasGemmEx() { return kBlasInvalid; }
BlasStatus cublasGemmStridedBatchedEx() { return kBlasInvalid; }
#define KILN_LU_BATCHED(p, T)                                                                                  \
  BlasStatus cublas##p##getrfBatched(void*, int n, T* const a[], int lda, int* piv, int* info, int batch) {    \
    if (n < 0 || lda < n || batch < 0 || !a || !piv || !info) return kBlasInvalid;                            \
    ++kiln_fake_batched_calls;                                                                                 \
    for (int i = 0; i < batch; ++i) getrf(&n, &n, a[i], &lda, piv + i * n, info + i);                         \
    return kBlasOk;                                                                                            \
  }                                                                                                            \
  BlasStatus cublas##p##getrsBatched(void*, int op, int n, int k, const T* const a[], int lda, const int* piv,  \
                                     T* const b[], int ldb, int* info, int batch) {                            \
    *info = op < 0 || op > 2 ? -2 : n < 0 ? -3 : k < 0 ? -4 : lda < n ? -6 : ldb < n ? -9 : batch < 0 ? -11 : 0; \
    if (*info != 0) return kBlasInvalid;                                                                       \
    ++kiln_fake_batched_calls;                                                                                 \
    const char* tr = op == 0 ? "N" : op == 1 ? "T" : "C";                                                      \
    for (int i = 0; i < batch; ++i) {                                                                          \
      std::vector<int> pi(piv + i * n, piv + (i + 1) * n);                                                     \
      int status = 0;                                                                                          \
      getrs(tr, &n, &k, a[i], &lda, pi.data(), b[i], &ldb, &status);                                           \
    }                                                                                                          \
    return kBlasOk;                                                                                            \
  }
KILN_LU_BATCHED(S, float)
KILN_LU_BATCHED(D, double)
KILN_LU_BATCHED(C, c8)
KILN_LU_BATCHED(Z, z16)
#undef KILN_LU_BATCHED
#ifndef KILN_FAKE_WITHOUT_XGEEV   // as a libcusolver older than CUDA 12.6
Status cusolverDnXgeev_bufferSize(void*, void*, int jobvl, int jobvr, int64_t n, int type, const void*,
                                  int64_t lda, int type_w, const void*, int type_vl, const void*, int64_t ldvl,
                                  int type_vr, const void*, int64_t ldvr, int compute, size_t* device, size_t* host) {
  // kiln asks for right vectors only, W complex, VL/VR of A's type.
  const int complex_w = real_of(type) == kR32 ? kC32 : kC64;
  if (jobvl != 0 || jobvr < 0 || jobvr > 1 || type != compute || type_w != complex_w || type_vl != type ||
      type_vr != type || lda < n || ldvl < 1 || ldvr < n)
    return kInvalid;
  return sizes(device, host);
}
Status cusolverDnXgeev(void*, void*, int jobvl, int jobvr, int64_t n, int type, void* a, int64_t lda, int, void* w,
                       int, void* vl, int64_t, int, void* vr, int64_t ldvr, int, void* dw, size_t db, void* hw,
                       size_t hb, int* info) {
  if (jobvl != 0 || vl != nullptr || !workspace_ok(dw, db, hw, hb) || (jobvr == 1) != (vr != nullptr)) return kInvalid;
  int ni = n, ld = lda, lv = ldvr;
  with_type(type, [&](auto* t) {
    using T = std::remove_pointer_t<decltype(t)>;
    using R = typename Real<T>::type;
    T dummy{};
    geev_into(jobvr ? "V" : "N", &ni, static_cast<T*>(a), &ld, static_cast<std::complex<R>*>(w),
              vr ? static_cast<T*>(vr) : &dummy, &lv, info);
  });
  return kOk;
}
#endif
}
