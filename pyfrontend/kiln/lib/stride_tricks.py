"""numpy.lib.stride_tricks over kiln arrays: views with chosen strides
(arraycore/stride_tricks.h)."""
from kiln import _core
from kiln._creation import asarray as _asarray

__all__ = ["as_strided", "sliding_window_view"]


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of x's memory with the given shape and byte strides (x's own
    when None). Unlike NumPy, a view reaching outside the memory x's buffer
    holds is refused (ValueError): on a GPU it would fault or corrupt."""
    return _core._strided_view(_asarray(x), shape, strides, writeable)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of window_shape over the given axes (all when None), as
    trailing dimensions of a view of x (read-only unless writeable)."""
    return _core._sliding_window_view(_asarray(x), window_shape, axis, writeable)
