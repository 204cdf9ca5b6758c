"""kiln.linalg's decompositions (cholesky, qr, svd, svdvals, eigh,
eigvalsh, eig, eigvals) against NumPy: float32/64, complex64/128 and an integer dtype,
C / Fortran / strided / negative-stride / batched operands, empty and 1 x 1
matrices, NumPy's result dtypes, namedtuples and LinAlgErrors, and
numpy.linalg's dispatch to kiln. Factors that are not unique (singular
vectors, eigenvectors, Q) are checked by the identities they satisfy,
computed with kiln operations; unique results (singular values,
eigenvalues, Cholesky factors, qr's 'r' and 'raw') against NumPy's.

Note [Decomposition tolerances]
Every reference is NumPy's result for the same input in double precision
(float64 / complex128), exact to within the double's rounding, which is
negligible against the single-precision bounds and accounted for by the
factor 2 below in double. LAPACK's (and cuSOLVER's) factorisations are
backward stable: the computed factors are exact for A + E with
||E|| <= p(n) eps ||A||, p a low-degree polynomial that in practice stays
below n for these orthogonal-transformation algorithms (Householder QR,
bidiagonalisation, tridiagonalisation, Cholesky, LU with partial
pivoting on these well-conditioned matrices). So
 - identities (A = U S V^H, A = Q R, A V = V W, A = L L^H) hold to
   GAMMA * n * eps * ||A|| (Frobenius norms);
 - orthonormality (Q^H Q = I) to GAMMA * n * eps;
 - singular values and Hermitian eigenvalues, perfectly conditioned (Weyl),
   to GAMMA * n * eps * ||A||_2 each;
 - results whose conditioning is kappa (Cholesky factors, QR's R, solutions,
   inverses, determinants) to GAMMA * n * eps * kappa relative, kappa the
   2-norm condition number NumPy computes for the very matrix.
GAMMA = 10 covers p(n) for n <= 8 including the rounding of the
products that check an identity (n eps each), the reference's own
rounding and the norm inequalities between ||.||_2 and ||.||_F: the
largest ratio error / (n eps scale) seen over these tests on the host
backend is about 5 (GAMMA = 3 fails four of them). The test matrices are
well-conditioned by construction (random + n I, or A A^H + n I), so the
bounds are tight; no bound is loosened anywhere.
"""
import numpy
import pytest

import kiln
from kiln.linalg import _lapack

DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int64]
LAYOUTS = ["C", "F", "strided", "negative"]
GAMMA = 10


def name(d):
    return numpy.dtype(d).name


def result_dtype(dtype):
    """numpy.linalg's result dtype (Note [Linalg dtypes])."""
    return numpy.dtype(numpy.float64) if numpy.dtype(dtype).kind in "biu" else numpy.dtype(dtype)


def eps(dtype):
    return float(numpy.finfo(result_dtype(dtype)).eps)


def random_matrix(rng, shape, dtype, kind="general"):
    """Host values of dtype: 'general' random (standard normals, small
    integers) plus n * I on the diagonal when square, so well-conditioned;
    'hpd' Hermitian positive definite A A^H + n I; 'hermitian' (A + A^H) / 2."""
    dtype = numpy.dtype(dtype)
    m, n = shape[-2:] if len(shape) >= 2 else (shape[0], 0)
    if dtype.kind in "iu":
        x = rng.integers(-3, 4, size=shape).astype(numpy.float64)
    else:
        x = rng.standard_normal(shape)
        if dtype.kind == "c":
            x = x + 1j * rng.standard_normal(shape)
    if kind == "hpd":
        x = x @ x.conj().swapaxes(-1, -2) + n * numpy.eye(n)
    elif kind == "hermitian":
        x = (x + x.conj().swapaxes(-1, -2)) / 2
    elif m == n:
        x = x + n * numpy.eye(n)
    return x.astype(dtype)


def laid_out(host, layout):
    """A kiln array equal to host, in layout: C, Fortran order, every axis
    strided by 2, or the last two axes reversed (negative strides)."""
    if layout == "C":
        return kiln.asarray(host)
    if layout == "F":
        k = kiln.asarray(numpy.asfortranarray(host)).astype(host.dtype, order="F")
        assert k.flags.f_contiguous or host.ndim < 2
        return k
    if layout == "strided":
        big = numpy.zeros(tuple(2 * n for n in host.shape), host.dtype)
        big[tuple(slice(None, None, 2) for _ in host.shape)] = host
        return kiln.asarray(big)[tuple(slice(None, None, 2) for _ in host.shape)]
    flipped = numpy.ascontiguousarray(host[..., ::-1, ::-1])
    return kiln.asarray(flipped)[..., ::-1, ::-1]


def reference(x):
    """x in double precision, for NumPy to compute the reference."""
    x = numpy.asarray(x)
    return x.astype(numpy.complex128 if x.dtype.kind == "c" else numpy.float64)


def fro(x, axes=(-2, -1)):
    return numpy.sqrt(numpy.sum(numpy.abs(x) ** 2, axis=axes))


def conj_t(x):
    return kiln.conj(x).mT if x.dtype.kind == "c" else x.mT


def assert_identity(got, want, dtype, n, scale):
    """|got - want| <= GAMMA n eps scale in Frobenius norm, per matrix."""
    err = fro(numpy.asarray(got, numpy.complex128) - want)
    bound = GAMMA * n * eps(dtype) * numpy.maximum(scale, 1e-300)
    assert numpy.all(err <= bound), (err, bound)


def assert_orthonormal_columns(q, dtype):
    """Q^H Q = I, the product taken with kiln."""
    k = q.shape[-1]
    gram = kiln.asnumpy(kiln.matmul(conj_t(q), q))
    assert_identity(gram, numpy.eye(k), dtype, max(q.shape[-2], 1), 1.0)


def kappa(a):
    return numpy.linalg.cond(reference(a))


def results(got, want):
    """(kiln result, NumPy result) pairs of two functions' results, tuples or single arrays."""
    return zip(got, want) if isinstance(want, tuple) else [(got, want)]


# --- svd -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(6, 4), (3, 5), (2, 3, 3)], ids=str)
def test_svd(rng, dtype, layout, shape):
    a = random_matrix(rng, shape, dtype)
    ka = laid_out(a, layout)
    rdt = result_dtype(dtype)
    s_ref = numpy.linalg.svd(reference(a), compute_uv=False)
    scale = s_ref[..., :1]
    n = max(shape[-2:])
    for full in (True, False):
        res = kiln.linalg.svd(ka, full_matrices=full)
        assert isinstance(res, kiln.linalg.SVDResult)
        u, s, vh = res
        want = numpy.linalg.svd(numpy.zeros(shape, rdt), full_matrices=full)
        for got, w in zip((u, s, vh), want):
            assert isinstance(got, kiln.ndarray) and got.shape == w.shape and got.dtype == w.dtype
        assert numpy.all(numpy.abs(s.get() - s_ref) <= GAMMA * n * eps(dtype) * scale)
        k = min(shape[-2:])
        us = kiln.multiply(u[..., :, :k], s[..., None, :])
        assert_identity(kiln.asnumpy(kiln.matmul(us, vh[..., :k, :])), a, dtype, n, fro(reference(a)))
        assert_orthonormal_columns(u, dtype)
        assert_orthonormal_columns(conj_t(vh), dtype)
    s_only = kiln.linalg.svd(ka, compute_uv=False)
    assert s_only.dtype == numpy.finfo(rdt).dtype
    assert numpy.all(numpy.abs(s_only.get() - s_ref) <= GAMMA * n * eps(dtype) * scale)
    assert numpy.array_equal(kiln.linalg.svdvals(ka).get(), s_only.get())


def test_svd_seed_example():
    """The seeds' exercise (64 x 64 float32, u copied back with asnumpy)."""
    a = kiln.random.uniform(low=-1., high=1., size=(64, 64)).astype(kiln.float32)
    u_gpu, s_gpu, v_gpu = kiln.linalg.svd(a)
    assert type(u_gpu) is kiln.ndarray
    u_cpu = kiln.asnumpy(u_gpu)
    assert type(u_cpu) is numpy.ndarray and u_cpu.dtype == numpy.float32 and u_cpu.shape == (64, 64)
    host = kiln.asnumpy(a)
    s_ref = numpy.linalg.svd(host.astype(numpy.float64), compute_uv=False)
    assert numpy.all(numpy.abs(kiln.asnumpy(s_gpu) - s_ref) <= GAMMA * 64 * eps(numpy.float32) * s_ref[0])
    rebuilt = (u_cpu.astype(numpy.float64) * kiln.asnumpy(s_gpu)) @ kiln.asnumpy(v_gpu)
    assert_identity(rebuilt, host, numpy.float32, 64, fro(host.astype(numpy.float64)))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex64], ids=name)
def test_svd_hermitian(rng, dtype):
    a = random_matrix(rng, (2, 5, 5), dtype, "hermitian")
    a[1] -= 2 * numpy.eye(5, dtype=dtype)   # eigenvalues of both signs
    ka = kiln.asarray(a)
    u, s, vh = kiln.linalg.svd(ka, hermitian=True)
    s_ref = numpy.linalg.svd(reference(a), compute_uv=False)
    assert numpy.all(numpy.abs(s.get() - s_ref) <= GAMMA * 5 * eps(dtype) * s_ref[..., :1])
    assert_identity(kiln.asnumpy(kiln.matmul(kiln.multiply(u, s[..., None, :]), vh)), a, dtype, 5, fro(reference(a)))
    assert_orthonormal_columns(u, dtype)
    assert_orthonormal_columns(conj_t(vh), dtype)
    s_only = kiln.linalg.svd(ka, compute_uv=False, hermitian=True)
    assert numpy.all(numpy.abs(s_only.get() - s_ref) <= GAMMA * 5 * eps(dtype) * s_ref[..., :1])


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 3, 2), (1, 1)], ids=str)
def test_svd_empty_and_1x1(shape):
    a = numpy.full(shape, 2.0, numpy.float32)
    for kw in ({}, {"full_matrices": False}, {"compute_uv": False}):
        got, want = kiln.linalg.svd(kiln.asarray(a), **kw), numpy.linalg.svd(a, **kw)
        for g, w in results(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            numpy.testing.assert_array_equal(numpy.abs(g.get()), numpy.abs(w))


# --- qr --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(6, 4), (3, 5), (2, 4, 4)], ids=str)
def test_qr(rng, dtype, layout, shape):
    a = random_matrix(rng, shape, dtype)
    ka = laid_out(a, layout)
    rdt = result_dtype(dtype)
    n = max(shape[-2:])
    for mode in ("reduced", "complete"):
        res = kiln.linalg.qr(ka, mode=mode)
        assert isinstance(res, kiln.linalg.QRResult)
        q, r = res
        qn, rn = numpy.linalg.qr(numpy.zeros(shape, rdt), mode=mode)
        assert (q.shape, q.dtype, r.shape, r.dtype) == (qn.shape, qn.dtype, rn.shape, rn.dtype)
        r_host = r.get()
        assert numpy.array_equal(numpy.tril(r_host, -1), numpy.zeros_like(r_host))
        assert_identity(kiln.asnumpy(kiln.matmul(q, r)), a, dtype, n, fro(reference(a)))
        assert_orthonormal_columns(q, dtype)
    # 'r' and 'raw' are LAPACK's ?geqrf output itself (unique given its
    # Householder convention): compared with NumPy's, relative to kappa.
    bound = GAMMA * n * eps(dtype) * kappa(a)
    r = kiln.linalg.qr(ka, mode="r")
    r_ref = numpy.linalg.qr(reference(a), mode="r")
    assert r.dtype == rdt and r.shape == r_ref.shape
    assert numpy.all(fro(r.get() - r_ref) <= bound * fro(r_ref))
    h, tau = kiln.linalg.qr(ka, mode="raw")
    h_ref, tau_ref = numpy.linalg.qr(reference(a), mode="raw")
    assert (h.shape, tau.shape, h.dtype, tau.dtype) == (h_ref.shape, tau_ref.shape, rdt, rdt)
    assert numpy.all(fro(h.get() - h_ref) <= bound * fro(h_ref))
    assert numpy.all(numpy.abs(tau.get() - tau_ref) <= numpy.expand_dims(bound, -1) * 2)   # |tau| <= 2


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0), (2, 3, 0), (0, 3, 2), (1, 1)], ids=str)
def test_qr_empty_and_1x1(shape):
    a = numpy.full(shape, -3.0)
    for mode in ("reduced", "complete", "r", "raw"):
        got, want = kiln.linalg.qr(kiln.asarray(a), mode=mode), numpy.linalg.qr(a, mode=mode)
        for g, w in results(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            numpy.testing.assert_array_equal(g.get(), w)


def test_qr_modes():
    a = kiln.eye(3)
    with pytest.raises(ValueError, match="Unrecognized mode 'bad'"):
        kiln.linalg.qr(a, mode="bad")
    with pytest.warns(DeprecationWarning):
        assert kiln.linalg.qr(a, mode="full").Q.shape == (3, 3)
    with pytest.warns(DeprecationWarning):
        assert kiln.linalg.qr(a, mode="economic").shape == (3, 3)


# --- cholesky ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cholesky(rng, dtype, layout):
    a = random_matrix(rng, (3, 5, 5), dtype, "hpd")
    ka = laid_out(a, layout)
    bound = GAMMA * 5 * eps(dtype) * kappa(a)[:, None, None]
    for upper in (False, True):
        got = kiln.linalg.cholesky(ka, upper=upper)
        want = numpy.linalg.cholesky(reference(a), upper=upper)
        assert got.dtype == result_dtype(dtype) and got.shape == a.shape
        g = got.get()
        triangle = numpy.triu(g, 1) if not upper else numpy.tril(g, -1)
        assert not triangle.any()
        assert numpy.all(numpy.abs(g - want) <= bound * numpy.abs(want).max(axis=(-2, -1), keepdims=True))


def test_cholesky_reads_one_triangle_and_raises(rng):
    a = random_matrix(rng, (4, 4), numpy.float64, "hpd")
    junk = a + numpy.triu(numpy.full((4, 4), 1e3), 1)   # the upper triangle is not read
    numpy.testing.assert_allclose(kiln.linalg.cholesky(kiln.asarray(junk)).get(), numpy.linalg.cholesky(a),
                                  rtol=GAMMA * 4 * eps(numpy.float64) * kappa(a))
    stack = numpy.stack([a, a])
    stack[1, 2, 2] = -1.0
    for bad in (stack, -numpy.eye(3), numpy.zeros((2, 2))):
        with pytest.raises(kiln.linalg.LinAlgError, match="Matrix is not positive definite"):
            kiln.linalg.cholesky(kiln.asarray(bad))
    with pytest.raises(numpy.linalg.LinAlgError):   # NumPy's class itself
        kiln.linalg.cholesky(kiln.asarray(stack), upper=True)
    assert kiln.linalg.cholesky(kiln.zeros((0, 3, 3), kiln.int32)).shape == (0, 3, 3)
    assert kiln.linalg.cholesky(kiln.asarray([[4.0]])).get().tolist() == [[2.0]]


# --- eigh -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_eigh(rng, dtype, layout):
    a = random_matrix(rng, (2, 6, 6), dtype, "hermitian")
    rdt = result_dtype(dtype)
    for uplo in ("L", "u"):
        # The triangle not named holds junk: only the other one is read.
        junk = a.copy()
        other = numpy.triu_indices(6, 1) if uplo == "L" else numpy.tril_indices(6, -1)
        junk[(slice(None),) + other] = 7
        ka = laid_out(junk, layout)
        w_ref = numpy.linalg.eigvalsh(reference(a))
        scale = numpy.abs(w_ref).max(axis=-1, keepdims=True)
        res = kiln.linalg.eigh(ka, UPLO=uplo)
        assert isinstance(res, kiln.linalg.EighResult)
        w, v = res
        assert w.dtype == numpy.finfo(rdt).dtype and v.dtype == rdt and w.shape == (2, 6) and v.shape == (2, 6, 6)
        assert numpy.all(numpy.abs(w.get() - w_ref) <= GAMMA * 6 * eps(dtype) * scale)
        av = kiln.asnumpy(kiln.matmul(kiln.asarray(a.astype(rdt)), v))
        vw = kiln.asnumpy(kiln.multiply(v, w[..., None, :]))
        assert_identity(av, vw, dtype, 6, fro(reference(a)))
        assert_orthonormal_columns(v, dtype)
        w_only = kiln.linalg.eigvalsh(ka, UPLO=uplo)
        assert w_only.dtype == w.dtype
        assert numpy.all(numpy.abs(w_only.get() - w_ref) <= GAMMA * 6 * eps(dtype) * scale)


def test_eigh_empty_1x1_and_errors():
    for shape in ((0, 0), (3, 0, 0), (0, 2, 2)):
        w, v = kiln.linalg.eigh(kiln.zeros(shape))
        wn, vn = numpy.linalg.eigh(numpy.zeros(shape))
        assert (w.shape, v.shape, w.dtype, v.dtype) == (wn.shape, vn.shape, wn.dtype, vn.dtype)
    w, v = kiln.linalg.eigh(kiln.asarray([[2 + 0j]], dtype=kiln.complex64))
    assert w.dtype == numpy.float32 and w.get().tolist() == [2.0] and abs(v.get()[0, 0]) == 1
    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        kiln.linalg.eigh(kiln.eye(2), UPLO="X")
    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        kiln.linalg.eigvalsh(kiln.eye(2), UPLO="lower")


# --- shared checks ------------------------------------------------------------

FUNCTIONS = {"cholesky": kiln.linalg.cholesky, "qr": kiln.linalg.qr, "svd": kiln.linalg.svd,
             "svdvals": kiln.linalg.svdvals, "eigh": kiln.linalg.eigh, "eigvalsh": kiln.linalg.eigvalsh,
             "eig": kiln.linalg.eig, "eigvals": kiln.linalg.eigvals}


@pytest.mark.parametrize("fname", sorted(FUNCTIONS))
def test_errors_like_numpy(fname):
    f, g = FUNCTIONS[fname], getattr(numpy.linalg, fname)
    square = fname not in ("qr", "svd", "svdvals")
    cases = [numpy.ones(3)] + ([numpy.ones((2, 3))] if square else [])
    for x in cases:
        with pytest.raises(numpy.linalg.LinAlgError) as want:
            g(x)
        with pytest.raises(kiln.linalg.LinAlgError) as got:
            f(kiln.asarray(x))
        assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
        f(kiln.eye(2, dtype=kiln.float16))


def test_linalg_error_is_numpys():
    assert kiln.linalg.LinAlgError is numpy.linalg.LinAlgError


def test_numpy_dispatches_to_kiln(rng):
    a = kiln.asarray(random_matrix(rng, (4, 3), numpy.float64))
    q, r = numpy.linalg.qr(a)
    assert isinstance(q, kiln.ndarray) and isinstance(r, kiln.ndarray)
    u, s, vh = numpy.linalg.svd(a, full_matrices=False)
    assert all(isinstance(x, kiln.ndarray) for x in (u, s, vh))
    assert isinstance(numpy.linalg.eigvalsh(kiln.eye(3)), kiln.ndarray)
    assert isinstance(numpy.linalg.cholesky(kiln.eye(3)), kiln.ndarray)
    w, v = numpy.linalg.eig(kiln.eye(3))
    assert isinstance(w, kiln.ndarray) and isinstance(v, kiln.ndarray)
    assert isinstance(numpy.linalg.eigvals(kiln.eye(3)), kiln.ndarray)


def test_composition_over_the_cusolver_primitives(solver, monkeypatch, rng):
    """The functions composed over kiln._core._solver_* (the cuda backend's
    primitives; on the host backend cuSOLVER's test double, Note [cuSOLVER
    test double] in runtime/host/host_libraries.cpp), so that CI runs the cuda path's
    stacks, pivots, infos and folded right-hand sides too."""
    monkeypatch.setattr(_lapack, "_VENDOR_SOLVER", True)
    for shape in ((2, 5, 3), (2, 3, 5)):
        a = random_matrix(rng, shape, numpy.complex128)
        u, s, vh = kiln.linalg.svd(kiln.asarray(a), full_matrices=False)
        assert_identity(kiln.asnumpy(kiln.matmul(kiln.multiply(u, s[..., None, :]), vh)), a, a.dtype, 5, fro(a))
        q, r = kiln.linalg.qr(kiln.asarray(a), mode="complete")
        assert_identity(kiln.asnumpy(kiln.matmul(q, r)), a, a.dtype, 5, fro(a))
    h = random_matrix(rng, (2, 4, 4), numpy.float32, "hpd")
    bound = GAMMA * 4 * eps(numpy.float32) * kappa(h)[:, None, None]
    want = numpy.linalg.cholesky(reference(h))
    assert numpy.all(numpy.abs(kiln.linalg.cholesky(kiln.asarray(h)).get() - want) <= bound * numpy.abs(want).max())
    w, v = kiln.linalg.eigh(kiln.asarray(h))
    assert_identity(kiln.asnumpy(kiln.matmul(kiln.asarray(h), v)), kiln.asnumpy(kiln.multiply(v, w[..., None, :])),
                    numpy.float32, 4, fro(reference(h)))
    g = random_matrix(rng, (4, 4), numpy.float64)
    b = random_matrix(rng, (3, 4, 2), numpy.float64)
    x = kiln.linalg.solve(kiln.asarray(g), kiln.asarray(b))   # one factorisation, b folded into 6 columns
    numpy.testing.assert_allclose(x.get(), numpy.linalg.solve(g, b), rtol=0,
                                  atol=GAMMA * 4 * eps(numpy.float64) * kappa(g) * numpy.abs(x.get()).max())
    numpy.testing.assert_allclose(kiln.linalg.det(kiln.asarray(g)).get(), numpy.linalg.det(g),
                                  rtol=GAMMA * 4 * eps(numpy.float64) * kappa(g))
    with pytest.raises(kiln.linalg.LinAlgError, match="Singular matrix"):
        kiln.linalg.inv(kiln.ones((2, 3, 3)))
    with pytest.raises(kiln.linalg.LinAlgError, match="Matrix is not positive definite"):
        kiln.linalg.cholesky(-kiln.eye(3))
    for kind, dtype in (("pairs", numpy.float64), ("general", numpy.complex64), ("real", numpy.float32)):
        e = eig_matrix(rng, (2,), 5, dtype, kind)
        w, v = kiln.linalg.eig(kiln.asarray(e))      # real input: VR unpacked by solver.cpp's kernel
        check_eig(e, w, v, dtype)
        check_eig(e, kiln.linalg.eigvals(kiln.asarray(e)), None, dtype)


# --- eig ----------------------------------------------------------------------
# Note [Eig tolerances]
# ?geev is backward stable: its eigenpairs are exact for A + E with ||E|| <=
# p(n) eps ||A|| (Note [Decomposition tolerances], GAMMA n for p(n)). So
#  - each residual ||A v_j - w_j v_j|| <= GAMMA n eps ||A||_F (v_j of unit
#    norm, itself to GAMMA n eps);
#  - each eigenvalue moves by at most ||E|| times its condition number
#    c_j = ||y_j|| ||x_j|| / |y_j^H x_j|, y_j and x_j its left and right
#    eigenvectors; with the reference's X (unit columns) and Y^H = X^-1,
#    c_j is the norm of row j of X^-1, computed from NumPy's double-precision
#    eig of the very matrix.
# The matrices are V D V^-1 with V = Q1 diag(1..2) Q2 (kappa(V) = 2, so c_j
# <= 2) and eigenvalues at least 1 apart, far more than any bound: matching
# each reference eigenvalue to the nearest computed one cannot pair the
# wrong ones, whatever order geev returns them in.

def eig_matrix(rng, batch, n, dtype, kind):
    """Host matrices batch + (n, n) of dtype with well-separated, well-
    conditioned eigenvalues: 'real' (real eigenvalues), 'symmetric' (real
    symmetric), 'pairs' (real, with complex conjugate pairs: rotation-like
    2 x 2 blocks), 'general' (complex dtypes: complex eigenvalues)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind in "iu":   # integers: triangular, eigenvalues its diagonal 3, 6, 9, ...
        out = numpy.triu(rng.integers(-2, 3, size=batch + (n, n)), 1) + numpy.diag(3 * numpy.arange(1, n + 1))
        return out.astype(dtype)
    cplx = kind == "general"

    def orthogonal():
        x = rng.standard_normal(batch + (n, n)) + (1j * rng.standard_normal(batch + (n, n)) if cplx else 0)
        return numpy.linalg.qr(x)[0]

    grid = 2.0 * numpy.arange(n) - n + 1 + 0.5 * rng.random(batch + (n,))   # >= 1.5 apart
    if kind == "general":
        lam = grid + 1j * rng.uniform(-2, 2, batch + (n,))
        d = lam[..., None] * numpy.eye(n)
    else:
        d = grid[..., None] * numpy.eye(n)
        if kind == "pairs":   # blocks [[a, b], [-b, a]]: eigenvalues a +- i b, b in [1, 2]
            for j in range(0, n - 1, 2):
                b = rng.uniform(1, 2, batch)
                d[..., j + 1, j + 1] = d[..., j, j]
                d[..., j, j + 1], d[..., j + 1, j] = b, -b
    if kind == "symmetric":
        q = orthogonal()
        a = q @ d @ q.swapaxes(-1, -2)
        a = (a + a.swapaxes(-1, -2)) / 2
    else:
        v = orthogonal() @ (numpy.linspace(1, 2, n)[:, None] * orthogonal())
        a = v @ d @ numpy.linalg.inv(v)
    return a.astype(dtype)


def match_eigenvalues(got, want):
    """got reordered so that got[..., j] is the computed eigenvalue nearest
    want[..., j] (each used once)."""
    got, want = numpy.asarray(got, numpy.complex128), numpy.asarray(want, numpy.complex128)
    flat_got, flat_want = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
    out = numpy.empty_like(flat_want)
    for b in range(flat_want.shape[0]):
        left = list(flat_got[b])
        for j, w in enumerate(flat_want[b]):
            k = int(numpy.argmin(numpy.abs(numpy.array(left) - w)))
            out[b, j] = left.pop(k)
    return out.reshape(want.shape)


def check_eig(a, w, v, dtype):
    """kiln's eig (v None: eigvals) of host a against NumPy's double eig and
    the residuals, Note [Eig tolerances]; dtypes as numpy.linalg.eig's for a."""
    ref = reference(a)
    w_ref, x_ref = numpy.linalg.eig(ref)
    want = numpy.linalg.eig(a) if v is not None else (numpy.linalg.eigvals(a), None)
    assert isinstance(w, kiln.ndarray) and w.dtype == want[0].dtype and w.shape == want[0].shape
    n = a.shape[-1]
    norm_a = fro(ref)[..., None]
    cond = numpy.linalg.norm(numpy.linalg.inv(x_ref), axis=-1)   # rows of X^-1
    bound = GAMMA * n * eps(dtype) * norm_a
    err = numpy.abs(match_eigenvalues(w.get(), w_ref) - w_ref)
    assert numpy.all(err <= bound * cond), (err, bound * cond)
    if v is None:
        return
    assert isinstance(v, kiln.ndarray) and v.dtype == want[1].dtype and v.shape == want[1].shape
    wv, vv = w.get().astype(numpy.complex128), v.get().astype(numpy.complex128)
    residual = numpy.linalg.norm(ref @ vv - vv * wv[..., None, :], axis=-2)
    assert numpy.all(residual <= bound), (residual, bound)
    assert numpy.all(numpy.abs(numpy.linalg.norm(vv, axis=-2) - 1) <= GAMMA * n * eps(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_eig(rng, dtype, layout):
    kind = "general" if numpy.dtype(dtype).kind == "c" else "pairs"
    a = eig_matrix(rng, (2,), 5, dtype, kind)
    ka = laid_out(a, layout)
    res = kiln.linalg.eig(ka)
    assert isinstance(res, kiln.linalg.EigResult) and res._fields == ("eigenvalues", "eigenvectors")
    check_eig(a, res.eigenvalues, res.eigenvectors, dtype)
    check_eig(a, kiln.linalg.eigvals(ka), None, dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=name)
@pytest.mark.parametrize("kind", ["real", "symmetric", "pairs"])
def test_eig_real_or_complex_results(rng, dtype, kind):
    """Real input gives real results exactly when every eigenvalue is real,
    over the whole batch, as NumPy's; a single rotation-like matrix in a
    batch makes all of it complex."""
    a = eig_matrix(rng, (3,), 4, dtype, kind)
    w, v = kiln.linalg.eig(kiln.asarray(a))
    real_cast = numpy.linalg.eigvals(numpy.eye(1)).dtype.kind == "f"   # Note [Eig dtypes]: NumPy 2.4 yes, later no
    assert w.dtype.kind == v.dtype.kind == ("f" if kind != "pairs" and real_cast else "c")
    check_eig(a, w, v, dtype)
    check_eig(a, kiln.linalg.eigvals(kiln.asarray(a)), None, dtype)
    if kind == "real":   # one matrix with a conjugate pair makes the whole batch complex
        a[1] = eig_matrix(rng, (), 4, dtype, "pairs")
        w, v = kiln.linalg.eig(kiln.asarray(a))
        assert w.dtype.kind == v.dtype.kind == "c"
        check_eig(a, w, v, dtype)


def test_eig_4d_batch_and_1x1(rng):
    a = eig_matrix(rng, (2, 3), 3, numpy.complex128, "general")
    check_eig(a, *kiln.linalg.eig(kiln.asarray(a)), numpy.complex128)
    w, v = kiln.linalg.eig(kiln.asarray([[-2.5]], dtype=kiln.float32))
    want = numpy.linalg.eig(numpy.array([[-2.5]], dtype=numpy.float32))   # float32 or complex64 (Note [Eig dtypes])
    assert w.dtype == v.dtype == want.eigenvalues.dtype and w.get().tolist() == [-2.5] and v.get().tolist() == [[1.0]]


def test_eig_empty_and_errors():
    for shape, dtype in (((0, 0), numpy.float64), ((3, 0, 0), numpy.float32), ((0, 2, 2), numpy.complex64),
                         ((0, 0), numpy.int64)):
        w, v = kiln.linalg.eig(kiln.zeros(shape, dtype))
        wn, vn = numpy.linalg.eig(numpy.zeros(shape, dtype))
        assert (w.shape, v.shape, w.dtype, v.dtype) == (wn.shape, vn.shape, wn.dtype, vn.dtype)
        wn = numpy.linalg.eigvals(numpy.zeros(shape, dtype))
        got = kiln.linalg.eigvals(kiln.zeros(shape, dtype))
        assert (got.shape, got.dtype) == (wn.shape, wn.dtype)
    for bad in (numpy.array([[1.0, numpy.nan], [0.0, 1.0]]), numpy.full((2, 2, 2), numpy.inf, numpy.complex64)):
        for f in (kiln.linalg.eig, kiln.linalg.eigvals):
            with pytest.raises(kiln.linalg.LinAlgError) as got:
                f(kiln.asarray(bad))
            with pytest.raises(numpy.linalg.LinAlgError) as want:
                getattr(numpy.linalg, f.__name__)(bad)
            assert str(got.value) == str(want.value) == "Array must not contain infs or NaNs"


def test_eig_not_converging_raises(monkeypatch):
    """geev's info > 0 for any matrix of a batch raises NumPy's LinAlgError
    (no matrix is known to make ?geev fail, so the primitive's info is
    forced)."""
    geev = _lapack.geev

    def failing_second(a, compute_v):
        w, vr, info = geev(a, compute_v)
        return w, vr, kiln.asarray([0, 2, 0], dtype=kiln.int64)

    monkeypatch.setattr(_lapack, "geev", failing_second)
    for f in (kiln.linalg.eig, kiln.linalg.eigvals):
        with pytest.raises(kiln.linalg.LinAlgError, match="^Eigenvalues did not converge$"):
            f(kiln.ones((3, 2, 2)))
