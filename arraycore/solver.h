// The solver adapter: the batched LAPACK primitives kiln.linalg is built
// on (the interface kiln/linalg/_lapack.py calls), on the current device and
// stream through the backend's solver library (solver.cpp; cuSOLVER on the
// cuda backend: runtime/libraries.h's SolverLibrary, Note [Libraries]).
//
//   NDArray a = ...;                            // a stack: (batch, n, n), each a[i] Fortran-ordered
//   GetrfResult lu = solver_getrf(a);           // a[i] <- L and U; lu.ipiv (batch, n) int64
//   solver_getrs(a, lu.ipiv, b, 0);             // b[i] <- A_i^-1 b[i]
//   NDArray info = lu.info;                     // int64 (batch,), still on the device
//
// Note [LAPACK primitives]
// kiln.linalg's functions (pyfrontend/kiln/linalg/) reduce every problem to
// a few LAPACK calls over "stacks": ndim-3 arrays of float32, float64,
// complex64 or complex128 whose matrices a[i] are each column-major (LAPACK's
// layout, leading dimension = rows) and lie back to back, byte strides
// (rows*cols*s, s, rows*s); extents of 1 take any stride. Python makes the
// stacks (copies, transposes, zero-size cases); here each primitive
//  - checks its arguments' dtypes, shapes and layouts, raising ValueError
//    (std::invalid_argument) that names the argument, before anything else,
//    so the checks hold on every backend;
//  - where the backend's Libraries has no solver (every backend but cuda,
//    Note [Libraries]) raises RuntimeError (std::runtime_error): the host
//    backend runs SciPy's LAPACK from Python instead;
//  - asks cuSOLVER once for the workspace of one matrix, allocates it from
//    kiln's pool, and loops over the batch in C++, one cuSOLVER call per
//    matrix, all on the current stream; except that getrf (square), getrs
//    and potrf hand a batch of small matrices to cuBLAS's / cuSOLVER's
//    batched routines in one call (Note [Batched primitives] in solver.cpp).
//    The generic API may also ask for host workspace: it lives on the heap
//    for the primitive's duration, which assumes cuSOLVER is done with it
//    when each call returns (nothing in its documentation says otherwise);
//  - never synchronizes with the host: the `info` results stay on the
//    device as int64 arrays (cuSOLVER writes int32; one cast kernel widens
//    them), and Python reads them when it must;
//  - returns new arrays from kiln's allocator; results that are matrices
//    are stacks themselves.
// cuSOLVER's generic 64-bit API (cusolverDnX*) does all but orgqr, which
// only exists as ?orgqr / ?ungqr with int sizes (so m, n, k beyond
// 2^31 - 1 raise ValueError there). Pivots are int64 in the generic API and
// go straight into getrf's result.
// geev(a, compute_v) -> (w, vr, info), the general eigenproblem, is the one
// primitive whose results are complex whatever a's dtype: w (batch, n) and,
// with compute_v, vr, a stack (batch, n, n) of unit right eigenvectors
// (column j for w[:, j]), complex64 for float32/complex64 a and complex128
// otherwise; a is destroyed; info int64 (batch,), > 0: did not converge. Real
// LAPACK's wr/wi and packed conjugate-pair columns are unpacked by the
// primitive on both sides (Note [cuSOLVER geev] in solver.cpp, _lapack.geev),
// so Python sees one layout. Its cuSOLVER routine is optional (CUDA 12.6+).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

struct GetrfResult {
  NDArray ipiv;   // int64 (batch, min(m, n)), LAPACK's 1-based row interchanges
  NDArray info;   // int64 (batch,)
};

struct GesvdResult {
  NDArray s;                   // real dtype (batch, n), descending
  std::optional<NDArray> u;    // stack (batch, m, m) for 'A', (batch, m, n) for 'S', none for 'N'
  std::optional<NDArray> vt;   // stack (batch, n, n) (V^H), none for 'N'
  NDArray info;                // int64 (batch,)
};

struct SyevdResult {
  NDArray w;      // real dtype (batch, n), ascending
  NDArray info;   // int64 (batch,)
};

struct GeevResult {
  NDArray w;                   // complex (batch, n): complex64 for float32/complex64 a, else complex128
  std::optional<NDArray> vr;   // complex stack (batch, n, n) of unit right eigenvectors, none without compute_v
  NDArray info;                // int64 (batch,)
};

// Whether the primitives can run now: the backend has a solver library
// (cuda, and libcusolver loads). `why_not` (optional) says why not.
bool solver_usable(std::string* why_not);

// Whether the cuSOLVER routine `routine` (its cuSOLVER name without the
// type letter: "getrf", "potrfBatched", "geev", ...) runs here, else why not
// in *why_not. Only the routines kiln.linalg is built on are known; other
// names throw std::invalid_argument. kiln.cusolver.check_availability.
bool solver_has(std::string_view routine, std::string* why_not);

// LU with partial pivoting of each a[i] (m x n), in place (?getrf).
GetrfResult solver_getrf(const NDArray& a);

// b[i] <- op(A_i)^-1 b[i] with getrf's lu (batch, n, n) and ipiv (batch, n);
// b (batch, n, k); trans 0 = A, 1 = A^T, 2 = A^H (?getrs).
void solver_getrs(const NDArray& lu, const NDArray& ipiv, const NDArray& b, int trans);

// Cholesky of each a[i] (n x n) in place, into the lower (A = L L^H) or
// upper (A = U^H U) triangle; returns info int64 (batch,) (?potrf).
NDArray solver_potrf(const NDArray& a, bool lower);

// QR of each a[i] (m x n) in place; returns tau (batch, min(m, n)) (?geqrf).
NDArray solver_geqrf(const NDArray& a);

// a[i] (m x n, m >= n >= k) <- the first n columns of H_1 ... H_k from
// geqrf's output in its first k columns and tau (batch, k) (?orgqr/?ungqr).
void solver_orgqr(const NDArray& a, const NDArray& tau);

// SVD of each a[i] (m x n, m >= n), destroying a; job 'A', 'S' or 'N' (?gesvd).
GesvdResult solver_gesvd(const NDArray& a, char job);

// Eigenvalues (and, with compute_v, eigenvectors into a) of each Hermitian
// a[i] (n x n), reading its lower or upper triangle (?syevd / ?heevd).
SyevdResult solver_syevd(const NDArray& a, bool lower, bool compute_v);

// Eigenvalues (and, with compute_v, right eigenvectors) of each general
// a[i] (n x n), destroying a (?geev); complex results for real a too
// (Note [cuSOLVER geev] in solver.cpp). cusolverDnXgeev is optional: a
// libcusolver without it raises std::runtime_error saying so
// (SolverSession::has_geev).
GeevResult solver_geev(const NDArray& a, bool compute_v);

}  // namespace kiln::arraycore
