"""numpy.polynomial.polynomial's polyvander and polycompanion for kiln arrays."""
import operator

from kiln import _core
from kiln._creation import asarray


def polyvander(x, deg):
    """numpy.polynomial.polynomial.polyvander: x.shape + (deg + 1,), powers of x."""
    try:
        deg = operator.index(deg)
    except TypeError as e:
        raise TypeError(f"deg must be an integer, received {deg}") from e
    return _core._polyvander(asarray(x), deg)


def polycompanion(c):
    """numpy.polynomial.polynomial.polycompanion: the companion matrix of c."""
    return _core._polycompanion(asarray(c))
