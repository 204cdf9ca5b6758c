"""kiln.linalg's decompositions: cholesky, qr, svd, svdvals, eigh,
eigvalsh, eig and eigvals, with NumPy 2's signatures, batches (every axis before the last
two), result dtypes (Note [Linalg dtypes]), result namedtuples and
LinAlgErrors, composed from the LAPACK primitives (_lapack.py: cuSOLVER on
the cuda backend, SciPy's LAPACK on the host) and kiln array operations.

    l = kiln.linalg.cholesky(a)                          # a = l @ l.mT.conj()
    q, r = kiln.linalg.qr(a)                             # QRResult
    u, s, vh = kiln.linalg.svd(a, full_matrices=False)   # SVDResult
    w, v = kiln.linalg.eigh(a)                           # EighResult, w ascending
    w, v = kiln.linalg.eig(a)                            # EigResult, a @ v = v * w
"""
import functools
import typing
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._indexing import take_along_axis
from kiln._sorting import argsort, sort
from kiln.linalg import _lapack
from kiln.linalg._products import _operand
from kiln.linalg._stacks import (LinAlgError, _assert_stacked_2d, _assert_stacked_square, _from_rows, _from_stack,
                                 _hermitian_transpose, _identity, _linalg_dtype, _new_stack, _raise_if,
                                 _real_dtype, _to_stack)

_uf = _core._ufuncs


class SVDResult(typing.NamedTuple):
    """svd's (U, S, Vh): a = U @ (S[..., None] * Vh)."""
    U: typing.Any
    S: typing.Any
    Vh: typing.Any


class EighResult(typing.NamedTuple):
    """eigh's (eigenvalues, eigenvectors): column j for eigenvalue j."""
    eigenvalues: typing.Any
    eigenvectors: typing.Any


class EigResult(typing.NamedTuple):
    """eig's (eigenvalues, eigenvectors): column j for eigenvalue j."""
    eigenvalues: typing.Any
    eigenvectors: typing.Any


class QRResult(typing.NamedTuple):
    """qr's (Q, R): a = Q @ R."""
    Q: typing.Any
    R: typing.Any


def cholesky(a, /, *, upper=False):
    """The Cholesky factor of each Hermitian positive-definite matrix in a:
    lower L with a = L @ L^H (upper=True: upper U with a = U^H @ U), read
    from that triangle of a only. LinAlgError "Matrix is not positive
    definite" when a matrix is not."""
    a = _operand(a)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)
    if a.size == 0:
        return _core.empty(a.shape, dtype)
    st = _to_stack(a, dtype)
    _raise_if(_lapack.potrf(st, not upper), "Matrix is not positive definite")
    factor = _from_stack(st, a.shape[:-2])
    return _creation.triu(factor) if upper else _creation.tril(factor)


_QR_MODES = ("reduced", "complete", "r", "raw")


def _qr_mode(mode):
    if mode in _QR_MODES:
        return mode
    if mode in ("f", "full"):
        warnings.warn("qr's mode 'full' is deprecated: it is 'reduced', the default", DeprecationWarning,
                      stacklevel=3)
        return "reduced"
    if mode in ("e", "economic"):
        warnings.warn("qr's mode 'economic' is deprecated", DeprecationWarning, stacklevel=3)
        return "economic"
    raise ValueError("Unrecognized mode '%s'" % (mode,))


def qr(a, mode="reduced"):
    """The QR decomposition of each matrix in a (m x n, k = min(m, n)), as
    numpy.linalg.qr: mode 'reduced' gives QRResult(Q (m, k), R (k, n)),
    'complete' Q (m, m) and R (m, n), 'r' only R (k, n), 'raw' LAPACK's
    (h, tau): h (n, m) is the transpose of ?geqrf's output (R above the
    diagonal, Householder vectors below), tau (k,) their scales."""
    mode = _qr_mode(mode)
    a = _operand(a)
    _assert_stacked_2d(a)
    dtype = _linalg_dtype(a)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    mc = m if mode == "complete" and m > n else k   # Q's columns and R's rows
    if a.size == 0:
        return _empty_qr(batch, m, n, k, mc, mode, dtype)
    st = _to_stack(a, dtype)
    tau = _lapack.geqrf(st)
    h = _from_stack(st, batch)
    if mode == "raw":
        return h.mT, _from_rows(tau, batch)
    if mode == "economic":
        return h
    r = _creation.triu(h[..., :mc, :])
    if mode == "r":
        return r
    if mc == n:
        q = st   # R is copied out: ?orgqr may overwrite the factorisation in place
    else:
        q = _new_stack(st.shape[0], m, mc, dtype)
        w = min(mc, n)
        copyto(_from_stack(q, batch)[..., :w], h[..., :w])
    _lapack.orgqr(q, tau)
    return QRResult(_from_stack(q, batch), r)


def _empty_qr(batch, m, n, k, mc, mode, dtype):
    if mode == "raw":
        return _core.zeros(batch + (n, m), dtype), _core.zeros(batch + (k,), dtype)
    if mode == "economic":
        return _core.zeros(batch + (m, n), dtype)
    r = _core.zeros(batch + (mc, n), dtype)
    if mode == "r":
        return r
    return QRResult(_identity(batch + (m, mc), dtype), r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """The singular value decomposition of each matrix in a (m x n, k =
    min(m, n)): SVDResult(U, S, Vh) with a = U @ (S[..., None] * Vh), S
    descending (real dtype), U (m, m) and Vh (n, n) (full_matrices=False:
    (m, k) and (k, n)); only S when compute_uv is False. hermitian=True
    takes a as Hermitian and derives the decomposition from eigh's, as
    NumPy does. LinAlgError "SVD did not converge" when it does not."""
    a = _operand(a)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    _assert_stacked_2d(a)
    dtype = _linalg_dtype(a)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        s = _core.zeros(batch + (k,), _real_dtype(dtype))
        if not compute_uv:
            return s
        u_cols, vh_rows = (m, n) if full_matrices else (k, k)
        return SVDResult(_identity(batch + (m, u_cols), dtype), s, _identity(batch + (vh_rows, n), dtype))
    job = "N" if not compute_uv else "A" if full_matrices else "S"
    # ?gesvd wants m >= n: a wide a is decomposed as a^H = U S V^H, so that a = V S U^H.
    wide = m < n
    st = _to_stack(a.mT if wide else a, dtype, conjugate=wide)
    s, u, vt, info = _lapack.gesvd(st, job)
    _raise_if(info, "SVD did not converge")
    s = _from_rows(s, batch)
    if not compute_uv:
        return s
    u, vt = _from_stack(u, batch), _from_stack(vt, batch)
    if wide:
        u, vt = _hermitian_transpose(vt), _hermitian_transpose(u)
    return SVDResult(u, s, vt)


def _hermitian_svd(a, compute_uv):
    """svd of Hermitian a from its eigendecomposition a = V W V^H: the
    singular values are |W| (sorted descending), U = V in that order and
    Vh = (U * sign(W))^H, a zero eigenvalue counting as positive."""
    if not compute_uv:
        return sort(_uf["absolute"](eigvalsh(a)))[..., ::-1]
    w, v = eigh(a)
    order = argsort(_uf["absolute"](w))[..., ::-1]
    w = take_along_axis(w, order, axis=-1)
    u = take_along_axis(v, order[..., None, :], axis=-1)
    sign = _uf["copysign"](1, w)
    return SVDResult(u, _uf["absolute"](w), _hermitian_transpose(_uf["multiply"](u, sign[..., None, :])))


def svdvals(x, /):
    """The singular values of each matrix in x, descending (svd without U
    and Vh)."""
    return svd(x, compute_uv=False)


def _lower(UPLO):
    uplo = UPLO.upper()
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return uplo == "L"


def _eigh(a, UPLO, compute_v):
    lower = _lower(UPLO)
    a = _operand(a)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)
    batch, n = a.shape[:-2], a.shape[-1]
    if a.size == 0:
        return _core.zeros(batch + (n,), _real_dtype(dtype)), _core.zeros(a.shape, dtype)
    st = _to_stack(a, dtype)
    w, info = _lapack.syevd(st, lower, compute_v)
    _raise_if(info, "Eigenvalues did not converge")
    return _from_rows(w, batch), _from_stack(st, batch)


def eigh(a, UPLO="L"):
    """The eigenvalues (ascending, real dtype) and orthonormal eigenvectors
    (column j for eigenvalue j) of each Hermitian matrix in a, read from its
    lower (UPLO='L') or upper ('U') triangle only: EighResult."""
    return EighResult(*_eigh(a, UPLO, True))


def eigvalsh(a, UPLO="L"):
    """eigh's eigenvalues alone."""
    return _eigh(a, UPLO, False)[0]


# Note [Eig dtypes]
# geev's results are complex for every input (the primitive unpacks real
# LAPACK's conjugate pairs, _lapack.geev). NumPy's eig changed here between
# versions: NumPy 2.4 (CI's) gives real input (and integers, computed in
# float64) real results when every eigenvalue of the whole call has an
# imaginary part exactly 0 and complex ones otherwise; the newer NumPy on
# the GPU machine always returns complex (its docstring shows
# array([1.+0j, 1.+0j]) for a real diagonal matrix). kiln follows the NumPy
# it runs beside, asked once (_numpy_eig_casts_to_real), so code moving
# between numpy.linalg.eig and kiln's sees the same dtypes. The real cast
# costs one read of the eigenvalues on the host (the info check reads
# anyway). Complex input always gives complex results. Non-finite input
# raises NumPy's LinAlgError "Array must not contain infs or NaNs" before
# LAPACK runs (one more read). Single precision
# stays single (Note [Linalg dtypes]): complex64 / float32 for float32.
def _eig(a, compute_v):
    a = _operand(a)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)
    batch, n = a.shape[:-2], a.shape[-1]
    if a.size == 0:
        if not _numpy_eig_casts_to_real():
            dtype = numpy.result_type(dtype, numpy.complex64)   # complex64 or complex128
        return _core.zeros(batch + (n,), dtype), _core.zeros(a.shape, dtype)
    if not bool(_uf["isfinite"](a).all()):   # NumPy's check, before LAPACK sees the matrix
        raise LinAlgError("Array must not contain infs or NaNs")
    st = _to_stack(a, dtype)
    w, vr, info = _lapack.geev(st, compute_v)
    _raise_if(info, "Eigenvalues did not converge")
    w = _from_rows(w, batch)
    v = _from_stack(vr, batch) if compute_v else None
    if dtype.kind == "f" and _numpy_eig_casts_to_real() and not bool(w.imag.any()):
        w, v = w.real, (v.real if compute_v else None)
    return w, v


@functools.cache
def _numpy_eig_casts_to_real():
    """Whether this NumPy's eig returns real results for real eigenvalues
    (Note [Eig dtypes])."""
    return numpy.linalg.eigvals(numpy.eye(1)).dtype.kind == "f"


def eig(a):
    """The eigenvalues and right eigenvectors (column j for eigenvalue j,
    unit 2-norm, as LAPACK's ?geev gives them) of each square matrix in a:
    EigResult with a @ v = v * w[..., None, :]. The order of the
    eigenvalues is LAPACK's (unspecified). Real a gives real results when
    every eigenvalue is real, complex ones otherwise (Note [Eig dtypes]).
    LinAlgError "Eigenvalues did not converge" when ?geev fails, "Array
    must not contain infs or NaNs" for such input, as NumPy's."""
    return EigResult(*_eig(a, True))


def eigvals(a):
    """eig's eigenvalues alone (no eigenvectors computed)."""
    return _eig(a, False)[0]
