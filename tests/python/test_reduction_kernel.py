"""kiln.ReductionKernel (kiln/_reduction_kernel.py): the seeds' l2norm example,
type placeholders, several broadcast inputs, scalars, axis/keepdims/out=,
reduce_type, preamble, _j, and the errors."""
import numpy
import pytest

import kiln
from conftest import LAYOUTS, make

L2NORM = kiln.ReductionKernel(
    'T x',  # input params
    'T y',  # output params
    'x * x',  # map
    'a + b',  # reduce
    'y = sqrt(a)',  # post-reduction map
    '0',  # identity value
    'l2norm'  # kernel name
)


def test_seed_l2norm():
    # seeds/003: the output printed there, exactly.
    x = kiln.arange(10, dtype=numpy.float32).reshape(2, 5)
    assert repr(L2NORM(x, axis=1)) == "array([ 5.477226 , 15.9687195], dtype=float32)"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_l2norm_layouts_axes(rng, dtype, layout):
    k, x = make(rng, layout, dtype)
    axes = [None, 0, 1, -1, (0, 1), ()] if x.ndim == 2 else [None, ()]
    for axis in axes:
        for keepdims in (False, True):
            got = L2NORM(k, axis=axis, keepdims=keepdims)
            expected = numpy.sqrt(numpy.sum(x.astype(numpy.float64) ** 2, axis=axis, keepdims=keepdims))
            assert isinstance(got, kiln.ndarray) and got.dtype == dtype and got.shape == expected.shape
            # a sum of n squares: depth n - 1 (Note [Reduction rounding]) + the squares + sqrt
            n = max(x.size // max(expected.size, 1), 1)
            u = numpy.finfo(dtype).eps / 2
            assert numpy.all(numpy.abs(got.get() - expected) <= 1.01 * (n + 2) * u * expected)


def test_placeholders_broadcast_scalars_out(rng):
    dot = kiln.ReductionKernel('T x, T y, S s', 'U z', 'x * y * s', 'a + b', 'z = a', '0', 'scaled_dot')
    x = rng.standard_normal((4, 5))
    y = rng.standard_normal((5,))
    out = kiln.zeros((4,), numpy.float32)
    got = dot(kiln.asarray(x), kiln.asarray(y), 2, out=out, axis=1)
    assert got is out
    numpy.testing.assert_allclose(out.get(), (x * y * 2).sum(axis=1).astype(numpy.float32), rtol=1e-6)
    z = kiln.zeros((1, 5))
    dot(kiln.asarray(x), kiln.asarray(y), numpy.int8(3), z, axis=0, keepdims=True)   # output positional
    numpy.testing.assert_allclose(z.get(), (x * y * 3).sum(axis=0, keepdims=True), rtol=1e-12)
    with pytest.raises(TypeError, match="output type can't be determined"):
        dot(kiln.asarray(x), kiln.asarray(y), 2)
    with pytest.raises(TypeError, match="type mismatch"):
        dot(kiln.asarray(x), kiln.asarray(y.astype(numpy.float32)), 2, out=out, axis=1)


def test_reduce_type_preamble_and_index(rng):
    # int8 values summed in int64 (reduce_type), a preamble function, and an
    # argmax through _j with a two-sided identity.
    total = kiln.ReductionKernel('int8 x', 'int64 y', 'twice(x)', 'a + b', 'y = a', '0', 'twice_sum',
                                 reduce_type='int64', preamble='KILN_DEVICE long long twice(signed char v) '
                                                                '{ return 2 * (long long)v; }')
    x = rng.integers(-128, 128, (300, 7)).astype(numpy.int8)
    numpy.testing.assert_array_equal(total(kiln.asarray(x), axis=0).get(), 2 * x.astype(numpy.int64).sum(axis=0))
    last_max = kiln.ReductionKernel('T x', 'int64 y', '_j', '(a < 0 || (b >= 0 && b > a)) ? b : a',
                                    'y = a', '-1', 'last_index', reduce_type='int64')
    assert last_max(kiln.asarray(x), axis=0).get().tolist() == [299] * 7
    assert last_max(kiln.asarray(x)).get() == x.size - 1


def test_empty_and_errors():
    x = kiln.zeros((0, 3), numpy.float32)
    numpy.testing.assert_array_equal(L2NORM(x, axis=0).get(), numpy.zeros(3, numpy.float32))
    assert L2NORM(x, axis=1).shape == (0,)
    with pytest.raises(numpy.exceptions.AxisError):
        L2NORM(x, axis=2)
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        L2NORM()
    with pytest.raises(TypeError, match="NumPy array"):
        L2NORM(numpy.zeros(3))
    with pytest.raises(ValueError, match="out has shape"):
        L2NORM(kiln.zeros((2, 3)), axis=0, out=kiln.zeros((2,)))
    with pytest.raises(ValueError, match="Invalid kernel name"):
        kiln.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'bad name')
    with pytest.raises(ValueError, match="syntax error"):
        kiln.ReductionKernel('T', 'T y', 'x', 'a + b', 'y = a', '0')
    with pytest.raises(ValueError, match="reserved"):
        kiln.ReductionKernel('T a', 'T y', 'a', 'a + b', 'y = a', '0')
    with pytest.raises(TypeError, match="unknown reduce_type"):
        kiln.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', reduce_type='mystruct')(kiln.zeros(3))
    assert repr(L2NORM) == "<kiln.ReductionKernel l2norm>"
