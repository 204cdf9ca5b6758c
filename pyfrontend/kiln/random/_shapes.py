"""Sample shapes for kiln.random's Generator and RandomState: ``size`` as
NumPy's random API takes it, and the shape parameters broadcast to."""
import numbers
import operator

from kiln._core import ndarray
from kiln._manipulation import broadcast_shapes


def shape_of(size):
    """``size`` (None, an int or a sequence of ints) as a shape tuple, None
    kept; ValueError for a negative dimension."""
    if size is None:
        return None
    if isinstance(size, numbers.Integral):
        size = (size,)
    shape = tuple(operator.index(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def output_shape(size, params):
    """The samples' shape: ``size``, which the array parameters must
    broadcast to, or (size=None) their broadcast shape (() for scalars)."""
    shape = shape_of(size)
    arrays = [p.shape for p in params if isinstance(p, ndarray)]
    if not arrays:
        return () if shape is None else shape
    common = broadcast_shapes(*arrays)
    if shape is None:
        return common
    if broadcast_shapes(common, shape) != shape:
        raise ValueError("shape mismatch: parameters of shape %s cannot be broadcast to size %s"
                         % (common, shape))
    return shape
