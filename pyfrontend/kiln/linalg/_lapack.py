"""The LAPACK primitives kiln.linalg's decompositions and solvers are
composed from (the interface of Note [LAPACK primitives] in
arraycore/solver.h): getrf, getrs, potrf, geqrf, orgqr, gesvd, syevd, geev
and usable. Each works on "stacks": ndim-3 arrays (batch, m, n) of float32,
float64, complex64 or complex128 whose matrices are column-major and lie
back to back; matrices are factorised in place, other results are new kiln
arrays, and the int64 `info` arrays are never read here.

    a = kiln.empty((batch, n, m), dtype).swapaxes(1, 2)   # a stack of m x n matrices
    ...                                                    # fill a
    ipiv, info = _lapack.getrf(a)                          # a[i] <- L and U
    _lapack.getrs(a, ipiv, b, 0)                           # b[i] <- A_i^-1 b[i]

On a backend with vendor libraries (cuda) every primitive is
kiln._core._solver_<name> (cuSOLVER, looked up at the call, never at
import); on the host and hip backends it is SciPy's LAPACK, below.
"""
import numpy

from kiln import _core
from kiln._math_functions import _real_dtype
from kiln.linalg._stacks import _new_stack

_CAPS = _core._backend_caps()               # the backend is chosen once, at import (Note [Backend traits])
_VENDOR_SOLVER = _CAPS["vendor_libraries"]  # the primitives are kiln._core._solver_* (cuSOLVER)
_HOST_MEMORY = _CAPS["host_addressable"]    # NumPy views kiln arrays in place

_PREFIX = {numpy.dtype(numpy.float32): "s", numpy.dtype(numpy.float64): "d",
           numpy.dtype(numpy.complex64): "c", numpy.dtype(numpy.complex128): "z"}


# Note [LAPACK primitives on the host]
# kiln.linalg composes every function (validation, dtype promotion, empty
# inputs, copies into stacks, the arithmetic around a factorisation, the
# LinAlgError checks) from the eight primitives above and kiln array
# operations, in Python, identically on every backend; only the primitive
# differs. On the cuda backend it is cuSOLVER (pyfrontend/solver_binding.cpp);
# on the host and hip backends it is SciPy's LAPACK (scipy.linalg.lapack),
# called on zero-copy NumPy views of the kiln arrays (host-backend memory is
# host memory: numpy.from_dlpack gives a writable view) one matrix at a time,
# in place, with the results written straight into new kiln arrays (on hip,
# whose memory NumPy cannot view, into host copies written back). So CI,
# which has no GPU, runs and tests all of the composition, and the cuda run
# of the same tests checks only the primitives on top. SciPy is a
# dependency of the decompositions on these backends only (imported at the
# first call; tools/dev.sh installs it); kiln's own kernels do not include a
# LAPACK. Two differences from cuSOLVER are invisible to callers: SciPy's
# getrf pivots are 0-based int32 (turned into LAPACK's 1-based int64 here,
# and back for getrs), and ?gesvd is the same algorithm on both sides
# (cuSOLVER's gesvd), so singular vectors agree up to the usual signs. The
# hip path (host copies) has not run on an AMD GPU.
def _scipy_lapack():
    try:
        from scipy.linalg import lapack
    except ImportError as e:
        raise ImportError("kiln.linalg's decompositions and solvers on the %s backend need SciPy (its LAPACK "
                          "computes them; Note [LAPACK primitives on the host]): pip install scipy"
                          % _core.get_backend()) from e
    return lapack


def usable():
    """(True, "") when the primitives can run now on this backend, else
    (False, why not)."""
    if _VENDOR_SOLVER:
        return _core._solver_usable()
    try:
        _scipy_lapack()
    except ImportError as e:
        return False, str(e)
    return True, ""


def _routine(name, dtype, complex_name=None):
    prefix = _PREFIX[numpy.dtype(dtype)]
    if complex_name is not None and prefix in "cz":
        name = complex_name
    return getattr(_scipy_lapack(), prefix + name)


def _host(x, name=None):
    """Stack ``x`` (checked as the cuda side checks it, so a malformed stack
    fails here in CI too; name None: any array) as a NumPy array: a
    writable view of the same memory on the host backend, a copy on hip
    (_back writes it back)."""
    if name is not None:
        _check_stack(x, name)
    return numpy.from_dlpack(x) if _HOST_MEMORY else x.get()


def _back(*pairs):
    """(kiln array, its _host array) pairs: the host copies written back on
    hip (nothing to do where _host gave views)."""
    if not _HOST_MEMORY:
        for x, h in pairs:
            x.set(h)


def _check_stack(x, name):
    if x.ndim != 3 or x.dtype not in _PREFIX:
        raise ValueError("%s must be a stack (batch, m, n) of float32, float64, complex64 or complex128, got "
                         "shape %s dtype %s" % (name, x.shape, x.dtype))
    batch, m, n = x.shape
    s = x.itemsize
    want = (m * n * s, s, m * s)
    if any(e != 1 and got != w for e, got, w in zip(x.shape, x.strides, want)):
        raise ValueError("%s must hold column-major matrices back to back (strides %s), got strides %s"
                         % (name, want, x.strides))


def _store(dst, result):
    """LAPACK's result into the matrix it factorised (SciPy works in place
    on Fortran-ordered input of its dtype; this is the exception)."""
    if result.__array_interface__["data"][0] != dst.__array_interface__["data"][0]:
        dst[...] = result


def _check_info(name, info):
    if info < 0:
        raise RuntimeError("LAPACK %s: argument %d had an illegal value" % (name, -info))
    return info


def _new(shape, dtype):
    return _core.empty(tuple(shape), numpy.dtype(dtype))


def getrf(a):
    """LU with partial pivoting of each a[i] in place -> (ipiv int64 (batch,
    min(m, n)), 1-based; info int64 (batch,))."""
    if _VENDOR_SOLVER:
        return _core._solver_getrf(a)
    f = _routine("getrf", a.dtype)
    host = _host(a, "a")
    batch, m, n = a.shape
    ipiv, info = _new((batch, min(m, n)), numpy.int64), _new((batch,), numpy.int64)
    piv_h, info_h = _host(ipiv), _host(info)
    for i in range(batch):
        lu, piv, inf = f(host[i], overwrite_a=1)
        _store(host[i], lu)
        piv_h[i] = piv + 1
        info_h[i] = _check_info("getrf", inf)
    _back((a, host), (ipiv, piv_h), (info, info_h))
    return ipiv, info


def getrs(lu, ipiv, b, trans):
    """b[i] <- op(A_i)^-1 b[i] from getrf's lu and ipiv; trans 0: A, 1: A^T,
    2: A^H."""
    if _VENDOR_SOLVER:
        return _core._solver_getrs(lu, ipiv, b, trans)
    f = _routine("getrs", lu.dtype)
    lu_h, b_h = _host(lu, "lu"), _host(b, "b")
    piv_h = _host(ipiv).astype(numpy.int32) - 1
    for i in range(lu.shape[0]):
        x, inf = f(lu_h[i], piv_h[i], b_h[i], trans=trans, overwrite_b=1)
        _check_info("getrs", inf)
        _store(b_h[i], x)
    _back((b, b_h))


def potrf(a, lower):
    """Cholesky of each a[i] in place, into its lower (A = L L^H) or upper
    (A = U^H U) triangle -> info int64 (batch,)."""
    if _VENDOR_SOLVER:
        return _core._solver_potrf(a, lower)
    f = _routine("potrf", a.dtype)
    host = _host(a, "a")
    info = _new((a.shape[0],), numpy.int64)
    info_h = _host(info)
    for i in range(a.shape[0]):
        c, inf = f(host[i], lower=int(bool(lower)), clean=0, overwrite_a=1)
        _store(host[i], c)
        info_h[i] = _check_info("potrf", inf)
    _back((a, host), (info, info_h))
    return info


def geqrf(a):
    """QR of each a[i] in place (R above the diagonal, Householder vectors
    below) -> tau (batch, min(m, n)) of a's dtype."""
    if _VENDOR_SOLVER:
        return _core._solver_geqrf(a)
    f = _routine("geqrf", a.dtype)
    host = _host(a, "a")
    batch, m, n = a.shape
    tau = _new((batch, min(m, n)), a.dtype)
    tau_h = _host(tau)
    for i in range(batch):
        qr, t, _, inf = f(host[i], overwrite_a=1)
        _check_info("geqrf", inf)
        _store(host[i], qr)
        tau_h[i] = t
    _back((a, host), (tau, tau_h))
    return tau


def orgqr(a, tau):
    """a[i] <- the m x n matrix Q of orthonormal columns from geqrf's output
    in a's first k = tau.shape[1] columns."""
    if _VENDOR_SOLVER:
        return _core._solver_orgqr(a, tau)
    f = _routine("orgqr", a.dtype, complex_name="ungqr")
    host = _host(a, "a")
    tau_h = _host(tau)
    for i in range(a.shape[0]):
        q, _, inf = f(host[i], tau_h[i], overwrite_a=1)
        _check_info("orgqr", inf)
        _store(host[i], q)
    _back((a, host))


def gesvd(a, job):
    """SVD of each a[i] (m >= n), destroying a -> (s real (batch, n)
    descending, u stack, vt stack, info int64 (batch,)); job 'A': u (batch,
    m, m), 'S': u (batch, m, n), both with vt (batch, n, n); 'N': u and vt
    None."""
    if _VENDOR_SOLVER:
        return _core._solver_gesvd(a, job)
    if job not in ("A", "S", "N"):
        raise ValueError("gesvd: job must be 'A', 'S' or 'N', got %r" % (job,))
    f = _routine("gesvd", a.dtype)
    host = _host(a, "a")
    batch, m, n = a.shape
    s = _new((batch, n), _real_dtype(a.dtype))
    info = _new((batch,), numpy.int64)
    s_h, info_h = _host(s), _host(info)
    u = vt = u_h = vt_h = None
    if job != "N":
        u = _new_stack(batch, m, m if job == "A" else n, a.dtype)
        vt = _new_stack(batch, n, n, a.dtype)
        u_h, vt_h = _host(u), _host(vt)
    for i in range(batch):
        ui, si, vti, inf = f(host[i], compute_uv=int(job != "N"), full_matrices=int(job == "A"), overwrite_a=1)
        info_h[i] = _check_info("gesvd", inf)
        s_h[i] = si
        if job != "N":
            u_h[i] = ui
            vt_h[i] = vti
    _back((s, s_h), (info, info_h), *(((u, u_h), (vt, vt_h)) if job != "N" else ()))
    return s, u, vt, info


def syevd(a, lower, compute_v):
    """Eigenvalues (ascending, real (batch, n)) of each Hermitian a[i] from
    its lower or upper triangle -> (w, info); compute_v: a[i] <- the
    eigenvectors (column j for w[i, j]), else a is destroyed."""
    if _VENDOR_SOLVER:
        return _core._solver_syevd(a, lower, compute_v)
    f = _routine("syevd", a.dtype, complex_name="heevd")
    host = _host(a, "a")
    batch, n, _ = a.shape
    w, info = _new((batch, n), _real_dtype(a.dtype)), _new((batch,), numpy.int64)
    w_h, info_h = _host(w), _host(info)
    for i in range(batch):
        wi, v, inf = f(host[i], compute_v=int(bool(compute_v)), lower=int(bool(lower)), overwrite_a=1)
        info_h[i] = _check_info("syevd", inf)
        w_h[i] = wi
        if compute_v:
            _store(host[i], v)
    _back((a, host), (w, w_h), (info, info_h))
    return w, info


def geev(a, compute_v):
    """Eigenvalues of each general a[i] (n x n), destroying a -> (w complex
    (batch, n), vr, info int64 (batch,)); vr: with compute_v a complex stack
    (batch, n, n) of right eigenvectors (column j for w[:, j], unit 2-norm),
    else None. Complex results for real a too: complex64 for float32 and
    complex64, complex128 otherwise (LAPACK's real ?geev packs conjugate
    pairs as wr, wi and two real columns; unpacked here, and on cuda in
    arraycore/solver.cpp, Note [cuSOLVER geev])."""
    if _VENDOR_SOLVER:
        return _core._solver_geev(a, compute_v)
    f = _routine("geev", a.dtype)
    host = _host(a, "a")
    batch, n, _ = a.shape
    cdtype = numpy.result_type(a.dtype, numpy.complex64)
    w, info = _new((batch, n), cdtype), _new((batch,), numpy.int64)
    w_h, info_h = _host(w), _host(info)
    vr = _new_stack(batch, n, n, cdtype) if compute_v else None
    vr_h = _host(vr) if compute_v else None
    real = a.dtype.kind == "f"
    for i in range(batch):
        out = f(host[i], compute_vl=0, compute_vr=int(bool(compute_v)), overwrite_a=1)
        if real:
            wr, wi, _, v, inf = out
            w_h[i] = wr + 1j * wi
        else:
            w_h[i], _, v, inf = out
        info_h[i] = _check_info("geev", inf)
        if compute_v:
            vr_h[i] = _unpack_pairs(v, wi) if real else v
    _back((w, w_h), (info, info_h), *(((vr, vr_h),) if compute_v else ()))
    return w, vr, info


def _unpack_pairs(v, wi):
    """Real ?geev's eigenvectors (LAPACK's packing: for a conjugate pair
    w[j], w[j+1] = conj(w[j]) with wi[j] > 0, the vectors are v[:, j] +-
    i v[:, j+1]) as complex columns."""
    out = v.astype(numpy.result_type(v.dtype, numpy.complex64))
    first = numpy.flatnonzero(wi > 0)
    first = first[first + 1 < len(wi)]   # a matrix that did not converge may leave junk
    out[:, first] = v[:, first] + 1j * v[:, first + 1]
    out[:, first + 1] = numpy.conj(out[:, first])
    return out
