"""CUDA graphs by stream capture: kiln.cuda.Stream.begin_capture/end_capture,
kiln.cuda.Graph, and what a capture refuses (docs/cuda_graphs.md)."""
import numpy
import pytest

import kiln
from kiln.cuda import runtime

CUDA = kiln.get_backend() == "cuda"
needs_cuda = pytest.mark.skipif(not CUDA, reason="stream capture needs the CUDA backend (the host backend has no "
                                                 "CUDA runtime)")


def _ready(*arrays):
    kiln.cuda.Stream.null.synchronize()
    kiln.cuda.Device().synchronize()
    return arrays


def test_capture_error_is_runtime_and_not_implemented_error():
    assert issubclass(kiln.cuda.StreamCaptureError, RuntimeError)
    assert issubclass(kiln.cuda.StreamCaptureError, NotImplementedError)
    assert issubclass(kiln.cuda.StreamCaptureError, runtime.CUDARuntimeError)


@pytest.mark.skipif(CUDA, reason="the host backend's behaviour")
def test_host_backend_cannot_capture():
    s = kiln.cuda.Stream(non_blocking=True)
    with pytest.raises(runtime.CUDARuntimeError, match="host backend has no CUDA runtime"):
        s.begin_capture()
    with pytest.raises(runtime.CUDARuntimeError, match="host backend has no CUDA runtime"):
        s.end_capture()
    assert not s.is_capturing() and not kiln.cuda.Stream.null.is_capturing()
    # Nothing is capturing, so downloads and arithmetic are unaffected.
    assert (kiln.arange(4) * 2).get().tolist() == [0, 2, 4, 6]


def _chain(a):
    b = (a + 3) * 7.5                      # elementwise with temporaries
    c = kiln.sqrt(kiln.abs(kiln.sin(b)))   # math functions
    d = c.sum(axis=1)                      # a reduction
    e = kiln.zeros_like(d)                 # a memset
    e += d.astype(kiln.float32)            # a cast and an in-place ufunc
    return e, c[:, ::2].copy()             # a strided copy


@needs_cuda
@pytest.mark.parametrize("upload", [False, True])
@pytest.mark.parametrize("same_stream", [True, False])
def test_graph_replays_kiln_kernels(upload, same_stream):
    a = kiln.asarray(numpy.random.default_rng(0).random((8, 33)))
    _ready(a)
    s1 = kiln.cuda.Stream(non_blocking=True)
    s2 = s1 if same_stream else kiln.cuda.Stream(non_blocking=True)
    with s1:
        s1.begin_capture()
        assert s1.is_capturing() and not kiln.cuda.Stream.null.is_capturing()
        e, c = _chain(a)
        g = s1.end_capture()
    assert isinstance(g, kiln.cuda.Graph) and not s1.is_capturing()
    for k in range(3):
        a *= 1.5 if k else 1.0             # new input values in place: the graph must recompute
        _ready()
        if upload:
            g.upload(s2)
        g.launch(s2)
        s2.synchronize()
        want_e, want_c = _chain(a)
        numpy.testing.assert_allclose(e.get(), want_e.get(), rtol=1e-13)   # a reduction: order may differ
        numpy.testing.assert_array_equal(c.get(), want_c.get())


@needs_cuda
def test_graph_memory_is_not_reused_after_capture():
    a = kiln.arange(1 << 16, dtype=kiln.float64)
    _ready(a)
    s = kiln.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        out = ((a + 1) * 2 + 3) * 4        # temporaries freed during the capture
        g = s.end_capture()
    # Arrays made now must not get the graph's memory (its temporaries).
    others = [kiln.full(a.shape, -7.0) for _ in range(8)]
    _ready()
    g.launch(s)
    s.synchronize()
    for o in others:
        assert (o == -7.0).all()
    numpy.testing.assert_array_equal(out.get(), ((numpy.arange(1 << 16) + 1.0) * 2 + 3) * 4)
    del g                                  # the graph gives its memory back
    kiln.cuda.Device().synchronize()
    assert (kiln.arange(10) + 1).get().tolist() == list(range(1, 11))


@needs_cuda
@pytest.mark.parametrize("what", ["get", "item", "bool", "nonzero", "upload", "random"])
def test_capture_refuses_host_waits_and_stays_valid(what):
    a = kiln.arange(100, dtype=kiln.float32)
    _ready(a)
    s = kiln.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        b = a * 3
        with pytest.raises(kiln.cuda.StreamCaptureError, match="is capturing"):
            if what == "get":
                b.get()
            elif what == "item":
                b[5].item()
            elif what == "bool":
                bool(b.sum() > 0)
            elif what == "nonzero":
                kiln.nonzero(b > 10)
            elif what == "random":
                kiln.random.random(10)          # a graph would replay the same numbers
            else:
                kiln.asarray(numpy.ones(4))
        g = s.end_capture()                # the capture is still valid
    _ready()
    g.launch(s)
    s.synchronize()
    numpy.testing.assert_array_equal(b.get(), numpy.arange(100, dtype=numpy.float32) * 3)


@needs_cuda
def test_synchronize_during_capture_invalidates_it():
    s = kiln.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        with pytest.raises(runtime.CUDARuntimeError, match="cudaErrorStreamCaptureUnsupported"):
            s.synchronize()
        with pytest.raises(runtime.CUDARuntimeError, match="cudaErrorStreamCaptureInvalidated"):
            s.end_capture()
    assert not s.is_capturing()
    s.synchronize()
    assert (kiln.ones(3) + 1).get().tolist() == [2.0, 2.0, 2.0]


@needs_cuda
def test_global_mode_refuses_pool_growth():
    a = kiln.arange(1000, dtype=kiln.float32)
    _ready(a)
    kiln.get_default_memory_pool().free_all_blocks()
    s = kiln.cuda.Stream(non_blocking=True)
    (a * 2).get()                          # compile and load the kernel before a strict capture
    with s:
        s.begin_capture(runtime.streamCaptureModeGlobal)
        with pytest.raises(kiln.cuda.StreamCaptureError, match="Relaxed"):
            kiln.empty(1 << 26, dtype=kiln.uint8)   # more than the pool caches
        s.end_capture()
    assert not s.is_capturing()


@needs_cuda
@pytest.mark.parametrize("upload", [False, True])
def test_host_func_runs_at_every_launch(upload):
    s = kiln.cuda.Stream(non_blocking=True)
    counter = []
    with s:
        s.begin_capture()
        s.launch_host_func(counter.append, 1)
        g = s.end_capture()
    if upload:
        g.upload()
    assert counter == []
    for n in (1, 2):
        g.launch(s)
        s.synchronize()
        assert counter == [1] * n


@needs_cuda
def test_fork_join_capture():
    a = kiln.arange(50, dtype=kiln.float64)
    _ready(a)
    s1, s2 = kiln.cuda.Stream(non_blocking=True), kiln.cuda.Stream(non_blocking=True)
    e1, e2 = kiln.cuda.Event(), kiln.cuda.Event()
    with s1:
        s1.begin_capture()
        x = a * 100
        e1.record(s1)
        s2.wait_event(e1)
        with s2:
            y = 3 * x + 1
            e2.record(s2)
        s1.wait_event(e2)
        g = s1.end_capture()
    assert not s1.is_capturing() and not s2.is_capturing()
    g.launch(s1)
    s1.synchronize()
    numpy.testing.assert_array_equal(y.get(), 3 * (numpy.arange(50.0) * 100) + 1)
    assert "digraph" in g.debug_dot_str()
