"""kiln.profiler.benchmark (cupyx.profiler.benchmark): CPU and GPU times of
a function's runs, against a known sleep and against events timed by hand."""
import time

import numpy
import pytest

import kiln
from kiln.profiler import benchmark, profile


def test_benchmark_times_runs_on_host_and_device():
    calls = []

    def work(x, scale=1.0):
        calls.append(1)
        time.sleep(0.002)
        return x * scale

    x = kiln.arange(1000.0)
    r = benchmark(work, (x,), {"scale": 2.0}, n_repeat=5, n_warmup=2)
    assert len(calls) == 7 and r.name == "work"
    assert r.cpu_times.shape == (5,) and r.gpu_times.shape == (1, 5)
    assert (r.cpu_times >= 0.002).all() and (r.cpu_times < 1).all()
    assert (r.gpu_times >= 0).all() and numpy.isfinite(r.gpu_times).all()
    text = str(r)
    assert text.startswith("work") and "CPU:" in text and "GPU-0:" in text and " us" in text
    assert "GPU" not in r.to_str()


def test_benchmark_stops_at_max_duration_and_checks_arguments():
    r = benchmark(lambda: time.sleep(0.01), n_repeat=1000, n_warmup=0, max_duration=0.05, name="nap")
    # It stops at the first run that brings the total to 0.05 s (however loaded the machine is).
    assert len(r.cpu_times) < 1000 and r.cpu_times[:-1].sum() < 0.05 <= r.cpu_times.sum() and r.name == "nap"
    with pytest.raises(ValueError, match="n_repeat"):
        benchmark(lambda: None, n_repeat=0)


def test_gpu_times_follow_the_device_work():
    # Kernels that take longer on the device must show longer GPU times (on the host backend too: the
    # events bracket the kernels the call ran).
    small, big = kiln.ones(1000), kiln.ones(1_000_000)
    fast = benchmark(lambda: small * 2, n_repeat=5, n_warmup=1).gpu_times.mean()
    slow = benchmark(lambda: kiln.sin(big) * kiln.cos(big), n_repeat=5, n_warmup=1).gpu_times.mean()
    assert slow > fast


def test_profile_block_runs():
    with profile():
        y = kiln.arange(3) + 1
    assert y.get().tolist() == [1, 2, 3]
