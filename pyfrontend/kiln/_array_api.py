"""The array API standard's names for what kiln has under NumPy's names
(a.__array_namespace__() is the kiln module itself).

    xp = a.__array_namespace__()
    xp.concat([a, b]); xp.permute_dims(a, (1, 0)); xp.acos(a); xp.astype(a, xp.float32)

The ufunc aliases are the very same ufunc objects (kiln.acos is
kiln.arccos), as in NumPy 2. The dtype helpers (finfo, iinfo, isdtype) are
NumPy's: kiln's dtypes are NumPy's dtypes. The linear algebra functions
(matmul, tensordot, vecdot, and the linalg extension) are kiln/linalg's.
What the standard has and kiln lacks is absent, not stubbed.
ndarray.to_device is attached here.
"""
import operator

import numpy

from kiln import _core
from kiln import _manipulation
from kiln._ndarray_methods import _axis

_UFUNC_ALIASES = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
                  "atan2": "arctan2", "atanh": "arctanh", "bitwise_left_shift": "left_shift",
                  "bitwise_right_shift": "right_shift", "bitwise_invert": "invert", "pow": "power"}
ufunc_aliases = {alias: _core._ufuncs[name] for alias, name in _UFUNC_ALIASES.items()}

iinfo, isdtype = numpy.iinfo, numpy.isdtype


class finfo:
    """numpy.finfo of a floating dtype (or an array's; complex gives its
    parts' type), with ``eps``, ``max``, ``min``, ``smallest_normal``,
    ``tiny`` and ``resolution`` as Python floats, as the array API standard
    has them (NumPy gives NumPy scalars of the dtype); ``bits``, ``dtype`` and
    every other attribute are NumPy's."""

    __module__ = "kiln"
    _FLOATS = ("eps", "max", "min", "smallest_normal", "tiny", "resolution", "epsneg")

    def __init__(self, dtype):
        if not isinstance(dtype, (type, numpy.dtype, str)) and hasattr(dtype, "dtype"):
            dtype = dtype.dtype   # an array
        info = numpy.finfo(dtype)
        object.__setattr__(self, "_info", info)
        for name in self._FLOATS:
            object.__setattr__(self, name, float(getattr(info, name)))

    def __getattr__(self, name):
        return getattr(self._info, name)

    def __setattr__(self, name, value):
        raise AttributeError("finfo objects are read-only")

    def __repr__(self):
        return repr(self._info)

    def __eq__(self, other):
        return isinstance(other, (finfo, numpy.finfo)) and getattr(other, "_info", other) == self._info

    def __hash__(self):
        return hash(self._info)


def astype(x, dtype, /, *, copy=True, device=None):
    """x cast to dtype (a new array unless copy=False and x has that dtype)."""
    return x.astype(dtype, copy=copy)


def concat(arrays, /, *, axis=0):
    """concatenate; ``axis=None`` joins the flattened arrays."""
    if axis is None:
        return _manipulation.concatenate([_manipulation.ravel(a) for a in arrays], axis=0)
    return _manipulation.concatenate(arrays, axis=axis)


def permute_dims(x, /, axes):
    """transpose with the axes given (a view)."""
    return _manipulation.transpose(x, axes)


def matrix_transpose(x, /):
    """The last two axes swapped (a view); ValueError below 2-d."""
    return x.mT


def unstack(x, /, *, axis=0):
    """The views along ``axis``, as a tuple."""
    axis = _axis(operator.index(axis), x.ndim)
    moved = _manipulation.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


# The standard's dtype kinds, each a tuple of dtype names, in its order.
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class ArrayNamespaceInfo:
    """The array API standard's inspection namespace for kiln
    (``kiln.__array_namespace_info__()``): kiln's devices, its default dtypes
    (NumPy's: float64, complex128, int64) and the dtypes by kind."""

    __module__ = "kiln"

    def capabilities(self):
        """kiln supports boolean-mask indexing and functions whose output
        shape depends on the data (nonzero, unique); arrays have at most 32
        dimensions."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 32}

    def default_device(self):
        """The current device (a kiln.cuda.Device)."""
        from kiln.cuda import Device
        return Device()

    def devices(self):
        """Every device kiln can use, as kiln.cuda.Device objects."""
        from kiln.cuda import Device, runtime
        return [Device(i) for i in range(runtime.getDeviceCount())]

    def _check(self, device):
        if device is not None and device not in self.devices():
            raise ValueError(f"{device!r} is not a device of this kiln backend; devices(): {self.devices()}")

    def default_dtypes(self, *, device=None):
        """The dtypes kiln picks when none is given, on every device."""
        self._check(device)
        return {"real floating": numpy.dtype(numpy.float64), "complex floating": numpy.dtype(numpy.complex128),
                "integral": numpy.dtype(numpy.int64), "indexing": numpy.dtype(numpy.int64)}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes kiln has, name -> dtype: all of them, or those
        of ``kind`` (a kind name or a tuple of them)."""
        self._check(device)
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            names = ()
            for k in (kind if isinstance(kind, tuple) else (kind,)):
                if k not in _KINDS:
                    raise ValueError(f"unknown dtype kind {k!r}; the kinds are {', '.join(map(repr, _KINDS))}")
                names += tuple(n for n in _KINDS[k] if n not in names)
        return {n: numpy.dtype(n) for n in names}


def __array_namespace_info__():
    """The array API standard's inspection namespace (ArrayNamespaceInfo)."""
    return ArrayNamespaceInfo()


def to_device(self, device, /, *, stream=None):
    """The array on ``device`` (a kiln.cuda.Device or its id): itself when it
    is already there, else a copy made there (through the host)."""
    from kiln.cuda import Device
    target = device if isinstance(device, Device) else Device(operator.index(device))
    if target.id == self._device_id:
        return self
    host = self.get(stream=stream)
    with target:
        return _core._from_numpy(host)


_core.ndarray.to_device = to_device
