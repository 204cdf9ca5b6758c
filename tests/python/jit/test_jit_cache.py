"""kiln.jit caching: per-signature plans, generated source in memory and on
disk, and recompilation when a captured global or closure value changes
(Note [Captured globals])."""
import os
import types

import numpy

import kiln
from kiln import jit

SCALE = 2.0
cfg = types.ModuleType("cfg")
cfg.OFFSET = 10


@jit.rawkernel()
def scaled(x, out, n):
    i = jit.grid(1)
    if i < n:
        out[i] = x[i] * SCALE + cfg.OFFSET


def test_changed_global_recompiles():
    global SCALE
    x = kiln.arange(8, dtype=kiln.float64)
    out = kiln.zeros(8, dtype=kiln.float64)
    try:
        scaled[1, 8](x, out, 8)
        assert kiln.asnumpy(out).tolist() == [v * 2.0 + 10 for v in range(8)]
        SCALE = 3.0
        scaled[1, 8](x, out, 8)
        assert kiln.asnumpy(out).tolist() == [v * 3.0 + 10 for v in range(8)]
        cfg.OFFSET = -1                     # through a module attribute too
        scaled[1, 8](x, out, 8)
        assert kiln.asnumpy(out).tolist() == [v * 3.0 - 1 for v in range(8)]
        assert "3.0" in scaled.cached_code
    finally:
        SCALE = 2.0
        cfg.OFFSET = 10


def make_kernel(factor):
    @jit.rawkernel()
    def times(x, n):
        i = jit.grid(1)
        if i < n:
            x[i] = x[i] * factor
    return times


def test_closure_constants_are_captured():
    x = kiln.ones(4, dtype=kiln.int32)
    make_kernel(3)[1, 4](x, 4)
    make_kernel(5)[1, 4](x, 4)
    assert kiln.asnumpy(x).tolist() == [15] * 4


def test_warm_calls_reuse_the_plan_and_types_key_new_plans():
    x = kiln.arange(8, dtype=kiln.float64)
    out = kiln.zeros(8, dtype=kiln.float64)
    scaled[1, 8](x, out, 8)
    before = kiln._core._jit_cache_stats()
    for _ in range(3):
        scaled[1, 8](x, out, 8)
    assert kiln._core._jit_cache_stats() == before
    scaled[1, 8](x.astype(kiln.float32), out, 8)   # a new signature: a new plan
    after = kiln._core._jit_cache_stats()
    assert after["memory_hits"] + after["disk_hits"] + after["transpiles"] == \
        before["memory_hits"] + before["disk_hits"] + before["transpiles"] + 1
    assert len(scaled.cached_codes) >= 2


def test_generated_source_is_cached_on_disk():
    stats = kiln._core._jit_cache_stats()
    if not stats["directory"]:
        return
    x = kiln.arange(8, dtype=kiln.int16)
    out = kiln.zeros(8, dtype=kiln.float64)
    scaled[1, 8](x, out, 8)
    code = scaled.cached_code
    # Text entries of the kernel cache: its header (magic, version, length, checksum), then the source.
    entries = [os.path.join(d, f) for d, _, fs in os.walk(stats["directory"]) for f in fs]
    assert any(open(e, "rb").read().endswith(code.encode()) for e in entries)
    # a new kernel object for the same function, with the memory cache gone, reads the disk
    kiln._core._jit_clear_memory_cache()
    again = jit.rawkernel()(scaled.__wrapped__)
    before = kiln._core._jit_cache_stats()
    out2 = kiln.zeros(8, dtype=kiln.float64)
    again[1, 8](x, out2, 8)
    after = kiln._core._jit_cache_stats()
    assert after["disk_hits"] == before["disk_hits"] + 1 and after["transpiles"] == before["transpiles"]
    numpy.testing.assert_array_equal(kiln.asnumpy(out2), kiln.asnumpy(out))


def test_edited_disk_source_is_detected_and_rewritten():
    # issue 21: an entry edited on disk (`* 2.0` -> `* 7.0`) gave wrong
    # results in every later process; the kernel cache's checksum catches it.
    stats = kiln._core._jit_cache_stats()
    if not stats["directory"]:
        return
    x = kiln.arange(8, dtype=kiln.uint8)
    out = kiln.zeros(8, dtype=kiln.float64)
    scaled[1, 8](x, out, 8)
    code = scaled.cached_code.encode()
    # this build's entry: the newest of those holding the code (a cache
    # directory kept across builds has one per build)
    entry = max((os.path.join(d, f) for d, _, fs in os.walk(stats["directory"]) for f in fs
                 if open(os.path.join(d, f), "rb").read().endswith(code)), key=os.path.getmtime)
    data = open(entry, "rb").read()
    assert b"2.0" in code
    with open(entry, "wb") as f:
        f.write(data.replace(b"2.0", b"7.0"))
    kiln._core._jit_clear_memory_cache()
    before = kiln._core._cache_stats()["corrupt_entries"]
    again = jit.rawkernel()(scaled.__wrapped__)
    out2 = kiln.zeros(8, dtype=kiln.float64)
    again[1, 8](x, out2, 8)
    assert out2.tolist() == [v * 2.0 + 10 for v in range(8)]
    assert kiln._core._cache_stats()["corrupt_entries"] == before + 1
    assert open(entry, "rb").read() == data
