// kiln._core._solver_*: the cuda backend's LAPACK primitives through
// cuSOLVER (arraycore/solver.h, Note [LAPACK primitives]) for
// kiln/linalg/_lapack.py, with the arguments and results of the interface it
// calls on every backend.
//
//   ipiv, info = _core._solver_getrf(a)      # a: a stack (batch, m, n), column-major matrices
//   _core._solver_getrs(a, ipiv, b, 0)       # b <- A^-1 b
//   ok, why = _core._solver_usable()
//   ok, why = _core._solver_has("geev")
#include <pybind11/stl.h>

#include "arraycore/solver.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

using arraycore::NDArray;

namespace {

py::object optional_array(const std::optional<NDArray>& x) { return x ? py::cast(*x) : py::none(); }

}  // namespace

void register_solver(py::module_& m) {
  m.def(
      "_solver_usable",
      [] {
        std::string why;
        const bool ok = arraycore::solver_usable(&why);
        return py::make_tuple(ok, why);
      },
      "(whether the cuSOLVER primitives can run now, why not)");
  m.def(
      "_solver_has",
      [](std::string_view routine) {
        std::string why;
        const bool ok = arraycore::solver_has(routine, &why);
        return py::make_tuple(ok, why);
      },
      py::arg("routine"),
      "(whether cuSOLVER's `routine` (\"geev\", \"potrfBatched\", ...) runs here, why not); ValueError for a "
      "routine kiln.linalg does not use.");
  m.def(
      "_solver_getrf",
      [](const NDArray& a) {
        arraycore::GetrfResult r = arraycore::solver_getrf(a);
        return py::make_tuple(r.ipiv, r.info);
      },
      py::arg("a"), "LU of each a[i] in place -> (ipiv int64 (batch, min(m, n)), info int64 (batch,)).");
  m.def("_solver_getrs", &arraycore::solver_getrs, py::arg("lu"), py::arg("ipiv"), py::arg("b"), py::arg("trans"),
        "b[i] <- op(A_i)^-1 b[i] from getrf's lu and ipiv; trans 0 = A, 1 = A^T, 2 = A^H.");
  m.def("_solver_potrf", &arraycore::solver_potrf, py::arg("a"), py::arg("lower"),
        "Cholesky of each a[i] in place (lower: A = L L^H, else A = U^H U) -> info int64 (batch,).");
  m.def("_solver_geqrf", &arraycore::solver_geqrf, py::arg("a"),
        "QR of each a[i] in place (R above, Householder vectors below) -> tau (batch, min(m, n)).");
  m.def("_solver_orgqr", &arraycore::solver_orgqr, py::arg("a"), py::arg("tau"),
        "a[i] <- Q (m x n, orthonormal columns) from geqrf's output in a's first k columns and tau (batch, k).");
  m.def(
      "_solver_gesvd",
      [](const NDArray& a, const std::string& job) {
        if (job.size() != 1)
          throw std::invalid_argument("_solver_gesvd: job must be 'A', 'S' or 'N', got '" + job + "'");
        arraycore::GesvdResult r = arraycore::solver_gesvd(a, job[0]);
        return py::make_tuple(r.s, optional_array(r.u), optional_array(r.vt), r.info);
      },
      py::arg("a"), py::arg("job"),
      "SVD of each a[i] (m >= n), destroying a -> (s, u, vt, info); u and vt are None for job 'N'.");
  m.def(
      "_solver_syevd",
      [](const NDArray& a, bool lower, bool compute_v) {
        arraycore::SyevdResult r = arraycore::solver_syevd(a, lower, compute_v);
        return py::make_tuple(r.w, r.info);
      },
      py::arg("a"), py::arg("lower"), py::arg("compute_v"),
      "Eigenvalues (ascending) of each Hermitian a[i] from one triangle -> (w, info); with compute_v, a <- "
      "the eigenvectors.");
  m.def(
      "_solver_geev",
      [](const NDArray& a, bool compute_v) {
        arraycore::GeevResult r = arraycore::solver_geev(a, compute_v);
        return py::make_tuple(r.w, optional_array(r.vr), r.info);
      },
      py::arg("a"), py::arg("compute_v"),
      "Eigenvalues of each general a[i], destroying a -> (w complex (batch, n), vr complex stack of right "
      "eigenvectors or None, info); needs cusolverDnXgeev (CUDA 12.6+).");
}

}  // namespace kiln::py_bind
