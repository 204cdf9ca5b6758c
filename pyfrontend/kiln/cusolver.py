"""kiln.cusolver (cupyx.cusolver): whether the cuSOLVER routines kiln.linalg
is built on run on this backend.

    kiln.cusolver.check_availability("geev")   # can kiln.linalg.eig run here?
"""
from kiln import _core
from kiln.linalg import _lapack


def check_availability(name):
    """True when cuSOLVER's routine `name` (without the type letter:
    "getrf", "potrfBatched", "geev", ...) runs on this backend, so the
    kiln.linalg functions built on it work; False when it does not (an old
    libcusolver without geev, no cuSOLVER or SciPy at all). ValueError for a
    routine kiln.linalg does not use."""
    on_vendor_solver = _core._solver_has(name)[0]   # checks the name on every backend
    # Elsewhere the routines are SciPy's LAPACK (Note [LAPACK primitives on the host]).
    return on_vendor_solver if _lapack._VENDOR_SOLVER else _lapack.usable()[0]
