"""kiln.cuda.Stream and kiln.cuda.Event."""
import threading

from kiln import _core
from kiln.cuda._synchronize import check_synchronize


class Stream:
    """A CUDA stream. ``with stream:`` makes it current for kernels, copies and
    allocations issued in the block. ``Stream.null`` is the default stream,
    ``Stream.ptds`` the per-thread default stream (one stream on the host
    backend, where all work runs in order). ``priority``: lower runs first
    (``runtime.deviceGetStreamPriorityRange()``)."""

    null = ptds = None  # set below

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self._impl = _core.Stream(null, non_blocking, priority or 0, ptds)
        self.non_blocking = non_blocking

    @classmethod
    def from_external(cls, obj):
        """A kiln stream over ``obj``'s stream (any object with
        ``__cuda_stream__()`` returning ``(0, pointer)``); ``obj`` is kept alive."""
        if not hasattr(obj, "__cuda_stream__"):
            raise TypeError("%s does not implement the __cuda_stream__ protocol" % type(obj).__name__)
        info = obj.__cuda_stream__()
        if not isinstance(info, tuple) or len(info) != 2:
            raise TypeError("__cuda_stream__ must return a 2-tuple (version, stream pointer)")
        if not all(isinstance(v, int) for v in info):
            raise TypeError("__cuda_stream__ must return (int, int), got %r" % (info,))
        if info[0] != 0:
            raise TypeError("unsupported version %d of the __cuda_stream__ protocol" % info[0])
        stream = cls.__new__(cls)
        stream._impl, stream.non_blocking, stream._owner = _core.Stream._external(info[1]), False, obj
        stream._impl._set_device_id(-1)  # the protocol does not say
        return stream

    def __cuda_stream__(self):
        return (0, self.ptr)

    @property
    def is_non_blocking(self):
        return self._impl.is_non_blocking

    @property
    def priority(self):
        return self._impl.priority

    def begin_capture(self, mode=None):
        """Record the work queued on this stream into a CUDA graph instead of
        running it, until end_capture(); ``mode`` defaults to
        ``runtime.streamCaptureModeRelaxed``. See docs/cuda_graphs.md."""
        self._impl.begin_capture(2 if mode is None else mode)

    def end_capture(self):
        """End the capture: a kiln.cuda.Graph to launch (on any stream)."""
        return self._impl.end_capture()

    def is_capturing(self):
        return self._impl.is_capturing()

    def launch_host_func(self, callback, arg):
        """Call ``callback(arg)`` on a driver thread once the work queued so
        far is done (a graph node when capturing)."""
        self._impl.launch_host_func(lambda: callback(arg))

    def add_callback(self, callback, arg):
        """Call ``callback(stream, 0, arg)`` once the work queued so far is done."""
        self._impl.launch_host_func(lambda: callback(self, 0, arg))

    @property
    def ptr(self):
        return self._impl.ptr

    @property
    def device_id(self):
        return self._impl.device_id

    def synchronize(self):
        """Wait until every operation queued on this stream has finished."""
        check_synchronize()
        self._impl.synchronize()

    @property
    def done(self):
        """True when every operation queued on this stream has finished."""
        return self._impl.done

    def record(self, event=None):
        """Record ``event`` (a new Event if None) on this stream and return it."""
        if event is None:
            event = Event()
        event._impl.record(self._impl)
        return event

    def wait_event(self, event):
        """Make later work on this stream wait for ``event``."""
        self._impl.wait_event(event._impl)

    def use(self):
        """Make this stream current for this thread (outside a with block)."""
        self._impl._use()
        _state.current = self
        return self

    def __enter__(self):
        _state.stack.append(_current())
        self._impl._push()
        _state.current = self
        return self

    def __exit__(self, *exc):
        self._impl._pop()
        _state.current = _state.stack.pop()
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self):
        return hash(("kiln.Stream", self.ptr))

    def __repr__(self):
        return "<kiln.cuda.Stream %s (device %d)>" % (
            "null" if self.ptr == 0 else hex(self.ptr), self.device_id)


class _MadeOnFirstUse:
    """Stream.null and Stream.ptds: made when first read, so that importing
    kiln starts no backend (KILN_BACKEND=cuda on a machine without a GPU
    imports; using the device raises)."""

    def __init__(self, **kwargs):
        self.kwargs, self.stream = kwargs, None

    def __get__(self, obj, cls):
        if self.stream is None:
            self.stream = Stream(**self.kwargs)
        return self.stream


Stream.null = _MadeOnFirstUse(null=True)
Stream.ptds = _MadeOnFirstUse(ptds=True)


class ExternalStream(Stream):
    """A stream another library made (PyTorch, Numba, a CUstream handle from
    C): ``with kiln.cuda.ExternalStream(torch_stream.cuda_stream):`` runs
    kiln's work on it. kiln never destroys it; keep the owner alive while
    kiln uses it. The other way, ``kiln.cuda.get_current_stream().ptr`` is
    the handle to give other libraries (0 for the null stream)."""

    def __init__(self, ptr, device_id=-1):
        self._impl = _core.Stream._external(int(ptr))
        self.non_blocking = False
        if device_id >= 0 and device_id != self._impl.device_id:
            raise ValueError("ExternalStream on device %d made while device %d is current: make device "
                             "%d current first" % (device_id, self._impl.device_id, device_id))


class _ThreadState(threading.local):
    """This thread's current stream object and the ones `with` blocks replaced
    (the C++ side keeps the handles, per thread too)."""

    def __init__(self):
        self.current = None   # Stream.null, read when first asked for
        self.stack = []


_state = _ThreadState()


def _current():
    current = _state.current
    return current if current is not None and current.ptr == _core._current_stream_ptr() else Stream.null


def get_current_stream():
    """The stream work goes to on this thread (Stream.null unless changed)."""
    return _current()


class Event:
    """A CUDA event: mark a point in a stream, wait for it, time between two."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("interprocess events are not supported by kiln")
        self._impl = _core.Event(disable_timing)

    @property
    def ptr(self):
        return self._impl.ptr

    def record(self, stream=None):
        """Record on ``stream`` (default: the current stream)."""
        if stream is None:
            stream = get_current_stream()
        self._impl.record(stream._impl)

    def synchronize(self):
        """Wait until the recorded work has finished."""
        check_synchronize()
        self._impl.synchronize()

    @property
    def done(self):
        return self._impl.done


def get_elapsed_time(start_event, end_event):
    """Milliseconds between two recorded events."""
    return _core.get_elapsed_time(start_event._impl, end_event._impl)
