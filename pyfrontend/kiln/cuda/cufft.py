"""cuFFT plan types by CuPy's names (cupy.cuda.cufft): kiln.fft's plans are
Plan1d (one axis) or PlanNd (two or three axes), on every backend
(kiln/fft/_plan.py)."""
from kiln.fft._plan import Plan1d, PlanNd

__all__ = ["Plan1d", "PlanNd"]
