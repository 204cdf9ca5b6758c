"""kiln.scipy: SciPy's interfaces for kiln arrays (CuPy's cupyx.scipy).

    import kiln.scipy.fftpack as fftpack
    plan = fftpack.get_fft_plan(a, axes=(1, 2))
    b = fftpack.fftn(a, axes=(1, 2), plan=plan)

So far scipy.fftpack (kiln.scipy.fftpack, docs/fft.md).
"""
from kiln.scipy import fftpack  # noqa: F401

__all__ = ["fftpack"]
