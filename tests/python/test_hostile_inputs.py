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


# ----------------------------------------------------------------------------
# jit/vectorize: functions the transpiler must reject


# ----------------------------------------------------------------------------
# cache: damaged, hostile or concurrent disk-cache entries


# ----------------------------------------------------------------------------
# threads: launches from several threads, and interpreter exit during a launch


# ----------------------------------------------------------------------------
# interrupts: Ctrl-C and the watchdog during a launch


# ----------------------------------------------------------------------------
# aliasing: out= overlapping an input, and writes through read-only views


# ----------------------------------------------------------------------------
# scalars: Python scalars that do not fit the array's dtype (NumPy 2's rules)
