"""numpy.polynomial.polyutils' as_series, trimseq and trimcoef for kiln arrays."""
from kiln import _core
from kiln._creation import asarray


def as_series(alist, trim=True):
    """numpy.polynomial.polyutils.as_series: 1-d copies in a common type."""
    return _core._as_series([asarray(a) for a in alist], bool(trim))


def trimseq(seq):
    """numpy.polynomial.polyutils.trimseq: seq without trailing zeros (a view)."""
    return _core._trimseq(asarray(seq))


def trimcoef(c, tol=0):
    """numpy.polynomial.polyutils.trimcoef: c without trailing coefficients of magnitude <= tol."""
    return _core._trimcoef(asarray(c), tol)
