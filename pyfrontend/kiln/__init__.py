"""kiln: NumPy-compatible arrays on GPUs, and kernels written in CUDA C++ or Python.

Every kernel also runs on the CPU through the host backend, so kiln programs
run on machines with no GPU. ``kiln.get_backend()`` says which backend runs.
"""
import numpy as _numpy

from kiln import _loader
from kiln import _core

from kiln._core import ndarray, RawKernel, RawModule, get_backend
from kiln._core import promote_types, can_cast, result_type, min_scalar_type, common_type
from kiln._creation import (empty, zeros, ones, full, empty_like, zeros_like, ones_like, full_like,
                            arange, linspace, logspace, geomspace, asarray, asanyarray, array, asnumpy,
                            ascontiguousarray, asfortranarray, copy, eye, identity, diag, diagonal, diagflat, tri,
                            tril, triu, meshgrid, indices, fromfunction)
from kiln._creation import empty_pinned, empty_like_pinned, zeros_pinned, zeros_like_pinned   # cupyx's
from kiln._manipulation import (  # noqa: F401
    reshape, ravel, shape, ndim, size, transpose, swapaxes, moveaxis, rollaxis, squeeze, expand_dims,
    atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_to, broadcast_arrays,
    concatenate, stack, hstack, vstack, dstack, column_stack, array_split, split, hsplit, vsplit,
    dsplit, tile, repeat, flip, fliplr, flipud, roll, rot90)
from kiln._pad import pad
from kiln._copyto import copyto
from kiln._core import ufunc
from kiln._elementwise_kernel import ElementwiseKernel
from kiln._reduction_kernel import ReductionKernel
from kiln import _ufunc_methods  # noqa: F401  (attaches reduce, accumulate, outer, at to kiln.ufunc)
from kiln._math_functions import (where, clip, nan_to_num, real, imag, isreal, iscomplex, angle, i0, sinc,
                                  isclose, allclose, array_equal)
from kiln._rounding import around, round, fix  # noqa: A004  (kiln.round is NumPy's, as numpy.round)
from kiln._fusion import fuse
from kiln import _fusion
from kiln._vectorize import vectorize
from kiln._indexing import (nonzero, argwhere, flatnonzero, extract, compress, take, take_along_axis, put,
                            put_along_axis, place)
from kiln import config
from kiln._scans import (cumsum, cumprod, nancumsum, nancumprod, cumulative_sum, cumulative_prod, diff,
                         ediff1d)
from kiln._numeric import (gradient, trapezoid, unwrap, cross, convolve, correlate, cov, corrcoef, interp, bartlett,
                           blackman, hamming, hanning, kaiser)
from kiln._counting import searchsorted, digitize, bincount, histogram, histogram2d, histogram_bin_edges
from kiln._counting import histogramdd
from kiln._selection import choose, select
from kiln._sorting import sort, argsort, lexsort, partition, argpartition, sort_complex
from kiln._sets import unique, unique_values, unique_counts, unique_inverse, unique_all
from kiln._sets import isin, intersect1d, union1d, setdiff1d, setxor1d
from kiln._statistics_order import median, percentile, quantile, nanmedian, nanpercentile, nanquantile
from kiln import _ndarray_methods  # noqa: F401  (attaches ndarray methods)
from kiln.linalg._products import matmul, dot, vdot, inner, outer, tensordot, kron, vecdot, matvec, vecmat
from kiln._einsum import einsum, einsum_path
from kiln import linalg
from kiln import cusolver  # cupyx.cusolver
from kiln._errstate import errstate, seterr, geterr  # cupyx's (kiln.linalg's error mode)
from kiln import _interop_numpy  # noqa: F401  (__array_ufunc__, __array_function__, __array_namespace__)
from kiln._dlpack import from_dlpack, fromDlpack
from kiln._runtime_info import get_runtime_info, show_config   # cupyx's, CuPy's
from kiln import _interop_dask, _array_api
__array_api_version__ = "2023.12"   # the array API standard kiln follows (docs/interop.md)
from kiln._array_api import astype, concat, permute_dims, matrix_transpose, unstack, finfo, iinfo, isdtype
from kiln._array_api import __array_namespace_info__
from kiln._reductions import (  # noqa: A004  (kiln.sum, kiln.max, ... are NumPy's, as numpy.sum)
    sum, prod, max, min, amax, amin, any, all, argmax, argmin, mean, var, std, nansum, nanprod, nanmax, nanmin,
    nanargmax, nanargmin, nanmean, nanvar, nanstd, count_nonzero, ptp, average, trace)
from kiln import cuda
from kiln import testing  # noqa: E402  (cupy.testing's API, numpy_kiln_* and numpy_cupy_* names)
from kiln import profiler  # noqa: E402  (cupyx.profiler's benchmark and profile)
from kiln import jit
from kiln import random
from kiln import fft
from kiln import exceptions
from kiln.cuda import cufft as _cufft  # noqa: F401 (kiln.cuda.cufft: kiln.fft's plan types, CuPy's module)
from kiln import scipy
from kiln.cuda.memory import MemoryPool, PinnedMemoryPool
from kiln.cuda._synchronize import allow_synchronize, DeviceSynchronized  # cupyx's
# NumPy's type names and printing helpers, predicates, index tricks (issue 22)
from kiln._type_names import (  # noqa: A004, F401  (kiln.long is NumPy's, as numpy.long)
    dtype, generic, number, integer, signedinteger, unsignedinteger, inexact, floating, complexfloating,
    byte, short, intc, int_, long, longlong, ubyte, ushort, uintc, uint, ulong, ulonglong, intp, uintp,
    half, single, double, csingle, cdouble, issubdtype, mintypecode, typename, iterable, get_printoptions,
    set_printoptions, printoptions, array2string, array_repr, array_str, format_float_positional,
    format_float_scientific)
from kiln._predicates import (array_equiv, may_share_memory, shares_memory, byte_bounds, isscalar,
                              iscomplexobj, isrealobj, isfortran, isneginf, isposinf, asarray_chkfinite,
                              require)
from kiln._index_tricks import (broadcast, r_, c_, mgrid, ogrid, s_, index_exp, ravel_multi_index,
                                unravel_index, ndindex, ix_)
# The poly1d family and kiln.polynomial (issue 22)
from kiln._polynomial import (poly1d, polyval, polyadd, polysub, polymul, polydiv, polyder, polyint, poly, roots,
                              polyfit, vander)
from kiln import polynomial
# indexing and manipulation helpers, ndarray members (issue 22, shapes)
from kiln._manipulation import row_stack, delete, append, resize, trim_zeros, block
from kiln._indexing import (putmask, fill_diagonal, diag_indices, diag_indices_from, tril_indices,
                            tril_indices_from, triu_indices, triu_indices_from, mask_indices, scatter_add,
                            scatter_max, scatter_min)
from kiln._apply import apply_along_axis, apply_over_axes, piecewise
from kiln._math_functions import real_if_close
from kiln._core import flatiter, packbits, unpackbits
from kiln._core import make_aligned_dtype   # structured dtypes (issue 22)
from kiln._who import who
from kiln._io import (load, save, savez, savez_compressed, savetxt, loadtxt, genfromtxt, fromfile, frombuffer,
                      fromiter, fromstring, binary_repr, base_repr)
from kiln import lib

__version__ = _core.__version__

# Every ufunc (kiln.add, kiln.sin, ...; aliases such as kiln.true_divide and
# kiln.abs are the same objects), made in C++ from arraycore's ufunc table.
globals().update(_core._ufuncs)
globals().update(_array_api.ufunc_aliases)   # the array API's names: acos is arccos, pow is power, ...

# NumPy's scalar types are kiln's (a.dtype is a numpy.dtype).
bool_ = _numpy.bool_
int8, int16, int32, int64 = _numpy.int8, _numpy.int16, _numpy.int32, _numpy.int64
uint8, uint16, uint32, uint64 = _numpy.uint8, _numpy.uint16, _numpy.uint32, _numpy.uint64
float16, float32, float64 = _numpy.float16, _numpy.float32, _numpy.float64
complex64, complex128 = _numpy.complex64, _numpy.complex128
bool = _numpy.bool_  # noqa: A001  (the array API's name, as numpy.bool)

newaxis = None
pi, e, inf, nan = _numpy.pi, _numpy.e, _numpy.inf, _numpy.nan
euler_gamma = _numpy.euler_gamma

_interop_dask.install()   # kiln's chunk helpers for Dask, once dask.array is imported

_default_memory_pool = cuda.memory._DefaultMemoryPool()
_default_pinned_memory_pool = PinnedMemoryPool()


def is_available():
    """Whether a CUDA GPU serves this process (CuPy's is_available): False on
    the host backend, where every kernel still runs on the CPU."""
    if not _core._backend_caps()["cuda_interop"]:   # Note [Backend traits]
        return False
    try:
        return _core.get_device_count() > 0
    except _core.CUDADriverError:   # KILN_BACKEND=cuda without a usable GPU (runtime::backend_caps)
        return False


def get_default_memory_pool():
    """The pool that serves device allocations (one per device underneath)."""
    return _default_memory_pool


def get_default_pinned_memory_pool():
    """The pool of page-locked host memory used for transfers."""
    return _default_pinned_memory_pool


def get_array_module(*args):
    """``kiln`` when any argument is a kiln array (or a value traced by
    ``kiln.fuse``), else ``numpy``: code written against the returned module
    runs on whichever side its data lives."""
    import kiln
    for a in args:
        if isinstance(a, ndarray) or (isinstance(a, _fusion._Var) and a.ref is None):
            return kiln
    return _numpy
