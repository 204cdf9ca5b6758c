"""choose and select against NumPy: dtypes of the choices (and their common
type, Python scalars weak), broadcasting, layouts, the three modes of
choose, out=, and NumPy's errors. Results are exact."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, assert_same_bits, make, name


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_choose(rng, dtype, layout):
    k0, h0 = make(rng, layout, dtype)
    k1, h1 = make(rng, layout, dtype)
    idx = rng.integers(0, 3, h0.shape)
    ki = kiln.asarray(idx)
    assert_same_bits(kiln.choose(ki, [k0, k1, 7]).get(), numpy.choose(idx, [h0, h1, 7]))
    if numpy.dtype(dtype) in (numpy.int8, numpy.float32, numpy.complex128):
        wild = (idx * 5 - 4).astype(numpy.int8)
        for mode in ("wrap", "clip"):
            assert_same_bits(kiln.choose(kiln.asarray(wild), [k0, k1, 7], mode=mode).get(),
                             numpy.choose(wild, [h0, h1, 7], mode=mode))


def test_choose_broadcast_dtypes_out(rng):
    idx = rng.integers(0, 2, (4, 1)).astype(numpy.uint8)
    c0 = numpy.arange(5, dtype=numpy.int8)
    c1 = rng.standard_normal((4, 5)).astype(numpy.float32)
    kc = [kiln.asarray(c0), kiln.asarray(c1)]
    assert_same_bits(kiln.choose(kiln.asarray(idx), kc).get(), numpy.choose(idx, [c0, c1]))
    assert_same_bits(kiln.choose(kiln.asarray(idx), [kc[0], 500]).get(), numpy.choose(idx, [c0, 500]))
    stacked = rng.integers(0, 9, (3, 4, 5))
    i3 = rng.integers(0, 3, (4, 5))
    assert_same_bits(kiln.choose(kiln.asarray(i3), kiln.asarray(stacked)).get(), numpy.choose(i3, stacked))
    assert_same_bits(kiln.choose(kiln.asarray(numpy.int64(1)), kc).get(), numpy.choose(1, [c0, c1]))
    assert_same_bits(kiln.asarray(idx).choose(kc, mode="clip").get(), idx.choose([c0, c1], mode="clip"))
    out = kiln.empty((4, 5), numpy.float64)
    assert kiln.choose(kiln.asarray(idx), kc, out=out) is out
    assert_same_bits(out.get(), numpy.choose(idx, [c0, c1], out=numpy.empty((4, 5))))
    b = numpy.array([True, False, True])
    assert_same_bits(kiln.choose(kiln.asarray(b), [1, kiln.asarray(c0[:3])]).get(), numpy.choose(b, [1, c0[:3]]))


def test_choose_errors():
    c = [kiln.zeros((3,)), kiln.ones((3,))]
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        kiln.choose(kiln.asarray(numpy.array([0, 1, 2])), c)
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        kiln.choose(kiln.asarray(numpy.array([0, -1, 1])), c, mode="raise")
    with pytest.raises(ValueError, match="clipmode must be one of"):
        kiln.choose(kiln.asarray(numpy.array([0, 1, 1])), c, mode="x")
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        kiln.choose(kiln.ones((3,)), c)
    with pytest.raises(ValueError, match="0-length sequence"):
        kiln.choose(kiln.zeros((3,), numpy.int64), [])
    with pytest.raises(TypeError, match="invalid shape for output array"):
        kiln.choose(kiln.zeros((3,), numpy.int64), c, out=kiln.empty((2,)))
    with pytest.raises(ValueError):
        kiln.choose(kiln.zeros((3,), numpy.int64), [kiln.zeros((2,))])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("layout", ["C", "F", "negative", "0-d", "empty"])
def test_select(rng, dtype, layout):
    k0, h0 = make(rng, layout, dtype)
    k1, h1 = make(rng, layout, dtype)
    c0 = rng.random(h0.shape) < 0.3
    c1 = rng.random(h0.shape) < 0.5
    kc = [kiln.asarray(c0), kiln.asarray(c1)]
    assert_same_bits(kiln.select(kc, [k0, k1], default=k1).get(), numpy.select([c0, c1], [h0, h1], default=h1))


def test_select_rules(rng):
    c = numpy.array([True, False, False])
    x = numpy.array([1, 2, 3], numpy.int8)
    kc, kx = kiln.asarray(c), kiln.asarray(x)
    for default in (0, 1.5, numpy.int16(4), 300):
        assert_same_bits(kiln.select([kc], [kx], default).get(), numpy.select([c], [x], default))
    assert_same_bits(kiln.select([True, kc], [kx, 5]).get(), numpy.select([True, c], [x, 5]))
    u = kiln.asarray(x.astype(numpy.uint8))
    assert_same_bits(kiln.select([kc], [u], -1).get(), numpy.select([c], [x.astype(numpy.uint8)], -1))
    with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
        numpy.select([c], [5], x.astype(numpy.uint8))
    with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
        kiln.select([kc], [5], u)
    row = numpy.array([[True], [False]])
    assert_same_bits(kiln.select([kiln.asarray(row)], [kx], -1).get(), numpy.select([row], [x], -1))
    with pytest.raises(ValueError, match="same length as list of conditions"):
        kiln.select([kc], [])
    with pytest.raises(ValueError, match="empty condition list"):
        kiln.select([], [])
    with pytest.raises(TypeError, match="invalid entry 0 in condlist"):
        kiln.select([kx], [kx])
