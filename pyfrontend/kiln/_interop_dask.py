"""Dask with kiln chunks: dask.array.from_array(a, chunks=..., asarray=False).

Dask runs NumPy's functions on each chunk, and those reach kiln through
__array_function__ / __array_ufunc__ (kiln/_interop_numpy.py). A few of
Dask's helpers are looked up per chunk type instead, defaulting to NumPy
arrays: the element counts of mean/var (numel, nannumel), the empty-array
maker, and the conversion to NumPy. kiln registers its own for those, as Dask
does for CuPy, as soon as dask.array is imported (Note [Dask registration]).

    import dask, dask.array as da
    d = da.from_array(kiln.asarray(host), chunks=(4, 3), asarray=False)
    total, mean = dask.compute(d.sum(), d.mean(axis=0))   # kiln arrays
"""
import importlib.abc
import importlib.util
import sys

_TARGET = "dask.array.backends"


def _register(backends):
    import kiln
    from dask.array import dispatch

    numel = getattr(backends, "_numel_arraylike", None)
    if numel is not None:
        dispatch.numel_lookup.register(kiln.ndarray, numel)
    nannumel = getattr(backends, "_nannumel", None)
    if nannumel is not None:
        dispatch.nannumel_lookup.register(kiln.ndarray, nannumel)
    dispatch.empty_lookup.register(kiln.ndarray, kiln.empty)
    dispatch.concatenate_lookup.register(kiln.ndarray, kiln.concatenate)
    dispatch.take_lookup.register(kiln.ndarray, kiln.take)
    to_numpy = getattr(dispatch, "to_numpy_dispatch", None)
    if to_numpy is not None:
        to_numpy.register(kiln.ndarray, lambda data, **kwargs: kiln.asnumpy(data, **kwargs))


# Note [Dask registration]
# kiln must not import Dask (it is optional and slow to import), and Dask does
# not know kiln. So: if dask.array.backends is already loaded, register at
# once; otherwise a finder on sys.meta_path waits for that module, lets the
# normal machinery load it, registers right after its code ran, and removes
# itself. Nothing else is touched.
class _DaskFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _register(module)

        spec.loader.exec_module = exec_module
        return spec


def install():
    if _TARGET in sys.modules:
        _register(sys.modules[_TARGET])
    elif not any(isinstance(f, _DaskFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _DaskFinder())
