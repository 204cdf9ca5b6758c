"""kiln.fft.config: the FFT plan caches (cupy.fft.config's names).

    from kiln.fft import config
    cache = config.get_plan_cache()        # this thread's cache for the current device
    cache.set_size(4)                      # at most 4 plans, least recently used evicted
    cache.set_memsize(256 << 20)           # at most 256 MiB of work areas
    cache.clear()
    config.show_plan_cache_info()

kiln.fft keeps the plans it makes, keyed by what they compute (kind,
precision, extents, batch: Plan.key), in a least-recently-used cache per
thread and per device, so repeated transforms of one shape reuse one cuFFT
plan and its work area. A size or memsize of -1 means no limit; 0 switches
the cache off (every call then makes and drops its plan). The defaults are
CuPy's: 16 plans, no memory limit. Off the cuda backend plans hold no memory
(memsize 0) but are cached the same way.

``enable_nd_planning`` (default True): multi-axis transforms use one cuFFT
plan for up to three axes at a time; False transforms one axis at a time.
Reading or setting it warns DeprecationWarning, as CuPy 14's does.
"""
import collections
import sys
import threading
import types
import warnings

from kiln import _core

_nd_planning = True   # what enable_nd_planning reads and sets (kiln.fft reads this one)


def _deprecated_nd_planning():
    warnings.warn("kiln.fft.config.enable_nd_planning is deprecated, as cupy.fft.config.enable_nd_planning is "
                  "in CuPy 14: multi-axis transforms plan up to three axes at a time", DeprecationWarning,
                  stacklevel=3)


class _ConfigModule(types.ModuleType):
    """This module, with enable_nd_planning as a property that warns."""

    @property
    def enable_nd_planning(self):
        _deprecated_nd_planning()
        return _nd_planning

    @enable_nd_planning.setter
    def enable_nd_planning(self, value):
        global _nd_planning
        _deprecated_nd_planning()
        _nd_planning = bool(value)


sys.modules[__name__].__class__ = _ConfigModule

_DEFAULT_SIZE = 16
_DEFAULT_MEMSIZE = -1


def _check_limit(value, what):
    value = int(value)
    if value < -1:
        raise ValueError("the plan cache's %s must be >= -1 (-1: no limit), got %d" % (what, value))
    return value


class PlanCache:
    """A least-recently-used cache of FFT plans for one device, limited in
    the number of plans (``size``) and in the bytes of their work areas
    (``memsize``); -1 is no limit, 0 disables the cache. Get the current
    one with ``kiln.fft.config.get_plan_cache()``."""

    def __init__(self, size=_DEFAULT_SIZE, memsize=_DEFAULT_MEMSIZE, dev=-1):
        self._size = _check_limit(size, "size")
        self._memsize = _check_limit(memsize, "memsize")
        self._dev = _core.get_device() if dev == -1 else int(dev)
        self._plans = collections.OrderedDict()   # key -> Plan, least recently used first
        self._curr_memsize = 0

    # --- limits ---
    @property
    def enabled(self):
        return self._size != 0 and self._memsize != 0

    def get_size(self):
        return self._size

    def set_size(self, size):
        self._size = _check_limit(size, "size")
        self._evict()

    def get_memsize(self):
        return self._memsize

    def set_memsize(self, memsize):
        self._memsize = _check_limit(memsize, "memsize")
        self._evict()

    def get_curr_size(self):
        return len(self._plans)

    def get_curr_memsize(self):
        return self._curr_memsize

    # --- entries ---
    def get(self, key, default=None):
        """The plan cached under key (now the most recently used), or default."""
        plan = self._plans.get(key)
        if plan is None:
            return default
        self._plans.move_to_end(key)
        return plan

    def __getitem__(self, key):
        plan = self.get(key)
        if plan is None:
            raise KeyError(key)
        return plan

    def __setitem__(self, key, plan):
        """Caches plan under key unless the cache is disabled or the plan's
        work area alone exceeds memsize; evicts the least recently used
        plans beyond the limits."""
        if not self.enabled or (self._memsize != -1 and plan.memsize > self._memsize):
            return
        old = self._plans.pop(key, None)
        if old is not None:
            self._curr_memsize -= old.memsize
        self._plans[key] = plan
        self._curr_memsize += plan.memsize
        self._evict()

    def __contains__(self, key):
        return key in self._plans

    def __len__(self):
        return len(self._plans)

    def keys(self):
        """The keys, least recently used first."""
        return list(self._plans)

    def clear(self):
        """Drops every plan (their work areas go back to kiln's pool once no
        other reference holds them)."""
        self._plans.clear()
        self._curr_memsize = 0

    def _evict(self):
        if not self.enabled:
            self.clear()
            return
        while self._plans and ((self._size != -1 and len(self._plans) > self._size) or
                               (self._memsize != -1 and self._curr_memsize > self._memsize)):
            _, plan = self._plans.popitem(last=False)
            self._curr_memsize -= plan.memsize

    def show_info(self):
        print(self._info())

    def _info(self):
        limit = lambda v: "unlimited" if v == -1 else str(v)  # noqa: E731
        lines = ["------------------- kiln.fft plan cache (device %d) -------------------" % self._dev,
                 "cache enabled? %s" % self.enabled,
                 "current / max size: %d / %s (counts)" % (len(self._plans), limit(self._size)),
                 "current / max memsize: %d / %s (bytes)" % (self._curr_memsize, limit(self._memsize)),
                 "cached plans (most recently used first):"]
        for key in reversed(self._plans):
            lines.append("  %r" % (self._plans[key],))
        return "\n".join(lines)

    def __repr__(self):
        return self._info()


_local = threading.local()


def _caches():
    caches = getattr(_local, "caches", None)
    if caches is None:
        caches = _local.caches = {}
    return caches


def get_plan_cache():
    """This thread's plan cache for the current device (made on first use)."""
    dev = _core.get_device()
    caches = _caches()
    cache = caches.get(dev)
    if cache is None:
        cache = caches[dev] = PlanCache(dev=dev)
    return cache


def set_plan_cache_size(size):
    """get_plan_cache().set_size(size)."""
    get_plan_cache().set_size(size)


def get_plan_cache_size():
    return get_plan_cache().get_size()


def set_plan_cache_max_memsize(size):
    """get_plan_cache().set_memsize(size)."""
    get_plan_cache().set_memsize(size)


def get_plan_cache_max_memsize():
    return get_plan_cache().get_memsize()


def clear_plan_cache():
    """Empties this thread's cache for the current device."""
    get_plan_cache().clear()


def show_plan_cache_info():
    """Prints every plan cache of this thread."""
    for dev in sorted(_caches()):
        _caches()[dev].show_info()
