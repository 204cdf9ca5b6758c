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
#include "runtime/errors.h"
#include "runtime/libraries.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

using runtime::ElementType;
using runtime::SolverSession;
using runtime::Transpose;
using runtime::Triangle;

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

// The library's element type (stack_of admits these four only).
ElementType element_type(DType d) {
  switch (d) {
    case DType::Float32: return ElementType::Float32;
    case DType::Float64: return ElementType::Float64;
    case DType::Complex64: return ElementType::Complex64;
    default: return ElementType::Complex128;
  }
}

// The backend's solver bound to the current device and stream, for one
// primitive's calls; std::runtime_error where the backend has none
// (Note [LAPACK primitives]).
std::unique_ptr<SolverSession> solver_for(const char* fn) {
  std::string why;
  runtime::SolverLibrary* library = runtime::backend().libraries().solver(&why);
  if (!library) throw std::runtime_error(std::string(fn) + " needs cuSOLVER, which kiln cannot use now: " + why);
  return library->session(runtime::current_stream());
}

// Runs one routine over the batch, in stream order: size() asks for one
// matrix's work memory, allocated once (device bytes from kiln's pool, host
// bytes on the heap) and reused; run(i, work) queues matrix i.
template <class Size, class Run>
void over_batch(int64_t batch, Size&& size, Run&& run) {
  const runtime::WorkSize need = size();
  const std::shared_ptr<Memory> device = allocate_memory(std::max<size_t>(need.device_bytes, 1));
  std::vector<char> host(std::max<size_t>(need.host_bytes, 1));
  const runtime::WorkArea work{device->ptr(), need.device_bytes, host.data(), need.host_bytes};
  for (int64_t i = 0; i < batch; ++i) run(i, work);
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
// is missing), the loop runs: the session's has_* say which (runtime/
// libraries.h). On the host backend's test double (Note [cuSOLVER test
// double] in runtime/host/host_libraries.cpp) cuBLAS is used only where
// KILN_CUBLAS_PATH names a stand-in too (tests/cpp/cuda_fake/
// fake_libcusolver.cpp is both), never the SDK's real library (the cuda
// provider's rule, Note [Libraries]).
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

}  // namespace

bool solver_usable(std::string* why_not) { return runtime::backend().libraries().solver(why_not) != nullptr; }

// The batched forms are kiln's fast paths (Note [Batched primitives]): where
// the library lacks one, the batch runs matrix by matrix, so they are
// available whenever the solver is. geev alone is optional in the library.
bool solver_has(std::string_view routine, std::string* why_not) {
  static constexpr std::string_view kKnown[] = {"getrf", "getrs", "potrf", "geqrf", "orgqr", "ungqr", "gesvd",
                                                "syevd", "heevd", "geev", "getrfBatched", "getrsBatched",
                                                "potrfBatched"};
  if (std::find(std::begin(kKnown), std::end(kKnown), routine) == std::end(kKnown)) {
    std::string known;
    for (std::string_view k : kKnown) known += (known.empty() ? "" : ", ") + std::string(k);
    throw std::invalid_argument("check_availability: " + std::string(routine) +
                                " is not a cuSOLVER routine kiln.linalg uses (" + known + ")");
  }
  runtime::SolverLibrary* library = runtime::backend().libraries().solver(why_not);
  if (!library) return false;
  return routine != "geev" || library->session(runtime::current_stream())->has_geev(why_not);
}

GetrfResult solver_getrf(const NDArray& a_in) {
  constexpr const char* fn = "_solver_getrf";
  const Stack a = stack_of(fn, "a", a_in);
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const ElementType type = element_type(a_in.dtype());
  if (m == n && batched_fits(a.batch, n) && s->has_getrf_batched(type)) {   // Note [Batched primitives]
    const NDArray ptrs = matrix_pointers(a);
    NDArray piv32 = NDArray::empty({a.batch, n}, DType::Int32), info32 = NDArray::empty({a.batch}, DType::Int32);
    s->getrf_batched(type, static_cast<int>(n), pointers(ptrs), static_cast<int>(n), int_ptr(piv32), int_ptr(info32),
                     static_cast<int>(a.batch));
    return {widen(piv32), widen(info32)};
  }
  NDArray ipiv = NDArray::empty({a.batch, k}, DType::Int64);
  NDArray info = NDArray::empty({a.batch}, DType::Int32);
  int64_t* pivots = static_cast<int64_t*>(ipiv.data());
  over_batch(
      a.batch, [&] { return s->getrf_work(type, m, n, a.ptr, m); },
      [&](int64_t i, const runtime::WorkArea& work) {
        s->getrf(type, m, n, a.at(i), m, pivots + i * k, work, int_ptr(info, i));
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
  const Transpose op = trans == 0 ? Transpose::None : (trans == 2 && complex) ? Transpose::ConjTrans : Transpose::Trans;
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const ElementType type = element_type(lu_in.dtype());
  if (batched_fits(lu.batch, n, b.cols) && s->has_getrs_batched(type)) {   // Note [Batched primitives]
    const NDArray lu_ptrs = matrix_pointers(lu), b_ptrs = matrix_pointers(b);
    const NDArray piv32 = astype(ipiv_in, DType::Int32, Order::C);
    int arg_error = 0;   // a host int: argument errors only
    s->getrs_batched(type, op, static_cast<int>(n), static_cast<int>(b.cols),
                     static_cast<const void* const*>(pointers(lu_ptrs)), static_cast<int>(n),
                     static_cast<const int*>(piv32.data()), pointers(b_ptrs), static_cast<int>(n), &arg_error,
                     static_cast<int>(lu.batch));
    if (arg_error != 0) throw runtime::Error("cublas?getrsBatched rejected argument " + std::to_string(-arg_error));
    return;
  }
  NDArray info = NDArray::empty({1}, DType::Int32);   // only argument errors, which the checks above exclude
  for (int64_t i = 0; i < lu.batch; ++i)
    s->getrs(type, op, n, b.cols, lu.at(i), n, pivots + i * n, b.at(i), n, int_ptr(info));
}

NDArray solver_potrf(const NDArray& a_in, bool lower) {
  constexpr const char* fn = "_solver_potrf";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t n = a.rows;
  if (a.cols != n) bad(fn, "a must hold square matrices, got shape " + shape_text(a_in.shape()));
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const ElementType type = element_type(a_in.dtype());
  const Triangle uplo = lower ? Triangle::Lower : Triangle::Upper;
  NDArray info = NDArray::empty({a.batch}, DType::Int32);
  if (batched_fits(a.batch, n) && s->has_potrf_batched(type)) {   // Note [Batched primitives]
    const NDArray ptrs = matrix_pointers(a);
    s->potrf_batched(type, uplo, static_cast<int>(n), pointers(ptrs), static_cast<int>(n), int_ptr(info),
                     static_cast<int>(a.batch));
    return widen(info);
  }
  over_batch(
      a.batch, [&] { return s->potrf_work(type, uplo, n, a.ptr, n); },
      [&](int64_t i, const runtime::WorkArea& work) { s->potrf(type, uplo, n, a.at(i), n, work, int_ptr(info, i)); });
  return widen(info);
}

NDArray solver_geqrf(const NDArray& a_in) {
  constexpr const char* fn = "_solver_geqrf";
  const Stack a = stack_of(fn, "a", a_in);
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const ElementType type = element_type(a_in.dtype());
  NDArray tau = NDArray::empty({a.batch, k}, a_in.dtype());
  NDArray info = NDArray::empty({1}, DType::Int32);   // only argument errors, which the checks exclude
  char* taus = static_cast<char*>(tau.data());
  const int64_t tau_bytes = k * static_cast<int64_t>(tau.itemsize());
  over_batch(
      a.batch, [&] { return s->geqrf_work(type, m, n, a.ptr, m, taus); },
      [&](int64_t i, const runtime::WorkArea& work) {
        s->geqrf(type, m, n, a.at(i), m, taus + i * tau_bytes, work, int_ptr(info));
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
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const ElementType type = element_type(a_in.dtype());
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int64_t tau_bytes = k * static_cast<int64_t>(tau_in.itemsize());
  int lwork = 0;
  s->orgqr_work(type, mi, ni, ki, a.ptr, mi, taus, &lwork);
  const std::shared_ptr<Memory> work = allocate_memory(static_cast<size_t>(std::max(lwork, 1)) * a_in.itemsize());
  NDArray info = NDArray::empty({1}, DType::Int32);   // only argument errors, which the checks exclude
  for (int64_t i = 0; i < a.batch; ++i)
    s->orgqr(type, mi, ni, ki, a.at(i), mi, taus + i * tau_bytes, work->ptr(), lwork, int_ptr(info));
}

GesvdResult solver_gesvd(const NDArray& a_in, char job) {
  constexpr const char* fn = "_solver_gesvd";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t m = a.rows, n = a.cols;
  if (m < n) bad(fn, "a must have m >= n (pass the conjugate transpose), got shape " + shape_text(a_in.shape()));
  if (job != 'A' && job != 'S' && job != 'N')
    bad(fn, std::string("job must be 'A', 'S' or 'N', got '") + job + "'");
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const DType dtype = a_in.dtype(), real = real_dtype(dtype);
  const ElementType type = element_type(dtype);
  GesvdResult out{NDArray::empty({a.batch, n}, real), std::nullopt, std::nullopt,
                  NDArray::empty({a.batch}, DType::Int32)};
  // u: all m columns ('A') or the first n ('S'); vt is n x n either way, so
  // cuSOLVER is asked for all of it.
  const int64_t u_cols = job == 'A' ? m : n;
  if (job != 'N') {
    out.u = new_stack(a.batch, m, u_cols, dtype);
    out.vt = new_stack(a.batch, n, n, dtype);
  }
  const char jobu = job, jobvt = job == 'N' ? 'N' : 'A';
  char* sv = static_cast<char*>(out.s.data());
  char* u = out.u ? static_cast<char*>(out.u->data()) : nullptr;
  char* vt = out.vt ? static_cast<char*>(out.vt->data()) : nullptr;
  const int64_t s_bytes = n * static_cast<int64_t>(itemsize(real)), size = static_cast<int64_t>(itemsize(dtype));
  const int64_t u_bytes = m * u_cols * size, vt_bytes = n * n * size;
  over_batch(
      a.batch, [&] { return s->gesvd_work(type, jobu, jobvt, m, n, a.ptr, m, sv, u, m, vt, n); },
      [&](int64_t i, const runtime::WorkArea& work) {
        s->gesvd(type, jobu, jobvt, m, n, a.at(i), m, sv + i * s_bytes, u ? u + i * u_bytes : nullptr, m,
                 vt ? vt + i * vt_bytes : nullptr, n, work, int_ptr(out.info, i));
      });
  out.info = widen(out.info);
  return out;
}

SyevdResult solver_syevd(const NDArray& a_in, bool lower, bool compute_v) {
  constexpr const char* fn = "_solver_syevd";
  const Stack a = stack_of(fn, "a", a_in);
  const int64_t n = a.rows;
  if (a.cols != n) bad(fn, "a must hold square matrices, got shape " + shape_text(a_in.shape()));
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  const DType dtype = a_in.dtype(), real = real_dtype(dtype);
  const ElementType type = element_type(dtype);
  const Triangle uplo = lower ? Triangle::Lower : Triangle::Upper;
  NDArray w = NDArray::empty({a.batch, n}, real);
  NDArray info = NDArray::empty({a.batch}, DType::Int32);
  char* values = static_cast<char*>(w.data());
  const int64_t w_bytes = n * static_cast<int64_t>(itemsize(real));
  over_batch(
      a.batch, [&] { return s->syevd_work(type, compute_v, uplo, n, a.ptr, n, values); },
      [&](int64_t i, const runtime::WorkArea& work) {
        s->syevd(type, compute_v, uplo, n, a.at(i), n, values + i * w_bytes, work, int_ptr(info, i));
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
  const std::unique_ptr<SolverSession> s = solver_for(fn);
  if (std::string why; !s->has_geev(&why)) throw std::runtime_error(std::string(fn) + ": " + why);
  const DType dtype = a_in.dtype(), cdtype = complex_of(dtype);
  const bool real_input = dtype != cdtype;
  const ElementType type = element_type(dtype);
  GeevResult out{NDArray::empty({a.batch, n}, cdtype), std::nullopt, NDArray::empty({a.batch}, DType::Int32)};
  // The library's VR: of a's type (Note [cuSOLVER geev]); the result itself for complex a.
  std::optional<NDArray> packed;
  if (compute_v) packed = new_stack(a.batch, n, n, dtype);
  char* w = static_cast<char*>(out.w.data());
  char* vr = packed ? static_cast<char*>(packed->data()) : nullptr;
  const int64_t w_bytes = n * static_cast<int64_t>(itemsize(cdtype)), vr_bytes = a.matrix_bytes;
  over_batch(
      a.batch, [&] { return s->geev_work(type, compute_v, n, a.ptr, n, w, vr, n); },
      [&](int64_t i, const runtime::WorkArea& work) {
        s->geev(type, compute_v, n, a.at(i), n, w + i * w_bytes, vr ? vr + i * vr_bytes : nullptr, n, work,
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
