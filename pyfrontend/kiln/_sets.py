"""Set routines on sorted data: unique (and the array API's unique_values,
unique_counts, unique_inverse, unique_all), isin, intersect1d, union1d,
setdiff1d, setxor1d.

    kiln.unique(a, return_counts=True)      # sort, mark group starts, scan, scatter
    kiln.isin(a, b)                         # b sorted once, a binary search per element

unique, isin and intersect1d are C++ operations (arraycore/sets.h, Note
[Unique by sorting]); union1d, setdiff1d and setxor1d compose them.
"""
import collections

from kiln import _core
from kiln._manipulation import _asarray, concatenate

UniqueAllResult = collections.namedtuple("UniqueAllResult", "values indices inverse_indices counts")
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", "values counts")
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", "values inverse_indices")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """Sorted unique elements (or subarrays along `axis`), with NumPy's
    optional first indices, inverse and counts (Note [Unique by sorting]).
    ``sorted=False`` still returns them sorted, which NumPy allows."""
    values, *rest = _core._unique(_asarray(ar), axis, bool(equal_nan), bool(return_index), bool(return_inverse),
                                  bool(return_counts))
    extra = [x for x in rest if x is not None]
    return (values, *extra) if extra else values


def unique_values(x):
    """The distinct values of x, NaNs each their own (array API)."""
    return unique(x, equal_nan=False)


def unique_counts(x):
    """(values, counts) as a namedtuple (array API; NaNs distinct)."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    """(values, inverse_indices of x's shape) as a namedtuple (array API)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x):
    """(values, indices, inverse_indices, counts) as a namedtuple (array API)."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False))


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """element's shape of bools: whether each is in test_elements (==)."""
    if kind not in (None, "sort", "table"):
        raise ValueError("Invalid kind: '%s'. Please use None, 'sort' or 'table'." % (kind,))
    found = _core._isin(_asarray(element), _asarray(test_elements))
    return ~found if invert else found


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """Sorted values in both arrays (flattened); with return_indices, the
    first index of each in ar1 and in ar2."""
    values, in1, in2 = _core._intersect1d(_asarray(ar1), _asarray(ar2), bool(assume_unique), bool(return_indices))
    return (values, in1, in2) if return_indices else values


def union1d(ar1, ar2):
    """Sorted unique values of both arrays (flattened)."""
    return unique(concatenate([_asarray(ar1).reshape(-1), _asarray(ar2).reshape(-1)]))


def setdiff1d(ar1, ar2, assume_unique=False):
    """Unique values of ar1 not in ar2 (ar1's own values in order when
    assume_unique)."""
    a = _asarray(ar1).reshape(-1)
    if not assume_unique:
        a = unique(a)
    return _core._compress_flat(a, isin(a, ar2, invert=True))


def setxor1d(ar1, ar2, assume_unique=False):
    """Sorted values in exactly one of the arrays."""
    a, b = _asarray(ar1).reshape(-1), _asarray(ar2).reshape(-1)
    if not assume_unique:
        a, b = unique(a), unique(b)
    values, counts = unique(concatenate([a, b]), return_counts=True, equal_nan=False)
    return _core._compress_flat(values, counts == 1)
