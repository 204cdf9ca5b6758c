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
except kiln.cuda.compiler.CompileException as e:
    print("CompileException:", str(e)[:300])
"""


def test_huge_local_array_is_a_stack_overflow_not_a_crash():
    out = run_isolated(HUGE_LOCALS, timeout=180)
    if BACKEND == "host":
        assert "LaunchError:" in out and "stack overflow in kernel" in out, out
    else:  # ptxas refuses a frame beyond the per-thread local memory limit
        assert "LaunchError:" in out or "CompileException:" in out, out


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


# ----------------------------------------------------------------------------
# cache: damaged, hostile or concurrent disk-cache entries


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
    # with "terminate called without an active exception" (rc 134).
    for _ in range(3):
        assert run_isolated(EXIT_DURING_LAUNCH, timeout=120).strip() == "main exits"


# ----------------------------------------------------------------------------
# interrupts: Ctrl-C and the watchdog during a launch


# ----------------------------------------------------------------------------
# aliasing: out= overlapping an input, and writes through read-only views


# ----------------------------------------------------------------------------
# scalars: Python scalars that do not fit the array's dtype (NumPy 2's rules)
