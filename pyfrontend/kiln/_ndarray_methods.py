"""ndarray methods that are argument normalisation over kiln._core: axes
checked here (NumPy's AxisError), views made by _core._as_strided, copies by
the copy kernel, scalars through one small download."""
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln._core import ndarray

AxisError = numpy.exceptions.AxisError


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def _view(a, shape, strides):
    return _core._as_strided(a, tuple(shape), tuple(strides), 0)


def transpose(self, *axes):
    """A view with axes permuted (reversed when none are given)."""
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, numpy.integer))):
        axes = axes[0]
    if axes is None or axes == ():
        axes = tuple(range(self.ndim))[::-1]
    axes = tuple(_axis(ax, self.ndim) for ax in axes)
    if len(axes) != self.ndim:
        raise ValueError("axes don't match array")
    if sorted(axes) != list(range(self.ndim)):
        raise ValueError("repeated axis in transpose")
    return _view(self, [self.shape[i] for i in axes], [self.strides[i] for i in axes])


def swapaxes(self, axis1, axis2):
    order = list(range(self.ndim))
    a, b = _axis(axis1, self.ndim), _axis(axis2, self.ndim)
    order[a], order[b] = order[b], order[a]
    return transpose(self, order)


def squeeze(self, axis=None):
    """A view without the given (or all) length-1 axes."""
    if axis is None:
        drop = {i for i, n in enumerate(self.shape) if n == 1}
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        drop = {_axis(ax, self.ndim) for ax in axes}
        if len(drop) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        for i in drop:
            if self.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    keep = [i for i in range(self.ndim) if i not in drop]
    return _view(self, [self.shape[i] for i in keep], [self.strides[i] for i in keep])


def reshape(self, *shape, order="C", copy=None):
    """A view with a new shape where NumPy's would be one, else a copy
    (kiln.reshape): ``a.reshape(2, 3)`` and ``a.reshape((2, 3))`` alike."""
    if not shape:
        raise TypeError("reshape() takes exactly 1 argument (0 given)")
    return _manipulation.reshape(self, shape[0] if len(shape) == 1 else shape, order, copy=copy)


def ravel(self, order="C"):
    """1-d, read in ``order`` ('C', 'F', 'A', 'K'): a view when no copy is needed."""
    return _manipulation.ravel(self, order)


def flatten(self, order="C"):
    """A 1-d copy, read in ``order`` ('C', 'F', 'A', 'K')."""
    flat, is_view = _manipulation._ravel(self, order)
    return flat.copy() if is_view else flat


class Flags:
    """The subset of numpy.ndarray.flags kiln tracks."""

    def __init__(self, a):
        self.c_contiguous = a._c_contiguous
        self.f_contiguous = a._f_contiguous
        self.owndata = a.base is None

    def __getitem__(self, name):
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[name]

    def __repr__(self):
        return "  C_CONTIGUOUS : %s\n  F_CONTIGUOUS : %s\n  OWNDATA : %s" % (
            self.c_contiguous, self.f_contiguous, self.owndata)


def _only_element(self):
    if self.size != 1:
        raise TypeError("only length-1 arrays can be converted to Python scalars")
    return self.get().reshape(()).item()


def item(self, *args):
    """The element as a Python scalar (one small download)."""
    if len(args) == 1 and not isinstance(args[0], tuple):  # a flat (C-order) index
        return ravel(self)[operator.index(args[0])].get().item()
    if args:
        return self[args[0] if len(args) == 1 else args].get().item()
    if self.size != 1:
        raise ValueError("can only convert an array of size 1 to a Python scalar")
    return self.get().reshape(()).item()


def tolist(self):
    return self.get().tolist()


def fill(self, value):
    self[...] = value


def __bool__(self):
    if self.size != 1:
        if self.size == 0:
            raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                             "to check that an array is not empty.")
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")
    return bool(self.get().reshape(()).item())


def __index__(self):
    if self.dtype.kind not in "iub" or self.ndim != 0:
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return int(self.get().item())


for _name, _fn in {
    "transpose": transpose, "swapaxes": swapaxes, "squeeze": squeeze, "reshape": reshape, "ravel": ravel,
    "flatten": flatten, "item": item, "tolist": tolist, "fill": fill, "diagonal": _creation.diagonal,
    "__bool__": __bool__, "__index__": __index__,
    "__int__": lambda self: int(_only_element(self)),
    "__float__": lambda self: float(_only_element(self)),
    "__complex__": lambda self: complex(_only_element(self)),
}.items():
    setattr(ndarray, _name, _fn)
ndarray.T = property(transpose, doc="The transposed view.")


def _matrix_transpose(self):
    if self.ndim < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    return swapaxes(self, -1, -2)


ndarray.mT = property(_matrix_transpose, doc="Transpose of the last two axes.")
ndarray.flags = property(Flags, doc="C_CONTIGUOUS, F_CONTIGUOUS and OWNDATA.")


def __iter__(self):
    """Iterates over the first axis, yielding views."""
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.shape[0]))


def get(self, stream=None, order="C", out=None, blocking=True):
    """Copy to the host: a new NumPy array, or into ``out`` (a NumPy array of the
    same shape and dtype) when given. ``blocking=False`` only queues the copy
    on ``stream`` (see kiln.asnumpy)."""
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
