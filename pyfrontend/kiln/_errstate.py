"""cupyx's errstate, seterr and geterr for kiln.linalg: whether a failed
factorisation raises LinAlgError ('raise', kiln's default, as NumPy's
functions do) or is left in the results ('ignore', CuPy's default: no read
of LAPACK's status, so no synchronisation; a singular matrix then gives
infs or NaNs). The setting is per thread.

    with kiln.errstate(linalg="ignore"):
        x = kiln.linalg.inv(a)          # queued; never waits to check
"""
import contextlib
import threading

_state = threading.local()
_NUMPY_ONLY_MODES = ("warn", "call", "print", "log")
_FLOATING_POINT_KEYS = ("all", "divide", "over", "under", "invalid")


def _check_floating_point_keys(kwargs):
    """NumPy's floating-point keys are accepted and have nothing to control:
    kiln's ufuncs never report floating-point errors (as CuPy's)."""
    for key in kwargs:
        if key not in _FLOATING_POINT_KEYS:
            raise TypeError("errstate() got an unexpected keyword argument '%s'" % key)


def geterr():
    """The current setting: {'linalg': 'raise' or 'ignore'}."""
    return {"linalg": getattr(_state, "linalg", "raise")}


def seterr(*, linalg=None, **floating_point):
    """Sets the linalg mode ('raise' or 'ignore'; None leaves it) and
    returns the previous setting, as numpy.seterr. NumPy's keys (divide=,
    over=, ...) are accepted and change nothing."""
    _check_floating_point_keys(floating_point)
    old = geterr()
    if linalg is not None:
        if linalg in _NUMPY_ONLY_MODES:
            raise NotImplementedError("kiln.linalg supports the modes 'raise' and 'ignore', not %r" % (linalg,))
        if linalg not in ("raise", "ignore"):
            raise ValueError("linalg must be 'raise' or 'ignore', got %r" % (linalg,))
        _state.linalg = linalg
    return old


@contextlib.contextmanager
def errstate(*, linalg=None, **floating_point):
    """seterr for the block, then the previous setting again."""
    old = seterr(linalg=linalg, **floating_point)
    try:
        yield
    finally:
        seterr(**old)
