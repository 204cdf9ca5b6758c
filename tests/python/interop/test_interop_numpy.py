"""NumPy's override protocols on kiln arrays (__array_ufunc__,
__array_function__), __array_namespace__, and the seed's NumPy example."""
import subprocess
import sys

import numpy
import pytest

import kiln
from conftest import random_array

DTYPES = [numpy.float32, numpy.int64]


def test_seed_numpy_sum_returns_a_kiln_array(rng):
    # seeds/000 and 001, "NumPy": numpy.sum of a kiln array is a kiln 0-d array.
    host = rng.standard_normal((1, 2, 3, 4)).astype(numpy.float32)
    arr = kiln.asarray(host)
    result = numpy.sum(arr)
    assert type(result) is kiln.ndarray and result.shape == () and result.dtype == numpy.float32
    numpy.testing.assert_allclose(result.get(), host.sum(), rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ufunc_calls_run_in_kiln(rng, dtype):
    h1, h2 = random_array(rng, (3, 5), dtype), random_array(rng, (3, 5), dtype)
    a, b = kiln.asarray(h1), kiln.asarray(h2)
    for uf, args, hargs in [(numpy.add, (a, b), (h1, h2)), (numpy.negative, (a,), (h1,)),
                            (numpy.maximum, (a, 3), (h1, 3)), (numpy.multiply, (2, b), (2, h2))]:
        got = uf(*args)
        assert type(got) is kiln.ndarray
        numpy.testing.assert_array_equal(got.get(), uf(*hargs))
    got = numpy.divmod(a, b if dtype == numpy.float32 else abs(b) + 1)
    want = numpy.divmod(h1, h2 if dtype == numpy.float32 else abs(h2) + 1)
    assert all(type(g) is kiln.ndarray for g in got)
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(g.get(), w)


def test_ufunc_out_and_keywords(rng):
    h = random_array(rng, (4, 6), numpy.float32)
    a = kiln.asarray(h)
    out = kiln.empty((4, 6), numpy.float64)
    got = numpy.add(a, a, out=out, dtype=numpy.float64)
    assert got is out
    numpy.testing.assert_array_equal(out.get(), numpy.add(h, h, dtype=numpy.float64))
    mask = rng.integers(0, 2, size=(4, 6)).astype(bool)
    out2 = kiln.zeros((4, 6), numpy.float32)
    numpy.multiply(a, 2, out=(out2,), where=kiln.asarray(mask))
    want = numpy.zeros((4, 6), numpy.float32)
    numpy.multiply(h, 2, out=want, where=mask)
    numpy.testing.assert_array_equal(out2.get(), want)


def test_ufunc_methods(rng):
    h = random_array(rng, (4, 6), numpy.int64)
    a = kiln.asarray(h)
    r = numpy.add.reduce(a, axis=1)
    assert type(r) is kiln.ndarray
    numpy.testing.assert_array_equal(r.get(), numpy.add.reduce(h, axis=1))
    out = kiln.empty(6, numpy.int64)
    assert numpy.add.reduce(a, axis=0, out=out) is out
    numpy.testing.assert_array_equal(out.get(), h.sum(axis=0))
    numpy.testing.assert_array_equal(numpy.add.accumulate(a, axis=1).get(), numpy.add.accumulate(h, axis=1))
    o = numpy.multiply.outer(a[0], a[1])
    numpy.testing.assert_array_equal(o.get(), numpy.multiply.outer(h[0], h[1]))
    v = kiln.asarray(h[0].copy())
    w = h[0].copy()
    numpy.add.at(v, [0, 0, 3], 5)
    numpy.add.at(w, [0, 0, 3], 5)
    numpy.testing.assert_array_equal(v.get(), w)


# Note [NumPy method override leak]
# NumPy 2.4 keeps a reference to the operands of a ufunc *method* (reduce,
# accumulate, reduceat, ...) whose __array_ufunc__ raises or returns
# NotImplemented: the array is never freed (the same happens with any class
# overriding ufuncs). So that error runs in a child process here, not to
# leave pool memory in use for the tests that follow in this worker.
def test_ufuncs_and_methods_kiln_lacks_raise_type_error_naming_them():
    code = ("import kiln, numpy\n"
            "try:\n    numpy.bitwise_count.at(kiln.arange(6), [0])\n"
            "except TypeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "kiln does not implement numpy.bitwise_count.at" in out.stdout, out.stdout + out.stderr
    numpy.testing.assert_array_equal(numpy.add.reduceat(kiln.arange(6.0), [0, 2]).get(), [1.0, 14.0])
    a = kiln.arange(6.0)
    with pytest.raises(TypeError, match=r"numpy\.bitwise_count"):   # a ufunc kiln does not have
        numpy.bitwise_count(a.astype(numpy.int32))


def test_host_operands_stay_refused():
    # No implicit upload: a NumPy array next to a kiln array is a TypeError,
    # whichever side of the operator or ufunc it is on.
    a, h = kiln.arange(4.0), numpy.arange(4.0)
    for f in (lambda: numpy.add(a, h), lambda: h + a, lambda: a + h):
        with pytest.raises(TypeError, match="kiln.asarray"):
            f()
    assert type(numpy.float64(2) * a) is kiln.ndarray


def test_numpy_scalars_compare_with_kiln_arrays(rng):
    # NumPy's scalar comparisons hand __array_ufunc__ the scalar as a 0-d NumPy
    # array (Note [NumPy scalars compared with kiln arrays]); it acts as the scalar.
    h = random_array(rng, (2, 3), numpy.int8)
    a = kiln.asarray(h)
    for s in (numpy.int16(3), numpy.float32(-1.5), numpy.uint8(200)):
        for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
            got, expected = getattr(s, op)(a), getattr(s, op)(h)
            assert type(got) is kiln.ndarray
            numpy.testing.assert_array_equal(got.get(), expected)
    got = numpy.add(numpy.array(100, numpy.int16), a)   # a 0-d NumPy array: strong, as the scalar
    assert got.dtype == numpy.int16
    numpy.testing.assert_array_equal(got.get(), numpy.add(numpy.array(100, numpy.int16), h))


@pytest.mark.parametrize("dtype", DTYPES)
def test_functions_dispatch_to_kiln(rng, dtype):
    h = random_array(rng, (5, 4), dtype)
    a = kiln.asarray(h)
    cases = [
        (lambda m, x: m.argmax(x), None),
        (lambda m, x: m.sum(x, axis=0), None),
        (lambda m, x: m.concatenate([x, x[:2]], axis=0), None),
        (lambda m, x: m.transpose(x), None),
        (lambda m, x: m.cumsum(x, axis=1), None),
        (lambda m, x: m.where(x > 0, x, 0), None),
        (lambda m, x: m.sort(x, axis=0), None),
        (lambda m, x: m.max(x, axis=1, keepdims=True), None),
        (lambda m, x: m.stack([x, x]), None),
    ]
    for f, _ in cases:
        got, want = f(numpy, a), f(numpy, h)
        assert type(got) is kiln.ndarray
        numpy.testing.assert_array_equal(got.get(), want)
    assert numpy.shape(a) == (5, 4) and numpy.ndim(a) == 2 and numpy.result_type(a, 1.0) == numpy.result_type(h, 1.0)


def test_like_creates_kiln_arrays():
    a = kiln.zeros(2)
    z = numpy.zeros((2, 3), like=a)
    assert type(z) is kiln.ndarray and z.shape == (2, 3)
    x = numpy.asarray([1, 2, 3], like=a)
    assert type(x) is kiln.ndarray and x.get().tolist() == [1, 2, 3]


def test_functions_kiln_lacks_raise_type_error_naming_them():
    a = kiln.ones((3, 3))
    with pytest.raises(TypeError, match=r"numpy\.linalg\.multi_dot"):    # kiln.linalg has matmul, not multi_dot
        numpy.linalg.multi_dot([a, a, a])
    with pytest.raises(TypeError, match=r"numpy\.\w*\.?insert"):     # kiln has delete and append, not insert
        numpy.insert(a, 0, 1.0)
    assert numpy.shares_memory(a, a) is True   # kiln has it now: dispatched to kiln.shares_memory


def test_dispatch_goes_through_tables():
    from kiln import _interop_numpy
    numpy.sum(kiln.zeros(1))
    table = _interop_numpy._functions()
    assert table[numpy.sum] is kiln.sum and table[numpy.concatenate] is kiln.concatenate
    assert _interop_numpy._UFUNCS[numpy.sin] is kiln.sin and _interop_numpy._UFUNCS[numpy.abs] is kiln.absolute
    assert _interop_numpy._functions() is table


class _Foreign:
    """A third library's array type that also overrides NumPy: kiln defers to it."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ("foreign", ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        return ("foreign", func.__name__)


def test_other_libraries_overrides_get_their_turn():
    a, f = kiln.zeros(2), _Foreign()
    assert numpy.add(a, f) == ("foreign", "add")
    assert numpy.concatenate([a, f]) == ("foreign", "concatenate")
    assert kiln.ndarray.__array_function__(a, numpy.concatenate, (kiln.ndarray, _Foreign), ([a, f],), {}) \
        is NotImplemented


def test_array_namespace():
    a = kiln.zeros(2)
    xp = a.__array_namespace__()
    assert xp is kiln and a.__array_namespace__(api_version="2023.12") is kiln
    with pytest.raises(ValueError, match="1999.01"):
        a.__array_namespace__(api_version="1999.01")
    for dtype in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float32", "float64", "complex64", "complex128"):
        assert numpy.dtype(getattr(xp, dtype)) == numpy.dtype(dtype)
    x = xp.asarray([1.0, 4.0, 9.0])
    numpy.testing.assert_array_equal(xp.asnumpy(xp.sqrt(x)), [1.0, 2.0, 3.0])


def test_array_namespace_info():
    info = kiln.zeros(1).__array_namespace__().__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 32}
    dev = info.default_device()
    assert dev == kiln.zeros(1).device and dev in info.devices()
    assert info.default_dtypes() == {"real floating": numpy.float64, "complex floating": numpy.complex128,
                                     "integral": numpy.int64, "indexing": numpy.int64}
    assert info.default_dtypes(device=dev) == info.default_dtypes()
    every = info.dtypes()
    assert list(every) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float32", "float64", "complex64", "complex128"]
    assert all(every[name] == numpy.dtype(name) for name in every)
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex64", "complex128"]
    assert list(info.dtypes(kind="integral")) == ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                                  "uint64"]
    assert len(info.dtypes(kind="numeric")) == 12 and len(info.dtypes(kind=("numeric", "integral"))) == 12
    for kind, dtypes in [(k, info.dtypes(kind=k)) for k in ("bool", "signed integer", "unsigned integer",
                                                            "real floating", "complex floating")]:
        assert all(numpy.isdtype(d, kind) for d in dtypes.values())   # NumPy's reading of the same kinds
    with pytest.raises(ValueError, match="unknown dtype kind 'float'"):
        info.dtypes(kind="float")
    with pytest.raises(ValueError, match="is not a device"):
        info.dtypes(device="cpu")
    # every dtype it names makes arrays
    for name, dtype in every.items():
        assert kiln.zeros(2, dtype=dtype).dtype == dtype


def test_no_host_interfaces_on_kiln_arrays():
    a = kiln.zeros(3)
    assert not hasattr(a, "__array_interface__")
    if kiln.get_backend() != "cuda":
        assert not hasattr(a, "__cuda_array_interface__")
        with pytest.raises(AttributeError, match="asnumpy"):
            a.__cuda_array_interface__
    with pytest.raises(TypeError, match="asnumpy"):
        numpy.asarray(a)


def test_array_api_names(rng):
    xp = kiln
    h = random_array(rng, (2, 3, 4), numpy.float32)
    x = xp.asarray(h)
    assert xp.acos is xp.arccos and xp.pow is xp.power and xp.bitwise_invert is xp.invert
    assert xp.bitwise_left_shift is xp.left_shift and xp.atan2 is xp.arctan2
    numpy.testing.assert_array_equal(xp.concat([x, x], axis=1).get(), numpy.concat([h, h], axis=1))
    numpy.testing.assert_array_equal(xp.concat([x, x[0]], axis=None).get(), numpy.concat([h, h[0]], axis=None))
    p = xp.permute_dims(x, (2, 0, 1))
    assert p.data.ptr == x.data.ptr
    numpy.testing.assert_array_equal(p.get(), numpy.permute_dims(h, (2, 0, 1)))
    numpy.testing.assert_array_equal(xp.matrix_transpose(x).get(), numpy.matrix_transpose(h))
    parts = xp.unstack(x, axis=1)
    assert len(parts) == 3
    for got, want in zip(parts, numpy.unstack(h, axis=1)):
        numpy.testing.assert_array_equal(got.get(), want)
    c = xp.astype(x, xp.int32)
    assert c.dtype == numpy.int32 and xp.astype(x, xp.float32, copy=False) is x
    assert xp.isdtype(xp.float32, "real floating") and xp.finfo(xp.float32).eps == numpy.finfo(numpy.float32).eps
    assert xp.bool is numpy.bool_ and xp.zeros(2, dtype=xp.bool).dtype == numpy.bool_


def test_to_device():
    a = kiln.arange(3)
    assert a.to_device(a.device) is a and a.to_device(a.device.id) is a
    with pytest.raises(ValueError, match="does not exist"):
        a.to_device(kiln.cuda.runtime.getDeviceCount())
