"""cuFFT plans by CuPy's names (cupy.cuda.cufft): kiln.fft's plans are
Plan1d (one axis) or PlanNd (two or three axes), on every backend
(kiln/fft/_plan.py); get_current_plan() is the plan of the innermost
``with plan:`` block on this thread, or None."""
from kiln.fft._plan import Plan1d, PlanNd, current_plan as get_current_plan

__all__ = ["Plan1d", "PlanNd", "get_current_plan"]
