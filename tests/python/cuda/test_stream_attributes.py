"""Stream attributes beyond ordering: priority, non_blocking, the per-thread
default stream, streams from other libraries, host callbacks."""
import pytest

import kiln

CUDA = kiln.get_backend() == "cuda"


@pytest.mark.parametrize("non_blocking", [False, True])
def test_is_non_blocking(non_blocking):
    assert kiln.cuda.Stream(non_blocking=non_blocking).is_non_blocking is non_blocking
    assert kiln.cuda.Stream.null.is_non_blocking is False


@pytest.mark.parametrize("priority", [0, -1])
def test_priority(priority):
    s = kiln.cuda.Stream(priority=priority)
    assert s.priority == priority
    with s:
        x = kiln.arange(5) + 1
    s.synchronize()
    assert x.get().tolist() == [1, 2, 3, 4, 5]


def test_priority_range_on_cuda():
    if not CUDA:
        with pytest.raises(kiln.cuda.runtime.CUDARuntimeError, match="host backend has no CUDA runtime"):
            kiln.cuda.runtime.deviceGetStreamPriorityRange()
        return
    least, greatest = kiln.cuda.runtime.deviceGetStreamPriorityRange()
    assert greatest <= least
    assert kiln.cuda.Stream(priority=greatest - 100).priority == greatest   # clamped by the driver


def test_ptds():
    ptds = kiln.cuda.Stream.ptds
    assert ptds == kiln.cuda.Stream(ptds=True)
    assert ptds != kiln.cuda.Stream.null and ptds.ptr != 0
    if CUDA:
        assert ptds.ptr == kiln.cuda.runtime.streamPerThread
    with pytest.raises(ValueError):
        kiln.cuda.Stream(null=True, ptds=True)
    with ptds:
        assert kiln.cuda.get_current_stream() == ptds
        y = kiln.arange(4) * 3
    ptds.synchronize()
    assert y.get().tolist() == [0, 3, 6, 9]


class _Foreign:
    def __init__(self, ptr):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


def test_from_external_uses_the_stream_and_keeps_owner():
    base = kiln.cuda.Stream()
    owner = _Foreign(base.ptr)
    s = kiln.cuda.Stream.from_external(owner)
    assert s.ptr == base.ptr and s.device_id == -1 and s.__cuda_stream__() == (0, base.ptr)
    with s:
        assert kiln.cuda.get_current_stream() == s
        x = kiln.arange(6) * 2
    s.synchronize()
    assert x.get().tolist() == [0, 2, 4, 6, 8, 10]
    assert kiln.cuda.Stream.from_external(base).ptr == base.ptr


@pytest.mark.parametrize("bad, match", [(object(), "does not implement"), (_Foreign("x"), r"\(int, int\)")])
def test_from_external_rejects(bad, match):
    with pytest.raises(TypeError, match=match):
        kiln.cuda.Stream.from_external(bad)


@pytest.mark.parametrize("info, match", [(5, "2-tuple"), ((0,), "2-tuple"), ((1, 5), "unsupported version")])
def test_from_external_rejects_bad_protocol_values(info, match):
    class Bad:
        def __cuda_stream__(self):
            return info

    with pytest.raises(TypeError, match=match):
        kiln.cuda.Stream.from_external(Bad())


@pytest.mark.parametrize("which", ["new", "null"])
def test_host_funcs_run_in_stream_order(which):
    s = kiln.cuda.Stream() if which == "new" else kiln.cuda.Stream.null
    seen = []
    arrays = [kiln.full(3, k) for k in range(20)]
    for k, a in enumerate(arrays):
        host = a.get(stream=s)
        s.launch_host_func(lambda t: seen.append(t[0] + int(t[1][0]) * 0), (k, host))
    s.add_callback(lambda stream, status, arg: seen.append((stream.ptr, status, arg)), "end")
    s.synchronize()
    assert seen == list(range(20)) + [(s.ptr, 0, "end")]
