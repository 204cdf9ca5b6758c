"""The on-disk kernel cache across processes, and its recovery from damage."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

SCRIPT = r'''
import json, numpy, kiln
k = kiln.RawKernel(r"""
extern "C" __global__ void cached_kernel(int* x) { x[threadIdx.x] = 7 * threadIdx.x + %d; }
""", "cached_kernel")
x = kiln.zeros(4, dtype=kiln.int32)
k((1,), (4,), (x,))
assert x.get().tolist() == [7 * i + %d for i in range(4)]
print(json.dumps(kiln._core._cache_stats()))
'''


def run(cache_dir, salt=0):
    env = dict(os.environ, KILN_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", SCRIPT % (salt, salt)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_reads_the_disk_cache(tmp_path):
    first = run(tmp_path)
    assert first["compiles"] == 1 and first["disk_hits"] == 0
    assert first["directory"] == str(tmp_path)
    second = run(tmp_path)
    assert second["compiles"] == 0 and second["disk_hits"] == 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_damaged_entry_is_rebuilt(tmp_path, damage):
    run(tmp_path, salt=1)
    entries = [p for p in pathlib.Path(tmp_path).rglob("*") if p.is_file() and "host-pch" not in p.parts]
    assert len(entries) == 1
    entry = entries[0]
    data = entry.read_bytes()
    entry.write_bytes({"truncate": data[: len(data) // 2],
                       "flip": data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:],
                       "garbage": os.urandom(len(data)),
                       "empty": b""}[damage])
    again = run(tmp_path, salt=1)
    assert again["corrupt_entries"] == 1 and again["compiles"] == 1
    assert run(tmp_path, salt=1)["disk_hits"] == 1


@pytest.mark.skipif(os.environ.get("KILN_BACKEND", "host") != "host", reason="the host backend's precompiled prelude")
@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_damaged_precompiled_prelude_is_rebuilt(tmp_path, damage):
    # Note [Host precompiled prelude]: a damaged .gch never fails a compile.
    run(tmp_path, salt=2)
    pch = [p for p in pathlib.Path(tmp_path).rglob("host_prelude.h.gch")]
    if not pch:
        pytest.skip("the host compiler is not g++: no precompiled prelude")
    data = pch[0].read_bytes()
    pch[0].write_bytes({"truncate": data[: len(data) // 2], "garbage": os.urandom(4096), "empty": b""}[damage])
    assert run(tmp_path, salt=3)["compiles"] == 1
    assert run(tmp_path, salt=4)["compiles"] == 1


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero", "directory"])
def test_entry_that_is_not_a_regular_file_is_replaced(tmp_path, kind):
    # Note [Regular cache files] (runtime/files.h): a FIFO used to block in
    # open() forever, a symlink to /dev/zero was read until MemoryError.
    run(tmp_path, salt=5)
    [entry] = [p for p in pathlib.Path(tmp_path).rglob("*") if p.is_file() and "host-pch" not in p.parts]
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "symlink-to-dev-zero":
        os.symlink("/dev/zero", entry)
    else:
        (entry / "inner").mkdir(parents=True)
    again = run(tmp_path, salt=5)
    assert again["corrupt_entries"] == 1 and again["compiles"] == 1
    assert entry.is_file() and not entry.is_symlink()
    assert run(tmp_path, salt=5)["disk_hits"] == 1
