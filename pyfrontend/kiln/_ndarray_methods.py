"""ndarray methods written in Python: flags, scalar conversions through one
small download, iteration, get. The view methods (reshape, transpose, T, mT,
swapaxes, squeeze, ravel, flatten) are C++ (pyfrontend/views_binding.cpp)."""
import operator
import pickle

import numpy

from kiln import _core
from kiln import _creation
from kiln._core import ndarray
from kiln._manipulation import _axis  # noqa: F401  (kiln._ndarray_methods._axis: other modules' import)


class Flags:
    """The subset of numpy.ndarray.flags kiln tracks. ``writeable`` is live
    and settable (Note [Read-only arrays] in arraycore/ndarray.h)."""

    __slots__ = ("_array",)

    def __init__(self, a):
        self._array = a

    # read-only, as NumPy's and CuPy's (assigning raises AttributeError)
    c_contiguous = property(lambda self: self._array._c_contiguous)
    f_contiguous = property(lambda self: self._array._f_contiguous)
    owndata = property(lambda self: self._array.base is None)
    fnc = property(lambda self: self.f_contiguous and not self.c_contiguous)
    forc = property(lambda self: self.f_contiguous or self.c_contiguous)

    @property
    def writeable(self):
        return self._array._writeable

    @writeable.setter
    def writeable(self, value):
        self._array._writeable = bool(value)

    def __getitem__(self, name):
        key = {"C": "C_CONTIGUOUS", "F": "F_CONTIGUOUS", "O": "OWNDATA", "W": "WRITEABLE"}.get(name, name)
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous, "FNC": self.fnc,
                "FORC": self.forc, "OWNDATA": self.owndata, "WRITEABLE": self.writeable}[key]

    def __setitem__(self, name, value):
        if name not in ("WRITEABLE", "W"):
            raise KeyError("Unknown flag")
        self.writeable = value

    def __repr__(self):
        return "  C_CONTIGUOUS : %s\n  F_CONTIGUOUS : %s\n  OWNDATA : %s\n  WRITEABLE : %s" % (
            self.c_contiguous, self.f_contiguous, self.owndata, self.writeable)


def _only_element(self):
    if self.size != 1:
        raise TypeError("only length-1 arrays can be converted to Python scalars")
    return self.get().reshape(()).item()


def item(self, *args):
    """The element as a Python scalar (one small download)."""
    if len(args) == 1 and not isinstance(args[0], tuple):  # a flat (C-order) index
        return self.ravel()[operator.index(args[0])].get().item()
    if args:
        return self[args[0] if len(args) == 1 else args].get().item()
    if self.size != 1:
        raise ValueError("can only convert an array of size 1 to a Python scalar")
    return self.get().reshape(()).item()


def tolist(self):
    return self.get().tolist()


def fill(self, value):
    """Every element set to the scalar `value` (or a 0-d array's, kiln's,
    NumPy's or another library's device array), as numpy.ndarray.fill;
    ValueError for an array of other shape."""
    if not isinstance(value, (ndarray, numpy.ndarray)) and hasattr(value, "__cuda_array_interface__"):
        value = _creation.asarray(value)
    if isinstance(value, (ndarray, numpy.ndarray)) and value.ndim != 0:
        raise ValueError("Input object to FillWithScalar is not a scalar: fill takes a scalar or a 0-d array, "
                         "got an array of shape %s" % (value.shape,))
    self[...] = value


def __bool__(self):
    if self.size != 1:
        if self.size == 0:
            raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                             "to check that an array is not empty.")
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")
    return bool(self.get().reshape(()).item())


def __format__(self, spec):
    """A 0-d array formats as its scalar (format(a, '.3f')); others as
    NumPy formats the downloaded array."""
    host = self.get()
    return format(host[()] if self.ndim == 0 else host, spec)


def __index__(self):
    if self.dtype.kind not in "iub" or self.ndim != 0:
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return int(self.get().item())


for _name, _fn in {
    "item": item, "tolist": tolist, "fill": fill, "diagonal": _creation.diagonal,
    "__bool__": __bool__, "__index__": __index__, "__format__": __format__,
    "__copy__": lambda self: self.copy(order="K"), "__deepcopy__": lambda self, memo: self.copy(order="K"),
    "__int__": lambda self: int(_only_element(self)),
    "__float__": lambda self: float(_only_element(self)),
    "__complex__": lambda self: complex(_only_element(self)),
}.items():
    setattr(ndarray, _name, _fn)
ndarray.flags = property(Flags, doc="C_CONTIGUOUS, F_CONTIGUOUS, OWNDATA and WRITEABLE.")


def __iter__(self):
    """Iterates over the first axis, yielding views."""
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.shape[0]))


def get(self, stream=None, order="C", out=None, blocking=True):
    """Copy to the host: a new NumPy array, or into ``out`` (a NumPy array of the
    same shape and dtype) when given. order 'C' or 'F', or 'A': 'F' for an
    F-contiguous (not C-contiguous) array, 'C' otherwise. ``blocking=False``
    only queues the copy on ``stream`` (see kiln.asnumpy)."""
    if order in ("A", "a"):
        order = "F" if self._f_contiguous and not self._c_contiguous else "C"
    return _core._to_numpy(self, stream, order, out, blocking)


def _device(self):
    from kiln.cuda import Device
    return Device(self._device_id)


ndarray.__iter__ = __iter__
ndarray.get = get
ndarray.device = property(_device, doc="The kiln.cuda.Device holding the array's memory.")
# Binary operators with a NumPy array on the other side defer to kiln (which
# then refuses the implicit download), as CuPy's arrays do.
ndarray.__array_priority__ = 100


def byteswap(self, inplace=False):
    """Each element's bytes reversed (each part's of a complex): a new array,
    or self changed in place (and returned) with inplace=True."""
    out = _core._byteswap(self, inplace)
    return self if inplace else out


def tobytes(self, order="C"):
    """The raw bytes of the data in `order` (one download), as numpy.ndarray.tobytes."""
    return self.get().tobytes(order)


def tofile(self, fid, sep="", format="%s"):
    """Writes the data to a file through NumPy (one download), as numpy.ndarray.tofile."""
    self.get().tofile(fid, sep, format)


def dump(self, file):
    """Pickles the array into `file` (a path or an open binary file)."""
    if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
        with open(file, "wb") as f:
            return pickle.dump(self, f, protocol=2)
    pickle.dump(self, file, protocol=2)


for _name, _fn in {
    "byteswap": byteswap, "tobytes": tobytes, "tofile": tofile, "dump": dump,
    "dumps": lambda self: pickle.dumps(self, protocol=2),
    # bytes(a): a.tobytes(), except that a 0-d integer array is an int to bytes() (NumPy's __index__ rule)
    "__bytes__": lambda self: bytes(operator.index(self)) if self.ndim == 0 and self.dtype.kind in "iu" else
    self.tobytes(),
    # pickling through the host (multiprocessing, joblib, Dask's process scheduler), layout kept
    "__reduce__": lambda self: (_creation.array, (self.get(order="F" if self._f_contiguous and not
                                                           self._c_contiguous else "C"),)),
}.items():
    setattr(ndarray, _name, _fn)
ndarray.flat = property(_core.flatiter, doc="A kiln.flatiter over the array's elements in C order.")
