"""kiln.linalg's solvers and the functions built on them: solve, inv, det,
slogdet, lstsq, pinv, matrix_power, matrix_rank, tensorsolve, tensorinv and
cond, with NumPy 2's signatures, batches, result dtypes (Note [Linalg
dtypes]) and LinAlgErrors, composed from the LAPACK primitives (_lapack.py)
and the decompositions (_decompositions.py).

    x = kiln.linalg.solve(a, b)              # a @ x = b, batched
    d = kiln.linalg.det(a)                   # 0-d for one matrix
    sign, logabsdet = kiln.linalg.slogdet(a)
    x, residuals, rank, s = kiln.linalg.lstsq(a, b)
"""
import numbers
import operator
import typing

import numpy

from kiln import _core
from kiln import _creation
from kiln import _reductions
from kiln._copyto import copyto
from kiln._math_functions import where
from kiln.linalg import _lapack
from kiln.linalg._decompositions import svd
from kiln.linalg._norms import norm
from kiln.linalg._products import _batch_shape, _operand, matmul
from kiln.linalg._stacks import (LinAlgError, _assert_2d, _assert_stacked_2d, _assert_stacked_square,
                                 _from_rows, _from_stack, _hermitian_transpose, _identity, _linalg_dtype,
                                 _new_stack, _raise_if, _real_dtype, _size, _to_stack, _view)

_uf = _core._ufuncs
_NO_VALUE = object()


class SlogdetResult(typing.NamedTuple):
    """slogdet's (sign, logabsdet): det = sign * exp(logabsdet)."""
    sign: typing.Any
    logabsdet: typing.Any


def _lu(a, dtype):
    """getrf of a copy of square a (..., n, n), not empty: (stack, ipiv, info)."""
    st = _to_stack(a, dtype)
    ipiv, info = _lapack.getrf(st)
    return st, ipiv, info


def _lu_diagonal(st):
    """The diagonals of LU stack st (batch, n, n): U's, (batch, n), a view."""
    return _view(st, st.shape[:2], (st.strides[0], st.strides[1] + st.strides[2]))


def _odd_permutation(ipiv):
    """Whether each row of getrf's pivots (batch, n) swaps rows an odd
    number of times (bool (batch,))."""
    n = ipiv.shape[-1]
    swaps = _reductions.count_nonzero(_uf["not_equal"](ipiv, _creation.arange(1, n + 1)), axis=-1)
    return _uf["bitwise_and"](swaps, 1).astype(numpy.bool_)


def _solve_stacks(a, b_stack, dtype):
    """b_stack (batch, n, k) <- a^-1 b (a (..., n, n) of that batch, or a
    single matrix for every b); LinAlgError "Singular matrix"."""
    st, ipiv, info = _lu(a, dtype)
    _raise_if(info, "Singular matrix")
    if st.shape[0] == 1 and b_stack.shape[0] > 1:
        # One matrix for the whole batch: b's matrices, back to back in
        # column-major order, are one n x (batch * k) right-hand side.
        b_stack = _view(b_stack, (1, b_stack.shape[1], b_stack.shape[0] * b_stack.shape[2]),
                        (0,) + b_stack.strides[1:])
    _lapack.getrs(st, ipiv, b_stack, 0)


def solve(a, b):
    """The solution x of a @ x = b for each square matrix in a, as
    numpy.linalg.solve in NumPy 2: b is one vector (n,) for every matrix
    when 1-D, otherwise a stack of matrices (..., n, k) broadcast against
    a's batch. LinAlgError "Singular matrix" when a matrix is exactly
    singular."""
    a, b = _operand(a), _operand(b)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a, b)
    n = a.shape[-1]
    vector = b.ndim == 1
    name, sig = ("solve1", "(m,m),(m)->(m)") if vector else ("solve", "(m,m),(m,n)->(m,n)")
    core = 1 if vector else 2
    if b.ndim < core:
        raise ValueError("%s: Input operand 1 does not have enough dimensions (has %d, gufunc core with signature "
                         "%s requires %d)" % (name, b.ndim, sig, core))
    if b.shape[b.ndim - core] != n:
        raise ValueError("%s: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature %s "
                         "(size %d is different from %d)" % (name, sig, b.shape[b.ndim - core], n))
    b2 = b.reshape(b.shape + (1,)) if vector else b
    k = b2.shape[-1]
    batch = a.shape[:-2] if vector else _batch_shape(a, b, 2, 2, (n, k))
    shape = batch + ((n,) if vector else (n, k))
    if _size(shape) == 0:
        if n and _size(batch):   # no right-hand sides: NumPy still factorises a and raises if singular
            _raise_if(_lu(a, dtype)[2], "Singular matrix")
        return _core.zeros(shape, dtype)
    if _size(a.shape[:-2]) == 1:   # one matrix: factorised once
        a = a.reshape((n, n))
    else:
        a = _creation._broadcast_view(a, batch + (n, n))
    x = _to_stack(_creation._broadcast_view(b2, batch + (n, k)), dtype)
    _solve_stacks(a, x, dtype)
    x = _from_stack(x, batch)
    return x.reshape(shape) if vector else x


def inv(a):
    """The inverse of each square matrix in a; LinAlgError "Singular matrix"
    when one is exactly singular."""
    a = _operand(a)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)
    if a.size == 0:
        return _core.zeros(a.shape, dtype)
    inverse, singular = _inverse(a, dtype)
    _raise_if(singular, "Singular matrix")
    return inverse


def _inverse(a, dtype):
    """(the inverses of a's matrices (any values where singular), getrf's info)."""
    st, ipiv, info = _lu(a, dtype)
    n = a.shape[-1]
    x = _new_stack(st.shape[0], n, n, dtype)
    copyto(x, _creation._broadcast_view(_creation.eye(n, dtype=dtype), x.shape))
    _lapack.getrs(st, ipiv, x, 0)
    return _from_stack(x, a.shape[:-2]), info


def det(a):
    """The determinant of each square matrix in a, from its LU factorisation
    (the product of U's diagonal, negated for an odd row permutation)."""
    a = _operand(a)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)
    batch = a.shape[:-2]
    if a.size == 0:
        return _creation.ones(batch, dtype)   # the empty product: det of 0 x 0 is 1
    st, ipiv, _ = _lu(a, dtype)
    d = _reductions.prod(_lu_diagonal(st), axis=-1)
    _uf["negative"](d, out=d, where=_odd_permutation(ipiv))
    return _from_rows(d, batch)


def slogdet(a):
    """SlogdetResult(sign, logabsdet) of each square matrix in a, det = sign
    * exp(logabsdet), from its LU factorisation: sign is +-1 (a unit
    complex number for complex a), or 0 with logabsdet -inf when a matrix is
    singular."""
    a = _operand(a)
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)
    batch = a.shape[:-2]
    if a.size == 0:
        return SlogdetResult(_creation.ones(batch, dtype), _core.zeros(batch, _real_dtype(dtype)))
    st, ipiv, _ = _lu(a, dtype)
    diagonal = _lu_diagonal(st)
    sign = _reductions.prod(_uf["sign"](diagonal), axis=-1)
    _uf["negative"](sign, out=sign, where=_odd_permutation(ipiv))
    logabsdet = _reductions.sum(_uf["log"](_uf["absolute"](diagonal)), axis=-1)
    return SlogdetResult(_from_rows(sign, batch), _from_rows(logabsdet, batch))


def lstsq(a, b, rcond=None):
    """The least-squares solution x of a @ x = b (a: M x N; b: (M,) or
    (M, K)), as numpy.linalg.lstsq: (x, residuals, rank, s). Singular values
    s[i] <= rcond * s[0] count as zero (rcond None: eps * max(M, N), eps of
    the dtype computed in; negative: eps). residuals holds the squared
    2-norm of b - a @ x for each column of b when rank == N < M, and is
    empty otherwise; rank is a NumPy int32. Computed from the SVD of a."""
    a, b = _operand(a), _operand(b)
    vector = b.ndim == 1
    b2 = b.reshape(b.shape + (1,)) if vector else b
    _assert_2d(a)
    _assert_2d(b2)
    (m, n), k = a.shape, b2.shape[1]
    if b2.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    dtype = _linalg_dtype(a, b)
    real = _real_dtype(dtype)
    eps = float(numpy.finfo(real).eps)
    if rcond is None:
        rcond = eps * max(m, n)
    elif rcond < 0:
        rcond = eps
    b2 = b2.astype(dtype, copy=False)
    if a.size == 0:
        x = _core.zeros((n, k), dtype)
        rank, s = 0, _core.zeros((0,), real)
    else:
        try:
            u, s, vh = svd(a, full_matrices=False)
        except LinAlgError:
            raise LinAlgError("SVD did not converge in Linear Least Squares") from None
        keep = _uf["greater"](s, s[0:1] * rcond)
        rank = int(_reductions.count_nonzero(keep))
        s_inv = _creation.zeros(s.shape, real)
        _uf["divide"](1, s, out=s_inv, where=keep)
        c = _uf["multiply"](matmul(_hermitian_transpose(u), b2), s_inv[:, None])
        x = matmul(_hermitian_transpose(vh), c)
    if rank == n and m > n:
        r = _uf["subtract"](b2, matmul(a.astype(dtype, copy=False), x)) if n else b2
        residuals = _reductions.sum(_squared_magnitude(r), axis=0)
    else:
        residuals = _core.zeros((0,), real)
    return (x.reshape((n,)) if vector else x), residuals, numpy.int32(rank), s


def _squared_magnitude(x):
    if x.dtype.kind == "c":
        return _uf["add"](_uf["square"](x.real), _uf["square"](x.imag))
    return _uf["square"](x)


def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """The Moore-Penrose pseudo-inverse of each matrix in a (..., M, N) ->
    (..., N, M), from its SVD: singular values s <= cutoff * max(s) count as
    zero, cutoff = rcond (default 1e-15), or rtol (None: max(M, N) * eps of
    the result dtype); both may be arrays broadcast against the batch.
    hermitian=True takes a as Hermitian (svd's hermitian)."""
    a = _operand(a)
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * float(numpy.finfo(_real_dtype(_linalg_dtype(a))).eps)
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    _assert_stacked_2d(a)
    m, n = a.shape[-2:]
    if a.size == 0:
        return _core.empty(a.shape[:-2] + (n, m), a.dtype)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    largest = _reductions.max(s, axis=-1, keepdims=True)
    cutoff = _uf["multiply"](_per_matrix(rcond), largest)
    keep = _uf["greater"](s, cutoff)
    s_inv = _creation.zeros(s.shape, s.dtype)
    _uf["divide"](1, s, out=s_inv, where=keep)
    return matmul(_hermitian_transpose(vh), _uf["multiply"](s_inv[..., None], _hermitian_transpose(u)))


def _per_matrix(value):
    """A tolerance given per matrix (scalar, or array of the batch's shape)
    with an axis added to meet a (..., k) array of singular values."""
    if isinstance(value, numbers.Number):
        return value
    value = _operand(value)
    return value.reshape(value.shape + (1,))


def matrix_power(a, n):
    """a @ a @ ... (n times) for each square matrix in a, by repeated
    squaring; n == 0 gives identities of a's dtype, n < 0 powers of inv(a)."""
    a = _operand(a)
    _assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        return _identity(a.shape, a.dtype)
    if n < 0:
        a = inv(a)
        n = -n
    result, power = None, a
    while True:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if not n:
            return result
        power = matmul(power, power)


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """The number of singular values of each matrix in A above tol (default:
    rtol * the largest, rtol defaulting to max(M, N) * eps); tol and rtol
    may be arrays broadcast against the batch. Below 2-d: 1 unless every
    element is zero, as a 0-d int64 array that stays on the device (CuPy's
    result; NumPy gives a Python int)."""
    if tol is not None and rtol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = _operand(A)
    if A.ndim < 2:
        return _reductions.any(_uf["not_equal"](A, 0)).astype(numpy.int64)
    s = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * float(numpy.finfo(s.dtype).eps)
        tol = _uf["multiply"](_reductions.max(s, axis=-1, keepdims=True, initial=0), _per_matrix(rtol))
    else:
        tol = _per_matrix(tol)
    return _reductions.count_nonzero(_uf["greater"](s, tol), axis=-1)


def tensorsolve(a, b, axes=None):
    """The x with tensordot(a, x, x.ndim) == b, as numpy.linalg.tensorsolve:
    a's axes ``axes`` are moved to the end first; x has a's trailing
    a.ndim - b.ndim axes."""
    a, b = _operand(a), _operand(b)
    if axes is not None:
        order = [i for i in range(a.ndim) if i not in [operator.index(x) % a.ndim for x in axes]]
        a = a.transpose(order + [operator.index(x) % a.ndim for x in axes])
    shape = a.shape[-(a.ndim - b.ndim):]
    size = _size(shape)
    if a.size != size * size:
        raise LinAlgError("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
                          "prod(a.shape[:b.ndim])")
    return solve(a.reshape((size, size)), b.reshape((-1,))).reshape(shape)


def tensorinv(a, ind=2):
    """The inverse of a seen as a matrix with rows a.shape[:ind] and columns
    a.shape[ind:], reshaped to a.shape[ind:] + a.shape[:ind]."""
    a = _operand(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows = _size(a.shape[ind:])
    return inv(a.reshape((rows, -1))).reshape(a.shape[ind:] + a.shape[:ind])


def cond(x, p=None):
    """The condition number of each matrix in x in norm p: None or 2 (the
    ratio of the largest singular value to the smallest), -2 (its inverse),
    1, -1, inf, -inf, 'fro', 'nuc' (norm(x, p) * norm(inv(x), p), square
    matrices only). A singular matrix gives inf (nan if it holds a nan)."""
    x = _operand(x)
    if x.size == 0 and _size(x.shape[-2:]) == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svd(x, compute_uv=False)
        big, small = s[..., 0], s[..., -1]
        r = _uf["divide"](small, big) if p == -2 else _uf["divide"](big, small)
    else:
        _assert_stacked_square(x)
        dtype = _linalg_dtype(x)
        inverse, info = _inverse(x, dtype)
        # A singular matrix's inverse is all nan, as NumPy's inv gives it here.
        singular = _from_rows(_uf["greater"](info, 0), x.shape[:-2])
        inverse = where(singular.reshape(singular.shape + (1, 1)), numpy.nan, inverse)
        r = _uf["multiply"](norm(x, p, axis=(-2, -1)), norm(inverse, p, axis=(-2, -1)))
        r = r.astype(_real_dtype(dtype), copy=False)
    # nan (0 / 0, or a singular matrix's) becomes inf, unless x itself holds a nan.
    nan = _uf["isnan"](r)
    if x.dtype.kind in "fc":
        nan = _uf["logical_and"](nan, _uf["logical_not"](_reductions.any(_uf["isnan"](x), axis=(-2, -1))))
    return where(nan, numpy.inf, r)
