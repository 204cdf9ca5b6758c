"""Hostile inputs: what a careful tester throws at kiln (issue 21).

Every case must end in the right result or a clear Python exception: never a
crashed interpreter, a hang, or a silent wrong answer. Cases that could crash
or hang run in a fresh interpreter with a timeout (`run_isolated`), so a
regression fails its test instead of taking pytest down. The categories:
sizes, kernels, jit/vectorize, cache, threads, interrupts, aliasing and
scalars. docs/reliability.md states the promises these tests keep.
"""
import os
import signal
import subprocess
import sys
import textwrap

import numpy
import pytest

import kiln

BACKEND = kiln.get_backend()


def run_isolated(code, timeout=120, env=None, expect_rc=0):
    """Runs `code` in a new Python process with this process's backend and
    kernel cache; returns its stdout. Fails (does not crash) when the child
    dies from a signal, exits with another code or outlives `timeout`."""
    child_env = dict(os.environ)
    child_env.update(env or {})
    try:
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"hung: no exit within {timeout} s\n{hung.stderr or ''}")
    if out.returncode < 0:
        pytest.fail(f"killed by {signal.Signals(-out.returncode).name}\n{out.stderr[-3000:]}")
    assert out.returncode == expect_rc, out.stderr[-3000:]
    return out.stdout


# ----------------------------------------------------------------------------
# sizes: element and byte counts that overflow 64 bits, or that no memory holds

# Note [Array size limit] (arraycore/ndarray.h): NumPy's ValueError when
# itemsize * the extents leaves int64, MemoryError (kiln's OutOfMemoryError)
# when the size is representable but no device holds it. Each case ran into
# a wrapped element or byte count (segfaults, sizes of 0, sums of 0). They run
# in one fresh interpreter, each printing `name|ExceptionType|message`.
_TOO_BIG = "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."
_SIZE_CASES = {
    "empty_2d_int8": ("kiln.empty((2**32, 2**32), dtype=kiln.int8)", "ValueError", _TOO_BIG),
    "setitem_on_huge": ("a = kiln.empty((2**32, 2**32), dtype=kiln.int8); a[2**31, 5] = 7", "ValueError", _TOO_BIG),
    "empty_fill": ("kiln.empty(2**62).fill(1.0)", "ValueError", _TOO_BIG),
    "empty_int8_oom": ("kiln.empty(2**62, dtype=kiln.int8)", "OutOfMemoryError", "out of memory"),
    "arange": ("kiln.arange(2**62)", "ValueError", _TOO_BIG),
    "arange_int8_oom": ("kiln.arange(2**61, dtype=kiln.int8)", "OutOfMemoryError", "out of memory"),
    "linspace": ("kiln.linspace(0, 1, 2**61)", "ValueError", _TOO_BIG),
    "random": ("kiln.random.default_rng(0).random(2**62)", "ValueError", _TOO_BIG),
    "integers": ("kiln.random.default_rng(0).integers(0, 5, size=2**62)", "ValueError", _TOO_BIG),
    "full_index": ("kiln.full((2**40, 2**40), 1.0)[2**39, 5]", "ValueError", _TOO_BIG),
    "broadcast_copy": ("kiln.broadcast_to(kiln.ones(3), (2**40, 2**40, 3)).copy()", "ValueError",
                       "iterator is too large"),
    "broadcast_bytes": ("kiln.broadcast_to(kiln.ones(1), (2**31, 2**31))", "ValueError", _TOO_BIG),
    "broadcast_int8_copy_oom": ("kiln.broadcast_to(kiln.ones(1, dtype=kiln.int8), (2**31, 2**31)).copy()",
                                "OutOfMemoryError", "out of memory"),
    "zeros_sum": ("kiln.zeros((2**32, 2**32), dtype=kiln.int8).sum()", "ValueError", _TOO_BIG),
    "ones_size": ("kiln.ones((2**33, 2**31)).size", "ValueError", _TOO_BIG),
    "tri": ("kiln.tri(2**32)", "ValueError", _TOO_BIG),
    "eye": ("kiln.eye(2**32)", "ValueError", _TOO_BIG),
    "indices": ("kiln.indices((2**32, 2**32))", "ValueError", _TOO_BIG),
    "zero_extent_last": ("kiln.empty((2**62, 2**62, 0))", "ValueError", _TOO_BIG),
    "zero_extent_first": ("kiln.empty((0, 2**62, 2**62))", "ValueError", _TOO_BIG),
    "reshape_empty": ("kiln.zeros(0).reshape(0, 2**62, 2**62)", "ValueError", _TOO_BIG),
    "dimension_beyond_int64": ("kiln.empty(2**63)", "ValueError", "Maximum allowed dimension exceeded"),
    "tile": ("kiln.tile(kiln.ones(3), 2**62)", "ValueError", "too"),
    "repeat_counts_wrap": ("kiln.repeat(kiln.ones(3), [2**63 - 1, 2**63 - 1, 2])", "ValueError",
                           "Maximum allowed dimension exceeded"),
    "concatenate": ("x = kiln.broadcast_to(kiln.ones(1), (2**59,)); kiln.concatenate([x, x])", "ValueError",
                    _TOO_BIG),
    "kron": ("x = kiln.broadcast_to(kiln.ones(1), (2**40,)); kiln.kron(x, x)", "ValueError", _TOO_BIG),
}


@pytest.fixture(scope="module")
def size_outcomes():
    lines = ["import kiln", "def probe(name, code):",
             "    try:",
             "        exec(code, {'kiln': kiln})",
             "        print(name + '|ok|', flush=True)",
             "    except Exception as e:",
             "        print(name + '|' + type(e).__name__ + '|' + str(e).replace(chr(10), ' '), flush=True)"]
    lines += ["probe(%r, %r)" % (name, case[0]) for name, case in _SIZE_CASES.items()]
    out = run_isolated("\n".join(lines), timeout=600)
    return {name: (kind, message) for name, kind, message in
            (line.split("|", 2) for line in out.splitlines() if line.count("|") >= 2)}


@pytest.mark.parametrize("name", sorted(_SIZE_CASES))
def test_size_overflow_is_a_clear_error(size_outcomes, name):
    _, kind, fragment = _SIZE_CASES[name]
    assert name in size_outcomes, "the probe process stopped before this case"
    got_kind, message = size_outcomes[name]
    assert (got_kind, fragment in message) == (kind, True), (got_kind, message)


def test_out_of_memory_is_a_memory_error():
    assert issubclass(kiln.cuda.memory.OutOfMemoryError, MemoryError)


def test_size_limit_allows_representable_views():
    # (2**59,) float64 is 2**62 bytes: a legal view, as in NumPy.
    view = kiln.broadcast_to(kiln.ones(1), (2**59,))
    assert view.size == 2**59 and view.nbytes == 2**62 and view.strides == (0,)
    assert kiln.empty((0, 2**40)).shape == (0, 2**40)


class _NullProducer:
    def __init__(self, shape):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (0, False), "version": 3}


def test_cuda_array_interface_null_pointer():
    # Item 3: a null pointer with elements used to be dereferenced (segfault).
    with pytest.raises(ValueError, match="'data' is a null pointer for an array of shape \\(4,\\)"):
        kiln.asarray(_NullProducer((4,)))
    assert kiln.asarray(_NullProducer((0,))).shape == (0,)
    assert kiln.asarray(_NullProducer((3, 0))).shape == (3, 0)


def test_unowned_memory_null_pointer():
    mem = kiln.cuda.UnownedMemory(0, 16, None)
    with pytest.raises(ValueError, match="null device pointer for 16 bytes"):
        kiln.cuda.MemoryPointer(mem, 0)
    assert kiln.cuda.MemoryPointer(kiln.cuda.UnownedMemory(0, 0, None), 0).ptr == 0


def test_allocator_returning_null_is_a_clear_error():
    kiln.cuda.set_allocator(lambda nbytes: kiln.cuda.UnownedMemory(0, nbytes, None))
    try:
        with pytest.raises(ValueError, match="null device pointer"):
            kiln.empty(4)
    finally:
        kiln.cuda.set_allocator(None)


# ----------------------------------------------------------------------------
# kernels: faults inside kernel code (out-of-bounds, null, division, stack)

# Each child provokes one fault, expects kiln.cuda.LaunchError with CUDA's
# words, then launches again in the same process (the backend stays usable).
FAULT_THEN_LAUNCH = """
import kiln
src = r'''
extern "C" __global__ void bad(int* x, long long addr) { BODY }
extern "C" __global__ void good(int* x) { x[threadIdx.x] = 7; }
'''
m = kiln.RawModule(code=src.replace("BODY", BAD))
x = kiln.zeros(32, dtype=kiln.int32)
try:
    m.get_function("bad")((1,), (32,), (x, 0))
    kiln.cuda.Device().synchronize()
    print("no error")
except kiln.cuda.LaunchError as e:
    print("LaunchError:", e)
if kiln.get_backend() == "host":
    m.get_function("good")((1,), (32,), (x,))
    print("again:", int(x.sum()))
"""


@pytest.mark.parametrize("body", [
    "x[(1LL << 40) + threadIdx.x] = 1;",                  # far out of bounds
    "x[threadIdx.x] = ((const int*)addr)[threadIdx.x];",  # null read
])
def test_memory_fault_in_a_raw_kernel_is_a_launch_error(body):
    out = run_isolated(f"BAD = {body!r}\n" + FAULT_THEN_LAUNCH, timeout=180)
    assert "LaunchError:" in out and "an illegal memory access was encountered" in out, out
    if BACKEND == "host":  # a CUDA context is lost after a fault; the host backend lives on
        assert "block: [0,0,0], thread: [" in out, out
        assert "again: 224" in out, out


def test_jit_kernel_writing_far_out_of_bounds_is_a_launch_error():
    out = run_isolated(r"""
        import kiln
        from kiln import jit

        SRC = "def far(x):\n    x[1 << 40] = 1\n"
        ns = {}
        exec(SRC, ns)
        far = jit.rawkernel(source=SRC)(ns["far"])
        x = kiln.zeros(4, dtype=kiln.int32)
        try:
            far((1,), (1,), (x,))
            kiln.cuda.Device().synchronize()
            print("no error")
        except kiln.cuda.LaunchError as e:
            print("LaunchError:", e)
        """, timeout=180)
    assert "LaunchError:" in out and "an illegal memory access was encountered" in out, out


HUGE_LOCALS = r"""
import kiln
k = kiln.RawKernel('''
extern "C" __global__ void deep(float* out, int n) {
  volatile float big[4 << 20];   // 16 MB of locals per thread
  for (int i = 0; i < n; ++i) big[i * 4096] = i;
  out[threadIdx.x] = big[(n - 1) * 4096];
}''', "deep")
out = kiln.zeros(1, dtype=kiln.float32)
try:
    k((1,), (1,), (out, 1000))
    kiln.cuda.Device().synchronize()
    print("no error")
except kiln.cuda.LaunchError as e:
    print("LaunchError:", e)
except ValueError as e:
    print("ValueError:", e)
small = kiln.RawKernel('extern "C" __global__ void ok(float* o) { o[0] = 5.0f; }', "ok")
small((1,), (1,), (out,))
print("after:", out.get().tolist())
"""


def test_huge_local_array_is_a_stack_overflow_not_a_crash():
    out = run_isolated(HUGE_LOCALS, timeout=180)
    if BACKEND == "host":
        assert "LaunchError:" in out and "stack overflow in kernel" in out, out
    else:
        # Measured on an H200: ptxas accepts the frame and cuLaunchKernel
        # refuses it (CUDA_ERROR_INVALID_VALUE: more local memory per thread
        # than the device has), a ValueError as every refused launch is.
        assert "ValueError:" in out and "CUDA_ERROR_INVALID_VALUE" in out, out
    assert "after: [5.0]" in out, out   # the backend goes on


# Note [GPU integer division] (runtime/host/kernel_faults.h): what an NVIDIA
# H200 returns; the host backend must give the same instead of SIGFPE.
DIVISION_CASES = {
    # dtype: [(a, b, a / b, a % b)]
    "int32": [(7, 0, -1, -1), (0, 0, -1, -1), (-7, 0, -1, -1), (-2**31, -1, -2**31, 0), (7, 2, 3, 1)],
    "uint32": [(7, 0, 2**32 - 1, 2**32 - 1), (2**32 - 1, 0, 2**32 - 1, 2**32 - 1)],
    "int64": [(7, 0, 4294967295, 4294967295), (0, 0, 4294967295, 4294967295), (-7, 0, -1, -1),
              (2**63 - 1, 0, -1, -1), (-2**63, -1, -2**63, 0), (-7, 2, -3, -1)],
    "uint64": [(7, 0, 4294967295, 4294967295), (2**64 - 1, 0, 2**64 - 1, 2**64 - 1),
               (2**40, 0, 2**64 - 1, 2**64 - 1)],
    "int16": [(7, 0, -1, -1), (-2**15, -1, -2**15, 0)],   # promoted to int, stored back
    "uint8": [(7, 0, 255, 255)],
    "int8": [(-128, -1, -128, 0), (5, 0, -1, -1)],
}
CTYPES = {"int32": "int", "uint32": "unsigned int", "int64": "long long",
          "uint64": "unsigned long long", "int16": "short", "uint8": "unsigned char",
          "int8": "signed char"}
DIVMOD = r"""
import kiln
k = kiln.RawKernel('''
extern "C" __global__ void divmod(const T* a, const T* b, T* q, T* r, int n) {
  int i = threadIdx.x;
  if (i < n) { q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }
}'''.replace("T", CTYPE), "divmod")
a = kiln.array(A, dtype=DTYPE)
b = kiln.array(B, dtype=DTYPE)
q = kiln.zeros_like(a)
r = kiln.zeros_like(a)
k((1,), (len(A),), (a, b, q, r, len(A)))
print(q.tolist(), r.tolist())
"""


@pytest.mark.parametrize("dtype", sorted(DIVISION_CASES))
def test_integer_division_by_zero_and_overflow_give_the_gpu_values(dtype):
    cases = DIVISION_CASES[dtype]
    head = (f"CTYPE = {CTYPES[dtype]!r}\nDTYPE = {dtype!r}\n"
            f"A = {[c[0] for c in cases]}\nB = {[c[1] for c in cases]}\n")
    out = run_isolated(head + DIVMOD, timeout=180)
    assert out.strip() == f"{[c[2] for c in cases]} {[c[3] for c in cases]}"


# ----------------------------------------------------------------------------
# jit/vectorize: functions the transpiler must reject

# --- kernels slice (issue 21 items 9-jit and 10): the transpiler's checks ---

def _positive_or_nothing(v):
    if v > 0:
        return v


def _sign_every_path(v):
    if v > 0:
        return 1
    else:
        return -1


def _first_power_of_two_at_least(v):
    p = 1
    while True:
        if p >= v:
            return p
        p = p * 2


def test_vectorize_refuses_a_function_that_falls_off_its_end():
    # Python returns None where the function falls off; the kernel used to
    # return its argument: [-5, -3, 2].
    with pytest.raises(TypeError) as info:
        kiln.vectorize(_positive_or_nothing)(kiln.asarray([-5, -3, 2]))
    text = str(info.value)
    assert "`_positive_or_nothing` returns a value on some paths but can reach its end without a `return`" in text
    assert "def _positive_or_nothing(v):" in text.splitlines()[1] and "^" in text.splitlines()[2]
    assert "note: a value is returned here" in text


def test_vectorize_accepts_functions_that_return_on_every_path():
    x = kiln.asarray([-5, -3, 2, 9])
    assert kiln.vectorize(_sign_every_path)(x).tolist() == [-1, -1, 1, 1]
    assert kiln.vectorize(_first_power_of_two_at_least)(x).tolist() == [1, 1, 2, 16]


def _helper_falls_off(v):
    if v > 0.0:
        return v * 2.0


@kiln.jit.rawkernel()
def _kernel_with_helper_falling_off(x, n):
    i = kiln.jit.grid(1)
    if i < n:
        x[i] = _helper_falls_off(x[i])


def test_jit_device_function_that_falls_off_its_end_is_refused():
    x = kiln.asarray([-1.0, 2.0])
    with pytest.raises(TypeError, match="`_helper_falls_off` returns a value on some paths but can reach its end"):
        _kernel_with_helper_falling_off[1, 2](x, 2)
    assert x.tolist() == [-1.0, 2.0]


@kiln.jit.rawkernel()
def _store_two_to_the_hundred(x):
    x[0] = 2**100


@kiln.jit.rawkernel()
def _store_shift_past_64_bits(x):
    x[0] = 1 << 70


@kiln.jit.rawkernel()
def _store_300(x):
    x[0] = 300


@kiln.jit.rawkernel()
def _add_300(x):
    x[0] = x[1] + 300


@kiln.jit.rawkernel()
def _add_assign_300(x):
    x[0] += 300


@kiln.jit.rawkernel()
def _store_two_to_the_63_minus_one(x):
    x[0] = 2**63 - 1          # 2**63 does not fit the int64 the kernel computes it in


@kiln.jit.rawkernel()
def _store_minus_one(x):
    x[0] = -1


@kiln.jit.rawkernel()
def _store_extremes(x, y):
    x[0] = -2**62 * 2
    x[1] = 2**62 - 1 + 2**62
    y[0] = 18446744073709551615
    y[1] = 255 + 0 * 7


@pytest.mark.parametrize("kernel, dtype, text", [
    (_store_two_to_the_hundred, kiln.int64, "Python integer 1267650600228229401496703205376 out of bounds for int64"),
    (_store_shift_past_64_bits, kiln.int64, "Python integer 1180591620717411303424 out of bounds for int64"),
    (_store_two_to_the_hundred, kiln.float64, "Python integer 1267650600228229401496703205376 out of bounds for int64"),
    (_store_two_to_the_63_minus_one, kiln.int64, "Python integer 9223372036854775808 out of bounds for int64"),
    (_store_300, kiln.int8, "Python integer 300 out of bounds for int8"),
    (_add_300, kiln.int8, "Python integer 300 out of bounds for int8"),
    (_add_assign_300, kiln.uint8, "Python integer 300 out of bounds for uint8"),
    (_store_minus_one, kiln.uint8, "Python integer -1 out of bounds for uint8"),
    (_store_minus_one, kiln.uint64, "Python integer -1 out of bounds for uint64"),
], ids=["pow", "shift", "pow-into-float", "2**63-1", "store-int8", "add-int8", "iadd-uint8", "neg-uint8", "neg-uint64"])
def test_jit_integer_literal_that_does_not_fit_is_refused(kernel, dtype, text):
    # x[0] = 2**100 stored 0, x[0] = 300 on int8 stored 44 (NumPy 2: OverflowError).
    x = kiln.zeros(2, dtype=dtype)
    with pytest.raises(OverflowError) as info:
        kernel[1, 1](x)
    assert text in str(info.value)
    assert "^" in str(info.value)            # the caret under the constant
    assert x.tolist() == [0, 0]


def test_jit_integer_literals_that_fit_are_exact():
    x = kiln.zeros(2, dtype=kiln.int64)
    y = kiln.zeros(2, dtype=kiln.uint64)
    _store_extremes[1, 1](x, y)
    assert x.tolist() == [-2**63, 2**63 - 1]
    assert y.tolist() == [2**64 - 1, 255]
    z = kiln.zeros(2, dtype=kiln.float32)
    _store_300[1, 1](z)                       # a float element takes any int
    assert z.tolist() == [300.0, 0.0]



# ----------------------------------------------------------------------------
# cache: damaged, hostile or concurrent disk-cache entries

# --- kernels slice (issue 21 items 6 and 7): hostile and damaged cache entries ---

_CACHE_PROBE = r'''
import json, sys, kiln
k = kiln.RawKernel(r"""
extern "C" __global__ void hostile_cache_probe(float* x) { x[threadIdx.x] = 5.0f * threadIdx.x + 0.25f; }
""", "hostile_cache_probe")
x = kiln.zeros(4, dtype=kiln.float32)
k((1,), (4,), (x,))
assert x.tolist() == [5.0 * i + 0.25 for i in range(4)], x.tolist()
print(json.dumps(kiln._core._cache_stats()))
'''

_JIT_PROBE = r'''
import json, kiln
from kiln import jit

SRC = """
def hostile_jit_probe(x, y, n):
    i = jit.grid(1)
    if i < n:
        y[i] = x[i] * 3.0
"""
ns = {"jit": jit}
exec(SRC, ns)
hostile_jit_probe = jit.rawkernel(source=SRC)(ns["hostile_jit_probe"])
x = kiln.arange(4, dtype=kiln.float32)
y = kiln.zeros(4, dtype=kiln.float32)
hostile_jit_probe[1, 4](x, y, 4)
assert y.tolist() == [0.0, 3.0, 6.0, 9.0], y.tolist()
print(json.dumps(dict(kiln._core._jit_cache_stats(), corrupt_entries=kiln._core._cache_stats()["corrupt_entries"])))
'''


def _probe(code, cache_dir, timeout=120):
    import json
    out = run_isolated(code, timeout=timeout, env={"KILN_CACHE_DIR": str(cache_dir)})
    return json.loads(out.strip().splitlines()[-1])


def _entries(cache_dir, sub):
    """Paths of the entries under v1/ (sub="module") or v1/text/ (sub="text")."""
    import pathlib
    root = pathlib.Path(cache_dir) / "v1"
    found = []
    for p in root.rglob("*"):
        parts = p.relative_to(root).parts
        if "host-pch" in parts or ".tmp." in p.name or len(parts) < 2:
            continue
        if (sub == "text") == (parts[0] == "text") and len(parts) == (3 if sub == "text" else 2):
            found.append(p)
    return found


def _replace_with(path, kind):
    import shutil
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero-symlink":
        os.symlink("/dev/zero", path)
    elif kind == "directory":
        (path / "inner").mkdir(parents=True)
        (path / "inner" / "file").write_bytes(b"x")
    elif kind == "oversized":
        with open(path, "wb") as f:      # sparse: costs no disk
            f.truncate(300 << 20)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-symlink", "directory", "oversized"])
def test_compiled_cache_entry_that_is_not_a_regular_file_is_replaced(tmp_path, kind):
    # A FIFO blocked open() forever; a symlink to /dev/zero was read until
    # MemoryError. Now: a miss, a compile, and a regular entry in its place.
    _probe(_CACHE_PROBE, tmp_path)
    [entry] = _entries(tmp_path, "module")
    _replace_with(entry, kind)
    again = _probe(_CACHE_PROBE, tmp_path, timeout=90)
    assert again["compiles"] == 1 and again["disk_hits"] == 0 and again["corrupt_entries"] == 1
    assert entry.is_file() and not entry.is_symlink()
    assert _probe(_CACHE_PROBE, tmp_path)["disk_hits"] == 1


@pytest.mark.parametrize("damage", ["edit-3-to-7", "truncate", "flip", "directory", "fifo"])
def test_jit_source_cache_entry_damage_is_detected_and_rewritten(tmp_path, damage):
    # The jit source cache (a text entry of the one kernel cache) had no
    # checksum: `* 3.0` edited to `* 7.0` gave wrong results in every later
    # process; a damaged entry or a directory in its place raised every time.
    first = _probe(_JIT_PROBE, tmp_path)
    assert first["transpiles"] == 1
    [entry] = _entries(tmp_path, "text")
    data = entry.read_bytes()
    if damage == "edit-3-to-7":
        assert b"* 3.0" in data or b"3.0" in data
        entry.write_bytes(data.replace(b"3.0", b"7.0"))
    elif damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        entry.write_bytes(data[:-5] + bytes([data[-5] ^ 0x01]) + data[-4:])
    else:
        _replace_with(entry, damage)
    again = _probe(_JIT_PROBE, tmp_path, timeout=90)      # asserts the right values itself
    assert again["transpiles"] == 1 and again["disk_hits"] == 0 and again["corrupt_entries"] == 1
    assert entry.is_file() and entry.read_bytes() == data    # rewritten whole
    third = _probe(_JIT_PROBE, tmp_path)
    assert third["disk_hits"] == 1 and third["transpiles"] == 0


@pytest.mark.skipif(BACKEND != "host", reason="the host backend's precompiled prelude")
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_precompiled_prelude_that_is_not_a_regular_file_never_blocks(tmp_path, kind):
    import pathlib
    _probe(_CACHE_PROBE, tmp_path)
    pch = list(pathlib.Path(tmp_path).rglob("host_prelude.h.gch"))
    if not pch:
        pytest.skip("the host compiler is not g++: no precompiled prelude")
    _replace_with(pch[0], kind)
    for entry in _entries(tmp_path, "module"):
        entry.unlink()                                     # force a compile
    assert _probe(_CACHE_PROBE, tmp_path, timeout=90)["compiles"] == 1
    assert pch[0].is_file() and pch[0].read_bytes()[:4] == b"gpch"



# ----------------------------------------------------------------------------
# threads: launches from several threads, and interpreter exit during a launch

EXIT_DURING_LAUNCH = r"""
import threading, time, kiln
k = kiln.RawKernel('''
extern "C" __global__ void spin(float* x, int n) {
  for (int r = 0; r < n; ++r) x[threadIdx.x] += 1.0f;
}''', "spin")
x = kiln.zeros(32, dtype=kiln.float32)
k((1,), (32,), (x, 1))
def loop():
    while True:
        k((4,), (32,), (x, 20000))
        kiln.ones(1000).sum()
threading.Thread(target=loop, daemon=True).start()
time.sleep(0.5)
print("main exits")
"""


def test_interpreter_exit_with_a_daemon_thread_inside_launches():
    # Note [Releasing the GIL at interpreter exit] (pyfrontend/bindings.h) and
    # Note [Host backend at exit] (runtime/host/cpu_backend.cpp): this aborted
    # with "terminate called without an active exception" (rc 134); on the
    # CUDA backend also while the unwinder was private (Note [Private
    # libstdc++], CMakeLists.txt).
    for _ in range(3):
        assert run_isolated(EXIT_DURING_LAUNCH, timeout=120).strip() == "main exits"


# ----------------------------------------------------------------------------
# interrupts: Ctrl-C and the watchdog during a launch

# Note [Cancelling host launches] (runtime/host/launch_watch.h). A kernel
# that never ends can't be interrupted on a GPU the same way (the driver owns
# it), so these run on the host backend only.
host_only = pytest.mark.skipif(BACKEND != "host", reason="an endless kernel is cancelled only on the host backend")

SPIN_RAW = r"""
import sys, kiln
k = kiln.RawKernel('''
extern "C" __global__ void spin(int* x, int* y) {
  while (((volatile int*)x)[0] == 0) {}
  y[blockIdx.x * blockDim.x + threadIdx.x] = x[0] + 1;
}''', "spin")
x = kiln.ones(1, dtype=kiln.int32)
y = kiln.zeros(GRID * 32, dtype=kiln.int32)
k((GRID,), (32,), (x, y))          # compiled, and ends: x[0] == 1
x[...] = 0
print("launching", flush=True)
try:
    k((GRID,), (32,), (x, y))      # never ends
    print("completed")
except KeyboardInterrupt:
    print("interrupted", flush=True)
except kiln.cuda.LaunchError as e:  # the watchdog
    print(e, flush=True)
x[...] = 4
k((GRID,), (32,), (x, y))
print("after", int(y.sum()), flush=True)
"""

SPIN_JIT = r"""
import kiln
from kiln import jit
@jit.rawkernel()
def spin(x, y):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    while x[0] == 0:
        y[i] = y[i] + 1
    y[i] = x[0] + 1
x = kiln.ones(1, dtype=kiln.int32)
y = kiln.zeros(GRID * 32, dtype=kiln.int32)
spin((GRID,), (32,), (x, y))
x[...] = 0
print("launching", flush=True)
spin((GRID,), (32,), (x, y))
print("completed")
"""

def interrupt_child(code, grid, tmp_path, timeout=120):
    """Runs `code` (from a file: jit kernels need their source) in a child and sends it SIGINT 0.5 s after it prints
    'launching'; returns (rc, stdout, stderr). Never hangs: the child is
    killed after `timeout` and the test fails."""
    import time
    script = tmp_path / "child.py"
    script.write_text(code.replace("GRID", str(grid)))
    child = subprocess.Popen([sys.executable, str(script)], env=dict(os.environ),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = child.stdout.readline()
        assert first.strip() == "launching", first + child.stderr.read()
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"hung: no exit within {timeout} s after SIGINT\n{err}")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, first + out, err


@host_only
@pytest.mark.parametrize("grid", [1, 8], ids=["inline", "pool"])
def test_ctrl_c_cancels_an_endless_raw_kernel_and_the_backend_goes_on(grid, tmp_path):
    rc, out, err = interrupt_child(SPIN_RAW, grid, tmp_path)
    assert rc == 0, err
    assert out.split("\n")[1:] == ["interrupted", f"after {5 * grid * 32}", ""], out + err


@host_only
def test_ctrl_c_ends_an_endless_jit_kernel_with_keyboard_interrupt(tmp_path):
    rc, out, err = interrupt_child(SPIN_JIT, 4, tmp_path)
    assert rc != 0 and "completed" not in out, out + err
    assert "KeyboardInterrupt" in err, err


@host_only
def test_watchdog_times_a_launch_out_and_the_backend_goes_on():
    code = SPIN_RAW.replace("GRID", "4")
    out = run_isolated(code, timeout=120, env={"KILN_HOST_KERNEL_TIMEOUT": "0.5"})
    lines = out.split("\n")
    assert lines[0] == "launching", out
    assert "kernel 'spin' failed: the launch timed out and was terminated" in lines[1], out
    assert "KILN_HOST_KERNEL_TIMEOUT=0.5" in lines[1], out
    assert lines[2] == f"after {5 * 4 * 32}", out


@host_only
def test_watchdog_applies_to_a_launch_from_another_thread():
    # Ctrl-C reaches the main thread only; the watchdog watches every launch.
    body = SPIN_RAW.replace("GRID", "2")
    code = ("import threading\ndef body():\n" + textwrap.indent(body, "    ") +
            "\nt = threading.Thread(target=body)\nt.start()\nt.join()\n")
    out = run_isolated(code, timeout=120, env={"KILN_HOST_KERNEL_TIMEOUT": "0.5"})
    assert "the launch timed out and was terminated" in out and f"after {5 * 2 * 32}" in out, out


@host_only
@pytest.mark.parametrize("value", ["-1", "soon", "nan"])
def test_a_malformed_watchdog_value_is_a_clear_error(value):
    code = """
    import kiln
    k = kiln.RawKernel('extern "C" __global__ void one(int* x) { x[0] = 1; }', "one")
    x = kiln.zeros(1, dtype=kiln.int32)
    try:
        k((1,), (1,), (x,))
    except ValueError as e:
        print(e)
    """
    out = run_isolated(code, timeout=120, env={"KILN_HOST_KERNEL_TIMEOUT": value})
    assert out.strip() == ("KILN_HOST_KERNEL_TIMEOUT must be a number of seconds >= 0 (0: no limit), "
                           f"got '{value}'")


@host_only
def test_a_barrier_deadlock_is_still_reported_as_one():
    code = """
    import kiln
    k = kiln.RawKernel('''
    extern "C" __global__ void stuck(int* x) {
      if (threadIdx.x == 0) __syncthreads(); else __syncwarp();
      x[threadIdx.x] = 1;
    }''', "stuck")
    x = kiln.zeros(64, dtype=kiln.int32)
    try:
        k((1,), (64,), (x,))
    except kiln.cuda.LaunchError as e:
        print(e)
    """
    out = run_isolated(code, timeout=120, env={"KILN_HOST_KERNEL_TIMEOUT": "30"})
    assert "kernel 'stuck' failed" in out and "deadlock" in out, out


# ----------------------------------------------------------------------------
# aliasing: out= overlapping an input, and writes through read-only views

# --- kernels slice (issue 21 item 8): out= overlapping an input ---
# Every function taking out= reads its inputs as they were before the call,
# as NumPy's ufuncs do: the expected values are NumPy's on copies of the
# inputs (NumPy's own concatenate, stack and ptp write piece by piece, so
# there its result depends on the order it copies in).

def _aliasing_case(name):
    """(make(xp) -> the base array, call(xp, base)): the call writes into the base."""
    a10 = lambda xp: xp.arange(10.0) * 1.2345 - 3.0
    m44 = lambda xp: xp.arange(16.0).reshape(4, 4) * 0.5 - 2.0
    cases = {
        # the issue's two cases
        "clip-reversed": (a10, lambda xp, a: xp.clip(a, -1, 5, out=a[::-1])),
        "round-shifted": (a10, lambda xp, a: xp.round(a[:-1], 2, out=a[1:])),
        "around-reversed": (a10, lambda xp, a: xp.around(a, 1, out=a[::-1])),
        "round-method-shifted": (a10, lambda xp, a: a[1:].round(1, out=a[:-1])),
        "clip-method-shifted": (a10, lambda xp, a: a[:-1].clip(0, 4, out=a[1:])),
        "clip-transposed": (m44, lambda xp, a: xp.clip(a, -1, 3, out=a.T)),
        "clip-broadcast-row": (m44, lambda xp, a: xp.clip(a[:1], -1, 0, out=a)),
        "clip-array-bounds": (m44, lambda xp, a: xp.clip(a, a[::-1], a[::-1] + 1, out=a)),
        "round-negative-decimals": (lambda xp: xp.arange(10) * 37.0, lambda xp, a: xp.round(a[:-1], -1, out=a[1:])),
        # ufuncs: a broadcast input at the output's own offset
        "add-broadcast-row": (m44, lambda xp, a: xp.add(a[:1], 1, out=a)),
        "multiply-broadcast-column": (m44, lambda xp, a: xp.multiply(a[:, :1], 2, out=a)),
        "fix-reversed": (a10, lambda xp, a: xp.fix(a, out=a[::-1])),
        # scans, reductions, products, indexing
        "cumsum-reversed": (a10, lambda xp, a: xp.cumsum(a, out=a[::-1])),
        "cumsum-axis0-transposed": (m44, lambda xp, a: xp.cumsum(a, axis=0, out=a.T)),
        "sum-into-row": (m44, lambda xp, a: xp.sum(a, axis=0, out=a[0])),
        "mean-into-column": (m44, lambda xp, a: xp.mean(a, axis=1, out=a[:, 2])),
        "var-into-row": (m44, lambda xp, a: xp.var(a, axis=0, out=a[3])),
        "max-into-row": (m44, lambda xp, a: xp.max(a, axis=1, out=a[1])),
        "ptp-into-row": (m44, lambda xp, a: xp.ptp(a, axis=0, out=a[0])),
        "median-into-row": (m44, lambda xp, a: xp.median(a, axis=0, out=a[0])),
        "matmul-same": (m44, lambda xp, a: xp.matmul(a, a, out=a)),
        "dot-same": (m44, lambda xp, a: xp.dot(a, a, out=a)),
        "einsum-transpose": (m44, lambda xp, a: xp.einsum("ij->ji", a, out=a)),
        "take-reversed": (a10, lambda xp, a: xp.take(a, xp.arange(10)[::-1] % 7, out=a)),
        "choose-same": (m44, lambda xp, a: xp.choose(xp.asarray([[0, 1, 0, 1]] * 4), [a, a[::-1]], out=a)),
        "compress-rows": (m44, lambda xp, a: xp.compress([True, False, True, True, False, True, False, True], a.reshape(8, 2), axis=0, out=a.reshape(8, 2)[3:8])),
        "concatenate-rotated": (m44, lambda xp, a: xp.concatenate([a[2:], a[:2]], out=a)),
        "stack-columns": (m44, lambda xp, a: xp.stack([a[:, 3], a[:, 2], a[:, 1], a[:, 0]], out=a)),
    }
    return cases[name]


_ALIASING = ["clip-reversed", "round-shifted", "around-reversed", "round-method-shifted", "clip-method-shifted",
             "clip-transposed", "clip-broadcast-row", "clip-array-bounds", "round-negative-decimals",
             "add-broadcast-row", "multiply-broadcast-column", "fix-reversed", "cumsum-reversed",
             "cumsum-axis0-transposed", "sum-into-row", "mean-into-column", "var-into-row", "max-into-row",
             "ptp-into-row", "median-into-row", "matmul-same", "dot-same", "einsum-transpose", "take-reversed",
             "choose-same", "compress-rows", "concatenate-rotated", "stack-columns"]


class _DetachedNumpy:
    """numpy, with every array argument except out= copied before the call:
    what a call gives when it reads all its inputs before writing out=."""

    def __getattr__(self, name):
        f = getattr(numpy, name)

        def detach(v):
            if isinstance(v, numpy.ndarray):
                return v.copy()
            return [detach(x) for x in v] if isinstance(v, list) else v

        def run(*args, **kwargs):
            return f(*[detach(v) for v in args], **{k: v if k == "out" else detach(v) for k, v in kwargs.items()})
        return run


@pytest.mark.parametrize("name", _ALIASING)
def test_out_overlapping_an_input_reads_the_inputs_first(name):
    make, call = _aliasing_case(name)
    base = make(numpy)
    call(_DetachedNumpy(), base)
    a = make(kiln)
    call(kiln, a)
    numpy.testing.assert_allclose(kiln.asnumpy(a), base, rtol=1e-12, atol=1e-12)


def test_clip_and_round_out_overlap_issue_examples():
    a = kiln.arange(10.0)
    kiln.clip(a, 2, 7, out=a[::-1])
    assert a.tolist() == [7, 7, 7, 6, 5, 4, 3, 2, 2, 2]
    b = kiln.arange(10.0) * 1.2345
    kiln.round(b[:-1], 2, out=b[1:])
    assert b.tolist() == [0.0] + numpy.round(numpy.arange(9.0) * 1.2345, 2).tolist()


def test_elementwise_kernel_output_overlapping_an_input():
    k = kiln.ElementwiseKernel("T x", "T y", "y = x * 2", "hostile_double")
    a = kiln.arange(10.0)
    k(a[:-1], a[1:])
    assert a.tolist() == [0.0] + [2.0 * v for v in range(9)]
    b = kiln.arange(10.0)
    k(b, b[::-1])
    assert b.tolist() == [2.0 * v for v in range(10)][::-1]
    c = kiln.arange(4.0)
    k(c, c)                                    # the very same view: in place
    assert c.tolist() == [0.0, 2.0, 4.0, 6.0]


# --- read-only views (item 11; Note [Read-only arrays] in arraycore/ndarray.h) ---
# broadcast_to returns a read-only view, as NumPy's (CuPy's is writable): every
# write path raises NumPy's ValueError and leaves the base untouched.
def _readonly_view():
    a = kiln.arange(3, dtype=kiln.float64) + 1
    return a, kiln.broadcast_to(a, (4, 3))


def _iadd(b):
    b += 1


_READONLY_WRITES = {
    "iadd": (_iadd, "output array is read-only"),
    "setitem": (lambda b: b.__setitem__(0, 7), "assignment destination is read-only"),
    "setitem_slice_view": (lambda b: b[1:].__setitem__(0, 7), "assignment destination is read-only"),
    "setitem_fancy": (lambda b: b.__setitem__(kiln.asarray([0]), 7), "assignment destination is read-only"),
    "setitem_mask": (lambda b: b.__setitem__(b > 0, 7), "assignment destination is read-only"),
    "fill": (lambda b: b.fill(7), "assignment destination is read-only"),
    "ufunc_out": (lambda b: kiln.add(1.0, 1.0, out=b), "output array is read-only"),
    "copyto": (lambda b: kiln.copyto(b, 7.0), "assignment destination is read-only"),
    "transpose_view": (lambda b: b.T.__setitem__(0, 7), "assignment destination is read-only"),
    "reshape_view": (lambda b: b[0].reshape(3, 1).fill(7), "assignment destination is read-only"),
    "sum_out": (lambda b: kiln.sum(kiln.ones((2, 3)), axis=0, out=b[0]), "output array is read-only"),
    "cumsum_out": (lambda b: kiln.cumsum(kiln.ones((4, 3)), axis=0, out=b), "output array is read-only"),
    "elementwise_kernel_out": (lambda b: kiln.ElementwiseKernel("T x", "T y", "y = x", "hostile_ro")(
        kiln.ones((4, 3)), b), "output array is read-only"),
    "put": (lambda b: kiln.put(b, kiln.asarray([0]), 7.0), "read-only"),
    "ufunc_at": (lambda b: kiln.add.at(b, kiln.asarray([0]), 1.0), "iterator write flag set is read-only"),
    "sort_in_place": (lambda b: b.sort(), "sort array is read-only"),
    "clip_out": (lambda b: kiln.clip(kiln.ones((4, 3)), 0, 1, out=b), "output array is read-only"),
    "matmul_out": (lambda b: kiln.matmul(kiln.ones((4, 2)), kiln.ones((2, 3)), out=b), "read-only"),
}


@pytest.mark.parametrize("name", sorted(_READONLY_WRITES))
def test_write_through_broadcast_view_raises(name):
    write, message = _READONLY_WRITES[name]
    a, b = _readonly_view()
    with pytest.raises(ValueError, match=message):
        write(b)
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_broadcast_view_flags():
    a, b = _readonly_view()
    assert a.flags.writeable and not b.flags.writeable and not b.flags["WRITEABLE"]
    assert not b[1:].flags.writeable and not b.T.flags.writeable and not b.view(kiln.int64).flags.writeable
    assert b.copy().flags.writeable and b.astype(kiln.float32).flags.writeable
    # NumPy 2 lets a broadcast_to view be made writeable (its base is); a view
    # of an array made read-only by hand cannot be.
    b.flags.writeable = True
    b[0, 0] = 5
    assert a.tolist() == [5.0, 2.0, 3.0]
    a.flags.writeable = False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        a[0] = 1
    v = a[1:]
    assert not v.flags.writeable
    with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True of this array"):
        v.flags.writeable = True
    a.flags.writeable = True
    a[0] = 1
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_broadcast_arrays_stay_writable_as_numpy2():
    x, y = kiln.broadcast_arrays(kiln.ones(3), kiln.ones((2, 3)))
    hx, hy = numpy.broadcast_arrays(numpy.ones(3), numpy.ones((2, 3)))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (x.flags.writeable, y.flags.writeable) == (hx.flags.writeable, hy.flags.writeable)


def test_readonly_result_reads_fine():
    a, b = _readonly_view()
    assert (b + 1).tolist() == [[2.0, 3.0, 4.0]] * 4
    assert float(b.sum()) == 24.0
# --- end of read-only views ---

# ----------------------------------------------------------------------------
# scalars: Python scalars that do not fit the array's dtype (NumPy 2's rules)

# Note [Assigned host values] (pyfrontend/ndarray_binding.cpp): every case is
# compared with NumPy 2 itself (exception type and message, or values).
def _setitem(a, key, value):
    a[key] = value
    return a


_SCALAR_CASES = {
    "setitem_300_int8": (lambda m: _setitem(m.zeros(3, m.int8), 0, 300)),
    "setitem_minus129_int8": (lambda m: _setitem(m.zeros(3, m.int8), 0, -129)),
    "setitem_minus1_uint8": (lambda m: _setitem(m.zeros(3, m.uint8), 1, -1)),
    "setitem_slice_300": (lambda m: _setitem(m.zeros(3, m.int8), slice(None), 300)),
    "setitem_fancy_300": (lambda m: _setitem(m.zeros(3, m.int8), m.asarray([0, 1]), 300)),
    "setitem_mask_300": (lambda m: _setitem(m.zeros(3, m.int8), m.asarray([True, False, True]), 300)),
    "setitem_list_300": (lambda m: _setitem(m.zeros(3, m.int8), slice(0, 2), [300, 1])),
    "setitem_numpy_int64_300": (lambda m: _setitem(m.zeros(3, m.int8), 0, numpy.int64(300))),
    "setitem_float_300": (lambda m: _setitem(m.zeros(3, m.int8), 0, 300.0)),
    "setitem_float_truncates": (lambda m: _setitem(m.zeros(3, m.int8), 0, 3.7)),
    "setitem_numpy_array_wraps": (lambda m: _setitem(m.zeros(3, m.int8), slice(None), numpy.array([300, 1, 2]))),
    "setitem_nan_int64": (lambda m: _setitem(m.zeros(3, m.int64), 0, float("nan"))),
    "setitem_inf_int64": (lambda m: _setitem(m.zeros(3, m.int64), 0, float("inf"))),
    "setitem_complex_float64": (lambda m: _setitem(m.zeros(3), 0, 1j)),
    "setitem_complex_int8": (lambda m: _setitem(m.zeros(3, m.int8), 0, 1j)),
    "setitem_300_bool": (lambda m: _setitem(m.zeros(3, m.bool_), 0, 300)),
    "fill_300": (lambda m: m.zeros(3, m.int8).fill(300)),
    "fill_nan": (lambda m: m.zeros(3, m.int64).fill(float("nan"))),
    "fill_complex": (lambda m: m.zeros(3).fill(1j)),
    "full_300": (lambda m: m.full(2, 300, dtype=m.int8)),
    "full_list_wraps": (lambda m: m.full(2, numpy.array([300, 1]), dtype=m.int8)),
    "full_like_300": (lambda m: m.full_like(m.zeros(2, m.int8), 300)),
    "put_300": (lambda m: m.put(m.zeros(3, m.int8), m.asarray([0]), 300)),
    "place_300": (lambda m: m.place(m.zeros(3, m.int8), m.asarray([True, False, False]), 300)),
    "copyto_300": (lambda m: m.copyto(m.zeros(3, m.int8), 300)),
    "arange_start_300": (lambda m: m.arange(300, 302, dtype=m.int8)),
    "arange_start_minus1_uint8": (lambda m: m.arange(-1, 5, dtype=m.uint8)),
    "ufunc_add_300": (lambda m: m.add(m.asarray(numpy.int8([1])), 300)),
    "operator_add_300": (lambda m: m.zeros(3, m.int8) + 300),
    "ufunc_maximum_300": (lambda m: m.maximum(m.zeros(3, m.int8), 300)),
    "ufunc_compare_300": (lambda m: m.zeros(3, m.int8) < 300),
    "ufunc_uint8_plus_minus1": (lambda m: m.zeros(3, m.uint8) + (-1)),
    "clip_bound_300": (lambda m: m.clip(m.zeros(3, m.int8), -300, 300)),
}


def _outcome(f, module):
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(module)
    except Exception as e:
        return type(e).__name__, str(e)
    if r is None:
        return "ok", None
    return "ok", (r.get() if isinstance(r, kiln.ndarray) else r).tolist()


@pytest.mark.parametrize("name", sorted(_SCALAR_CASES))
def test_python_scalar_conversion_is_numpys(name):
    f = _SCALAR_CASES[name]
    assert _outcome(f, kiln) == _outcome(f, numpy)


def test_setitem_out_of_range_messages():
    a = kiln.zeros(3, kiln.int8)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        a[0] = 300
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        a.fill(300)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        kiln.full(2, 300, dtype=kiln.int8)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        kiln.zeros(2, kiln.int64)[0] = float("nan")
    with pytest.raises(TypeError, match="not 'complex'"):
        kiln.zeros(2)[0] = 1j
    assert a.tolist() == [0, 0, 0], "nothing written"


def test_where_with_a_python_int_out_of_range():
    # NumPy 2.5 raises here (2.4 wrapped 300 to 44): the issue asks for NumPy 2's
    # rule wherever a Python scalar is converted, so this is pinned, not
    # compared with whichever NumPy is installed.
    c = kiln.asarray([True, False, True])
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        kiln.where(c, kiln.zeros(3, kiln.int8), 300)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        kiln.where(c, -1, kiln.zeros(3, kiln.uint8))
    assert kiln.where(c, kiln.zeros(3, kiln.int8), 100).tolist() == [0, 100, 0]
    assert kiln.where(c, kiln.zeros(3, kiln.int8), 2.5).dtype == kiln.float64


def test_kernel_scalar_arguments_out_of_range():
    k = kiln.ElementwiseKernel("T x, int8 y", "T z", "z = x + y", "hostile_scalar_arg")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        k(kiln.zeros(3, kiln.int8), 300)
    r = kiln.ReductionKernel("T x, int8 y", "T z", "x + y", "a + b", "z = a", "0", "hostile_scalar_red")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        r(kiln.zeros(3, kiln.int8), 300)
