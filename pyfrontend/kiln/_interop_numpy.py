"""NumPy's override protocols on kiln arrays, and the array API namespace.

    numpy.sin(a)                  # __array_ufunc__: kiln.sin(a), a kiln array
    numpy.add.reduce(a, axis=0)   # ufunc methods too: kiln.add.reduce
    numpy.sum(a, axis=0)          # __array_function__: kiln.sum(a, axis=0)
    numpy.concatenate([a, b])     # kiln.concatenate
    numpy.linalg.svd(a)           # kiln.linalg.svd(a): NumPy's submodules too (linalg, fft)
    numpy.linalg.eig(a)           # TypeError naming numpy.linalg.eig (kiln has no eig)
    a.__array_namespace__()       # the kiln module

Both protocols look NumPy's callable up in a table (NumPy object -> kiln
object) and call kiln's: no per-call imports, no downloads. Implicit
conversion to NumPy stays refused (ndarray.__array__ raises TypeError).
"""
import numpy

import kiln
from kiln import _core
from kiln._core import ndarray

_ARRAY_API_VERSIONS = ("2021.12", "2022.12", "2023.12")


def _kiln_or_numpy_types(types):
    return all(issubclass(t, (ndarray, numpy.ndarray)) for t in types)


def _operands_are_ours(values):
    """False when an operand belongs to another library that overrides ufuncs
    (a Dask array, say): NEP 13 then wants NotImplemented, so it can answer."""
    for v in values:
        if isinstance(v, tuple):
            if not _operands_are_ours(v):
                return False
        elif not isinstance(v, (ndarray, numpy.ndarray)) and hasattr(type(v), "__array_ufunc__"):
            return False
    return True


# Note [Override tables]
# _UFUNCS maps each NumPy ufunc to the kiln ufunc of the same name (kiln's
# ufunc table follows NumPy's names), made at import. _FUNCTIONS maps each
# NumPy function (those dispatching through __array_function__, and the C
# functions NumPy dispatches for like=) to the kiln function of the same
# name, in kiln and in its submodules that mirror NumPy's (linalg, fft, ...,
# when they exist). It is made at the first dispatch, once: by then every
# kiln module has attached its functions, including those imported after
# this one.
_UFUNCS = {getattr(numpy, name): uf for name, uf in _core._ufuncs.items()
           if isinstance(getattr(numpy, name, None), numpy.ufunc)}
# matmul, vecdot, matvec and vecmat are gufuncs in NumPy 2 and functions in kiln (kiln/linalg/_products.py).
_UFUNCS.update({getattr(numpy, name): getattr(kiln, name) for name in ("matmul", "vecdot", "matvec", "vecmat")
                if hasattr(numpy, name)})
_FUNCTIONS = None
_SUBMODULES = ("linalg", "fft")


def _table_of(kiln_module, numpy_module, table):
    for name in dir(kiln_module):
        if name.startswith("_"):
            continue
        ours, theirs = getattr(kiln_module, name), getattr(numpy_module, name, None)
        if theirs is None or not callable(ours) or isinstance(theirs, (type, numpy.ufunc)):
            continue
        if callable(theirs):
            table[theirs] = ours


def _functions():
    global _FUNCTIONS
    if _FUNCTIONS is None:
        table = {}
        _table_of(kiln, numpy, table)
        for sub in _SUBMODULES:
            ours, theirs = getattr(kiln, sub, None), getattr(numpy, sub, None)
            if ours is not None and theirs is not None and ours is not numpy:
                _table_of(ours, theirs, table)
        _FUNCTIONS = table
    return _FUNCTIONS


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    """NumPy ufuncs on kiln arrays run kiln's ufunc of the same name (and its
    reduce/accumulate/reduceat/outer/at), with out= as given; TypeError
    naming the ufunc and method for those kiln lacks (matmul, ...)."""
    if not _operands_are_ours(inputs) or not _operands_are_ours(kwargs.get("out", ())):
        return NotImplemented
    ours = _UFUNCS.get(ufunc)
    if any(type(v) is numpy.ndarray and v.ndim == 0 for v in inputs):
        # Note [NumPy scalars compared with kiln arrays]
        # numpy.float32(3) < a reaches here with the scalar made a 0-d
        # NumPy array (NumPy's scalar comparisons do that; its arithmetic
        # passes the scalar). Under NEP 50 a 0-d array and a NumPy scalar of
        # one dtype promote alike, so the 0-d array goes on as its scalar.
        inputs = tuple(v[()] if type(v) is numpy.ndarray and v.ndim == 0 else v for v in inputs)
    if method == "__call__" and ours is not None:
        return ours(*inputs, **kwargs)
    impl = getattr(ours, method, None) if ours is not None else None
    if impl is None:
        raise TypeError("kiln does not implement numpy.%s%s for kiln arrays" % (
            ufunc.__name__, "" if method == "__call__" else "." + method))
    out = kwargs.get("out")
    if isinstance(out, tuple) and len(out) == 1 and method != "at":
        kwargs["out"] = out[0]
    return impl(*inputs, **kwargs)


def __array_function__(self, func, types, args, kwargs):
    """NumPy's functions on kiln arrays run kiln's function of the same name;
    TypeError naming the function when kiln has none."""
    ours = _functions().get(func)
    if not _kiln_or_numpy_types(types):
        return NotImplemented
    if ours is None:
        raise TypeError("kiln does not implement %s.%s for kiln arrays (use kiln.asnumpy to compute it "
                        "with NumPy on the host)" % (getattr(func, "__module__", "numpy") or "numpy",
                                                      getattr(func, "__name__", repr(func))))
    return ours(*args, **kwargs)


def __array_namespace__(self, /, *, api_version=None):
    """The kiln module: the array API standard's functions and dtypes."""
    if api_version is not None and api_version not in _ARRAY_API_VERSIONS:
        raise ValueError("kiln does not support array API version %r (supported: %s)"
                         % (api_version, ", ".join(_ARRAY_API_VERSIONS)))
    return kiln


ndarray.__array_ufunc__ = __array_ufunc__
ndarray.__array_function__ = __array_function__
ndarray.__array_namespace__ = __array_namespace__
