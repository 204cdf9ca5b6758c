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
    "where_300_wraps": (lambda m: m.where(m.asarray([True, False, True]), m.zeros(3, m.int8), 300)),
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


def test_kernel_scalar_arguments_out_of_range():
    k = kiln.ElementwiseKernel("T x, int8 y", "T z", "z = x + y", "hostile_scalar_arg")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        k(kiln.zeros(3, kiln.int8), 300)
    r = kiln.ReductionKernel("T x, int8 y", "T z", "x + y", "a + b", "z = a", "0", "hostile_scalar_red")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        r(kiln.zeros(3, kiln.int8), 300)
