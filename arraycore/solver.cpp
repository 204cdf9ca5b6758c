#include "arraycore/solver.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "arraycore/copy.h"
#include "arraycore/creation.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"
#include "arraycore/memory.h"
#include "runtime/backend.h"
#include "runtime/cuda/cublas_api.h"
#include "runtime/cuda/cusolver_api.h"
#include "runtime/errors.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

namespace rc = runtime::cuda;

// One checked stack (Note [LAPACK primitives]): base pointer and extents.
struct Stack {
  char* ptr = nullptr;
  int64_t batch = 0, rows = 0, cols = 0;
  int64_t matrix_bytes = 0;   // rows * cols * itemsize: one matrix to the next
  char* at(int64_t i) const { return ptr + i * matrix_bytes; }
};

bool lapack_dtype(DType d) {
  return d == DType::Float32 || d == DType::Float64 || d == DType::Complex64 || d == DType::Complex128;
}

[[noreturn]] void bad(const char* fn, const std::string& what) {
  throw std::invalid_argument(std::string(fn) + ": " + what);
}

// Whether x's strides are `expected` on every axis longer than 1 (an axis of
// one element is never stepped along), and x's data is aligned to its items.
bool strides_fit(const NDArray& x, const Strides& expected) {
  for (int d = 0; d < x.ndim(); ++d)
    if (x.shape()[d] > 1 && x.strides()[d] != expected[d]) return false;
  return reinterpret_cast<uintptr_t>(x.data()) % x.itemsize() == 0;
}

void check_device(const char* fn, const char* name, const NDArray& x) {
  const int current = runtime::backend().current_device();
  if (x.device() != current)
    bad(fn, std::string(name) + " is on device " + std::to_string(x.device()) + ", the current device is " +
                std::to_string(current));
}

// x as a stack, or ValueError naming `name` (Note [LAPACK primitives]).
Stack stack_of(const char* fn, const char* name, const NDArray& x) {
  if (!lapack_dtype(x.dtype()))
    bad(fn, std::string(name) + " has dtype " + std::string(dtype_info(x.dtype()).name) +
                "; expected float32, float64, complex64 or complex128");
  if (x.ndim() != 3) bad(fn, std::string(name) + " must have 3 dimensions (batch, m, n), got " + shape_text(x.shape()));
  const int64_t batch = x.shape()[0], rows = x.shape()[1], cols = x.shape()[2];
  if (batch < 1 || rows < 1 || cols < 1) bad(fn, std::string(name) + " has an empty extent: " + shape_text(x.shape()));
  const int64_t s = static_cast<int64_t>(x.itemsize());
  if (!strides_fit(x, {rows * cols * s, s, rows * s}))
    bad(fn, std::string(name) + " is not a stack of Fortran-ordered matrices lying back to back (strides " +
                shape_text(x.strides()) + " for shape " + shape_text(x.shape()) + ")");
  check_device(fn, name, x);
  return {static_cast<char*>(x.data()), batch, rows, cols, rows * cols * s};
}

// A C-contiguous (batch, len) vector array of `dtype` (ipiv, tau), or
// ValueError naming `name`.
char* vectors_of(const char* fn, const char* name, const NDArray& x, DType dtype, int64_t batch, int64_t len) {
  if (x.dtype() != dtype)
    bad(fn, std::string(name) + " has dtype " + std::string(dtype_info(x.dtype()).name) + "; expected " +
                std::string(dtype_info(dtype).name));
  if (x.ndim() != 2 || x.shape()[0] != batch || x.shape()[1] != len)
    bad(fn, std::string(name) + " has shape " + shape_text(x.shape()) + "; expected " + shape_text({batch, len}));
  const int64_t s = static_cast<int64_t>(x.itemsize());
  if (len > 0 && !strides_fit(x, {len * s, s}))   // an empty one is never read
    bad(fn, std::string(name) + " is not C-contiguous (strides " + shape_text(x.strides()) + ")");
  check_device(fn, name, x);
  return static_cast<char*>(x.data());
}

// A new stack (batch, rows, cols) of `dtype` from kiln's allocator.
NDArray new_stack(int64_t batch, int64_t rows, int64_t cols, DType dtype) {
  const int64_t s = static_cast<int64_t>(itemsize(dtype));
  return NDArray(allocate_memory(static_cast<size_t>(batch * rows * cols * s)), dtype, {batch, rows, cols},
                 {rows * cols * s, s, rows * s}, 0);
}

DType real_dtype(DType d) {
  return d == DType::Complex64 ? DType::Float32 : d == DType::Complex128 ? DType::Float64 : d;
}

int cuda_type(DType d) {
  switch (d) {
    case DType::Float32: return rc::cuda_type::kR32F;
    case DType::Float64: return rc::cuda_type::kR64F;
    case DType::Complex64: return rc::cuda_type::kC32F;
    default: return rc::cuda_type::kC64F;   // Complex128 (stack_of admits no other)
  }
}

rc::CusolverPrecision precision(DType d) {
  switch (d) {
    case DType::Float32: return rc::CusolverPrecision::kS;
    case DType::Float64: return rc::CusolverPrecision::kD;
    case DType::Complex64: return rc::CusolverPrecision::kC;
    default: return rc::CusolverPrecision::kZ;
  }
}

void check(rc::CusolverStatus st, const char* call) {
  if (st != rc::kCusolverSuccess)
    throw runtime::Error(std::string(call) + " failed: " + rc::describe_cusolver_status(st));
}

// Note [cuSOLVER test double]
// On the host backend arrays live in host memory, so a library with
// cuSOLVER's entry points that works on host memory can stand in for
// cuSOLVER there: tests/cpp/cuda_fake/fake_libcusolver.cpp, over reference
// LAPACK. With KILN_TEST_HOST_CUSOLVER=1 (and KILN_CUSOLVER_PATH naming that
// library) the primitives run on the host backend through it, so the tests
// exercise this file's argument plumbing (leading dimensions, offsets, jobs,
// workspaces, result layouts, the int64 infos) without a GPU. Never set it
// with a real libcusolver, which needs device memory.
bool host_test_double() {
  const char* v = std::getenv("KILN_TEST_HOST_CUSOLVER");
  return v && std::string_view(v) == "1" && runtime::backend().name() == "host";
}

// cuSOLVER bound to the current device and stream, for one primitive's
// calls; std::runtime_error off the cuda backend or without libcusolver.
struct Solver {
  const rc::CusolverApi* api;
  rc::CusolverHandle h;
  rc::CusolverParams p;
};

Solver solver_for(const char* fn) {
  std::string why;
  if (!solver_usable(&why))
    throw std::runtime_error(std::string(fn) + " needs cuSOLVER, which kiln cannot use now: " + why);
  const rc::CusolverApi* api = rc::load_cusolver_api(nullptr);
  rc::CusolverContext ctx;
  if (host_test_double()) {   // no device, no context: a handle per call
    check(api->create(&ctx.handle), "cusolverDnCreate");
    check(api->create_params(&ctx.params), "cusolverDnCreateParams");
  } else {
    ctx = rc::cusolver_context_for_current_thread(*api, runtime::backend().current_device());
  }
  check(api->set_stream(ctx.handle, static_cast<rc::CuStream>(runtime::current_stream())), "cusolverDnSetStream");
  return {api, ctx.handle, ctx.params};
}

// Runs one generic-API routine over the batch, in stream order: size(&device,
// &host) asks for one matrix's workspace in bytes, allocated once (device
// bytes from kiln's pool, host bytes on the heap) and reused; run(i, device,
// device_bytes, host, host_bytes) queues matrix i. `name` is the routine's.
template <class Size, class Run>
void over_batch(const char* name, int64_t batch, Size&& size, Run&& run) {
  size_t device_bytes = 0, host_bytes = 0;
  check(size(&device_bytes, &host_bytes), (std::string(name) + "_bufferSize").c_str());
  const std::shared_ptr<Memory> device = allocate_memory(std::max<size_t>(device_bytes, 1));
  std::vector<char> host(std::max<size_t>(host_bytes, 1));
  for (int64_t i = 0; i < batch; ++i) check(run(i, device->ptr(), device_bytes, host.data(), host_bytes), name);
}

// cuSOLVER's int32 infos widened to the int64 results (on the device).
NDArray widen(const NDArray& info32) { return astype(info32, DType::Int64, Order::C); }

int* int_ptr(const NDArray& x, int64_t i = 0) { return static_cast<int*>(x.data()) + i; }

// Note [Batched primitives]
// One cuSOLVER call per matrix costs its launches (tens of microseconds for
// even a 4 x 4 LU) however small the matrix, so a stack of thousands of
// small matrices is all overhead. Where the vendor has a batched routine,
// getrf (square), getrs and potrf hand the whole stack to it in one call:
// cublas{S,D,C,Z}getrfBatched and getrsBatched (cuBLAS, not cuSOLVER) and
// cusolverDn{S,D,C,Z}potrfBatched. They take an array of device pointers,
// one per matrix, which one arange kernel writes (addresses base + i *
// matrix bytes, as int64) into kiln's pool; their int sizes keep n, nrhs
// and the batch below 2^31 (beyond that: the loop). Their pivots and infos
// are int32: a cast kernel widens them to the interface's int64 (1-based
// pivots, LAPACK's infos, as the loop's), and getrs narrows the int64
// pivots back; getrsBatched reports argument errors in a host int, which
// the checks before it exclude (a non-zero one throws). Results agree with
// the loop's to rounding (different kernels) and infos are the same, with
// two differences seen on the H100: for complex matrices cuBLAS chose other
// pivot rows than cuSOLVER's getrf for some 3 x 3 matrices (both LUs
// reproduce A); and the batched LU of a singular matrix may stop at its
// first exact zero pivot instead of completing the factorisation, so the
// interface's "the factorisation completed" holds on the loop only. What
// kiln.linalg builds on stays true: info is right, U's diagonal holds that
// zero (det 0, slogdet (0, -inf)), and solve/inv raise on the info.
// When: batch > 1 and n <= kBatchedMaxN = 128. Below that one matrix is at
// most ~1.4 Mflop (2/3 n^3), a few microseconds of one multiprocessor,
// less than one loop iteration's launch overhead, so the batched call wins
// from a batch of 2 on; far above it a single matrix fills the GPU and the
// per-matrix routines' blocked algorithms win, and 128 stays well inside
// the region where batching is certain to win (re-measure with
// benchmarks/run.py's *_batched_us and KILN_SOLVER_BATCHED=0 before moving
// it). A batch of one always loops (one call either way).
// KILN_SOLVER_BATCHED=0 forces the loop, =1 the batched routines for every
// size and batch they take (tests compare the two); read at each call.
// Every batched symbol is optional: where the library lacks one (or cuBLAS
// is missing), the loop runs. On the host backend's test double (Note
// [cuSOLVER test double]) cuBLAS is used only where KILN_CUBLAS_PATH names
// a stand-in too (tests/cpp/cuda_fake/fake_libcusolver.cpp is both), never
// the SDK's real library.
constexpr int64_t kBatchedMaxN = 128;

bool batched_fits(int64_t batch, int64_t n, int64_t nrhs = 1) {
  const char* v = std::getenv("KILN_SOLVER_BATCHED");
  const std::string_view mode = v ? v : "";
  if (mode == "0" || batch > INT_MAX || n > INT_MAX || nrhs > INT_MAX) return false;
  return mode == "1" || (batch > 1 && n <= kBatchedMaxN);
}

// The device addresses of a stack's matrices (int64 (batch,)): the pointer
// array the batched routines take.
NDArray matrix_pointers(const Stack& s) {
  return arange_int(static_cast<int64_t>(reinterpret_cast<intptr_t>(s.ptr)), s.matrix_bytes, s.batch, DType::Int64);
}

void* const* pointers(const NDArray& p) { return static_cast<void* const*>(p.data()); }

// cuBLAS bound to the current stream, for the batched LU; api null where
// it (or the routine `has` asks for) is not there (Note [Batched primitives]).
struct BatchedBlas {
  const rc::CublasApi* api = nullptr;
  rc::CublasHandle h = nullptr;
};

template <class Has>
BatchedBlas batched_blas(Has&& has) {
  const bool test_double = host_test_double();
  if (test_double && !std::getenv("KILN_CUBLAS_PATH")) return {};
  const rc::CublasApi* api = rc::load_cublas_api(nullptr);
  if (!api || !has(*api)) return {};
  rc::CublasHandle h = nullptr;
  rc::CublasStatus st = rc::kCublasSuccess;
  if (test_double)
    st = api->create(&h);
  else
    h = rc::cublas_handle_for_current_thread(*api, runtime::backend().current_device());
  if (st == rc::kCublasSuccess) st = api->set_stream(h, static_cast<rc::CuStream>(runtime::current_stream()));
  if (st != rc::kCublasSuccess) throw runtime::Error("cuBLAS setup failed: " + rc::describe_cublas_status(*api, st));
  return {api, h};
}

void check_blas(const rc::CublasApi& api, rc::CublasStatus st, const char* call) {
  if (st != rc::kCublasSuccess) throw runtime::Error(std::string(call) + " failed: " + rc::describe_cublas_status(api, st));
}

}  // namespace

bool solver_usable(std::string* why_not) {
  const std::string_view backend = runtime::backend().name();
  if (backend != "cuda" && !host_test_double()) {
    if (why_not)
      *why_not = "the backend is " + std::string(backend) + "; cuSOLVER runs on the cuda backend only";
    return false;
  }
  return rc::load_cusolver_api(why_not) != nullptr;
}

GetrfResult solver_getrf(const NDArray& a_in) {
  constexpr const char* fn = "_solver_getrf";
  const Stack a = stack_of(fn, "a", a_in);
  const Solver s = solver_for(fn);
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const int p = static_cast<int>(precision(a_in.dtype()));
  if (m == n && batched_fits(a.batch, n)) {   // Note [Batched primitives]
    const BatchedBlas blas = batched_blas([&](const rc::CublasApi& api) { return api.getrf_batched[p] != nullptr; });
    if (blas.api) {
      const NDArray ptrs = matrix_pointers(a);
      NDArray piv32 = NDArray::empty({a.batch, n}, DType::Int32), info32 = NDArray::empty({a.batch}, DType::Int32);
      check_blas(*blas.api,
                 blas.api->getrf_batched[p](blas.h, static_cast<int>(n), pointers(ptrs), static_cast<int>(n),
                                            int_ptr(piv32), int_ptr(info32), static_cast<int>(a.batch)),
                 "cublas?getrfBatched");
      return {widen(piv32), widen(info32)};
    }
  }
  const int type = cuda_type(a_in.dtype());
  NDArray ipiv = NDArray::empty({a.batch, k}, DType::Int64);
  NDArray info = NDArray::empty({a.batch}, DType::Int32);
  int64_t* pivots = static_cast<int64_t*>(ipiv.data());
  over_batch(
      "cusolverDnXgetrf", a.batch,
      [&](size_t* dev, size_t* host) {
        return s.api->xgetrf_buffer_size(s.h, s.p, m, n, type, a.ptr, m, type, dev, host);
      },
      [&](int64_t i, void* dev, size_t dev_bytes, void* host, size_t host_bytes) {
        return s.api->xgetrf(s.h, s.p, m, n, type, a.at(i), m, pivots + i * k, type, dev, dev_bytes, host,
                             host_bytes, int_ptr(info, i));
      });
  return {ipiv, widen(info)};
}

void solver_getrs(const NDArray& lu_in, const NDArray& ipiv_in, const NDArray& b_in, int trans) {
  constexpr const char* fn = "_solver_getrs";
  const Stack lu = stack_of(fn, "lu", lu_in), b = stack_of(fn, "b", b_in);
  const int64_t n = lu.rows;
  if (lu.cols != n) bad(fn, "lu must hold square matrices, got shape " + shape_text(lu_in.shape()));
  if (b_in.dtype() != lu_in.dtype())
    bad(fn, "b has dtype " + std::string(dtype_info(b_in.dtype()).name) + "; expected lu's, " +
                std::string(dtype_info(lu_in.dtype()).name));
  if (b.batch != lu.batch || b.rows != n)
    bad(fn, "b has shape " + shape_text(b_in.shape()) + "; expected (" + std::to_string(lu.batch) + ", " +
                std::to_string(n) + ", k)");
  const auto* pivots = reinterpret_cast<const int64_t*>(vectors_of(fn, "ipiv", ipiv_in, DType::Int64, lu.batch, n));
  if (trans < 0 || trans > 2) bad(fn, "trans must be 0 (A), 1 (A^T) or 2 (A^H), got " + std::to_string(trans));
  const bool complex = dtype_info(lu_in.dtype()).kind == 'c';
  const int op = trans == 0 ? rc::cublas_op::kN : (trans == 2 && complex) ? rc::cublas_op::kC : rc::cublas_op::kT;
  const Solver s = solver_for(fn);
  const int p = static_cast<int>(precision(lu_in.dtype()));
  if (batched_fits(lu.batch, n, b.cols)) {   // Note [Batched primitives]
    const BatchedBlas blas = batched_blas([&](const rc::CublasApi& api) { return api.getrs_batched[p] != nullptr; });
    if (blas.api) {
      const NDArray lu_ptrs = matrix_pointers(lu), b_ptrs = matrix_pointers(b);
      const NDArray piv32 = astype(ipiv_in, DType::Int32, Order::C);
      int arg_error = 0;   // a host int: argument errors only
      check_blas(*blas.api,
                 blas.api->getrs_batched[p](blas.h, op, static_cast<int>(n), static_cast<int>(b.cols),
                                            static_cast<const void* const*>(pointers(lu_ptrs)), static_cast<int>(n),
                                            static_cast<const int*>(piv32.data()), pointers(b_ptrs),
                                            static_cast<int>(n), &arg_error, static_cast<int>(lu.batch)),
                 "cublas?getrsBatched");
      if (arg_error != 0)
        throw runtime::Error("cublas?getrsBatched rejected argument " + std::to_string(-arg_error));
      return;
    }
  }
  const int type = cuda_type(lu_in.dtype());
  NDArray info = NDArray::empty({1}, DType::Int32);   // only argument errors, which the checks above exclude
  for (int64_t i = 0; i < lu.batch; ++i)
    check(s.api->xgetrs(s.h, s.p, op, n, b.cols, type, lu.at(i), n, pivots + i * n, type, b.at(i), n, int_ptr(info)),
          "cusolverDnXgetrs");
}

NDArray solver_potrf(const NDArray& a_in, bool lower) {
  constexpr const char* fn = "_solver_potrf";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t n = a.rows;
  if (a.cols != n) bad(fn, "a must hold square matrices, got shape " + shape_text(a_in.shape()));
  const Solver s = solver_for(fn);
  const int type = cuda_type(a_in.dtype());
  const int uplo = lower ? rc::cublas_fill::kLower : rc::cublas_fill::kUpper;
  NDArray info = NDArray::empty({a.batch}, DType::Int32);
  const int p = static_cast<int>(precision(a_in.dtype()));
  if (batched_fits(a.batch, n) && s.api->potrf_batched[p]) {   // Note [Batched primitives]
    const NDArray ptrs = matrix_pointers(a);
    check(s.api->potrf_batched[p](s.h, uplo, static_cast<int>(n), const_cast<void**>(pointers(ptrs)),
                                  static_cast<int>(n), int_ptr(info), static_cast<int>(a.batch)),
          "cusolverDn?potrfBatched");
    return widen(info);
  }
  over_batch(
      "cusolverDnXpotrf", a.batch,
      [&](size_t* dev, size_t* host) {
        return s.api->xpotrf_buffer_size(s.h, s.p, uplo, n, type, a.ptr, n, type, dev, host);
      },
      [&](int64_t i, void* dev, size_t dev_bytes, void* host, size_t host_bytes) {
        return s.api->xpotrf(s.h, s.p, uplo, n, type, a.at(i), n, type, dev, dev_bytes, host, host_bytes,
                             int_ptr(info, i));
      });
  return widen(info);
}

NDArray solver_geqrf(const NDArray& a_in) {
  constexpr const char* fn = "_solver_geqrf";
  const Stack a = stack_of(fn, "a", a_in);
  const Solver s = solver_for(fn);
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const int type = cuda_type(a_in.dtype());
  NDArray tau = NDArray::empty({a.batch, k}, a_in.dtype());
  NDArray info = NDArray::empty({1}, DType::Int32);   // only argument errors, which the checks exclude
  char* taus = static_cast<char*>(tau.data());
  const int64_t tau_bytes = k * static_cast<int64_t>(tau.itemsize());
  over_batch(
      "cusolverDnXgeqrf", a.batch,
      [&](size_t* dev, size_t* host) {
        return s.api->xgeqrf_buffer_size(s.h, s.p, m, n, type, a.ptr, m, type, taus, type, dev, host);
      },
      [&](int64_t i, void* dev, size_t dev_bytes, void* host, size_t host_bytes) {
        return s.api->xgeqrf(s.h, s.p, m, n, type, a.at(i), m, type, taus + i * tau_bytes, type, dev, dev_bytes, host,
                             host_bytes, int_ptr(info));
      });
  return tau;
}

void solver_orgqr(const NDArray& a_in, const NDArray& tau_in) {
  constexpr const char* fn = "_solver_orgqr";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t m = a.rows, n = a.cols;
  if (m < n) bad(fn, "a must have m >= n, got shape " + shape_text(a_in.shape()));
  if (tau_in.ndim() != 2 || tau_in.shape()[0] != a.batch || tau_in.shape()[1] > n)
    bad(fn, "tau has shape " + shape_text(tau_in.shape()) + "; expected (" + std::to_string(a.batch) +
                ", k) with k <= " + std::to_string(n));
  const int64_t k = tau_in.shape()[1];
  const char* taus = vectors_of(fn, "tau", tau_in, a_in.dtype(), a.batch, k);
  if (m > INT_MAX) bad(fn, "a has " + std::to_string(m) + " rows; cuSOLVER's ?orgqr takes at most 2**31 - 1");
  const Solver s = solver_for(fn);
  const int p = static_cast<int>(precision(a_in.dtype()));
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int64_t tau_bytes = k * static_cast<int64_t>(tau_in.itemsize());
  int lwork = 0;
  check(s.api->orgqr_buffer_size[p](s.h, mi, ni, ki, a.ptr, mi, taus, &lwork), "cusolverDn?orgqr_bufferSize");
  const std::shared_ptr<Memory> work = allocate_memory(static_cast<size_t>(std::max(lwork, 1)) * a_in.itemsize());
  NDArray info = NDArray::empty({1}, DType::Int32);   // only argument errors, which the checks exclude
  for (int64_t i = 0; i < a.batch; ++i)
    check(s.api->orgqr[p](s.h, mi, ni, ki, a.at(i), mi, taus + i * tau_bytes, work->ptr(), lwork, int_ptr(info)),
          "cusolverDn?orgqr");
}

GesvdResult solver_gesvd(const NDArray& a_in, char job) {
  constexpr const char* fn = "_solver_gesvd";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t m = a.rows, n = a.cols;
  if (m < n) bad(fn, "a must have m >= n (pass the conjugate transpose), got shape " + shape_text(a_in.shape()));
  if (job != 'A' && job != 'S' && job != 'N')
    bad(fn, std::string("job must be 'A', 'S' or 'N', got '") + job + "'");
  const Solver s = solver_for(fn);
  const DType dtype = a_in.dtype(), real = real_dtype(dtype);
  const int type = cuda_type(dtype), real_type = cuda_type(real);
  GesvdResult out{NDArray::empty({a.batch, n}, real), std::nullopt, std::nullopt,
                  NDArray::empty({a.batch}, DType::Int32)};
  // u: all m columns ('A') or the first n ('S'); vt is n x n either way, so
  // cuSOLVER is asked for all of it.
  const int64_t u_cols = job == 'A' ? m : n;
  if (job != 'N') {
    out.u = new_stack(a.batch, m, u_cols, dtype);
    out.vt = new_stack(a.batch, n, n, dtype);
  }
  const signed char jobu = static_cast<signed char>(job), jobvt = job == 'N' ? 'N' : 'A';
  char* sv = static_cast<char*>(out.s.data());
  char* u = out.u ? static_cast<char*>(out.u->data()) : nullptr;
  char* vt = out.vt ? static_cast<char*>(out.vt->data()) : nullptr;
  const int64_t s_bytes = n * static_cast<int64_t>(itemsize(real)), size = static_cast<int64_t>(itemsize(dtype));
  const int64_t u_bytes = m * u_cols * size, vt_bytes = n * n * size;
  over_batch(
      "cusolverDnXgesvd", a.batch,
      [&](size_t* dev, size_t* host) {
        return s.api->xgesvd_buffer_size(s.h, s.p, jobu, jobvt, m, n, type, a.ptr, m, real_type, sv, type, u, m, type,
                                         vt, n, type, dev, host);
      },
      [&](int64_t i, void* dev, size_t dev_bytes, void* host, size_t host_bytes) {
        return s.api->xgesvd(s.h, s.p, jobu, jobvt, m, n, type, a.at(i), m, real_type, sv + i * s_bytes, type,
                             u ? u + i * u_bytes : nullptr, m, type, vt ? vt + i * vt_bytes : nullptr, n, type, dev,
                             dev_bytes, host, host_bytes, int_ptr(out.info, i));
      });
  out.info = widen(out.info);
  return out;
}

SyevdResult solver_syevd(const NDArray& a_in, bool lower, bool compute_v) {
  constexpr const char* fn = "_solver_syevd";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t n = a.rows;
  if (a.cols != n) bad(fn, "a must hold square matrices, got shape " + shape_text(a_in.shape()));
  const Solver s = solver_for(fn);
  const DType dtype = a_in.dtype(), real = real_dtype(dtype);
  const int type = cuda_type(dtype), real_type = cuda_type(real);
  const int jobz = compute_v ? rc::cusolver_eig_mode::kVector : rc::cusolver_eig_mode::kNoVector;
  const int uplo = lower ? rc::cublas_fill::kLower : rc::cublas_fill::kUpper;
  NDArray w = NDArray::empty({a.batch, n}, real);
  NDArray info = NDArray::empty({a.batch}, DType::Int32);
  char* values = static_cast<char*>(w.data());
  const int64_t w_bytes = n * static_cast<int64_t>(itemsize(real));
  over_batch(
      "cusolverDnXsyevd", a.batch,
      [&](size_t* dev, size_t* host) {
        return s.api->xsyevd_buffer_size(s.h, s.p, jobz, uplo, n, type, a.ptr, n, real_type, values, type, dev, host);
      },
      [&](int64_t i, void* dev, size_t dev_bytes, void* host, size_t host_bytes) {
        return s.api->xsyevd(s.h, s.p, jobz, uplo, n, type, a.at(i), n, real_type, values + i * w_bytes, type, dev,
                             dev_bytes, host, host_bytes, int_ptr(info, i));
      });
  return {w, widen(info)};
}

// Note [cuSOLVER geev]
// cusolverDnXgeev (cuSOLVER 11.7, CUDA 12.6, and later; resolved as an
// optional symbol, so older libraries still serve the other primitives)
// computes right eigenvectors only: jobvl is always NOVECTOR here, VL null.
// For real a it runs in real arithmetic and, given a complex W type, writes
// each eigenvalue as a complex number, conjugate pairs next to each other
// with the positive imaginary part first (LAPACK's order); VR stays real, in
// LAPACK's packing: for a real eigenvalue w[j], column j is its vector; for
// a pair (w[j], w[j+1] = conj w[j]) the vectors are VR[:, j] +- i VR[:, j+1].
// The interface wants complex vectors (Note [LAPACK primitives]), so one
// elementwise kernel over the whole batch unpacks them from W's signs:
// imag(w[j]) > 0 takes columns j and j + 1, imag(w[j]) < 0 columns j - 1
// and j (conjugated), 0 column j alone. For complex a, W and VR are complex
// already. Vectors have unit 2-norm and their largest component real, as
// LAPACK returns them.
namespace {

DType complex_of(DType d) {
  return d == DType::Float32 || d == DType::Complex64 ? DType::Complex64 : DType::Complex128;
}

const EwSpec& unpack_geev_vectors_spec(DType real) {
  static const std::array<EwSpec, 2> specs = [] {
    std::array<EwSpec, 2> out;
    for (int k = 0; k < 2; ++k) {
      const std::string r = k == 0 ? "float" : "double", c = "kiln::complex<" + r + ">";
      out[k].name = "kiln_geev_unpack_" + r;
      out[k].params = {{"w", c, "", EwParam::Raw},
                       {"vr", r, "", EwParam::Raw},
                       {"n", "long long", "", EwParam::Input},
                       {"v", c, "", EwParam::Output}};
      // v and vr are whole stacks seen as vectors: element i is row i % n of
      // column (i / n) % n of matrix i / (n * n); its eigenvalue is w[i / n].
      // The column checks keep a failed matrix's garbage (info > 0) in bounds.
      out[k].operation = "const " + r + " im = w[i / n].imag();\n" +
                         "const long long col = (i / n) % n;\n" +
                         "if (im > 0 && col + 1 < n) v = " + c + "(vr[i], vr[i + n]);\n" +
                         "else if (im < 0 && col > 0) v = " + c + "(vr[i - n], -vr[i]);\n" +
                         "else v = " + c + "(vr[i], " + r + "(0));\n";
      out[k].outputs_write_only = true;
    }
    return out;
  }();
  return specs[real == DType::Float32 ? 0 : 1];
}

// A stack's elements as one vector (its matrices lie back to back).
NDArray flat(const NDArray& st) {
  return NDArray(st.memory(), st.dtype(), {st.size()}, {static_cast<int64_t>(st.itemsize())}, st.offset());
}

}  // namespace

GeevResult solver_geev(const NDArray& a_in, bool compute_v) {
  constexpr const char* fn = "_solver_geev";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t n = a.rows;
  if (a.cols != n) bad(fn, "a must hold square matrices, got shape " + shape_text(a_in.shape()));
  const Solver s = solver_for(fn);
  if (!s.api->xgeev || !s.api->xgeev_buffer_size) {
    int version = 0;
    const std::string found = s.api->get_version && s.api->get_version(&version) == rc::kCusolverSuccess
                                  ? " (cuSOLVER version " + std::to_string(version) + ")"
                                  : "";
    throw std::runtime_error(std::string(fn) + ": the loaded libcusolver, " + s.api->library_path + found +
                             ", has no cusolverDnXgeev, which eig and eigvals need: it came with cuSOLVER 11.7 "
                             "(CUDA 12.6); point KILN_CUSOLVER_PATH at a newer libcusolver");
  }
  const DType dtype = a_in.dtype(), cdtype = complex_of(dtype);
  const bool real_input = dtype != cdtype;
  const int type = cuda_type(dtype), w_type = cuda_type(cdtype);
  const int jobvl = rc::cusolver_eig_mode::kNoVector;
  const int jobvr = compute_v ? rc::cusolver_eig_mode::kVector : rc::cusolver_eig_mode::kNoVector;
  GeevResult out{NDArray::empty({a.batch, n}, cdtype), std::nullopt, NDArray::empty({a.batch}, DType::Int32)};
  // cuSOLVER's VR: of a's type (Note [cuSOLVER geev]); the result itself for complex a.
  std::optional<NDArray> packed;
  if (compute_v) packed = new_stack(a.batch, n, n, dtype);
  char* w = static_cast<char*>(out.w.data());
  char* vr = packed ? static_cast<char*>(packed->data()) : nullptr;
  const int64_t w_bytes = n * static_cast<int64_t>(itemsize(cdtype)), vr_bytes = a.matrix_bytes;
  over_batch(
      "cusolverDnXgeev", a.batch,
      [&](size_t* dev, size_t* host) {
        return s.api->xgeev_buffer_size(s.h, s.p, jobvl, jobvr, n, type, a.ptr, n, w_type, w, type, nullptr, n,
                                        type, vr, n, type, dev, host);
      },
      [&](int64_t i, void* dev, size_t dev_bytes, void* host, size_t host_bytes) {
        return s.api->xgeev(s.h, s.p, jobvl, jobvr, n, type, a.at(i), n, w_type, w + i * w_bytes, type, nullptr, n,
                            type, vr ? vr + i * vr_bytes : nullptr, n, type, dev, dev_bytes, host, host_bytes,
                            int_ptr(out.info, i));
      });
  if (packed && real_input) {
    NDArray v = new_stack(a.batch, n, n, cdtype);
    const NDArray v_flat = flat(v), vr_flat = flat(*packed);
    const EwArg args[] = {EwArg::of(out.w), EwArg::of(vr_flat), EwArg::value<long long>(n), EwArg::of(v_flat)};
    elementwise_launch(unpack_geev_vectors_spec(dtype), args, v_flat.shape());
    out.vr = v;
  } else {
    out.vr = packed;
  }
  out.info = widen(out.info);
  return out;
}

}  // namespace kiln::arraycore
