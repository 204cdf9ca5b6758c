"""kiln.einsum and kiln.einsum_path against NumPy on random data: the
subscript language (explicit and implicit outputs, ellipses, repeated
labels, summed labels, 1 to 4 operands, the sublist form), the
contraction orders (Note [Einsum order]), dtypes, layouts, out=, dtype=,
order=, views, and NumPy's errors.

Note [Einsum tolerances]
Integer and bool results are compared exactly. A float result is compared
with NumPy's einsum of the same operands in long double, elementwise
against Note [Product tolerances]' bound (test_linalg_products.py) with
n = K + p: K is the number of terms summed into each output (NumPy's
einsum of ones), p the number of operands. Each term of kiln's pairwise
contraction passes through at most p - 1 multiplications, at most K - 1
additions over all its steps (the steps' lengths k_i have prod k_i <= K,
so sum (k_i - 1) <= K - 1) and one final rounding, in any order; the
scale is the einsum of the operands' absolute values.
"""
import numpy
import pytest

import kiln
from test_linalg_products import exact, operand, tolerance

LAYOUTS = ["C", "F", "strided", "negative"]

# (subscripts, operand shapes): traces, diagonals, transposes, sums,
# outer products, products, batches, ellipses (broadcast), 3 and 4
# operands, implicit outputs (uppercase sorts first), empty operands.
CASES = [
    ("ij->ji", [(3, 4)]), ("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("iji->j", [(3, 4, 3)]), ("i...->...", [(3, 2, 2)]), ("...ii->...i", [(2, 3, 3)]), ("ijk->kij", [(2, 3, 4)]),
    ("i,i", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]), ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,kj", [(3, 4), (5, 4)]),
    ("ji,jk->ki", [(4, 3), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 5)]), ("...ij,jk", [(2, 3, 4), (4, 5)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]), ("ij,ij->", [(3, 4), (3, 4)]), ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]),
    ("ii,jj->ij", [(3, 3), (2, 2)]), ("i,ij->", [(3,), (3, 4)]), ("ba,Ab", [(2, 3), (4, 2)]),
    ("ij,j", [(3, 4), (1,)]), ("ijk,ikj->i", [(2, 3, 4), (2, 4, 3)]), (",i->i", [(), (3,)]), ("", [()]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("i,i,i->", [(6,), (6,), (6,)]), ("i,j,k", [(2,), (3,), (2,)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 3), (3, 2)]), ("ab,cd,bc->da", [(2, 3), (4, 2), (3, 4)]),
    ("ij,jk->ik", [(0, 3), (3, 2)]), ("ij,jk->ik", [(2, 0), (0, 3)]), ("ij->i", [(3, 0)]),
]


def check(got, subscripts, ops, **kwargs):
    """got (a kiln array) against numpy.einsum(subscripts, *ops, **kwargs)
    under Note [Einsum tolerances]."""
    expected = numpy.einsum(subscripts, *ops, **kwargs)
    assert isinstance(got, kiln.ndarray)
    g = got.get()
    assert g.dtype == expected.dtype, (subscripts, g.dtype, expected.dtype)
    assert g.shape == expected.shape, (subscripts, g.shape, expected.shape)
    if expected.dtype.kind not in "fc":
        numpy.testing.assert_array_equal(g, expected, err_msg=subscripts)
        return
    ref = numpy.einsum(subscripts, *[exact(x) for x in ops])
    scale = numpy.abs(numpy.einsum(subscripts, *[numpy.abs(exact(x)) for x in ops]))
    terms = numpy.einsum(subscripts, *[numpy.ones(numpy.shape(x)) for x in ops])
    n = int(numpy.max(terms, initial=1)) + len(ops)
    gamma, eta = tolerance(expected.dtype, n)
    err = numpy.abs(exact(g) - ref)
    bound = gamma * scale + eta
    bad = err > bound
    assert not bad.any(), "%s: max error %r, bound %r there" % (subscripts, err[bad].max(), bound[bad][0])


def operands(rng, shapes, dtype, layout):
    pairs = [operand(rng, s, dtype, layout if s else "C") for s in shapes]   # asfortranarray makes 0-d 1-d
    return [k for k, _ in pairs], [x for _, x in pairs]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_subscripts_float64(rng, layout):
    for subscripts, shapes in CASES:
        ks, xs = operands(rng, shapes, numpy.float64, layout)
        for optimize in (False, True):
            check(kiln.einsum(subscripts, *ks, optimize=optimize), subscripts, xs)


SOME_CASES = ["ij->j", "ii->i", "i,i", "i,j->ij", "ij,jk->ik", "bij,bjk->bik", "ij,jk,kl->il", "ijk,jil->kl"]


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.int32, numpy.int64, numpy.float16, numpy.float32,
                                   numpy.complex64, numpy.complex128], ids=lambda d: numpy.dtype(d).name)
def test_dtypes(rng, dtype):
    cases = dict((s, shapes) for s, shapes in CASES if s in SOME_CASES)
    for layout in ("C", "negative"):
        for subscripts, shapes in cases.items():
            ks, xs = operands(rng, shapes, dtype, layout)
            check(kiln.einsum(subscripts, *ks, optimize=layout == "C"), subscripts, xs)


def test_integers_wrap_as_numpy(rng):
    a = numpy.full((3, 40), 100, dtype=numpy.int8)
    b = numpy.full((40, 2), 77, dtype=numpy.int8)
    for subscripts, ops in (("ij,jk->ik", (a, b)), ("ij->i", (a,)), ("ij,ij->", (a, a))):
        check(kiln.einsum(subscripts, *[kiln.asarray(x) for x in ops]), subscripts, ops)


def test_mixed_dtypes_and_scalars(rng):
    a = operand(rng, (3, 4), numpy.int32)[1]
    b = operand(rng, (4,), numpy.float32)[1]
    c = operand(rng, (4,), numpy.complex64)[1]
    check(kiln.einsum("ij,j->i", kiln.asarray(a), kiln.asarray(b)), "ij,j->i", [a, b])
    check(kiln.einsum("ij,j->i", kiln.asarray(a), kiln.asarray(c)), "ij,j->i", [a, c])
    # A Python scalar operand is an array (int64 here), as NumPy's einsum takes it.
    i8 = numpy.arange(3, dtype=numpy.int8)
    check(kiln.einsum("i,->i", kiln.asarray(i8), 3), "i,->i", [i8, 3])


def test_sublist_form(rng):
    ka, a = operand(rng, (3, 4), numpy.float64)
    kb, b = operand(rng, (4, 5), numpy.float64)
    kc, c = operand(rng, (2, 3, 3), numpy.float64)
    check(kiln.einsum(ka, [0, 1], kb, [1, 2], [0, 2]), "ij,jk->ik", [a, b])
    check(kiln.einsum(ka, [0, 1], kb, [1, 2]), "ij,jk", [a, b])
    check(kiln.einsum(kc, [Ellipsis, 30, 30], [Ellipsis]), "...ee->...", [c])
    check(kiln.einsum(ka, [25, 26]), "Za", [a])
    assert numpy.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape == kiln.einsum(ka, [0, 1], kb, [1, 2], [0, 2]).shape
    with pytest.raises(ValueError, match=r"subscript is not within the valid range \[0, 52\)"):
        kiln.einsum(ka, [0, 52])
    with pytest.raises(ValueError, match="at least an operand and a subscripts list"):
        kiln.einsum(ka)


def test_out_dtype_order(rng):
    ka, a = operand(rng, (3, 4), numpy.float32)
    kb, b = operand(rng, (4, 5), numpy.float32)
    out = kiln.zeros((3, 5), numpy.float64)
    assert kiln.einsum("ij,jk->ik", ka, kb, out=out) is out
    check(out.astype(numpy.float32), "ij,jk->ik", [a, b])   # computed in float32, stored in float64 exactly
    out_t = kiln.zeros((5, 3), numpy.float32).T             # a strided out
    kiln.einsum("ij,jk->ik", ka, kb, out=out_t)
    check(out_t, "ij,jk->ik", [a, b])
    check(kiln.einsum("ij,jk->ik", ka, kb, dtype=numpy.float64), "ij,jk->ik", [a, b], dtype=numpy.float64)
    check(kiln.einsum("ij->j", ka, dtype=numpy.complex64), "ij->j", [a], dtype=numpy.complex64)
    f = kiln.einsum("ij,jk->ik", ka, kb, order="F")
    assert f.flags.f_contiguous
    check(f, "ij,jk->ik", [a, b])
    c = kiln.einsum("ij->ji", ka, order="C")
    assert c.flags.c_contiguous
    check(c, "ij->ji", [a])
    ki, i = operand(rng, (3, 4), numpy.int64)
    check(kiln.einsum("ij->i", ki, dtype=numpy.int8, casting="unsafe"), "ij->i", [i], dtype=numpy.int8,
          casting="unsafe")


def test_views_are_returned_as_numpy_does(rng):
    m = kiln.asarray(numpy.arange(16.0).reshape(4, 4))
    d = kiln.einsum("ii->i", m)
    d[...] = -1
    assert (numpy.diagonal(m.get()) == -1).all()
    t = kiln.einsum("ij->ji", m)
    t[0, 1] = 99
    assert m.get()[1, 0] == 99
    # Note [Einsum views]: any dtype (float16 included) and whatever dtype= says, as NumPy
    for dtype in (numpy.float16, numpy.int8, numpy.bool_, numpy.complex64):
        host = numpy.arange(27).reshape(3, 3, 3).astype(dtype)
        a = kiln.asarray(host)
        for sub in ("ijk", "kij", "iii->i", "jii->ij", "...ii->...i"):
            for kw in ({}, {"dtype": numpy.float64}):
                got, want = kiln.einsum(sub, a, **kw), numpy.einsum(sub, host, **kw)
                assert got.base is a and got.dtype == want.dtype
                numpy.testing.assert_array_equal(got.get(), want)


def test_contraction_orders(rng):
    shapes = [(5, 30), (30, 40), (40, 2)]
    ks, xs = operands(rng, shapes, numpy.float64, "C")
    path, text = kiln.einsum_path("ij,jk,kl->il", *ks, optimize="greedy")
    assert path == ["einsum_path", (1, 2), (0, 1)]     # jk,kl first: a (30, 2) product, not (5, 40)
    assert "ij,jk,kl->il" in text
    assert kiln.einsum_path("ij,jk,kl->il", *xs)[0] == path    # NumPy operands: shapes suffice
    for optimize in (False, True, "greedy", "optimal", path, ["einsum_path", (0, 1, 2)], ("greedy", 10 ** 9)):
        check(kiln.einsum("ij,jk,kl->il", *ks, optimize=optimize), "ij,jk,kl->il", xs)
    check(kiln.einsum("ij,jk,kl->il", *ks, optimize=numpy.einsum_path("ij,jk,kl->il", *xs)[0]), "ij,jk,kl->il", xs)
    with pytest.raises(TypeError, match="Did not understand the path"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize="fastest")
    with pytest.raises(TypeError, match="Did not understand the path"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize=[(0, 1), (0, 1)])
    with pytest.raises(ValueError, match="einsum_path"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize=["einsum_path", (0, 3), (0, 1)])


ERRORS = [
    (("ij,j", (2, 3), (4,)), ValueError, "operands could not be broadcast together"),
    (("...i->i", (2, 3)), ValueError, "no '...' ellipsis provided"),
    (("ij->", (2, 3), (2, 3)), ValueError, "operands"),
    (("ij,jk", (2, 3)), ValueError, "operands"),
    (("ijk", (2, 3)), ValueError, "too many subscripts for operand 0"),
    (("i", (2, 3)), ValueError, "operand has more dimensions than subscripts"),
    (("ij->ii", (2, 3)), ValueError, "includes output subscript 'i' multiple times"),
    (("ij->k", (2, 3)), ValueError, "output subscript 'k' which never appeared"),
    (("i1", (2, 3)), ValueError, "invalid subscript '1'"),
    (("ii", (2, 3)), ValueError, r"collapsing index 'i' don't match \(2 != 3\)"),
    (("i..->", (2, 3)), ValueError, "not part of an ellipsis"),
    (("ij-", (2, 3)), ValueError, "does not contain proper '->'"),
]


@pytest.mark.parametrize("case, error, message", ERRORS, ids=[c[0][0] for c in ERRORS])
def test_errors_as_numpy(case, error, message):
    subscripts, shapes = case[0], case[1:]
    for module in (numpy, kiln):
        with pytest.raises(error, match=message):
            module.einsum(subscripts, *[module.ones(s) for s in shapes])


def test_errors_kiln_words_its_own():
    a = kiln.ones((2, 3))
    with pytest.raises(ValueError, match="has 1 operand terms, but 2 operands were given"):
        kiln.einsum("ij->", a, a)
    with pytest.raises(ValueError, match="does not contain proper '->'"):   # NumPy: output subscript 'i' twice
        kiln.einsum("i->i->i", kiln.ones(2))


def test_casting_errors_as_numpy():
    for module in (numpy, kiln):
        a = module.ones((2, 3))
        with pytest.raises(TypeError, match="could not be cast"):
            module.einsum("ij->i", a, dtype=numpy.int32)
        with pytest.raises(TypeError, match="could not be cast"):
            module.einsum("ij->i", a, out=module.zeros(2, numpy.float32))
        with pytest.raises(TypeError, match="could not be cast"):
            module.einsum("i,i", module.ones(3, numpy.int32), module.ones(3), casting="no")
        with pytest.raises(ValueError, match="casting must be one of"):
            module.einsum("ij->i", a, casting="bogus")
        with pytest.raises(ValueError, match="order must be one of"):
            module.einsum("ij->i", a, order="X")
        with pytest.raises(ValueError, match="out parameter does not have the correct number of dimensions"):
            module.einsum("ij->i", a, out=module.zeros((2, 1)))


def test_numpy_dispatch(rng):
    ka, a = operand(rng, (3, 4), numpy.float64)
    got = numpy.einsum("ij,kj->ik", ka, ka)
    check(got, "ij,kj->ik", [a, a])
    assert numpy.einsum_path("ij,jk", ka, ka.T)[0] == ["einsum_path", (0, 1)]


BROADCASTS = [
    ("...i,...i->...", [(3, 1, 4), (2, 4)]), ("i...,i...->i...", [(2, 3, 1), (2, 1, 4)]), ("...,...", [(2, 1), (3,)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]), ("...ij,...j->...i", [(1, 3, 4), (5, 1, 4)]), ("ij,jk", [(1, 4), (4, 1)]),
]


@pytest.mark.parametrize("subscripts, shapes", BROADCASTS, ids=[c[0] for c in BROADCASTS])
def test_ellipsis_and_size_one_broadcasting(rng, subscripts, shapes):
    ks, xs = operands(rng, shapes, numpy.float64, "strided")
    for optimize in (False, True):
        check(kiln.einsum(subscripts, *ks, optimize=optimize), subscripts, xs)


REPEATED = [
    ("iij,jk->ik", [(3, 3, 4), (4, 2)]), ("ii,ij->j", [(3, 3), (3, 4)]), ("iii->i", [(3, 3, 3)]),
    ("ijij->ij", [(2, 3, 2, 3)]), ("ii,ii->i", [(3, 3), (3, 3)]), ("i...i", [(3, 2, 3)]),
    ("jii,ij", [(2, 3, 3), (3, 2)]),
]


@pytest.mark.parametrize("subscripts, shapes", REPEATED, ids=[c[0] for c in REPEATED])
def test_repeated_labels_in_one_operand(rng, subscripts, shapes):
    for dtype in (numpy.float64, numpy.int32):
        ks, xs = operands(rng, shapes, dtype, "negative")
        for optimize in (False, True):
            check(kiln.einsum(subscripts, *ks, optimize=optimize), subscripts, xs)


def test_sublist_ellipsis_host_operands_and_paths(rng):
    kx, x = operand(rng, (2, 3, 4), numpy.float64)
    ky, y = operand(rng, (4, 5), numpy.float64)
    check(kiln.einsum(kx, [Ellipsis, 0, 1], ky, [1, 2], [Ellipsis, 0, 2]), "...ij,jk->...ik", [x, y])
    check(kiln.einsum(kx, [Ellipsis, 0, 1], ky, [1, 2]), "...ij,jk", [x, y])
    check(kiln.einsum(kx, (Ellipsis, 51, 0), ky, [0, 26]), "...zA,Aa", [x, y])
    check(kiln.einsum("...ij,jk", x, ky), "...ij,jk", [x, y])   # a NumPy operand is uploaded, as kiln.asarray does
    assert kiln.einsum_path(kx, [0, 1, 2], ky, [2, 3])[0] == ["einsum_path", (0, 1)]
    with pytest.raises(TypeError):
        kiln.einsum(kx, [0, "a", 1])
    with pytest.raises(ValueError, match="output has more dimensions than subscripts given"):
        kiln.einsum(kx, [Ellipsis, 0, 1], [0])


def test_explicit_paths_and_path_text(rng):
    subscripts, shapes = "ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]
    ks, xs = operands(rng, shapes, numpy.float64, "C")
    for path in (["einsum_path", (0, 1), (0, 1), (0, 1)], ["einsum_path", (2, 3), (0, 1), (0, 1)],
                 ["einsum_path", (0, 1, 2, 3)], ["einsum_path", (3,), (3, 0), (0, 1, 2)],
                 ("einsum_path", [1, 2], [0, 2], [0, 1])):
        check(kiln.einsum(subscripts, *ks, optimize=path), subscripts, xs)
    assert kiln.einsum_path(subscripts, *ks, optimize=False)[0] == ["einsum_path", (0, 1), (0, 2), (0, 1)]
    ks, xs = operands(rng, [(5, 30), (30, 40), (40, 2)], numpy.float64, "C")
    path, text = kiln.einsum_path("ij,jk,kl->il", *ks)
    assert path == ["einsum_path", (1, 2), (0, 1)]
    assert text == ("  Complete contraction:  ij,jk,kl->il\n"
                    "  jk,kl->jl                        elements 60\n"
                    "  ij,jl->il                        elements 10")
    assert kiln.einsum_path("i...,i->...", numpy.ones((3, 2)), numpy.ones(3))[1].startswith(
        "  Complete contraction:  i...,i->...\n")
    with pytest.raises(ValueError, match=r"einsum_path \['einsum_path', \(0, 1\)\] leaves 2 operands, not one"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize=["einsum_path", (0, 1)])
    with pytest.raises(ValueError, match=r"einsum_path step \(1, 1\) does not name distinct operands among the 3"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize=["einsum_path", (1, 1), (0, 1)])
    with pytest.raises(ValueError, match=r"einsum_path step \(\) does not name distinct operands"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize=["einsum_path", ()])
    with pytest.raises(TypeError, match=r"Did not understand the path: \('fastest', 10\)"):
        kiln.einsum("ij,jk,kl->il", *ks, optimize=("fastest", 10))
    with pytest.raises(TypeError, match="Did not understand the path: 1"):
        kiln.einsum_path("ij,jk,kl->il", *ks, optimize=1)


def test_out_checks_and_casts(rng):
    ka, a = operand(rng, (3, 4), numpy.float32)
    with pytest.raises(ValueError, match=r"out parameter has shape \(4, 3\), the einstein sum's output has shape "
                                         r"\(3, 4\)"):
        kiln.einsum("ij->ij", ka, out=kiln.zeros((4, 3), numpy.float32))
    with pytest.raises(TypeError, match="einsum's out must be a kiln array"):
        kiln.einsum("ij->ij", ka, out=numpy.zeros((3, 4), numpy.float32))
    for module, x in ((numpy, a), (kiln, ka)):
        with pytest.raises(TypeError, match="could not be cast"):
            module.einsum("ij->ij", x, out=module.zeros((3, 4), numpy.int32), casting="same_kind")
    out = kiln.zeros((3, 4), numpy.int32)
    assert kiln.einsum("ij->ij", ka, out=out, casting="unsafe") is out
    numpy.testing.assert_array_equal(out.get(), a.astype(numpy.int32))
    kc, c = operand(rng, (3,), numpy.complex64)
    for module, x in ((numpy, c), (kiln, kc)):
        real = module.zeros(3, numpy.float32)
        with pytest.warns(numpy.exceptions.ComplexWarning):
            module.einsum("i->i", x, out=real, casting="unsafe")
        numpy.testing.assert_array_equal(kiln.asnumpy(real), c.real)
    m = kiln.asarray(numpy.arange(9.0).reshape(3, 3))
    kiln.einsum("ij->ji", m, out=m)   # out= overlapping the operand: read before written
    numpy.testing.assert_array_equal(m.get(), numpy.arange(9.0).reshape(3, 3).T)


def test_dtype_and_order_keywords(rng):
    ka, a = operand(rng, (3, 4), numpy.float64)
    kb, b = operand(rng, (4, 2), numpy.float64)
    check(kiln.einsum("ij,jk", ka, kb, dtype=numpy.float16, casting="same_kind"), "ij,jk", [a, b],
          dtype=numpy.float16, casting="same_kind")
    ki, i = operand(rng, (3, 4), numpy.int16)
    check(kiln.einsum("ij->j", ki, dtype=numpy.int64), "ij->j", [i], dtype=numpy.int64)
    check(kiln.einsum("i,i", ki[0], ki[1], dtype="f8"), "i,i", [i[0], i[1]], dtype="f8")
    f = kiln.einsum("ij->ji", ka, order="f")
    assert f.flags.f_contiguous and f.base is ka          # already F-ordered: the view itself
    c = kiln.einsum("ij->ji", ka, order="c")
    assert c.flags.c_contiguous and c.base is None
    check(c, "ij->ji", [a])
    assert kiln.einsum("ij->ji", ka, order="A").base is ka
    with pytest.raises(ValueError, match="order must be one of"):
        kiln.einsum("ij->ji", ka, order="CF")
