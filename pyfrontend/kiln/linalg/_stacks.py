"""What kiln.linalg's decompositions and solvers share around the LAPACK
primitives (_lapack.py): NumPy's argument checks and LinAlgError, the
dtype a computation runs in, copies of (..., m, n) arrays into stacks (the
primitives' column-major layout, Note [LAPACK primitives] in
arraycore/solver.h) and views of stacks as (..., m, n) results.

    a = _operand(a)                          # _products._operand: host data uploaded
    _assert_stacked_square(a)
    dtype = _linalg_dtype(a)                 # float32/64, complex64/128
    st = _to_stack(a, dtype)                 # (batch, m, n), a copy
    info = _lapack.potrf(st, True)
    _raise_if(info, "Matrix is not positive definite")
    lower = _from_stack(st, a.shape[:-2])    # (..., m, n), a view of st
"""
import numpy

from kiln import _core
from kiln import _errstate
from kiln._copyto import copyto
from kiln._creation import _broadcast_view, eye
from kiln._math_functions import _real_dtype
from kiln.linalg._products import _size, _view

# Code that catches numpy.linalg.LinAlgError catches kiln's, and the reverse.
LinAlgError = numpy.linalg.LinAlgError

_SINGLE = (numpy.dtype(numpy.float32), numpy.dtype(numpy.complex64))
_DOUBLE = (numpy.dtype(numpy.float64), numpy.dtype(numpy.complex128))


def _assert_stacked_2d(a):
    if a.ndim < 2:
        raise LinAlgError("%d-dimensional array given. Array must be at least two-dimensional" % a.ndim)


def _assert_stacked_square(a):
    _assert_stacked_2d(a)
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


def _assert_2d(a):
    if a.ndim != 2:
        raise LinAlgError("%d-dimensional array given. Array must be two-dimensional" % a.ndim)


# Note [Linalg dtypes]
# The dtype a decomposition runs in and returns, as NumPy's: float32 and
# complex64 stay single precision, float64 and complex128 double; bool and
# integers become float64 (complex128 beside a complex operand); the
# operands of solve and lstsq meet at the wider precision and complex if
# either is. float16 and other inexact dtypes raise NumPy's TypeError.
# Unlike NumPy, which computes single precision in double and rounds the
# result, kiln computes float32 and complex64 in single precision (as
# cuSOLVER and LAPACK's s/c routines do): results agree with NumPy's to
# float32's precision, relative to the problem's condition (docs/linalg.md).
def _linalg_dtype(*arrays):
    double = is_complex = False
    for a in arrays:
        dt = a.dtype
        if dt.kind in "fc":
            if dt not in _SINGLE and dt not in _DOUBLE:
                raise TypeError("array type %s is unsupported in linalg" % dt.name)
            double = double or dt in _DOUBLE
            is_complex = is_complex or dt.kind == "c"
        elif dt.kind in "biu":
            double = True
        else:
            raise TypeError("array type %s is unsupported in linalg" % dt.name)
    if is_complex:
        return numpy.dtype(numpy.complex128 if double else numpy.complex64)
    return numpy.dtype(numpy.float64 if double else numpy.float32)


def _from_stack(st, batch_shape):
    """Stack ``st`` (batch, m, n) seen as batch_shape + (m, n): a view."""
    s0 = st.strides[0]
    strides = []
    for n in reversed(batch_shape):
        strides.append(s0)
        s0 *= n
    return _view(st, tuple(batch_shape) + st.shape[1:], tuple(reversed(strides)) + st.strides[1:])


def _new_stack(batch, m, n, dtype):
    """A new (batch, m, n) stack (uninitialised)."""
    return _core.empty((batch, n, m), numpy.dtype(dtype)).swapaxes(1, 2)


def _to_stack(a, dtype, conjugate=False):
    """A new stack holding a (..., m, n) cast to dtype (conjugated when asked
    and complex): the primitives overwrite what they are given."""
    m, n = a.shape[-2:]
    st = _new_stack(_size(a.shape[:-2]), m, n, dtype)
    target = _from_stack(st, a.shape[:-2])
    if conjugate and a.dtype.kind == "c":
        _core._ufuncs["conjugate"](a, out=target)
    else:
        copyto(target, a, casting="unsafe")
    return st


def _from_rows(x, batch_shape):
    """A primitive's (batch, k) result as batch_shape + (k,)."""
    return x.reshape(tuple(batch_shape) + x.shape[1:])


def _hermitian_transpose(x):
    """x's matrices conjugate-transposed: a view for real x, a new array for complex."""
    return _core._ufuncs["conjugate"](x.mT) if x.dtype.kind == "c" else x.mT


def _raise_if(info, message):
    """LinAlgError(message) when any info is positive (reads info: one
    synchronisation, only where NumPy would raise); nothing is read under
    kiln.errstate(linalg='ignore')."""
    if info.size and _errstate.geterr()["linalg"] == "raise" and (info.get() > 0).any():
        raise LinAlgError(message)


def _identity(shape, dtype):
    """A new C-ordered array of ``shape`` (..., m, n) holding eye(m, n) in
    each matrix."""
    out = _core.empty(tuple(shape), numpy.dtype(dtype))
    if out.size:
        copyto(out, _broadcast_view(eye(shape[-2], shape[-1], dtype=dtype), shape))
    return out
