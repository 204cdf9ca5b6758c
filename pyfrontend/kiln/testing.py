"""kiln.testing: CuPy's testing API (cupy.testing) for projects that test
their code against NumPy on kiln.

    from kiln import testing

    @testing.for_float_dtypes()
    @testing.numpy_kiln_allclose(rtol=1e-6)
    def test_softplus(xp, dtype):
        x = testing.shaped_random((10, 3), xp, dtype)
        return xp.log1p(xp.exp(x))

The decorated test runs twice, with ``xp=numpy`` and ``xp=kiln``, and the
two results are compared (values; dtypes unless ``type_check=False``). With
``accept_error`` both may raise instead, an error of the same type. The
``for_*`` decorators run a test once per dtype (or order) given as the
keyword ``name``, and say which one failed. The ``numpy_cupy_*`` names are
aliases of the ``numpy_kiln_*`` ones, so CuPy's spelling works unchanged.

The assertions take kiln arrays, NumPy arrays and scalars alike (kiln
arrays are copied to the host first) and are numpy.testing's.
"""
import functools
import inspect
import itertools
import os

import numpy

import kiln

__all__ = ["assert_allclose", "assert_array_almost_equal", "assert_array_almost_equal_nulp", "assert_array_max_ulp",
           "assert_array_equal", "assert_array_list_equal", "assert_array_less",
           "numpy_kiln_allclose", "numpy_kiln_array_almost_equal", "numpy_kiln_array_almost_equal_nulp",
           "numpy_kiln_array_max_ulp", "numpy_kiln_array_equal", "numpy_kiln_array_list_equal",
           "numpy_kiln_array_less", "numpy_kiln_equal", "numpy_kiln_raises",
           "for_dtypes", "for_all_dtypes", "for_float_dtypes", "for_signed_dtypes", "for_unsigned_dtypes",
           "for_int_dtypes", "for_complex_dtypes", "for_dtypes_combination", "for_all_dtypes_combination",
           "for_signed_dtypes_combination", "for_unsigned_dtypes_combination", "for_int_dtypes_combination",
           "for_orders", "for_CF_orders", "shaped_arange", "shaped_random", "shaped_reverse_arange"]


def _host(a):
    if isinstance(a, kiln.ndarray):
        return kiln.asnumpy(a)
    if isinstance(a, (list, tuple)):
        return type(a)(_host(x) for x in a)
    return a


# --- assertions ------------------------------------------------------------

def assert_allclose(actual, desired, rtol=1e-7, atol=0, err_msg="", verbose=True):
    """numpy.testing.assert_allclose on kiln or NumPy arrays."""
    numpy.testing.assert_allclose(_host(actual), _host(desired), rtol, atol, err_msg=err_msg, verbose=verbose)


def assert_array_almost_equal(x, y, decimal=6, err_msg="", verbose=True):
    """numpy.testing.assert_array_almost_equal on kiln or NumPy arrays."""
    numpy.testing.assert_array_almost_equal(_host(x), _host(y), decimal, err_msg, verbose)


def assert_array_almost_equal_nulp(x, y, nulp=1):
    """numpy.testing.assert_array_almost_equal_nulp on kiln or NumPy arrays."""
    numpy.testing.assert_array_almost_equal_nulp(_host(x), _host(y), nulp)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    """numpy.testing.assert_array_max_ulp on kiln or NumPy arrays."""
    numpy.testing.assert_array_max_ulp(_host(a), _host(b), maxulp, dtype)


def assert_array_equal(x, y, err_msg="", verbose=True, strides_check=False):
    """numpy.testing.assert_array_equal on kiln or NumPy arrays; with
    ``strides_check`` the two must have the same strides too."""
    numpy.testing.assert_array_equal(_host(x), _host(y), err_msg, verbose)
    if strides_check and getattr(x, "strides", None) != getattr(y, "strides", None):
        raise AssertionError(f"strides differ: {x.strides} and {y.strides}" + (f"\n{err_msg}" if err_msg else ""))


def assert_array_list_equal(xlist, ylist, err_msg="", verbose=True):
    """Two sequences of arrays of the same length, equal pairwise."""
    if len(xlist) != len(ylist):
        raise AssertionError(f"lengths differ: {len(xlist)} and {len(ylist)}" + (f"\n{err_msg}" if err_msg else ""))
    for x, y in zip(xlist, ylist):
        numpy.testing.assert_array_equal(_host(x), _host(y), err_msg, verbose)


def assert_array_less(x, y, err_msg="", verbose=True):
    """numpy.testing.assert_array_less on kiln or NumPy arrays."""
    numpy.testing.assert_array_less(_host(x), _host(y), err_msg, verbose)


# --- numpy_kiln_* ------------------------------------------------------------

def _modules(xp, name, scipy_name):
    """The keywords a test gets: the array module as `name` and, with
    `scipy_name` (CuPy's sp_name/scipy_name), kiln.scipy or scipy beside it."""
    given = {name: xp}
    if scipy_name:
        if xp is kiln:
            import kiln.scipy as sp
        else:
            import scipy as sp
        given[scipy_name] = sp
    return given


def _run(impl, args, kwargs, given):
    try:
        return impl(*args, **dict(kwargs, **given)), None
    except Exception as e:   # noqa: BLE001 (compared with the other module's outcome)
        return None, e


def _hidden(wrapper, impl, *names):
    """wrapper's signature: impl's less the parameters the decorator fills in (pytest must not see them)."""
    sig = inspect.signature(impl)
    wrapper.__signature__ = sig.replace(parameters=[p for p in sig.parameters.values() if p.name not in names])
    return wrapper


def _compare_both(check, name="xp", type_check=True, accept_error=False, contiguous_check=True, scipy_name=None,
                  strides_check=False):
    """The decorator running impl with xp=numpy and xp=kiln and checking the results with check(k, n)."""
    if accept_error is True:
        accept_error = Exception
    elif accept_error is False:
        accept_error = ()

    def decorator(impl):
        @functools.wraps(impl)
        def test(*args, **kwargs):
            k, k_error = _run(impl, args, kwargs, _modules(kiln, name, scipy_name))
            n, n_error = _run(impl, args, kwargs, _modules(numpy, name, scipy_name))
            if k_error or n_error:
                # Both may raise: an accepted error, kiln's of NumPy's type (or a subclass).
                if k_error and n_error and isinstance(n_error, accept_error) and isinstance(k_error, type(n_error)):
                    return
                which = ("only kiln raised" if not n_error else "only NumPy raised" if not k_error
                         else "kiln and NumPy raised different errors")
                raise AssertionError(f"{which}: kiln {k_error!r}, NumPy {n_error!r}") from (k_error or n_error)
            ks, ns = (list(k), list(n)) if isinstance(k, (tuple, list)) else ([k], [n])
            if len(ks) != len(ns):
                raise AssertionError(f"kiln returned {len(ks)} results, NumPy {len(ns)}")
            for kv, nv in zip(ks, ns):
                if isinstance(nv, numpy.ndarray) and not isinstance(kv, kiln.ndarray):
                    raise AssertionError(f"NumPy returned an ndarray, kiln a {type(kv).__name__}")
                if type_check and hasattr(nv, "dtype") and numpy.dtype(kv.dtype) != nv.dtype:
                    raise AssertionError(f"dtypes differ: kiln {kv.dtype}, NumPy {nv.dtype}")
                if contiguous_check and isinstance(nv, numpy.ndarray) and isinstance(kv, kiln.ndarray) \
                        and nv.flags.c_contiguous and not kv.flags.c_contiguous:
                    raise AssertionError("NumPy's result is C-contiguous, kiln's is not")
                if strides_check and getattr(kv, "strides", None) != getattr(nv, "strides", None):
                    raise AssertionError(f"strides differ: kiln {kv.strides}, NumPy {nv.strides}")
                check(_host(kv), nv)
        return _hidden(test, impl, name, *([scipy_name] if scipy_name else []))
    return decorator


def _tolerance(tol, dtype):
    if isinstance(tol, dict):
        return tol.get(numpy.dtype(dtype).type, tol.get(numpy.dtype(dtype), tol.get("default", 0)))
    return tol


def numpy_kiln_allclose(rtol=1e-7, atol=0, err_msg="", verbose=True, name="xp", type_check=True,
                        accept_error=False, sp_name=None, scipy_name=None, contiguous_check=True):
    """The results of xp=kiln and xp=numpy are close (assert_allclose);
    rtol/atol may be dicts {dtype: tolerance, 'default': tolerance}."""
    def check(k, n):
        dtype = getattr(n, "dtype", numpy.float64)
        numpy.testing.assert_allclose(k, n, _tolerance(rtol, dtype), _tolerance(atol, dtype), err_msg=err_msg,
                                      verbose=verbose)
    return _compare_both(check, name, type_check, accept_error, contiguous_check, scipy_name or sp_name)


def numpy_kiln_array_almost_equal(decimal=6, err_msg="", verbose=True, name="xp", type_check=True,
                                  accept_error=False, sp_name=None, scipy_name=None):
    """The results agree to `decimal` places (assert_array_almost_equal)."""
    return _compare_both(lambda k, n: numpy.testing.assert_array_almost_equal(k, n, decimal, err_msg, verbose),
                         name, type_check, accept_error, False, scipy_name or sp_name)


def numpy_kiln_array_almost_equal_nulp(nulp=1, name="xp", type_check=True, accept_error=False, sp_name=None,
                                       scipy_name=None):
    """The results agree within `nulp` units in the last place."""
    return _compare_both(lambda k, n: numpy.testing.assert_array_almost_equal_nulp(k, n, nulp), name, type_check,
                         accept_error, False, scipy_name or sp_name)


def numpy_kiln_array_max_ulp(maxulp=1, dtype=None, name="xp", type_check=True, accept_error=False, sp_name=None,
                             scipy_name=None):
    """No element differs by more than `maxulp` ulps (assert_array_max_ulp)."""
    return _compare_both(lambda k, n: numpy.testing.assert_array_max_ulp(k, n, maxulp, dtype), name, type_check,
                         accept_error, False, scipy_name or sp_name)


def numpy_kiln_array_equal(err_msg="", verbose=True, name="xp", type_check=True, accept_error=False, sp_name=None,
                           scipy_name=None, strides_check=False):
    """The results are equal (assert_array_equal); with strides_check, their
    strides as well."""
    def check(k, n):
        numpy.testing.assert_array_equal(k, n, err_msg, verbose)
    return _compare_both(check, name, type_check, accept_error, False, scipy_name or sp_name, strides_check)


def numpy_kiln_array_list_equal(err_msg="", verbose=True, name="xp", sp_name=None, scipy_name=None):
    """The results, sequences of arrays, are equal pairwise."""
    def decorator(impl):
        @functools.wraps(impl)
        def test(*args, **kwargs):
            sp = scipy_name or sp_name
            assert_array_list_equal(impl(*args, **dict(kwargs, **_modules(kiln, name, sp))),
                                    impl(*args, **dict(kwargs, **_modules(numpy, name, sp))), err_msg, verbose)
        return _hidden(test, impl, name, *([scipy_name or sp_name] if scipy_name or sp_name else []))
    return decorator


def numpy_kiln_array_less(err_msg="", verbose=True, name="xp", type_check=True, accept_error=False, sp_name=None,
                          scipy_name=None):
    """kiln's result is elementwise less than NumPy's (assert_array_less)."""
    return _compare_both(lambda k, n: numpy.testing.assert_array_less(k, n, err_msg, verbose), name, type_check,
                         accept_error, False, scipy_name or sp_name)


def numpy_kiln_equal(name="xp", sp_name=None, scipy_name=None):
    """The results (any Python values, not arrays) are equal."""
    def decorator(impl):
        @functools.wraps(impl)
        def test(*args, **kwargs):
            sp = scipy_name or sp_name
            k = impl(*args, **dict(kwargs, **_modules(kiln, name, sp)))
            n = impl(*args, **dict(kwargs, **_modules(numpy, name, sp)))
            if k != n:
                raise AssertionError(f"kiln returned {k!r}, NumPy {n!r}")
        return _hidden(test, impl, name, *([sp_name or scipy_name] if sp_name or scipy_name else []))
    return decorator


def numpy_kiln_raises(name="xp", sp_name=None, scipy_name=None, accept_error=Exception):
    """Both raise, errors of the same type (an `accept_error` one)."""
    def decorator(impl):
        @functools.wraps(impl)
        def test(*args, **kwargs):
            sp = scipy_name or sp_name
            k, k_error = _run(impl, args, kwargs, _modules(kiln, name, sp))
            n, n_error = _run(impl, args, kwargs, _modules(numpy, name, sp))
            if not (k_error and n_error):
                raise AssertionError(f"expected both to raise: kiln {k_error!r}, NumPy {n_error!r}")
            if not isinstance(n_error, accept_error) or not isinstance(k_error, type(n_error)):
                raise AssertionError(f"different errors: kiln {k_error!r}, NumPy {n_error!r}") from k_error
        return _hidden(test, impl, name, *([scipy_name or sp_name] if scipy_name or sp_name else []))
    return decorator


numpy_cupy_allclose = numpy_kiln_allclose
numpy_cupy_array_almost_equal = numpy_kiln_array_almost_equal
numpy_cupy_array_almost_equal_nulp = numpy_kiln_array_almost_equal_nulp
numpy_cupy_array_max_ulp = numpy_kiln_array_max_ulp
numpy_cupy_array_equal = numpy_kiln_array_equal
numpy_cupy_array_list_equal = numpy_kiln_array_list_equal
numpy_cupy_array_less = numpy_kiln_array_less
numpy_cupy_equal = numpy_kiln_equal
numpy_cupy_raises = numpy_kiln_raises


# --- for_* -------------------------------------------------------------------

def _for_values(values, names):
    """Runs the test once per tuple of `values` given as the keywords `names`."""
    def decorator(impl):
        @functools.wraps(impl)
        def test(*args, **kwargs):
            for combo in values:
                given = dict(zip(names, combo))
                try:
                    impl(*args, **dict(kwargs, **given))
                except Exception as e:
                    note = ", ".join(f"{k}={getattr(v, '__name__', v)}" for k, v in given.items())
                    if hasattr(e, "add_note"):
                        e.add_note(f"(kiln.testing: with {note})")
                    raise
        return _hidden(test, impl, *names)
    return decorator


_FLOATS = (numpy.float16, numpy.float32, numpy.float64)
_SIGNED = (numpy.int8, numpy.int16, numpy.int32, numpy.int64)
_UNSIGNED = (numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64)
_COMPLEX = (numpy.complex64, numpy.complex128)


def _dtypes(no_float16=False, no_bool=False, no_complex=False):
    return tuple((() if no_bool else (numpy.bool_,)) + _SIGNED + _UNSIGNED +
                 (_FLOATS[1:] if no_float16 else _FLOATS) + (() if no_complex else _COMPLEX))


def for_dtypes(dtypes, name="dtype"):
    """Runs the test once per dtype of `dtypes`, given as the keyword `name`."""
    return _for_values([(d,) for d in dtypes], (name,))


def for_all_dtypes(name="dtype", no_float16=False, no_bool=False, no_complex=False):
    """for_dtypes over bool, the integers, the floats and the complex types."""
    return for_dtypes(_dtypes(no_float16, no_bool, no_complex), name)


def for_float_dtypes(name="dtype", no_float16=False):
    """for_dtypes over float16 (unless no_float16), float32, float64."""
    return for_dtypes(_FLOATS[1:] if no_float16 else _FLOATS, name)


def for_signed_dtypes(name="dtype"):
    """for_dtypes over int8 ... int64."""
    return for_dtypes(_SIGNED, name)


def for_unsigned_dtypes(name="dtype"):
    """for_dtypes over uint8 ... uint64."""
    return for_dtypes(_UNSIGNED, name)


def for_int_dtypes(name="dtype", no_bool=False):
    """for_dtypes over bool (unless no_bool) and the signed and unsigned integers."""
    return for_dtypes((() if no_bool else (numpy.bool_,)) + _SIGNED + _UNSIGNED, name)


def for_complex_dtypes(name="dtype"):
    """for_dtypes over complex64 and complex128."""
    return for_dtypes(_COMPLEX, name)


def for_dtypes_combination(types, names=("dtype",), full=None):
    """Runs the test with combinations of `types` for the keywords `names`:
    all of them when `full` (default: KILN_TEST_FULL_COMBINATION=1, or
    CUPY_TEST_FULL_COMBINATION=1), else len(types) combinations in which
    every type appears at every position (rotations of the list)."""
    if full is None:
        full = "1" in (os.environ.get("KILN_TEST_FULL_COMBINATION"), os.environ.get("CUPY_TEST_FULL_COMBINATION"))
    types = list(types)
    if full:
        combos = list(itertools.product(types, repeat=len(names)))
    else:
        combos = [tuple(types[(i + j) % len(types)] for j in range(len(names))) for i in range(len(types))]
    return _for_values(combos, tuple(names))


def for_all_dtypes_combination(names=("dtype",), no_float16=False, no_bool=False, full=None, no_complex=False):
    """for_dtypes_combination over for_all_dtypes' types."""
    return for_dtypes_combination(_dtypes(no_float16, no_bool, no_complex), names, full)


def for_signed_dtypes_combination(names=("dtype",), full=None):
    """for_dtypes_combination over the signed integers."""
    return for_dtypes_combination(_SIGNED, names, full)


def for_unsigned_dtypes_combination(names=("dtype",), full=None):
    """for_dtypes_combination over the unsigned integers."""
    return for_dtypes_combination(_UNSIGNED, names, full)


def for_int_dtypes_combination(names=("dtype",), no_bool=False, full=None):
    """for_dtypes_combination over bool (unless no_bool) and the integers."""
    return for_dtypes_combination((() if no_bool else (numpy.bool_,)) + _SIGNED + _UNSIGNED, names, full)


def for_orders(orders, name="order"):
    """Runs the test once per memory order of `orders` ('C', 'F', ...)."""
    return _for_values([(o,) for o in orders], (name,))


def for_CF_orders(name="order"):
    """for_orders over 'C', 'F', 'c', 'f' and None."""
    return for_orders([None, "C", "F", "c", "f"], name)


# --- arrays --------------------------------------------------------------------

def shaped_arange(shape, xp=kiln, dtype=numpy.float32, order="C"):
    """1, 2, ..., size in `shape`: for bool, whether each is even; for
    complex types, k + kj."""
    dtype = numpy.dtype(dtype)
    values = numpy.arange(1, numpy.prod(shape, dtype=int) + 1).reshape(shape)
    if dtype == numpy.bool_:
        values = values % 2 == 0
    elif dtype.kind == "c":
        values = values + 1j * values
    return xp.array(values.astype(dtype), order=order)


def shaped_reverse_arange(shape, xp=kiln, dtype=numpy.float32):
    """size, ..., 2, 1 in `shape` (bool and complex as shaped_arange)."""
    dtype = numpy.dtype(dtype)
    size = int(numpy.prod(shape, dtype=int))
    values = numpy.arange(size, 0, -1).reshape(shape)
    if dtype == numpy.bool_:
        values = values % 2 == 0
    elif dtype.kind == "c":
        values = values + 1j * values
    return xp.array(values.astype(dtype))


def shaped_random(shape, xp=kiln, dtype=numpy.float32, scale=10, seed=0, order="C"):
    """Uniform values in [0, scale) in `shape`, reproducible by `seed`: for
    bool, 0 or 1; for complex types, both parts random."""
    dtype = numpy.dtype(dtype)
    rng = numpy.random.RandomState(seed)
    if dtype == numpy.bool_:
        values = rng.randint(0, 2, size=shape).astype(dtype)
    elif dtype.kind == "c":
        values = (rng.rand(*shape) * scale + 1j * rng.rand(*shape) * scale).astype(dtype)
    else:
        values = (rng.rand(*shape) * scale).astype(dtype)
    return xp.array(values, order=order)
