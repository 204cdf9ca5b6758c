"""Streams and events order work; devices."""
import threading

import numpy
import pytest

import kiln

SPIN_ADD = r'''
extern "C" __global__ void spin_add(float* x, float v, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = x[i];
    for (int r = 0; r < rounds; ++r) acc = acc * 1.0000001f;  // keep the stream busy
    x[i] = x[i] + v + (acc == 12345.0f ? 1.0f : 0.0f);  // acc is never 12345: keeps the loop
}'''
TIMES2 = r'''
extern "C" __global__ void times2(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}'''


def test_events_order_work_across_streams():
    n = 1 << 16
    spin = kiln.RawKernel(SPIN_ADD, "spin_add")
    times2 = kiln.RawKernel(TIMES2, "times2")
    rounds = 2000 if kiln.get_backend() == "cuda" else 10
    s1 = kiln.cuda.Stream(non_blocking=True)
    s2 = kiln.cuda.Stream(non_blocking=True)
    x = kiln.zeros(n, dtype=kiln.float32)
    y = kiln.zeros(n, dtype=kiln.float32)
    kiln.cuda.Stream.null.synchronize()
    for step in range(1, 4):
        spin(((n + 255) // 256,), (256,), (x, 1.0, n, rounds), stream=s1)
        done = s1.record()
        s2.wait_event(done)
        times2(((n + 255) // 256,), (256,), (x, y, n), stream=s2)
        s2.synchronize()
        numpy.testing.assert_array_equal(y.get(), numpy.full(n, 2.0 * step, numpy.float32))
    assert s1.done and s2.done


def test_with_stream_makes_it_current():
    s = kiln.cuda.Stream()
    assert kiln.cuda.get_current_stream() == kiln.cuda.Stream.null
    with s:
        assert kiln.cuda.get_current_stream() == s
        with kiln.cuda.Stream.null:
            assert kiln.cuda.get_current_stream() == kiln.cuda.Stream.null
        assert kiln.cuda.get_current_stream() == s
        x = kiln.zeros(1000, dtype=kiln.float32)
        kiln.RawKernel(SPIN_ADD, "spin_add")((4,), (256,), (x, 5.0, 1000, 0))
    s.synchronize()
    assert kiln.cuda.get_current_stream() == kiln.cuda.Stream.null
    assert x.get().tolist() == [5.0] * 1000


def test_event_timing_and_done():
    start, end = kiln.cuda.Event(), kiln.cuda.Event()
    start.record()
    x = kiln.zeros(1 << 20, dtype=kiln.float32)
    kiln.RawKernel(SPIN_ADD, "spin_add")((4096,), (256,), (x, 1.0, 1 << 20, 100))
    end.record()
    end.synchronize()
    assert start.done and end.done
    elapsed = kiln.cuda.get_elapsed_time(start, end)
    assert 0.0 <= elapsed < 60_000.0
    with pytest.raises(ValueError, match="recorded"):
        kiln.cuda.get_elapsed_time(kiln.cuda.Event(), end)


def test_stream_argument_type_is_checked():
    x = kiln.zeros(4, dtype=kiln.float32)
    with pytest.raises(TypeError, match="stream must be a kiln.cuda.Stream"):
        kiln.RawKernel(SPIN_ADD, "spin_add")((1,), (4,), (x, 1.0, 4, 0), stream=7)


def test_device_basics():
    assert kiln.get_backend() in ("cuda", "host")
    count = kiln.cuda.runtime.getDeviceCount()
    assert count >= 1
    d = kiln.cuda.Device(0)
    assert d.id == 0
    with d as same:
        assert same is d
        assert kiln.cuda.Device().id == 0
    d.synchronize()
    cc = d.compute_capability
    assert isinstance(cc, str) and cc.isdigit()
    if kiln.get_backend() == "cuda":
        assert int(cc) >= 50
    free, total = d.mem_info
    assert 0 < free <= total
    with pytest.raises(ValueError, match="does not exist"):
        kiln.cuda.Device(count)


def test_current_stream_is_per_thread():
    import threading
    s = kiln.cuda.Stream(non_blocking=True)
    seen = []
    with s:
        t = threading.Thread(target=lambda: seen.append(kiln.cuda.get_current_stream()))
        t.start()
        t.join()
        assert kiln.cuda.get_current_stream() == s
    assert seen == [kiln.cuda.Stream.null]


def test_allow_synchronize_forbids_explicit_synchronization_in_its_block():
    x = kiln.arange(10)
    stream, event = kiln.cuda.Stream(), kiln.cuda.Event()
    event.record()
    syncs = [kiln.cuda.Device().synchronize, stream.synchronize, event.synchronize,
             kiln.cuda.runtime.deviceSynchronize]
    with kiln.allow_synchronize(False):
        y = x * 2                          # queued work and downloads are not checked
        assert int(y.sum()) == 90
        for sync in syncs:
            with pytest.raises(kiln.DeviceSynchronized, match="synchronization was detected while disallowed"):
                sync()
        with kiln.allow_synchronize(True):   # blocks nest
            stream.synchronize()
        with pytest.raises(kiln.DeviceSynchronized):
            stream.synchronize()
    for sync in syncs:                     # allowed again after the block
        sync()
    errors = []

    def other_thread():                    # the rule is per thread
        try:
            stream.synchronize()
        except Exception as e:             # pragma: no cover - the failure case
            errors.append(e)

    with kiln.allow_synchronize(False):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
    assert errors == []
    assert issubclass(kiln.DeviceSynchronized, RuntimeError)
