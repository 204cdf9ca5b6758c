"""Index and manipulation helpers against NumPy: diag/tril/triu/mask
indices, delete, append, trim_zeros, block, row_stack, apply_along_axis,
apply_over_axes, piecewise, real_if_close, scatter_add/max/min, the ndarray
methods partition/argpartition/repeat/dot (no ptp method: NumPy 2 removed it), tobytes/tofile/dump(s) and
pickling, with NumPy's errors."""
import io
import pickle

import numpy
import pytest

import kiln
from conftest import LAYOUTS, assert_same_bits, assert_same_values, make, same_error


def check_tuple(got, expected):
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same_bits(g.get(), e)


@pytest.mark.parametrize("n,k,m", [(4, 0, None), (4, -1, 6), (3, 2, 2), (0, 0, None)])
def test_triangle_and_mask_indices(n, k, m):
    check_tuple(kiln.tril_indices(n, k, m), numpy.tril_indices(n, k, m))
    check_tuple(kiln.triu_indices(n, k, m), numpy.triu_indices(n, k, m))
    a = numpy.zeros((n, m if m is not None else n))
    check_tuple(kiln.tril_indices_from(kiln.asarray(a), k), numpy.tril_indices_from(a, k))
    check_tuple(kiln.triu_indices_from(kiln.asarray(a), k), numpy.triu_indices_from(a, k))
    check_tuple(kiln.mask_indices(n, kiln.triu, k), numpy.mask_indices(n, numpy.triu, k))


def test_diag_indices():
    check_tuple(kiln.diag_indices(4, 3), numpy.diag_indices(4, 3))
    a = numpy.zeros((3, 3))
    check_tuple(kiln.diag_indices_from(kiln.asarray(a)), numpy.diag_indices_from(a))
    for bad in (numpy.zeros(3), numpy.zeros((2, 3))):
        same_error(lambda: kiln.diag_indices_from(kiln.asarray(bad)), lambda: numpy.diag_indices_from(bad))
    same_error(lambda: kiln.tril_indices_from(kiln.zeros(3)), lambda: numpy.tril_indices_from(numpy.zeros(3)))


@pytest.mark.parametrize("layout", ["C", "F", "negative"])
@pytest.mark.parametrize("obj,axis", [(1, 0), (-1, 1), (slice(0, None, 2), 1), ([0, 2, 2], None),
                                      (numpy.array([True, False, True, False, False, True]), 0), ([], 0)])
def test_delete(rng, layout, obj, axis):
    k, n = make(rng, layout, numpy.float32)
    assert_same_bits(kiln.delete(k, obj, axis).get(), numpy.delete(n, obj, axis))


def test_delete_errors():
    a = numpy.arange(3)
    for obj in (5, [5], [True], 1.5):
        same_error(lambda: kiln.delete(kiln.asarray(a), obj), lambda: numpy.delete(a, obj))


def test_append_and_row_stack():
    a, b = numpy.arange(6).reshape(2, 3), numpy.ones((1, 3), numpy.float32)
    assert_same_bits(kiln.append(kiln.asarray(a), kiln.asarray(b)).get(), numpy.append(a, b))
    assert_same_bits(kiln.append(kiln.asarray(a), kiln.asarray(b), 0).get(), numpy.append(a, b, 0))
    with pytest.warns(DeprecationWarning):
        got = kiln.row_stack((kiln.asarray(a), kiln.arange(3)))
    assert_same_bits(got.get(), numpy.vstack((a, numpy.arange(3))))


@pytest.mark.parametrize("trim", ["fb", "f", "b", "BF"])
@pytest.mark.parametrize("data", [[0, 0, 1, 0, 2, 0], [0, 0], [3], [[0, 0, 0], [0, 4, 0], [0, 0, 5]]])
def test_trim_zeros(trim, data):
    n = numpy.array(data, numpy.int32)
    assert_same_bits(kiln.trim_zeros(kiln.asarray(n), trim).get(), numpy.trim_zeros(n, trim))
    if n.ndim == 2:
        assert_same_bits(kiln.trim_zeros(kiln.asarray(n), trim, axis=1).get(), numpy.trim_zeros(n, trim, axis=1))
    same_error(lambda: kiln.trim_zeros(kiln.asarray(n), "x"), lambda: numpy.trim_zeros(n, "x"))


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.float16, numpy.bool_], ids=lambda d: numpy.dtype(d).name)
def test_trim_zeros_layouts(rng, dtype):
    n = numpy.asfortranarray(numpy.pad(rng.integers(1, 3, (3, 4)), ((1, 2), (0, 3))).astype(dtype))[:, ::-1]
    assert_same_bits(kiln.trim_zeros(kiln.asarray(n), "b").get(), numpy.trim_zeros(n, "b"))
    assert_same_bits(kiln.trim_zeros(kiln.asarray(n)).get(), numpy.trim_zeros(n))


def test_block():
    a, b = numpy.ones((2, 2)), numpy.zeros((2, 3), numpy.int32)
    c = numpy.arange(5.0)
    ka, kb, kc = map(kiln.asarray, (a, b, c))
    assert_same_bits(kiln.block([[ka, kb], [kc]]).get(), numpy.block([[a, b], [c]]))
    assert_same_bits(kiln.block([ka, kb]).get(), numpy.block([a, b]))
    assert_same_bits(kiln.block([[1, 2], [3, 4]]).get(), numpy.block([[1, 2], [3, 4]]))
    assert_same_bits(kiln.block(kc).get(), numpy.block(c))
    for bad, nbad in (([[ka], kb], [[a], b]), ([], []), ((ka, kb), (a, b)), ([[]], [[]])):
        same_error(lambda: kiln.block(bad), lambda: numpy.block(nbad))


def test_apply_along_axis_and_over_axes():
    n = numpy.arange(24.0).reshape(2, 3, 4)
    k = kiln.asarray(n)
    for axis in (0, 1, -1):
        assert_same_values(kiln.apply_along_axis(lambda v: v * 2, axis, k).get(),
                           numpy.apply_along_axis(lambda v: v * 2, axis, n))
        assert_same_values(kiln.apply_along_axis(lambda v: v.sum(), axis, k).get(),
                           numpy.apply_along_axis(lambda v: v.sum(), axis, n))
        assert_same_values(kiln.apply_along_axis(lambda v: (v.min(), v.max()), axis, k).get(),
                           numpy.apply_along_axis(lambda v: (v.min(), v.max()), axis, n))
        assert_same_values(kiln.apply_along_axis(lambda v: kiln.stack([v, v]), axis, k).get(),
                           numpy.apply_along_axis(lambda v: numpy.stack([v, v]), axis, n))
    same_error(lambda: kiln.apply_along_axis(sum, 0, kiln.zeros((2, 0))),
               lambda: numpy.apply_along_axis(sum, 0, numpy.zeros((2, 0))))
    assert_same_values(kiln.apply_over_axes(kiln.sum, k, [0, 2]).get(), numpy.apply_over_axes(numpy.sum, n, [0, 2]))
    assert_same_values(kiln.apply_over_axes(kiln.sum, k, -1).get(), numpy.apply_over_axes(numpy.sum, n, -1))


def test_piecewise():
    n = numpy.linspace(-2.5, 2.5, 6)
    k = kiln.asarray(n)
    assert_same_values(kiln.piecewise(k, [k < 0, k >= 0], [-1, 1]).get(), numpy.piecewise(n, [n < 0, n >= 0], [-1, 1]))
    assert_same_values(kiln.piecewise(k, [k < 0], [lambda v: -v, lambda v: v * 10]).get(),
                       numpy.piecewise(n, [n < 0], [lambda v: -v, lambda v: v * 10]))
    same_error(lambda: kiln.piecewise(k, [k < 0], [1, 2, 3]), lambda: numpy.piecewise(n, [n < 0], [1, 2, 3]))


def test_real_if_close():
    for n in (numpy.array([1 + 1e-15j, 2]), numpy.array([1 + 1e-3j]), numpy.array([1.0, 2.0], numpy.float32),
              numpy.array([1 + 1e-7j], numpy.complex64)):
        k = kiln.asarray(n)
        assert_same_bits(kiln.real_if_close(k).get(), numpy.real_if_close(n))
    k = kiln.arange(3)
    assert kiln.real_if_close(k) is k


@pytest.mark.parametrize("name", ["add", "maximum", "minimum"])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int32, numpy.uint64], ids=lambda d: numpy.dtype(d).name)
def test_scatter(name, dtype):
    n = numpy.zeros((3, 4), dtype)
    k = kiln.asarray(n)
    index = ([2, 0, 2], slice(None))
    getattr(numpy, name).at(n, index, numpy.arange(4).astype(dtype))
    getattr(kiln, "scatter_" + name[:3])(k, (kiln.asarray([2, 0, 2]), slice(None)), kiln.arange(4, dtype=dtype))
    getattr(k, "scatter_" + name[:3])(([1], 0), 5.0)              # a float value into any dtype, as CuPy's
    getattr(numpy, name).at(n, ([1], 0), numpy.array(5.0).astype(dtype))
    assert_same_bits(k.get(), n)


def test_ndarray_methods_bound_to_functions(rng):
    k, n = make(rng, "F", numpy.float64)
    assert_same_bits(k.argpartition(2, axis=0).get()[2], n.argpartition(2, axis=0)[2])
    assert_same_bits(k.repeat(2, axis=1).get(), n.repeat(2, axis=1))
    numpy.testing.assert_allclose(k.dot(k.T).get(), n.dot(n.T), rtol=1e-13)   # summation order differs
    k.partition(3, axis=1)
    n.partition(3, axis=1)
    assert_same_bits(k.get()[:, 3], n[:, 3])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tobytes_tofile_dumps_pickle(rng, layout, tmp_path):
    k, n = make(rng, layout, numpy.complex64)
    assert k.tobytes() == n.tobytes() and k.tobytes("F") == n.tobytes("F") and bytes(k) == bytes(n)
    for x in (numpy.array(3, numpy.int16), numpy.array(True), numpy.array(2.0)):
        assert bytes(kiln.asarray(x)) == bytes(x)
    k.tofile(tmp_path / "a.bin")
    assert (tmp_path / "a.bin").read_bytes() == n.tobytes()
    for b in (pickle.loads(k.dumps()), pickle.loads(pickle.dumps(k))):
        assert isinstance(b, kiln.ndarray) and (layout != "F" or not b.flags.c_contiguous)
        assert_same_bits(b.get(), n)
    f = io.BytesIO()
    k.dump(f)
    assert_same_bits(pickle.loads(f.getvalue()).get(), n)


def test_ufunc_at_takes_numpy_values():
    n = numpy.zeros((2, 3, 4), numpy.float32)
    k = kiln.asarray(n)
    v = numpy.arange(8).reshape(2, 4)
    numpy.add.at(n, (slice(None), [1, 1]), v)
    kiln.add.at(k, (slice(None), [1, 1]), v)         # uploaded, as CuPy's at does
    assert_same_bits(k.get(), n)
