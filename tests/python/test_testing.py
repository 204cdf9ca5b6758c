"""kiln.testing (CuPy's cupy.testing API): the assertions take kiln and
NumPy arrays, the numpy_kiln_* decorators run a test with both modules and
catch differences, the for_* decorators run it once per dtype/order."""
import numpy
import pytest

import kiln
from kiln import testing


def test_assertions_take_kiln_and_numpy_arrays():
    a = kiln.arange(4.0)
    testing.assert_allclose(a, numpy.arange(4.0) + 1e-9, rtol=1e-6, atol=1e-8)
    testing.assert_array_equal(a, [0, 1, 2, 3])
    testing.assert_array_almost_equal(a, a + 1e-8)
    testing.assert_array_almost_equal_nulp(a, a.get())
    testing.assert_array_max_ulp(a, a, maxulp=0)
    testing.assert_array_less(a, a + 1)
    testing.assert_array_list_equal([a, a], [a.get(), [0, 1, 2, 3]])
    with pytest.raises(AssertionError):
        testing.assert_allclose(a, numpy.arange(4.0) + 1)
    with pytest.raises(AssertionError, match="strides differ"):
        testing.assert_array_equal(kiln.zeros((2, 2)), kiln.zeros((2, 2)).T, strides_check=True)
    with pytest.raises(AssertionError, match="lengths differ"):
        testing.assert_array_list_equal([a], [a, a])


def test_numpy_kiln_decorators_compare_both_modules():
    @testing.numpy_kiln_allclose(rtol=1e-12)
    def good(xp):
        return xp.sin(xp.arange(5.0)) * 2

    good()

    @testing.numpy_cupy_allclose()   # CuPy's name
    def bad(xp):
        return xp.arange(3.0) + (1 if xp is kiln else 0)

    with pytest.raises(AssertionError):
        bad()

    @testing.numpy_kiln_array_equal()
    def wrong_dtype(xp):
        return xp.arange(3, dtype=xp.int32 if xp is kiln else xp.int64)

    with pytest.raises(AssertionError, match="dtypes differ"):
        wrong_dtype()

    @testing.numpy_kiln_array_equal(type_check=False)
    def any_dtype(xp):
        return xp.arange(3, dtype=xp.int32 if xp is kiln else xp.int64)

    any_dtype()

    @testing.numpy_kiln_allclose()
    def host_result(xp):
        return numpy.arange(3.0)   # kiln's side returns a NumPy array

    with pytest.raises(AssertionError, match="kiln a ndarray|NumPy returned"):
        host_result()


def test_errors_accepted_only_when_both_raise_alike():
    @testing.numpy_kiln_array_equal(accept_error=ValueError)
    def both(xp):
        return xp.zeros((2, 3)).reshape(4)

    both()

    @testing.numpy_kiln_array_equal(accept_error=True)
    def only_kiln(xp):
        if xp is kiln:
            raise ValueError("kiln only")
        return xp.zeros(1)

    with pytest.raises(AssertionError, match="only kiln raised"):
        only_kiln()

    @testing.numpy_kiln_raises()
    def raises(xp):
        xp.ones(3) @ xp.ones(4)

    raises()

    @testing.numpy_kiln_equal()
    def shapes(xp):
        return xp.ones((2, 3)).T.shape

    shapes()


def test_for_dtypes_and_orders_run_each_and_name_the_failing_one():
    seen = []

    @testing.for_all_dtypes(no_complex=True)
    @testing.numpy_kiln_array_equal()
    def each(xp, dtype):
        seen.append(numpy.dtype(dtype))
        return testing.shaped_arange((2, 3), xp, dtype)

    each()
    assert len(seen) == 2 * 12 and numpy.dtype(numpy.bool_) in seen and numpy.dtype(numpy.float16) in seen

    @testing.for_float_dtypes()
    def fails_for_float16(dtype):
        assert dtype is not numpy.float16

    with pytest.raises(AssertionError) as info:
        fails_for_float16()
    assert "dtype=float16" in "".join(getattr(info.value, "__notes__", []))

    combos = []
    testing.for_dtypes_combination([numpy.int8, numpy.float32, numpy.complex64], names=("a", "b"), full=False)(
        lambda a, b: combos.append((a, b)))()
    assert len(combos) == 3 and {a for a, _ in combos} == {b for _, b in combos} == {numpy.int8, numpy.float32,
                                                                                        numpy.complex64}
    orders = []
    testing.for_CF_orders()(lambda order: orders.append(order))()
    assert orders == [None, "C", "F", "c", "f"]


@testing.for_dtypes([numpy.int16, numpy.complex64])
def test_decorated_tests_hide_their_filled_parameters_from_pytest(dtype):
    assert dtype in (numpy.int16, numpy.complex64)


def test_shaped_arrays():
    a = testing.shaped_arange((2, 3), kiln, numpy.int32)
    assert a.dtype == numpy.int32 and a.get().tolist() == [[1, 2, 3], [4, 5, 6]]
    assert testing.shaped_arange((4,), numpy, numpy.bool_).tolist() == [False, True, False, True]
    assert testing.shaped_reverse_arange((3,), numpy, numpy.complex64).tolist() == [3 + 3j, 2 + 2j, 1 + 1j]
    r = testing.shaped_random((50,), kiln, numpy.float32, scale=2, seed=3)
    assert r.dtype == numpy.float32 and 0 <= float(r.min()) and float(r.max()) < 2
    numpy.testing.assert_array_equal(r.get(), testing.shaped_random((50,), numpy, numpy.float32, scale=2, seed=3))
    f = testing.shaped_arange((2, 3), kiln, numpy.float64, order="F")
    assert f.flags.f_contiguous
