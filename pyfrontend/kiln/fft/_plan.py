"""FFT plans: what one transform pass computes (kind, precision, extents,
batch, device), with its cuFFT plan on the cuda backend; and the plan a
``with plan:`` block makes current on this thread.

    p = Plan("C2C", True, (512, 512), 256)     # complex128, 256 transforms of 512 x 512
    with p:                                     # kiln.fft calls in here use p
        b = kiln.fft.fftn(a, axes=(1, 2))

A Plan describes the layout of Note [FFT plan layout] (arraycore/fft.h):
``batch`` transforms of shape ``n`` back to back in C order. On the cuda
backend it owns a cuFFT plan and its work area (``memsize`` bytes, from
kiln's pool: Note [FFT work areas from kiln's pool]); on the others it is a
descriptor with no resources (``memsize`` 0) that kiln.fft checks and caches
the same way, so programs and tests behave alike on every backend.
"""
import threading

from kiln import _core

KINDS = ("C2C", "R2C", "C2R")
_VENDOR_FFT = _core._backend_caps()["vendor_libraries"]   # cuFFT (Note [Backend traits]); chosen once, at import


class Plan:
    """A transform pass's plan (see the module docstring). Made by kiln.fft
    (cached: kiln.fft.config) or by kiln.scipy.fftpack.get_fft_plan; usable
    as ``plan=`` in kiln.scipy.fftpack and as a context manager for both."""

    def __init__(self, kind, double_precision, n, batch):
        if kind not in KINDS:
            raise ValueError("FFT plan kind must be 'C2C', 'R2C' or 'C2R', got %r" % (kind,))
        self.kind = kind
        self.double_precision = bool(double_precision)
        self.n = tuple(int(e) for e in n)
        self.batch = int(batch)
        if not 1 <= len(self.n) <= 3 or min(self.n) < 1 or self.batch < 1:
            raise ValueError("an FFT plan needs 1 to 3 extents >= 1 and a batch >= 1, got %s and %d"
                             % (self.n, self.batch))
        self.device = _core.get_device()
        self._cufft = cufft_plan_class()(kind, self.double_precision, self.n, self.batch) if uses_cufft() else None

    @property
    def key(self):
        """What the plan computes: (kind, double_precision, n, batch, device)."""
        return (self.kind, self.double_precision, self.n, self.batch, self.device)

    @property
    def memsize(self):
        """Bytes of the plan's work area (0 off the cuda backend)."""
        return self._cufft.work_bytes if self._cufft is not None else 0

    def describe(self):
        return describe_key(self.key)

    def __repr__(self):
        return "<kiln.fft Plan: %s, work area %d bytes>" % (self.describe(), self.memsize)

    def __enter__(self):
        _plan_stack().append(self)
        return self

    def __exit__(self, *exc):
        stack = _plan_stack()
        if not stack or stack[-1] is not self:
            raise RuntimeError("FFT plan contexts must be left in the order they were entered")
        stack.pop()
        return False


class Plan1d(Plan):
    """A plan of transforms along one axis (CuPy's cupy.cuda.cufft.Plan1d)."""


class PlanNd(Plan):
    """A plan of transforms over two or three axes (CuPy's cupy.cuda.cufft.PlanNd)."""


def make_plan(kind, double_precision, n, batch):
    """Plan1d or PlanNd for n's number of axes (as CuPy's plans come)."""
    return (Plan1d if len(n) == 1 else PlanNd)(kind, double_precision, n, batch)


def uses_cufft():
    """Whether kiln.fft computes with cuFFT (the cuda backend) or with
    numpy.fft (every other: Note [FFT on the host backend] in _fft.py)."""
    return _VENDOR_FFT


def cufft_plan_class():
    """_core._FftPlan (arraycore/fft.h); tests put a NumPy model of it here
    to run the cuFFT path's Python on the host backend."""
    return _core._FftPlan


def describe_key(key):
    """Words for a Plan.key, for messages."""
    kind, double, n, batch, device = key
    return "%s %s-precision transforms of shape %s, batch %d, on device %d" % (
        kind, "double" if double else "single", n, batch, device)


_local = threading.local()


def _plan_stack():
    stack = getattr(_local, "plans", None)
    if stack is None:
        stack = _local.plans = []
    return stack


def current_plan():
    """The plan of the innermost ``with plan:`` block on this thread, or None."""
    stack = _plan_stack()
    return stack[-1] if stack else None
