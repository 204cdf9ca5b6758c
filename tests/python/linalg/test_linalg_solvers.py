"""kiln.linalg's solvers (solve, inv, det, slogdet, lstsq, pinv,
matrix_power, matrix_rank, tensorsolve, tensorinv, cond) against NumPy:
float32/64, complex64/128 and an integer dtype, C / Fortran / strided /
negative-stride operands, batches broadcast as NumPy broadcasts them,
empty and 1 x 1 inputs, NumPy's result dtypes and LinAlgErrors for
singular matrices. Tolerances: Note [Decomposition tolerances] in
test_linalg_decompositions.py (solutions, inverses and determinants to
GAMMA n eps kappa relative)."""
import numpy
import pytest

import kiln
from test_linalg_decompositions import (DTYPES, GAMMA, LAYOUTS, eps, fro, kappa, laid_out, name, random_matrix,
                                        reference, result_dtype, results)

LinAlgError = numpy.linalg.LinAlgError


def assert_relative(got, want, dtype, n, cond, axes=(-2, -1)):
    """||got - want|| <= GAMMA n eps cond ||want|| per matrix (vector)."""
    got = got.get() if isinstance(got, kiln.ndarray) else got
    err = fro(got - want, axes)
    bound = GAMMA * n * eps(dtype) * cond * fro(want, axes)
    assert numpy.all(err <= bound), (err, bound)


# --- solve and inv ------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_solve(rng, dtype, layout):
    a = random_matrix(rng, (2, 1, 4, 4), dtype)
    b = random_matrix(rng, (3, 4, 2), dtype)
    x = kiln.linalg.solve(laid_out(a, layout), laid_out(b, layout))   # batches broadcast to (2, 3)
    want = numpy.linalg.solve(reference(a), reference(b))
    assert x.shape == (2, 3, 4, 2) and x.dtype == result_dtype(dtype)
    assert_relative(x, want, dtype, 4, kappa(a)[..., None])
    # b 1-D: one vector for every matrix of a's batch (NumPy 2).
    v = random_matrix(rng, (4,), dtype)
    x = kiln.linalg.solve(laid_out(a, layout), kiln.asarray(v))
    assert x.shape == (2, 1, 4)
    assert_relative(x, numpy.linalg.solve(reference(a), reference(v)), dtype, 4, kappa(a), axes=-1)


def test_solve_one_matrix_many_right_hand_sides(rng):
    """a 2-D with b a stack: a is factorised once for all of b's matrices."""
    a = random_matrix(rng, (5, 5), numpy.float64)
    b = random_matrix(rng, (3, 2, 5, 4), numpy.float64)
    x = kiln.linalg.solve(kiln.asarray(a), kiln.asarray(b)[..., ::-1, :])
    assert_relative(x, numpy.linalg.solve(a, b[..., ::-1, :]), numpy.float64, 5, kappa(a))


def test_solve_dtypes_and_errors(rng):
    a32 = kiln.asarray(random_matrix(rng, (3, 3), numpy.float32))
    assert kiln.linalg.solve(a32, kiln.ones(3, kiln.float64)).dtype == numpy.float64
    assert kiln.linalg.solve(a32, kiln.ones(3, kiln.complex64)).dtype == numpy.complex64
    assert kiln.linalg.solve(a32, kiln.ones(3, kiln.int8)).dtype == numpy.float64
    for a_shape, b_shape in (((3, 3), (2,)), ((3, 3), (2, 2)), ((2, 3, 3), (4, 3, 1)), ((3, 3), ())):
        with pytest.raises(ValueError) as want:
            numpy.linalg.solve(numpy.eye(3) + numpy.zeros(a_shape), numpy.ones(b_shape))
        with pytest.raises(ValueError) as got:
            kiln.linalg.solve(kiln.eye(3) + kiln.zeros(a_shape), kiln.ones(b_shape))
        assert str(got.value) == str(want.value)
    singular = numpy.stack([numpy.eye(3), numpy.ones((3, 3))])
    with pytest.raises(kiln.linalg.LinAlgError, match="Singular matrix"):
        kiln.linalg.solve(kiln.asarray(singular), kiln.ones((2, 3, 1)))
    for a_shape, b_shape in (((0, 0), (0,)), ((2, 0, 0), (2, 0, 3)), ((0, 3, 3), (3,)), ((3, 3), (3, 0))):
        got = kiln.linalg.solve(kiln.eye(a_shape[-1]) + kiln.zeros(a_shape), kiln.zeros(b_shape))
        want = numpy.linalg.solve(numpy.eye(a_shape[-1]) + numpy.zeros(a_shape), numpy.zeros(b_shape))
        assert got.shape == want.shape and got.dtype == want.dtype
    with pytest.raises(LinAlgError, match="Singular matrix"):   # no right-hand sides, but a is still checked
        kiln.linalg.solve(kiln.zeros((3, 3)), kiln.zeros((3, 0)))


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_inv(rng, dtype, layout):
    a = random_matrix(rng, (3, 5, 5), dtype)
    got = kiln.linalg.inv(laid_out(a, layout))
    assert got.dtype == result_dtype(dtype) and got.shape == a.shape
    assert_relative(got, numpy.linalg.inv(reference(a)), dtype, 5, kappa(a))


def test_inv_singular_empty_and_1x1():
    stack = numpy.stack([numpy.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(kiln.linalg.LinAlgError, match="Singular matrix"):
        kiln.linalg.inv(kiln.asarray(stack))
    with pytest.raises(LinAlgError, match="Singular matrix"):
        kiln.linalg.inv(kiln.zeros((1, 1), kiln.complex64))
    for shape in ((0, 0), (0, 2, 2), (3, 0, 0)):
        got = kiln.linalg.inv(kiln.zeros(shape, kiln.int16))
        assert got.shape == shape and got.dtype == numpy.float64
    assert kiln.linalg.inv(kiln.asarray([[4.0]], dtype=kiln.float32)).get().tolist() == [[0.25]]


# --- det and slogdet -----------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_det_and_slogdet(rng, dtype, layout):
    a = random_matrix(rng, (2, 3, 4, 4), dtype)
    ka = laid_out(a, layout)
    rdt = result_dtype(dtype)
    bound = GAMMA * 4 * eps(dtype) * kappa(a)   # relative error of a determinant from LU
    d = kiln.linalg.det(ka)
    d_ref = numpy.linalg.det(reference(a))
    assert d.dtype == rdt and d.shape == (2, 3)
    assert numpy.all(numpy.abs(d.get() - d_ref) <= bound * numpy.abs(d_ref))
    sign, logabsdet = kiln.linalg.slogdet(ka)
    s_ref, l_ref = numpy.linalg.slogdet(reference(a))
    assert sign.dtype == rdt and logabsdet.dtype == numpy.finfo(rdt).dtype
    assert numpy.all(numpy.abs(sign.get() - s_ref) <= bound)
    assert numpy.all(numpy.abs(logabsdet.get() - l_ref) <= bound)


def test_det_signs_singular_empty():
    # An odd and an even permutation: exactly -1 and 1 (the pivots' sign).
    perms = numpy.stack([numpy.eye(3)[[1, 0, 2]], numpy.eye(3)[[1, 2, 0]]])
    assert kiln.linalg.det(kiln.asarray(perms)).get().tolist() == [-1.0, 1.0]
    assert kiln.linalg.slogdet(kiln.asarray(perms)).sign.get().tolist() == [-1.0, 1.0]
    singular = kiln.asarray([[1.0, 2.0], [2.0, 4.0]], dtype=kiln.complex64)
    assert kiln.linalg.det(singular).get() == 0
    sign, logabsdet = kiln.linalg.slogdet(singular)
    assert isinstance(kiln.linalg.slogdet(singular), kiln.linalg.SlogdetResult)
    assert sign.get() == 0 and logabsdet.get() == -numpy.inf and logabsdet.dtype == numpy.float32
    for shape in ((0, 0), (3, 0, 0), (0, 2, 2)):
        for f in (numpy.linalg.det, numpy.linalg.slogdet):
            want = f(numpy.zeros(shape))
            got = getattr(kiln.linalg, f.__name__)(kiln.zeros(shape))
            for g, w in results(got, want):
                assert g.shape == numpy.shape(w)
                numpy.testing.assert_array_equal(g.get(), w)
    assert kiln.linalg.det(kiln.asarray([[-3]])).get() == -3.0
    with pytest.raises(LinAlgError, match="Last 2 dimensions of the array must be square"):
        kiln.linalg.det(kiln.ones((2, 3)))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex64], ids=name)
def test_singular_inside_a_batch(rng, dtype):
    # A batch of small matrices takes cuBLAS's batched LU on the cuda backend,
    # which may stop at a singular matrix's zero pivot (Note [Batched
    # primitives]): det and slogdet of that matrix are still 0 and -inf, the
    # others as NumPy's, and solve/inv raise for the batch.
    a = random_matrix(rng, (9, 8, 8), dtype)
    a[4, :, 1] = 0
    ka = kiln.asarray(a)
    regular = numpy.arange(9) != 4
    bound = GAMMA * 8 * eps(dtype) * numpy.max(kappa(a[regular]))   # as test_det_and_slogdet
    want = numpy.linalg.det(reference(a))
    got = kiln.linalg.det(ka).get()
    assert got[4] == 0
    assert numpy.all(numpy.abs(got - want)[regular] <= bound * numpy.abs(want[regular]))
    sign, logdet = kiln.linalg.slogdet(ka)
    assert sign.get()[4] == 0 and logdet.get()[4] == -numpy.inf
    assert numpy.all(numpy.abs(logdet.get() - numpy.log(numpy.abs(want)))[regular] <= bound)
    with pytest.raises(LinAlgError, match="Singular matrix"):
        kiln.linalg.inv(ka)
    with pytest.raises(LinAlgError, match="Singular matrix"):
        kiln.linalg.solve(ka, kiln.ones((9, 8, 1), dtype=dtype))


# --- lstsq and pinv -----------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_lstsq(rng, dtype, layout):
    rdt = result_dtype(dtype)
    for shape, b_shape in (((6, 4), (6, 2)), ((6, 4), (6,)), ((3, 5), (3, 2))):
        a = random_matrix(rng, shape, dtype)
        b = random_matrix(rng, b_shape, dtype)
        x, res, rank, s = kiln.linalg.lstsq(laid_out(a, layout), laid_out(b, layout) if b.ndim == 2 else
                                            kiln.asarray(b))
        xn, resn, rankn, sn = numpy.linalg.lstsq(reference(a), reference(b))
        assert (x.shape, res.shape, s.shape) == (xn.shape, resn.shape, sn.shape)
        assert (x.dtype, res.dtype, s.dtype) == (rdt, numpy.finfo(rdt).dtype, numpy.finfo(rdt).dtype)
        assert rank == rankn and type(rank) is numpy.int32
        cond = sn[0] / sn[-1]
        assert_relative(x, xn, dtype, 6, cond ** 2, axes=None)   # kappa^2: the residual's part (Golub-Van Loan)
        assert numpy.all(numpy.abs(s.get() - sn) <= GAMMA * 6 * eps(dtype) * sn[0])
        assert numpy.all(numpy.abs(res.get() - resn) <= GAMMA * 6 * eps(dtype) * cond * fro(reference(b), None) ** 2)


def test_lstsq_rank_rcond_and_empty():
    a = numpy.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])   # rank 1
    b = numpy.array([1.0, 0.0, 1.0])
    x, res, rank, s = kiln.linalg.lstsq(kiln.asarray(a), kiln.asarray(b))
    xn, resn, rankn, sn = numpy.linalg.lstsq(a, b)
    assert rank == rankn == 1 and res.shape == (0,)
    numpy.testing.assert_allclose(x.get(), xn, rtol=GAMMA * 3 * eps(numpy.float64) * 10)
    # rcond above s[1] / s[0] drops the second singular value.
    a = numpy.diag([1.0, 1e-3, 1.0])[:, :2]
    assert kiln.linalg.lstsq(kiln.asarray(a), kiln.asarray(b), rcond=1e-2)[2] == 1
    assert kiln.linalg.lstsq(kiln.asarray(a), kiln.asarray(b), rcond=1e-4)[2] == 2
    for a_shape, b_shape in (((3, 0), (3,)), ((3, 0), (3, 2)), ((0, 3), (0,)), ((0, 3), (0, 2)), ((3, 2), (3, 0)),
                             ((0, 0), (0,))):
        a, b = numpy.ones(a_shape), numpy.ones(b_shape)
        got, want = kiln.linalg.lstsq(kiln.asarray(a), kiln.asarray(b)), numpy.linalg.lstsq(a, b)
        for g, w in zip(got[:2] + got[3:], want[:2] + want[3:]):
            assert g.shape == w.shape and g.dtype == w.dtype
            # ones((3, 2)) is rank 1: its second singular value is roundoff, up to 3 eps |s[0]|.
            numpy.testing.assert_allclose(g.get(), w, rtol=0, atol=GAMMA * 3 * eps(numpy.float64) * 3)
        assert got[2] == want[2]
    with pytest.raises(LinAlgError, match="Incompatible dimensions"):
        kiln.linalg.lstsq(kiln.ones((3, 2)), kiln.ones(2))
    with pytest.raises(LinAlgError, match="3-dimensional array given. Array must be two-dimensional"):
        kiln.linalg.lstsq(kiln.ones((2, 3, 2)), kiln.ones(3))


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_pinv(rng, dtype):
    for shape in ((6, 4), (2, 3, 5)):
        a = random_matrix(rng, shape, dtype)
        got = kiln.linalg.pinv(laid_out(a, "negative"))
        want = numpy.linalg.pinv(reference(a))
        assert got.dtype == result_dtype(dtype) and got.shape == want.shape
        assert_relative(got, want, dtype, 6, kappa(a)[..., None, None] if a.ndim == 3 else kappa(a))
    h = random_matrix(rng, (4, 4), dtype, "hermitian")
    assert_relative(kiln.linalg.pinv(kiln.asarray(h), hermitian=True), numpy.linalg.pinv(reference(h)), dtype, 4,
                    kappa(h))


def test_pinv_cutoffs_and_empty():
    a = numpy.diag([1.0, 1e-3, 0.0])
    for kw in ({}, {"rcond": 1e-2}, {"rtol": 1e-2}, {"rtol": None}):
        numpy.testing.assert_array_equal(kiln.linalg.pinv(kiln.asarray(a), **kw).get(), numpy.linalg.pinv(a, **kw))
    batch = numpy.stack([a, a])
    numpy.testing.assert_array_equal(kiln.linalg.pinv(kiln.asarray(batch), rtol=kiln.asarray([1e-2, 1e-4])).get(),
                                     numpy.linalg.pinv(batch, rtol=numpy.array([1e-2, 1e-4])))
    with pytest.raises(ValueError, match="`rtol` and `rcond` can't be both set."):
        kiln.linalg.pinv(kiln.asarray(a), rcond=1e-2, rtol=1e-2)
    for shape in ((0, 3), (2, 3, 0)):
        got, want = kiln.linalg.pinv(kiln.zeros(shape, kiln.int32)), numpy.linalg.pinv(numpy.zeros(shape, numpy.int32))
        assert got.shape == want.shape and got.dtype == want.dtype


# --- matrix_rank, matrix_power, tensorsolve, tensorinv ---------------------------

def test_matrix_rank(rng):
    low = random_matrix(rng, (3, 6, 2), numpy.float64)
    a = low @ random_matrix(rng, (3, 2, 5), numpy.float64)   # rank 2 each
    a[1] = 0
    got = kiln.linalg.matrix_rank(kiln.asarray(a))
    assert got.get().tolist() == numpy.linalg.matrix_rank(a).tolist() == [2, 0, 2]
    assert got.dtype == numpy.int64
    single = kiln.linalg.matrix_rank(kiln.asarray(a[0].astype(numpy.complex64)))
    assert single.shape == () and int(single) == 2
    s = numpy.linalg.svd(a[0], compute_uv=False)
    assert int(kiln.linalg.matrix_rank(kiln.asarray(a[0]), tol=s[1] * 1.01)) == 1
    assert int(kiln.linalg.matrix_rank(kiln.asarray(a[0]), rtol=s[1] / s[0] * 1.01)) == 1
    assert kiln.linalg.matrix_rank(kiln.asarray(a), tol=kiln.asarray([1e-8, 0.0, 1e9])).get().tolist() == [2, 0, 0]
    h = random_matrix(rng, (4, 4), numpy.float32, "hermitian")
    assert int(kiln.linalg.matrix_rank(kiln.asarray(h), hermitian=True)) == numpy.linalg.matrix_rank(h, hermitian=True)
    for v, rank in ((kiln.zeros(3), 0), (kiln.ones(3), 1), (kiln.asarray(0.0), 0), (kiln.asarray([0, 2j]), 1)):
        got = kiln.linalg.matrix_rank(v)   # below 2-d: a 0-d device array, as CuPy's
        assert isinstance(got, kiln.ndarray) and got.shape == () and got.dtype == numpy.int64
        assert int(got) == rank == numpy.linalg.matrix_rank(v.get())
    with pytest.raises(ValueError, match="`tol` and `rtol` can't be both set."):
        kiln.linalg.matrix_rank(kiln.eye(2), tol=1, rtol=1)


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.float32, numpy.complex128], ids=name)
def test_matrix_power(rng, dtype):
    a = random_matrix(rng, (2, 3, 3), dtype)
    ka = kiln.asarray(a)
    for n in (0, 1, 2, 3, 5):
        got, want = kiln.linalg.matrix_power(ka, n), numpy.linalg.matrix_power(a, n)
        assert got.dtype == want.dtype and got.shape == want.shape
        if numpy.dtype(dtype).kind in "iu":
            numpy.testing.assert_array_equal(got.get(), want)   # exact, as NumPy's integer products
        else:
            # n - 1 products, each within n eps |A|^k |A|: relative to ||A||^n / ||A^n||.
            ref = numpy.linalg.matrix_power(reference(a), n)
            growth = numpy.linalg.norm(reference(a), 2, axis=(-2, -1)) ** n / numpy.linalg.norm(ref, 2, axis=(-2, -1))
            assert_relative(got, ref, dtype, 3 * max(n - 1, 1), growth[..., None, None])
    assert kiln.linalg.matrix_power(ka, 1) is ka
    inv2 = kiln.linalg.matrix_power(ka, -2)
    assert inv2.dtype == result_dtype(dtype)
    assert_relative(inv2, numpy.linalg.matrix_power(reference(a), -2), dtype, 6, kappa(a)[..., None, None] ** 2)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        kiln.linalg.matrix_power(ka, 1.5)


def test_tensorsolve_and_tensorinv(rng):
    a = random_matrix(rng, (24, 24), numpy.float64).reshape(6, 4, 2, 3, 4)
    b = rng.standard_normal((6, 4))
    got = kiln.linalg.tensorsolve(kiln.asarray(a), kiln.asarray(b))
    want = numpy.linalg.tensorsolve(a, b)
    assert got.shape == want.shape == (2, 3, 4)
    cond = kappa(a.reshape(24, 24))
    assert_relative(got, want, numpy.float64, 24, cond, axes=None)
    moved = numpy.moveaxis(a, 4, 1)   # axes=(1,) moves it back to the end
    got = kiln.linalg.tensorsolve(kiln.asarray(moved), kiln.asarray(b), axes=(1,))
    want = numpy.linalg.tensorsolve(moved, b, axes=(1,))
    assert got.shape == want.shape == (2, 3, 4)
    assert_relative(got, want, numpy.float64, 24, cond, axes=None)
    with pytest.raises(LinAlgError, match="Input arrays must satisfy the requirement"):
        kiln.linalg.tensorsolve(kiln.ones((2, 3, 4)), kiln.ones(2))
    t = a.reshape(4, 6, 8, 3)
    got, want = kiln.linalg.tensorinv(kiln.asarray(t)), numpy.linalg.tensorinv(t)
    assert got.shape == want.shape == (8, 3, 4, 6)
    assert_relative(got, want, numpy.float64, 24, cond, axes=None)
    t = a.reshape(24, 4, 6)
    got, want = kiln.linalg.tensorinv(kiln.asarray(t), ind=1), numpy.linalg.tensorinv(t, ind=1)
    assert got.shape == want.shape == (4, 6, 24)
    assert_relative(got, want, numpy.float64, 24, cond, axes=None)
    with pytest.raises(ValueError, match="Invalid ind argument."):
        kiln.linalg.tensorinv(kiln.asarray(t), ind=0)


# --- cond ---------------------------------------------------------------------

@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, numpy.inf, -numpy.inf, "fro", "nuc"], ids=str)
def test_cond(rng, p):
    a = random_matrix(rng, (2, 4, 4), numpy.complex64)
    got, want = kiln.linalg.cond(kiln.asarray(a), p), numpy.linalg.cond(reference(a), p)
    assert got.dtype == numpy.float32 and got.shape == (2,)
    k = kappa(a)
    assert numpy.all(numpy.abs(got.get() - want) <= GAMMA * 4 * eps(numpy.complex64) * k * want)
    # A singular matrix: inf, or huge where the smallest singular value
    # rounds to a tiny nonzero (p None, 2, -2: tiny); a nan stays nan (the
    # SVD of a nan raises, as NumPy's).
    svd_based = p is None or p in (2, -2)
    if p == "nuc":
        # The nuclear norm of a failed inverse (nans) is an SVD of nans, which
        # raises or gives nan as the LAPACK implementation decides
        # (docs/linalg.md): not compared.
        return
    singular = [numpy.eye(3), numpy.ones((3, 3))] + ([] if svd_based else [numpy.full((3, 3), numpy.nan)])
    got, want = kiln.linalg.cond(kiln.asarray(numpy.stack(singular)), p).get(), numpy.linalg.cond(singular, p)
    assert got[0] == want[0]
    assert got[1] <= 1e-15 if p == -2 else got[1] >= 1e15
    if not svd_based:
        assert numpy.isinf(got[1]) and numpy.isnan(got[2])
    if p is None:
        wide = random_matrix(rng, (3, 5), numpy.int64)
        got, want = kiln.linalg.cond(kiln.asarray(wide)), numpy.linalg.cond(wide)
        assert got.shape == () and got.dtype == numpy.float64
        assert abs(got.get() - want) <= GAMMA * 5 * eps(numpy.float64) * want * want
    with pytest.raises(LinAlgError, match="cond is not defined on empty arrays"):
        kiln.linalg.cond(kiln.zeros((0, 0)), p)


def test_numpy_dispatches_to_kiln_solvers(rng):
    a = kiln.asarray(random_matrix(rng, (3, 3), numpy.float64))
    for f in (numpy.linalg.inv, numpy.linalg.det, numpy.linalg.pinv, numpy.linalg.matrix_rank):
        assert isinstance(f(a), kiln.ndarray), f
    assert isinstance(numpy.linalg.solve(a, kiln.ones(3)), kiln.ndarray)
    assert isinstance(numpy.linalg.lstsq(a, kiln.ones(3))[0], kiln.ndarray)
    assert isinstance(numpy.linalg.slogdet(a), kiln.linalg.SlogdetResult)
