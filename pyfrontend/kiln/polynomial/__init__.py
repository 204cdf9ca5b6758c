"""kiln.polynomial: the parts of numpy.polynomial that CuPy has
(polynomial.polyvander, polycompanion; polyutils.as_series, trimseq,
trimcoef), C++ compositions in arraycore/polynomial.h."""
from kiln.polynomial import polynomial, polyutils  # noqa: F401
