"""kiln.random's choice, permutation, shuffle and permuted along any axis
(Generator) and axis 0 (the legacy RandomState): shapes, dtypes and errors
against NumPy's, that slices move whole, chi-square checks that the orders
and choices are uniform (or follow p), layouts, and reproducibility.
Thresholds as Note [Random test thresholds] (test_random.py)."""
import math

import numpy
import pytest

import kiln
from test_random import N, chi2_critical, chi_square, model_words

AxisError = numpy.exceptions.AxisError


def axis_permutation(result, x, axis):
    """The permutation `perm` with result == take(x, perm, axis), checked;
    x's slices along axis must be distinct."""
    rows = numpy.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
    got = numpy.moveaxis(result, axis, 0).reshape(result.shape[axis], -1)
    where = {r.tobytes(): i for i, r in enumerate(rows)}
    perm = numpy.array([where[r.tobytes()] for r in got], dtype=numpy.int64)
    numpy.testing.assert_array_equal(result, numpy.take(x, perm, axis=axis))
    return perm


def layouts(shape):
    """kiln arrays of distinct int64 values in several layouts, with their host copies."""
    base = numpy.arange(math.prod(shape) * 2, dtype=numpy.int64)
    cases = {"C": base[:math.prod(shape)].reshape(shape),
             "F": numpy.asfortranarray(base[:math.prod(shape)].reshape(shape)),
             "strided": base[::2].reshape(shape),
             "negative": base.reshape(shape[:-1] + (2 * shape[-1],))[..., ::-2]}
    out = []
    for name, host in cases.items():
        if name == "F":
            dev = kiln.asarray(numpy.ascontiguousarray(host.T)).T
        elif name == "strided":
            dev = kiln.arange(base.size, dtype=kiln.int64)[::2].reshape(shape)
        elif name == "negative":
            dev = kiln.arange(base.size, dtype=kiln.int64).reshape(shape[:-1] + (2 * shape[-1],))[..., ::-2]
        else:
            dev = kiln.asarray(host)
        out.append((name, dev, host))
    return out


def model_keys(key, counter, n):
    """The 64-bit sort keys of kiln's orders (raw uint64 words: two a
    block, high word first), from test_random's model of the counters."""
    words = model_words(key, counter, 2 * n)
    return numpy.array([words[2 * j] << 32 | words[2 * j + 1] for j in range(n)], dtype=numpy.uint64)


def test_orders_match_the_model():
    """The orders are argsorts of the model's keys: the same on every backend."""
    rng = kiln.random.default_rng(77)
    x = kiln.arange(15, dtype=kiln.int64).reshape(3, 5)
    assert rng.permutation(x, axis=1).get().tolist() == \
        x.get()[:, numpy.argsort(model_keys(77, 0, 5))].tolist()      # 3 blocks
    keys = model_keys(77, 3, 15).reshape(3, 5)
    want = numpy.take_along_axis(x.get(), numpy.argsort(keys, axis=0), axis=0)
    assert rng.permuted(x, axis=0).get().tolist() == want.tolist()   # 8 blocks
    assert rng.permuted(x).get().ravel().tolist() == numpy.argsort(model_keys(77, 11, 15)).tolist()


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_permutation_and_shuffle_along_axis(axis):
    rng = kiln.random.default_rng(100 + axis)
    for name, dev, host in layouts((3, 5, 4)):
        p = rng.permutation(dev, axis=axis)
        assert p.shape == host.shape and p.dtype == host.dtype, name
        perm = axis_permutation(p.get(), host, axis)
        assert sorted(perm.tolist()) == list(range(host.shape[axis]))
        before = dev.get()
        rng.shuffle(dev, axis=axis)   # in place, through the view
        axis_permutation(dev.get(), before, axis)
    # the base of a view is changed only where the view is
    base = kiln.arange(40, dtype=kiln.int64).reshape(5, 8)
    view = base[::-1, ::2]
    rng.shuffle(view, axis=1 if axis != -3 else 0)
    host = base.get()
    assert (host[:, 1::2] == numpy.arange(40).reshape(5, 8)[:, 1::2]).all()
    assert sorted(host[:, ::2].ravel().tolist()) == list(range(0, 40, 2))


def test_permutation_along_axis_is_uniform():
    # one big permutation of axis 1: positions and values in every (position
    # quarter, value quarter) cell equally often, and both rows move together;
    # the same for shuffle along axis 0 of the transpose
    x = kiln.arange(2 * N, dtype=kiln.int64).reshape(2, N)
    y = kiln.asarray(numpy.ascontiguousarray(x.get().T))
    rng = kiln.random.default_rng(3)
    rng.shuffle(y, axis=-2)
    for q in (rng.permutation(x, axis=-1).get(), y.get().T):
        assert (q[1] == q[0] + N).all()
        cells = numpy.bincount(4 * (numpy.arange(N) * 4 // N) + q[0] * 4 // N, minlength=16)
        assert chi_square(cells, numpy.full(16, N / 16.0)) < chi2_critical(9)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_permuted(axis):
    rng = kiln.random.default_rng(7)
    for name, dev, host in layouts((6, 4, 3)):
        before = dev.get()
        r = rng.permuted(dev, axis=axis)
        assert r.shape == host.shape and r.dtype == host.dtype, name
        assert (dev.get() == before).all()   # x unchanged
        got = r.get()
        if axis is None:
            assert sorted(got.ravel().tolist()) == sorted(host.ravel().tolist())
        else:
            numpy.testing.assert_array_equal(numpy.sort(got, axis=axis), numpy.sort(host, axis=axis))
    x = kiln.arange(12, dtype=kiln.int64).reshape(3, 4)
    out = kiln.empty((3, 4), dtype=kiln.float64)   # a safe cast
    assert rng.permuted(x, axis=1, out=out) is out
    assert (numpy.sort(out.get(), axis=1) == numpy.arange(12).reshape(3, 4)).all()
    assert rng.permuted(x, axis=0, out=x) is x   # in place
    assert (numpy.sort(x.get(), axis=0) == numpy.arange(12).reshape(3, 4)).all()
    assert rng.permuted([[1, 2, 3]], axis=-1).shape == (1, 3)
    assert rng.permuted(kiln.empty((0, 3)), axis=1).shape == (0, 3)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.complex64])   # 4- and 8-byte items
def test_dtypes_kept(dtype):
    host = (numpy.arange(24).reshape(4, 6) % 5).astype(dtype)
    rng = kiln.random.default_rng(2)
    x = kiln.asarray(host)
    for got in (rng.permutation(x, axis=1), rng.permuted(x, axis=0), rng.choice(x, 3, replace=False, axis=-1)):
        assert got.dtype == host.dtype == numpy.random.default_rng(0).permuted(host, axis=0).dtype
    numpy.testing.assert_array_equal(numpy.sort(rng.permuted(x, axis=1).get(), axis=1), numpy.sort(host, axis=1))
    rng.shuffle(x, axis=1)
    numpy.testing.assert_array_equal(numpy.sort(x.get(), axis=1), numpy.sort(host, axis=1))


def test_permuted_slices_are_independent_and_uniform():
    # M rows of 4 shuffled each on its own: the 24 orders equally often
    # (M = N / 4: about 200 of each, and a quarter of the host sorting time)
    m = N // 4
    x = kiln.broadcast_to(kiln.arange(4, dtype=kiln.int64), (m, 4))
    r = kiln.random.default_rng(11).permuted(x, axis=1).get()
    assert (numpy.sort(r, axis=1) == numpy.arange(4)).all()
    codes = r @ numpy.array([64, 16, 4, 1])
    counts = numpy.bincount(codes)[numpy.unique(codes)]
    assert len(counts) == 24 and chi_square(counts, numpy.full(24, m / 24.0)) < chi2_critical(23)
    # the same along axis 0, and flattened: values leave their rows
    c = kiln.random.default_rng(12).permuted(kiln.asarray(numpy.ascontiguousarray(x.get().T)), axis=0).get()
    assert (numpy.sort(c, axis=0) == numpy.arange(4)[:, None]).all()
    codes = numpy.array([64, 16, 4, 1]) @ c
    counts = numpy.bincount(codes)[numpy.unique(codes)]
    assert len(counts) == 24 and chi_square(counts, numpy.full(24, m / 24.0)) < chi2_critical(23)
    flat = kiln.random.default_rng(13).permuted(kiln.arange(40, dtype=kiln.int64).reshape(4, 10)).get()
    assert sorted(flat.ravel().tolist()) == list(range(40))
    assert any(sorted(row.tolist()) != list(range(10 * i, 10 * i + 10)) for i, row in enumerate(flat))


def test_permuted_errors():
    rng = kiln.random.default_rng(0)
    x = kiln.arange(12, dtype=kiln.int64).reshape(3, 4)
    with pytest.raises(AxisError):
        rng.permuted(x, axis=2)
    with pytest.raises(AxisError):
        rng.permuted(x, axis=-3)
    with pytest.raises(TypeError):
        rng.permuted(x, axis=1.0)
    with pytest.raises(TypeError):
        rng.permuted(x, axis=(0, 1))
    with pytest.raises(TypeError):
        rng.permuted(kiln.asarray(numpy.array(5)))
    with pytest.raises(ValueError):
        rng.permuted(x, out=kiln.empty((12,), dtype=kiln.int64))
    with pytest.raises(TypeError):
        rng.permuted(x, out=kiln.empty((3, 4), dtype=kiln.int8))
    with pytest.raises(TypeError):
        rng.permuted(x, out=numpy.empty((3, 4), dtype=numpy.int64))


# (a's shape, size, axis, replace, p given)
CHOICE_CASES = [((10,), None, 0, True, False), ((10,), 3, 0, False, False), ((3, 4), 2, 1, True, False),
                ((3, 4), (2, 5), 1, True, True), ((3, 4), None, 1, False, False), ((3, 4), (2, 2), -1, False, True),
                ((3, 4, 2), (2, 3), 0, True, False), ((0, 3), 2, 1, True, False), ((3, 0), 2, 0, False, False),
                ((3, 4), 0, 1, True, False), ((4, 3), None, -2, True, True)]


@pytest.mark.parametrize("case", range(len(CHOICE_CASES)))
def test_choice_shapes_match_numpy(case):
    shape, size, axis, replace, with_p = CHOICE_CASES[case]
    host = numpy.arange(math.prod(shape), dtype=numpy.int64).reshape(shape)
    n = shape[axis]
    p = numpy.linspace(1.0, 2.0, n) / numpy.linspace(1.0, 2.0, n).sum() if with_p else None
    want = numpy.random.default_rng(0).choice(host, size, replace=replace, p=p, axis=axis)
    got = kiln.random.default_rng(0).choice(kiln.asarray(host), size, replace=replace, p=p, axis=axis)
    assert got.shape == numpy.shape(want) and got.dtype == host.dtype
    assert numpy.isin(got.get(), host).all()


def test_choice_along_axis_takes_whole_slices_uniformly():
    rng = kiln.random.default_rng(17)
    x = kiln.arange(60, dtype=kiln.int64).reshape(3, 10, 2)
    c = rng.choice(x, size=(N // 10, 10), axis=1).get()
    assert c.shape == (3, N // 10, 10, 2)
    cols = c[0, ..., 0] // 2
    numpy.testing.assert_array_equal(c, numpy.arange(60).reshape(3, 10, 2)[:, cols, :])
    counts = numpy.bincount(cols.ravel(), minlength=10)
    assert chi_square(counts, numpy.full(10, N / 10.0)) < chi2_critical(9)
    p = numpy.array([0.05, 0.3, 0.0, 0.15, 0.5])
    y = kiln.arange(10, dtype=kiln.int64).reshape(2, 5)
    d = rng.choice(y, size=N, p=p, axis=-1).get()
    assert d.shape == (2, N) and (d[1] == d[0] + 5).all()
    counts = numpy.bincount(d[0], minlength=5)
    assert counts[2] == 0
    assert chi_square(counts[p > 0], N * p[p > 0]) < chi2_critical(3)
    e = rng.choice(x, 10, replace=False, axis=1).get()
    assert sorted((e[0, :, 0] // 2).tolist()) == list(range(10))
    f = rng.choice(y, 4, replace=False, p=p, axis=1).get()
    assert sorted(f[0].tolist()) == [0, 1, 3, 4]


def test_choice_errors_and_scalars_as_numpy():
    rng = kiln.random.default_rng(0)
    x = kiln.arange(12, dtype=kiln.int64).reshape(3, 4)
    for call, exc in ((lambda: rng.choice(x, axis=2), IndexError), (lambda: rng.choice(x, axis=-3), IndexError),
                      (lambda: rng.choice(x, axis=1.0), TypeError),
                      (lambda: rng.choice(x, 5, replace=False, axis=1), ValueError),
                      (lambda: rng.choice(x, p=[0.5, 0.5], axis=1), ValueError),
                      (lambda: rng.choice(x, p=[[0.25] * 4], axis=1), ValueError),
                      (lambda: rng.choice(kiln.empty((0, 3)), 2, axis=0), ValueError),
                      (lambda: rng.choice(kiln.empty((3, 0)), 2, axis=1), ValueError),
                      (lambda: rng.choice(0), ValueError), (lambda: rng.choice(-1), ValueError),
                      (lambda: rng.choice(3.0), ValueError),
                      (lambda: rng.choice(kiln.asarray(numpy.array(5.0))), ValueError),
                      (lambda: rng.permutation(x, axis=2), AxisError),
                      (lambda: rng.permutation(kiln.asarray(numpy.array(5))), AxisError),
                      (lambda: rng.permutation(5.0), AxisError), (lambda: rng.permutation(x, axis=1.0), TypeError),
                      (lambda: rng.shuffle(x, axis=-3), AxisError),
                      (lambda: rng.shuffle(kiln.asarray(numpy.array(5))), TypeError),
                      (lambda: rng.shuffle([1, 2, 3], axis=1), NotImplementedError),
                      (lambda: rng.shuffle((1, 2, 3)), TypeError)):
        with pytest.raises(exc):
            call()
    assert rng.choice(numpy.array(5)).shape == ()   # a 0-d int array is n
    assert rng.choice(5, axis=3).shape == ()          # axis ignored for an int
    assert rng.permutation(5, axis=3).shape == (5,)
    assert rng.choice(kiln.empty((0,)), 0).shape == (0,)
    assert rng.choice(-1, 0).shape == (0,) and rng.permutation(-1).shape == (0,)
    with pytest.raises(ValueError):
        rng.choice(-1, 0, replace=False)
    assert rng.choice(numpy.array(True)).shape == ()
    assert rng.choice(x, 0, axis=1).shape == (3, 0)


def test_shuffle_host_sequences():
    rng = kiln.random.default_rng(5)
    items = list(range(20))
    rng.shuffle(items)
    assert sorted(items) == list(range(20)) and items != list(range(20))
    host = numpy.arange(24).reshape(4, 6)
    rng.shuffle(host, axis=1)
    axis_permutation(host, numpy.arange(24).reshape(4, 6), 1)
    rs = kiln.random.RandomState(5)
    rows = [[0, 1], [2, 3], [4, 5]]
    rs.shuffle(rows)
    assert sorted(rows) == [[0, 1], [2, 3], [4, 5]]


def test_legacy_accepts_what_numpy_legacy_accepts():
    rs = kiln.random.RandomState(9)
    x = kiln.arange(24, dtype=kiln.int64).reshape(4, 3, 2)
    p = rs.permutation(x)
    axis_permutation(p.get(), numpy.arange(24).reshape(4, 3, 2), 0)
    assert rs.permutation(numpy.int64(5)).shape == (5,)
    assert rs.permutation(True).shape == (1,)
    assert rs.permutation([[1, 2], [3, 4]]).shape == (2, 2)
    rs.shuffle(x)
    axis_permutation(x.get(), numpy.arange(24).reshape(4, 3, 2), 0)
    assert rs.choice(numpy.array(5)).shape == ()
    assert rs.choice([1.5, 2.5], size=(2, 2)).dtype == numpy.float64
    for call, exc in ((lambda: rs.permutation(kiln.asarray(numpy.array(5))), IndexError),
                      (lambda: rs.permutation(5.0), IndexError), (lambda: rs.choice(x), ValueError),
                      (lambda: rs.choice([[1, 2], [3, 4]]), ValueError), (lambda: rs.choice(3.0), ValueError),
                      (lambda: rs.shuffle(kiln.asarray(numpy.array(5))), TypeError)):
        with pytest.raises(exc):
            call()
    with pytest.raises(TypeError):
        rs.permutation(x, axis=1)   # NumPy's legacy API has no axis
    y = kiln.arange(12, dtype=kiln.int64).reshape(4, 3)
    kiln.random.seed(2)
    kiln.random.shuffle(y)
    axis_permutation(y.get(), numpy.arange(12).reshape(4, 3), 0)


def test_reproducible_and_seed_dependent():
    x = kiln.arange(200, dtype=kiln.int64).reshape(10, 20)

    def draws(seed):
        rng = kiln.random.default_rng(seed)
        y = x.copy()
        rng.shuffle(y, axis=1)
        return [rng.permutation(x, axis=1).get(), rng.permuted(x, axis=0).get(), rng.permuted(x).get(),
                rng.choice(x, 5, replace=False, axis=-1).get(), rng.choice(x, (2, 3), axis=0).get(), y.get()]

    a, b, c = draws(1), draws(1), draws(2)
    for u, v, w in zip(a, b, c):
        numpy.testing.assert_array_equal(u, v)
        assert not numpy.array_equal(u, w)


def outcome(call):
    """('ok', shape) of a call's result, or ('error', its exception type);
    AxisError counts as IndexError (it is one, and NumPy raises either)."""
    try:
        result = call()
    except numpy.exceptions.AxisError:
        return "error", IndexError
    except Exception as e:   # noqa: BLE001 - the type is what is compared
        return "error", type(e)
    return "ok", None if result is None else numpy.shape(result)


POOLS = ["x", "x[0, 0]", "-1", "0", "numpy.array(2.0)", "numpy.array(True)", "[[1, 2], [3, 4]]", "numpy.zeros((3, 0))",
         "2.5"]


@pytest.mark.parametrize("api", ["Generator", "RandomState"])
def test_outcomes_match_numpy(api):
    """choice, permutation and permuted over a grid of inputs, sizes and
    axes: the same result shapes, or the same exception types, as NumPy's."""
    host = numpy.arange(24).reshape(2, 3, 4)
    make = {"Generator": (numpy.random.default_rng, kiln.random.default_rng),
            "RandomState": (numpy.random.RandomState, kiln.random.RandomState)}[api]
    axes = [None, "-1", "3"] if api == "Generator" else [None]
    calls = []
    for a in POOLS:
        for axis in axes:
            ax = "" if axis is None else ", axis=" + axis
            calls += ["r.choice(%s, %s, replace=%s%s)" % (a, size, replace, ax)
                      for size in ("None", "0", "(2, 2)") for replace in (True, False)]
            calls.append("r.permutation(%s%s)" % (a, ax))
            if api == "Generator":
                calls.append("r.permuted(%s%s)" % (a, ax))
    for call in calls:
        want = outcome(lambda: eval(call, {"numpy": numpy, "x": host, "r": make[0](0)}))
        got = outcome(lambda: eval(call, {"numpy": numpy, "x": kiln.asarray(host), "r": make[1](0)}))
        assert got == want, call
