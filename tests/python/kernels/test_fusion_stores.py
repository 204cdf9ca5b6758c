"""kiln.fuse writing into its arguments (Note [Stores] in arraycore/fusion.cpp):
in-place operators, ufunc out= and x[...] = v, against the same function run
unfused on copies of the arguments and against NumPy; and kiln's reductions of
objects that are not kiln arrays (Note [Reductions of foreign arrays])."""
import numpy
import pytest

import kiln
from conftest import assert_same_values, make, name, same_error


def copies(args):
    return [a.copy() if isinstance(a, kiln.ndarray) else a for a in args]


def check_stores(fn, *args, xp_fn=None):
    """fuse(fn) and fn on copies of args give the same results and leave the
    arguments with the same values; so does NumPy's xp_fn (default fn) on host
    copies. A returned argument is the argument itself."""
    fused_args, eager_args = copies(args), copies(args)
    numpy_args = [kiln.asnumpy(a) if isinstance(a, kiln.ndarray) else a for a in args]
    got = kiln.fuse(fn)(*fused_args)
    expected = fn(*eager_args)
    from_numpy = (xp_fn or fn)(*numpy_args)
    for g, e, n in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple)
                       else (expected,), from_numpy if isinstance(from_numpy, tuple) else (from_numpy,)):
        if e is None:
            assert g is None
            continue
        assert_same_values(kiln.asnumpy(g), kiln.asnumpy(e))
        assert_same_values(kiln.asnumpy(g), n)
        for fa, ea in zip(fused_args, eager_args):
            if e is ea:
                assert g is fa
    for fa, ea, na in zip(fused_args, eager_args, numpy_args):
        if isinstance(fa, kiln.ndarray):
            assert_same_values(kiln.asnumpy(fa), kiln.asnumpy(ea))
            assert_same_values(kiln.asnumpy(fa), na)
    return got


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative", "0-d", "empty"])
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32], ids=name)
def test_inplace_operators_write_arguments(rng, dtype, layout):
    x, _ = make(rng, layout, dtype)
    y, _ = make(rng, "C", numpy.int8)
    y = y[:1, :x.shape[-1]] if x.ndim == 2 else y[0, 0]

    def f(x, y):
        old = x * 1
        x += y
        x *= 2
        x -= old
        return x, old
    check_stores(f, x, y)

    def no_return(x, y):
        x += y
        x += y
    check_stores(no_return, x, y)


def test_ufunc_out_and_setitem(rng):
    x, y, z, u = (make(rng, "C", numpy.float32)[0][:3, :4] for _ in range(4))

    def outs(x, y, z, u, xp=kiln):
        xp.add(x, y, out=z)
        r = xp.subtract(z, x, out=u)
        xp.multiply(z, 3, out=None)
        return r, xp.negative(x, out=(y,))
    check_stores(outs, x, y, z, u, xp_fn=lambda *a: outs(*a, xp=numpy))

    def setitem(x, y, i):
        y[...] = x      # float32 into int32: unsafe, as NumPy's setitem
        x[:] = numpy.nan
        i[:, :] = 7
        return y, x
    check_stores(setitem, x, kiln.zeros((3, 4), numpy.int32), kiln.zeros((3, 4), numpy.int64))


def test_stored_argument_read_by_other_shapes(rng):
    """Kernels writing arguments run after those reading their old values."""
    x = kiln.arange(4.0)
    z = kiln.ones((3, 4))

    def f(x, z):
        before = z + x
        x += 1
        return before, z * x, x
    check_stores(f, x, z)


def test_store_errors():
    x, y = kiln.arange(3), kiln.arange(6).reshape(2, 3)

    def grows(x, y):
        x += y
    same_error(lambda: kiln.fuse(grows)(x, y), lambda: grows(numpy.arange(3), numpy.arange(6).reshape(2, 3)))

    def casts(x):
        x += 1.5
    with pytest.raises(TypeError) as expected:
        casts(numpy.arange(3))
    with pytest.raises(TypeError) as got:
        kiln.fuse(casts)(x)
    assert str(got.value) == str(expected.value)
    assert kiln.asnumpy(x).tolist() == [0, 1, 2]

    def index(x):
        x[1:] = 0
    with pytest.raises(TypeError, match=r"only x\[\.\.\.\] = v and x\[:\] = v"):
        kiln.fuse(index)(x)
    with pytest.raises(TypeError, match="outputs"):
        kiln.fuse(lambda v: kiln.add(v, v, out=object()))(x)
    with pytest.raises(TypeError, match="outputs"):
        kiln.fuse(lambda v: kiln.add(v, v, v, v))(x)


def test_copy_any_all_and_reductions_called_as_functions(rng):
    xn = rng.integers(-3, 4, (4, 5)).astype(numpy.int32)
    x = kiln.asarray(xn)

    def f(x, xp=kiln):
        return (x.copy(), (x > 0).any(axis=1), (x > -3).all(), xp.sum(x * 2, axis=0), xp.amax(x, 1),
                xp.all(x, axis=0, keepdims=True))
    for g, e in zip(kiln.fuse(f)(x), f(xn, numpy)):
        assert_same_values(kiln.asnumpy(g), e)
    empty = kiln.zeros((0, 2), numpy.float32)
    assert_same_values(kiln.asnumpy(kiln.fuse(lambda v: (v.any(axis=0), v.all()))(empty)[1]), numpy.bool_(True))


@pytest.mark.parametrize("fn", ["sum", "prod", "max", "amin", "any", "all"])
def test_reductions_of_numpy_arrays_call_their_methods(rng, fn):
    """kiln.sum(a) of a NumPy array is a.sum(...): NumPy's result, as
    numpy.sum(kiln_array) is kiln_array.sum(...)."""
    an = rng.integers(0, 5, (3, 4)).astype(numpy.int64)
    got = getattr(kiln, fn)(an, axis=1, keepdims=True)
    expected = getattr(numpy, fn)(an, axis=1, keepdims=True)
    assert type(got) is numpy.ndarray
    assert_same_values(got, expected)
    assert_same_values(getattr(kiln, fn)(an), getattr(numpy, fn)(an))
    with pytest.raises(TypeError, match="Unsupported type"):
        kiln.nansum(an)


@pytest.mark.parametrize("dx,dy", [(numpy.float32, numpy.int8), (numpy.int16, numpy.uint16),
                                   (numpy.bool_, numpy.float16)], ids=name)
def test_where_clip_around_copyto_and_nan_reductions(rng, dx, dy):
    """kiln functions on traced values trace them (Note [Tracing kiln
    functions]) with the dtypes and values of the eager calls."""
    x, xn = make(rng, "F", dx)
    y, yn = make(rng, "strided", dy)
    x, xn, c, cn = x[:3, :3], xn[:3, :3], x[:3, :3] > x[0, 0], xn[:3, :3] > xn[0, 0]

    def f(c, x, y, xp=kiln):
        return (xp.where(c, x, y), xp.where(c, 1.5, y), xp.clip(y, 2, 3), xp.clip(x, max=5), xp.around(y),
                xp.round(x * 1.5), (y * 0.5).round(), xp.nansum(x / y, axis=1), xp.nanprod(y, axis=0))
    with numpy.errstate(all="ignore"):
        expected = f(cn, xn, yn, numpy)
    for g, e in zip(kiln.fuse(f)(c, x, y), expected):
        if e.dtype.kind in "fc" and e.ndim == 1:
            numpy.testing.assert_allclose(kiln.asnumpy(g), e, rtol=1e-6)   # nansum's order differs
            assert g.dtype == e.dtype
        else:
            assert_same_values(kiln.asnumpy(g), e)

    def copy(x, y, c):
        kiln.copyto(y, x, casting="unsafe", where=c)
    check_stores(copy, x, y, c, xp_fn=lambda x, y, c: numpy.copyto(y, x, casting="unsafe", where=c))
    if numpy.dtype(dx).kind == "f" and numpy.dtype(dy).kind == "i":
        with pytest.raises(TypeError, match="Cannot cast array data from dtype"):
            kiln.fuse(lambda x, y: kiln.copyto(y, x))(x, y)
    assert kiln.where is kiln._math_functions.where   # kiln's own function again after tracing


@pytest.mark.parametrize("layout", ["C", "F", "negative"])
def test_basic_indexing_of_arguments(rng, layout):
    """x[key] of an argument is a view made at each call, read by the kernel."""
    x, xn = make(rng, layout, numpy.float32)
    y, yn = make(rng, "C", numpy.int16)

    def f(x, y):
        return x[1], x[..., 2] + y[1, 1], x[0][1:] - x[-1, 1:], x[:, None, ::-1] * 2, x[1, 0]
    fused = kiln.fuse(f)
    for args in ((x, y), (x * 3, y[::-1])):
        for g, e in zip(fused(*args), f(*[kiln.asnumpy(a) for a in args])):
            assert_same_values(kiln.asnumpy(g), numpy.asarray(e))
    with pytest.raises(IndexError):
        fused(x[0], y)
    with pytest.raises(TypeError, match="only arguments"):
        kiln.fuse(lambda x: (x + 1)[0])(x)
    with pytest.raises(TypeError, match="only arguments"):
        kiln.fuse(lambda x, y: x[y])(x, y)


def test_python_scalar_arguments_show_numpy_default_dtypes():
    seen = []

    def f(x, s, t):
        seen.append((s.dtype, s.ndim, t.dtype))
        return x << s if s.dtype.kind == "i" else x
    got = kiln.fuse(f)(kiln.arange(4, dtype=numpy.uint8), 2, 0.5)
    assert seen == [(numpy.dtype(numpy.int64), 0, numpy.dtype(numpy.float64))]
    assert_same_values(kiln.asnumpy(got), numpy.arange(4, dtype=numpy.uint8) << 2)   # s stays weak


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=name)
def test_reductions_used_inside(rng, dtype):
    """A reduction's result read by later operations (Note [Reductions used
    inside]): softmax, chained reductions, and a reduction feeding a store."""
    xn = rng.standard_normal((5, 7)).astype(dtype)
    x = kiln.asarray(xn)

    def f(x, y, xp=kiln):
        e = xp.exp(x - x.max(axis=1, keepdims=True))
        y += xp.sum(y, axis=0)
        return (e / e.sum(axis=1, keepdims=True), xp.sqrt(xp.sum(x * x) + 10), x.min(axis=0).max(),
                x / xp.amax(x, axis=0), xp.abs(x).prod(axis=1).sum() * 2)
    y, yn = kiln.arange(12).reshape(3, 4), numpy.arange(12).reshape(3, 4)
    got = kiln.fuse(f)(x, y)
    expected = f(xn, yn, numpy)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        numpy.testing.assert_allclose(kiln.asnumpy(g), e, rtol=40 * numpy.finfo(dtype).eps)
    assert_same_values(kiln.asnumpy(y), yn)


def test_none_arguments_are_passed_as_they_are():
    f = kiln.fuse(lambda x, y: x * 2 if y is None else x + y)
    x = kiln.arange(4)
    assert kiln.asnumpy(f(x, None)).tolist() == [0, 2, 4, 6]
    assert kiln.asnumpy(f(x, x)).tolist() == [0, 2, 4, 6]
    assert f(x, None) is not None and kiln.fuse(lambda x, y: y)(x, None) is None
    f.clear_cache()
    assert not f._plans and kiln.asnumpy(f(x, 1)).tolist() == [1, 2, 3, 4]


def test_arguments_sharing_memory():
    """Note [Arguments sharing memory]: an array passed twice is one traced
    value (still one fused kernel); a written argument that shares memory
    otherwise (x and x.T, a view of itself) runs the function unfused; values
    as NumPy's on arguments that share memory alike."""
    def same(names):
        return [s for s in kiln._core._recorded_sources() if any("void %s_" % n in str(s) for n in names)]

    def twice(x, y):
        x += y
        x += y
        return x, y * 1
    xn = numpy.arange(12).reshape(3, 4)
    x = kiln.asarray(xn)
    got = kiln.fuse(kernel_name="fuse_same_twice")(twice)(x, x)
    expected = twice(xn, xn)
    assert got[0] is x
    for g, e in zip(got, expected):
        assert_same_values(kiln.asnumpy(g), e)
    assert same(["fuse_same_twice"])

    def transposed(x, z):
        x += z
        x += z
    x2n = numpy.arange(16).reshape(4, 4)
    x2 = kiln.asarray(x2n)
    kiln.fuse(transposed)(x2, x2.T)
    transposed(x2n, x2n.T)
    assert_same_values(kiln.asnumpy(x2), x2n)

    def reversed_view(x):
        x += x[::-1]
        return x
    x1n = numpy.arange(7.0)
    x1 = kiln.asarray(x1n)
    assert kiln.fuse(reversed_view)(x1) is x1
    assert_same_values(kiln.asnumpy(x1), reversed_view(x1n))

    # Reads of shared memory need nothing: fused.
    reads = kiln.fuse(kernel_name="fuse_shared_reads")(lambda x, y: x - y)
    assert_same_values(kiln.asnumpy(reads(x2, x2.T)), x2n - x2n.T)
    assert same(["fuse_shared_reads"])
