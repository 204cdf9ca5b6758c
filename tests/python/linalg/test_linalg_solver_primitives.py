"""kiln._core._solver_*: the cuda backend's LAPACK primitives through cuSOLVER
(arraycore/solver.h, Note [LAPACK primitives]), called directly on small
random stacks and checked against NumPy. On the cuda backend they run
cuSOLVER; on the host backend the same tests run through cuSOLVER's test
double over reference LAPACK (Note [cuSOLVER test double]), which checks the
arguments kiln passes, when a C++ compiler and liblapack.so.3 are there. The
argument checks and the host backend's refusal run everywhere."""
import ctypes
import os
import subprocess
import sys

import numpy
import pytest

import kiln
from kiln import _core
from conftest import TEST_DOUBLE_ENV, build_test_double

DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]
needs_solver = pytest.mark.usefixtures("solver")


# Tolerance of a computed identity, relative to the norms involved: a few
# hundred units of roundoff of the dtype's precision for these small (n <= 6)
# well-conditioned matrices.
def _tol(dtype):
    return 300 * numpy.finfo(dtype).eps


def _random(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _stack(host):
    """A kiln stack (Note [LAPACK primitives]) holding host (batch, m, n)."""
    return kiln.asarray(numpy.ascontiguousarray(host.swapaxes(1, 2))).swapaxes(1, 2)


def _close(got, want, dtype, scale=None):
    scale = numpy.linalg.norm(want) if scale is None else scale
    assert numpy.linalg.norm(got - want) <= _tol(dtype) * max(scale, 1.0), (got, want)


def _conj_t(x):
    return x.conj().swapaxes(-1, -2)


def _permutation(ipiv, m):
    """Row order P A of LAPACK's 1-based interchanges."""
    perm = numpy.arange(m)
    for j, p in enumerate(ipiv):
        perm[[j, p - 1]] = perm[[p - 1, j]]
    return perm


def _check_lu(a, lu, ipiv, dtype):
    batch, m, n = a.shape
    k = min(m, n)
    for i in range(batch):
        assert all(j + 1 <= p <= m for j, p in enumerate(ipiv[i]))
        low = numpy.tril(lu[i], -1)[:, :k] + numpy.eye(m, k, dtype=dtype)
        up = numpy.triu(lu[i])[:k, :]
        _close(low @ up, a[i][_permutation(ipiv[i], m)], dtype)


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4, 4), (2, 5, 3), (2, 3, 5)])
def test_getrf(dtype, shape):
    a = _random(numpy.random.default_rng(1), shape, dtype)
    x = _stack(a)
    ipiv, info = _core._solver_getrf(x)
    assert ipiv.dtype == numpy.int64 and ipiv.shape == (shape[0], min(shape[1:]))
    assert info.dtype == numpy.int64 and info.shape == (shape[0],)
    assert info.get().tolist() == [0] * shape[0]
    _check_lu(a, x.get(), ipiv.get(), dtype)


@needs_solver
def test_getrf_singular_completes(monkeypatch):
    # Column 1 is zero, so U[1, 1] is exactly zero: info 2, and the
    # factorisation still reproduces A (LAPACK's meaning).
    a = _random(numpy.random.default_rng(2), (2, 4, 4), numpy.float64)
    a[1, :, 1] = 0
    x = _stack(a)
    monkeypatch.setenv("KILN_SOLVER_BATCHED", "0")   # the batched LU may stop there (Note [Batched primitives])
    ipiv, info = _core._solver_getrf(x)
    assert info.get().tolist() == [0, 2]
    _check_lu(a, x.get(), ipiv.get(), numpy.float64)


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_getrs(dtype, trans):
    rng = numpy.random.default_rng(3)
    a = _random(rng, (2, 4, 4), dtype) + 4 * numpy.eye(4, dtype=dtype)
    b = _random(rng, (2, 4, 3), dtype)
    lu = _stack(a)
    ipiv, _ = _core._solver_getrf(lu)
    xb = _stack(b)
    assert _core._solver_getrs(lu, ipiv, xb, trans) is None
    op = [a, a.swapaxes(1, 2), _conj_t(a)][trans]
    _close(op @ xb.get(), b, dtype)


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_potrf(dtype, lower):
    rng = numpy.random.default_rng(4)
    m = _random(rng, (3, 5, 5), dtype)
    a = m @ _conj_t(m) + 5 * numpy.eye(5, dtype=dtype)
    x = _stack(a)
    info = _core._solver_potrf(x, lower)
    assert info.dtype == numpy.int64 and info.get().tolist() == [0, 0, 0]
    got = x.get()
    if lower:
        factor = numpy.tril(got)
        _close(factor @ _conj_t(factor), a, dtype)
    else:
        factor = numpy.triu(got)
        _close(_conj_t(factor) @ factor, a, dtype)
    assert numpy.all(numpy.diagonal(factor, axis1=1, axis2=2).real > 0)


@needs_solver
def test_potrf_not_positive_definite():
    a = numpy.stack([numpy.eye(3), numpy.diag([1.0, -1.0, 1.0])])
    assert _core._solver_potrf(_stack(a), True).get().tolist() == [0, 2]


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 4, 4)])
def test_geqrf_orgqr(dtype, shape):
    batch, m, n = shape
    a = _random(numpy.random.default_rng(5), shape, dtype)
    x = _stack(a)
    tau = _core._solver_geqrf(x)
    assert tau.dtype == dtype and tau.shape == (batch, n)
    qr = x.get()
    r = numpy.triu(qr)[:, :n, :]
    # reduced Q (m x n) in place of the geqrf output
    assert _core._solver_orgqr(x, tau) is None
    q = x.get()
    eye = numpy.broadcast_to(numpy.eye(n, dtype=dtype), (batch, n, n))
    _close(_conj_t(q) @ q, eye, dtype)
    _close(q @ r, a, dtype)
    # complete Q (m x m): the geqrf output in the first n columns, the rest arbitrary
    full = numpy.concatenate([qr, _random(numpy.random.default_rng(6), (batch, m, m - n), dtype)], axis=2)
    xf = _stack(full)
    _core._solver_orgqr(xf, tau)
    qf = xf.get()
    _close(_conj_t(qf) @ qf, numpy.broadcast_to(numpy.eye(m, dtype=dtype), (batch, m, m)), dtype)
    _close(qf[:, :, :n], q, dtype)


@needs_solver
def test_geqrf_wide():
    # m < n: R is m x n, the reflectors fill the first m columns.
    a = _random(numpy.random.default_rng(7), (2, 3, 5), numpy.complex128)
    x = _stack(a)
    tau = _core._solver_geqrf(x)
    assert tau.shape == (2, 3)
    qr = x.get()
    q = _stack(numpy.ascontiguousarray(qr[:, :, :3]))
    _core._solver_orgqr(q, tau)
    _close(q.get() @ numpy.triu(qr), a, numpy.complex128)


@needs_solver
def test_orgqr_without_reflectors():
    # k = 0: Q is the first n columns of the identity (LAPACK's ?orgqr).
    x = _stack(_random(numpy.random.default_rng(10), (3, 4, 2), numpy.float64))
    assert _core._solver_orgqr(x, kiln.zeros((3, 0), numpy.float64)) is None
    assert numpy.array_equal(x.get(), numpy.broadcast_to(numpy.eye(4, 2), (3, 4, 2)))


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("job", ["A", "S", "N"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 4, 4)])
def test_gesvd(dtype, job, shape):
    batch, m, n = shape
    a = _random(numpy.random.default_rng(8), shape, dtype)
    real = numpy.empty(0, dtype).real.dtype
    s, u, vt, info = _core._solver_gesvd(_stack(a), job)
    assert s.dtype == real and s.shape == (batch, n)
    assert info.dtype == numpy.int64 and info.get().tolist() == [0] * batch
    sv = s.get()
    assert numpy.all(sv[:, :-1] >= sv[:, 1:])
    _close(sv, numpy.linalg.svd(a, compute_uv=False), dtype)
    if job == "N":
        assert u is None and vt is None
        return
    assert u.shape == (batch, m, m if job == "A" else n) and vt.shape == (batch, n, n)
    uh, vh = u.get(), vt.get()
    _close(_conj_t(uh) @ uh, numpy.broadcast_to(numpy.eye(uh.shape[2], dtype=dtype), (batch,) + (uh.shape[2],) * 2),
           dtype)
    _close(vh @ _conj_t(vh), numpy.broadcast_to(numpy.eye(n, dtype=dtype), (batch, n, n)), dtype)
    _close((uh[:, :, :n] * sv[:, None, :]) @ vh, a, dtype)
    # u and vt are stacks themselves
    for r in (u, vt):
        assert r.strides[1] == r.itemsize and r.strides[2] == r.shape[1] * r.itemsize


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("compute_v", [True, False])
def test_syevd(dtype, lower, compute_v):
    rng = numpy.random.default_rng(9)
    m = _random(rng, (2, 5, 5), dtype)
    a = m + _conj_t(m)
    # the triangle not read holds garbage
    garbage = _random(rng, a.shape, dtype)
    given = numpy.where(numpy.tri(5, dtype=bool) if lower else numpy.tri(5, dtype=bool).T, a, garbage)
    x = _stack(given)
    w, info = _core._solver_syevd(x, lower, compute_v)
    assert w.dtype == numpy.empty(0, dtype).real.dtype and w.shape == (2, 5)
    assert info.get().tolist() == [0, 0]
    wh = w.get()
    assert numpy.all(wh[:, :-1] <= wh[:, 1:])
    _close(wh, numpy.linalg.eigvalsh(a), dtype)
    if compute_v:
        v = x.get()
        _close(_conj_t(v) @ v, numpy.broadcast_to(numpy.eye(5, dtype=dtype), (2, 5, 5)), dtype)
        _close(a @ v, v * wh[:, None, :], dtype, scale=numpy.linalg.norm(a))


# --- the batched routines (Note [Batched primitives] in arraycore/solver.cpp) --
# Each runs a batch of 37 small matrices through the batched routine (the
# default there) and through the per-matrix loop (KILN_SOLVER_BATCHED=0),
# and checks both against NumPy and against each other: infos equal, pivots
# equal where no two candidates tie, factors and solutions equal to rounding.
# On the host backend the test double counts its batched calls, so the
# tests see that the batched path ran; on the cuda backend it is cuBLAS and
# cuSOLVER themselves.
BATCH = 37


def _batched_calls():
    """The test double's count of batched calls (None on the cuda backend)."""
    if kiln.get_backend() != "host":
        return None
    return ctypes.c_int.in_dll(ctypes.CDLL(os.environ["KILN_CUSOLVER_PATH"]), "kiln_fake_batched_calls").value


def _both_ways(monkeypatch, run):
    """(run() through the batched routines, run() through the loop), with the
    test double's count checked: one batched call per primitive call."""
    results = []
    for mode, calls in (("", 1), ("0", 0)):
        if mode:
            monkeypatch.setenv("KILN_SOLVER_BATCHED", mode)
        else:
            monkeypatch.delenv("KILN_SOLVER_BATCHED", raising=False)
        before = _batched_calls()
        results.append(run())
        if before is not None:
            assert _batched_calls() - before == calls * run.primitive_calls
    monkeypatch.delenv("KILN_SOLVER_BATCHED", raising=False)
    return results


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [3, 8])
def test_getrf_batched(monkeypatch, dtype, n):
    a = _random(numpy.random.default_rng(11), (BATCH, n, n), dtype)
    a[5, :, 1] = 0   # singular: info 2 for matrix 5 alone

    def run():
        x = _stack(a)
        ipiv, info = _core._solver_getrf(x)
        assert ipiv.dtype == numpy.int64 and ipiv.shape == (BATCH, n) and info.dtype == numpy.int64
        return x.get(), ipiv.get(), info.get()
    run.primitive_calls = 1
    (lu, ipiv, info), (lu_loop, ipiv_loop, info_loop) = _both_ways(monkeypatch, run)
    want_info = [0] * BATCH
    want_info[5] = 2
    assert info.tolist() == want_info and info_loop.tolist() == want_info
    regular = numpy.arange(BATCH) != 5
    _check_lu(a[regular], lu[regular], ipiv[regular], dtype)
    _check_lu(a, lu_loop, ipiv_loop, dtype)
    # Note [Batched primitives]: cuBLAS's batched LU of a singular matrix may
    # stop at its zero pivot (on the H100 it did for n = 8), so only the
    # zero on U's diagonal is promised there; the loop completes it.
    assert lu[5][1, 1] == 0 and lu_loop[5][1, 1] == 0
    if numpy.dtype(dtype).kind == "f":
        # For complex matrices cuBLAS's batched LU chose other pivot rows than
        # cuSOLVER's getrf for some 3 x 3 matrices on the H100; both
        # factorisations reproduce A (checked above).
        assert numpy.array_equal(ipiv[regular], ipiv_loop[regular])
        _close(lu[regular], lu_loop[regular], dtype)


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
def test_getrs_batched(monkeypatch, dtype):
    rng = numpy.random.default_rng(12)
    a = _random(rng, (BATCH, 4, 4), dtype) + 4 * numpy.eye(4, dtype=dtype)
    b = _random(rng, (BATCH, 4, 2), dtype)
    lu = _stack(a)
    monkeypatch.setenv("KILN_SOLVER_BATCHED", "0")   # one factorisation for both solves
    ipiv, _ = _core._solver_getrf(lu)
    for trans in (0, 1, 2):
        def run():
            xb = _stack(b)
            assert _core._solver_getrs(lu, ipiv, xb, trans) is None
            return xb.get()
        run.primitive_calls = 1
        x, x_loop = _both_ways(monkeypatch, run)
        op = [a, a.swapaxes(1, 2), _conj_t(a)][trans]
        _close(op @ x, b, dtype)
        _close(x, x_loop, dtype)


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_potrf_batched(monkeypatch, dtype, lower):
    m = _random(numpy.random.default_rng(13), (BATCH, 8, 8), dtype)
    a = m @ _conj_t(m) + 8 * numpy.eye(8, dtype=dtype)
    a[3] = numpy.diag([1.0, 2.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0]).astype(dtype)   # leading minor 3 not PD

    def run():
        x = _stack(a)
        info = _core._solver_potrf(x, lower)
        assert info.dtype == numpy.int64
        return x.get(), info.get()
    run.primitive_calls = 1
    (c, info), (c_loop, info_loop) = _both_ways(monkeypatch, run)
    want_info = [0] * BATCH
    want_info[3] = 3
    assert info.tolist() == want_info and info_loop.tolist() == want_info
    pd = numpy.arange(BATCH) != 3
    tri = numpy.tril if lower else numpy.triu
    factor, factor_loop = tri(c[pd]), tri(c_loop[pd])
    product = factor @ _conj_t(factor) if lower else _conj_t(factor) @ factor
    _close(product, a[pd], dtype)
    _close(factor, factor_loop, dtype)


@needs_solver
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("compute_v", [True, False])
def test_geev(dtype, compute_v):
    rng = numpy.random.default_rng(11)
    a = _random(rng, (3, 5, 5), dtype)
    if numpy.dtype(dtype).kind == "f":   # a rotation (eigenvalues +-i) in the middle of a real spectrum
        a[1] = numpy.diag([3.0, 0.0, 0.0, -2.0, 5.0]).astype(dtype)
        a[1, 1, 2], a[1, 2, 1] = -1, 1
    x = _stack(a)
    w, vr, info = _core._solver_geev(x, compute_v)
    cdtype = numpy.result_type(dtype, numpy.complex64)
    assert w.dtype == cdtype and w.shape == (3, 5)
    assert info.dtype == numpy.int64 and info.get().tolist() == [0, 0, 0]
    wh = w.get()
    want = numpy.linalg.eigvals(a)
    for i in range(3):   # the same set of eigenvalues, in LAPACK's order
        assert all(numpy.min(numpy.abs(wh[i] - e)) <= _tol(dtype) * numpy.linalg.norm(a[i]) for e in want[i])
    if numpy.dtype(dtype).kind == "f":
        assert sorted(numpy.round(wh[1], 5).tolist(), key=lambda z: (z.real, z.imag)) == [-2, -1j, 1j, 3, 5]
    if not compute_v:
        assert vr is None
        return
    assert vr.dtype == cdtype and vr.shape == (3, 5, 5)
    assert vr.strides[1] == vr.itemsize and vr.strides[2] == 5 * vr.itemsize   # a stack
    v = vr.get()
    _close(a @ v, v * wh[:, None, :], dtype, scale=numpy.linalg.norm(a))
    _close(numpy.linalg.norm(v, axis=1), numpy.ones((3, 5)), dtype)


@pytest.mark.skipif(kiln.get_backend() != "host", reason="the test double runs on the host backend")
def test_geev_without_xgeev(tmp_path):
    """A libcusolver older than CUDA 12.6 has no cusolverDnXgeev: the other
    primitives still run and geev raises RuntimeError saying what is missing
    (in a fresh process: kiln loads libcusolver once per process)."""
    lib, why = build_test_double(tmp_path, "KILN_FAKE_WITHOUT_XGEEV")
    if lib is None:
        pytest.skip(why)
    code = ("import kiln\n"
            "from kiln import _core\n"
            "a = kiln.eye(2)[None].swapaxes(1, 2)\n"
            "assert int(_core._solver_getrf(a)[1][0]) == 0\n"
            "assert _core._solver_has('potrfBatched') == (True, '')\n"
            "ok, why = _core._solver_has('geev')\n"
            "assert not ok and 'has no cusolverDnXgeev' in why\n"
            "try:\n"
            "    _core._solver_geev(a, True)\n"
            "except RuntimeError as e:\n"
            "    print(e)\n")
    env = dict(os.environ, KILN_BACKEND="host", KILN_CUSOLVER_PATH=str(lib))
    env[TEST_DOUBLE_ENV] = "1"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "has no cusolverDnXgeev" in run.stdout and "CUDA 12.6" in run.stdout and str(lib) in run.stdout


# --- argument checks: ValueError naming the argument, on every backend ------

def _good(shape=(2, 3, 3), dtype=numpy.float64):
    return _stack(numpy.zeros(shape, dtype))


@pytest.mark.parametrize("bad, text", [
    (lambda: kiln.zeros((2, 3, 3), numpy.float64), "a is not a stack"),            # C order
    (lambda: _good((2, 3, 4))[:, :, ::-1], "a is not a stack"),                     # reversed columns
    (lambda: _stack(numpy.zeros((4, 3, 3)))[::2], "a is not a stack"),               # every other matrix
    (lambda: _good(dtype=numpy.float16), "a has dtype float16"),
    (lambda: _good(dtype=numpy.int64), "a has dtype int64"),
    (lambda: kiln.zeros((3, 3), numpy.float64), "3 dimensions"),
    (lambda: _good((2, 0, 3)), "empty extent"),
])
def test_getrf_rejects(bad, text):
    with pytest.raises(ValueError, match=text):
        _core._solver_getrf(bad())


def test_other_primitives_reject():
    square, wide = _good(), _good((2, 3, 5))
    ipiv = kiln.zeros((2, 3), numpy.int64)
    with pytest.raises(ValueError, match="lu must hold square"):
        _core._solver_getrs(wide, ipiv, square, 0)
    with pytest.raises(ValueError, match="ipiv has dtype int32"):
        _core._solver_getrs(square, kiln.zeros((2, 3), numpy.int32), square, 0)
    with pytest.raises(ValueError, match="ipiv is not C-contiguous"):
        _core._solver_getrs(square, kiln.zeros((3, 2), numpy.int64).T, square, 0)
    with pytest.raises(ValueError, match="b has shape"):
        _core._solver_getrs(square, ipiv, _good((2, 4, 1)), 0)
    with pytest.raises(ValueError, match="b has dtype float32"):
        _core._solver_getrs(square, ipiv, _good(dtype=numpy.float32), 0)
    with pytest.raises(ValueError, match="trans must be"):
        _core._solver_getrs(square, ipiv, square, 3)
    with pytest.raises(ValueError, match="a must hold square"):
        _core._solver_potrf(wide, True)
    with pytest.raises(ValueError, match="a is not a stack"):
        _core._solver_geqrf(kiln.zeros((2, 3, 3), numpy.complex64))
    with pytest.raises(ValueError, match="a must have m >= n"):
        _core._solver_orgqr(wide, kiln.zeros((2, 3), numpy.float64))
    with pytest.raises(ValueError, match="tau has shape"):
        _core._solver_orgqr(square, kiln.zeros((2, 4), numpy.float64))
    with pytest.raises(ValueError, match="tau has dtype complex128"):
        _core._solver_orgqr(square, kiln.zeros((2, 3), numpy.complex128))
    with pytest.raises(ValueError, match="a must have m >= n"):
        _core._solver_gesvd(wide, "A")
    with pytest.raises(ValueError, match="job must be"):
        _core._solver_gesvd(square, "X")
    with pytest.raises(ValueError, match="job must be"):
        _core._solver_gesvd(square, "AS")
    with pytest.raises(ValueError, match="a must hold square"):
        _core._solver_syevd(wide, True, True)
    with pytest.raises(ValueError, match="a must hold square"):
        _core._solver_geev(wide, True)
    with pytest.raises(ValueError, match="a has dtype int64"):
        _core._solver_geev(_good(dtype=numpy.int64), False)


def test_check_availability():
    """kiln.cusolver.check_availability (cupyx.cusolver's): True for every
    routine kiln.linalg uses, here (cuSOLVER with geev on the GPU machine,
    SciPy's LAPACK on the host); ValueError naming the known ones otherwise,
    on every backend."""
    for name in ("getrf", "getrs", "potrf", "potrfBatched", "geqrf", "orgqr", "gesvd", "syevd", "geev"):
        assert kiln.cusolver.check_availability(name) is True, name
    for bad in ("gesvdj", "Dgeev", ""):
        with pytest.raises(ValueError, match="is not a cuSOLVER routine kiln.linalg uses .*potrfBatched"):
            kiln.cusolver.check_availability(bad)


@pytest.mark.skipif(kiln.get_backend() == "cuda", reason="the refusal of the other backends")
def test_other_backends_refuse(monkeypatch):
    monkeypatch.delenv(TEST_DOUBLE_ENV, raising=False)   # the solver fixture may be active in this process
    ok, why = _core._solver_usable()
    assert not ok and kiln.get_backend() in why and "cuda" in why
    assert _core._solver_has("geev") == (ok, why)
    square = _good()
    calls = [lambda: _core._solver_getrf(square),
             lambda: _core._solver_getrs(square, kiln.zeros((2, 3), numpy.int64), _good(), 0),
             lambda: _core._solver_potrf(square, True),
             lambda: _core._solver_geqrf(square),
             lambda: _core._solver_orgqr(square, kiln.zeros((2, 3), numpy.float64)),
             lambda: _core._solver_gesvd(square, "S"),
             lambda: _core._solver_syevd(square, True, False),
             lambda: _core._solver_geev(square, True)]
    for call in calls:
        with pytest.raises(RuntimeError, match="cuda backend only"):
            call()
