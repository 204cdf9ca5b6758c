"""kiln.random's vector-valued distributions, multinomial (array n and
n-d pvals broadcasting, as NumPy's Generator; the legacy rules for
RandomState), multivariate_hypergeometric and dirichlet (rows of alphas far
below 1): shapes and errors against NumPy's, counts summing to n with
binomial (hypergeometric) marginals, rows summing to 1 with beta
marginals, and reproducibility. Thresholds as Note [Random
test thresholds] (test_random.py)."""
import math

import numpy
import pytest

import kiln
from test_random import N, betainc, binomial_pmf, check_continuous, chi2_critical, discrete_chi_square, \
    hypergeometric_pmf


def numpy_outcome(call):
    """(shape, None) of NumPy's result, or (None, exception type)."""
    try:
        return numpy.shape(call()), None
    except Exception as e:   # noqa: BLE001 - the type is what is compared
        return None, type(e)


def same_as_numpy(kiln_call, numpy_call):
    shape, exc = numpy_outcome(numpy_call)
    if exc is not None:
        with pytest.raises(exc):
            kiln_call()
        return None
    got = kiln_call()
    assert got.shape == shape and got.dtype == numpy.int64
    return got


P2 = [[0.2, 0.8], [0.5, 0.5]]
# (n, pvals, size) for Generator.multinomial
GENERATOR_CASES = [(10, [0.2, 0.8], None), ([10, 20], [0.2, 0.8], None), ([[10], [20]], [0.2, 0.8], None),
                   ([10, 20], P2, None), ([10, 20], [[0.2, 0.8], [0.5, 0.5], [0.1, 0.9]], None), (10, P2, None),
                   ([10, 20], [0.2, 0.8], (3, 2)), ([10, 20], [0.2, 0.8], 2), ([10, 20], [0.2, 0.8], (2, 3)),
                   (10, P2, (4, 2)), (10, P2, (4, 1)), (10, [[0.5, 0.5]], None), (10, [0.5, 0.5], (2, 0)),
                   (10, numpy.full((2, 0, 3), 1 / 3), None), (-1, [0.2, 0.8], None), ([1, -1], [0.2, 0.8], None),
                   (10, [0.8, 0.8], None), (10, [0.6, 0.5, 0.0], None), (10, [0.5, 0.5 + 1e-13, 0.0], None),
                   (10, [0.5, 0.5 + 1e-11, 0.0], None), (10, [[0.5, 0.5, 0.0], [0.6, 0.5, 0.0]], None),
                   (10, [-0.2, 1.2], None), (10, [0.2, math.nan], None), (10, [], None), (10, [[]], None),
                   (10, 0.5, None), (10.0, [0.5, 0.5], None), (numpy.array([10.5]), [0.5, 0.5], None),
                   (True, [0.5, 0.5], None), (2 ** 63, [0.5, 0.5], None),
                   (10, numpy.array([0.5, 0.5 + 1e-6, 0.0], numpy.float32), None)]


@pytest.mark.parametrize("case", range(len(GENERATOR_CASES)))
def test_generator_multinomial_shapes_and_errors(case):
    n, pvals, size = GENERATOR_CASES[case]
    got = same_as_numpy(lambda: kiln.random.default_rng(1).multinomial(n, pvals, size),
                        lambda: numpy.random.default_rng(1).multinomial(n, pvals, size))
    if got is not None:
        want_n = numpy.broadcast_to(numpy.asarray(n, dtype=numpy.int64), got.shape[:-1])
        numpy.testing.assert_array_equal(got.get().sum(axis=-1), want_n)
        assert (got.get() >= 0).all()


# (n, pvals, size) for RandomState.multinomial: int n, 1-d pvals
LEGACY_CASES = [(10, [0.2, 0.8], 3), ([10, 20], [0.2, 0.8], None), (10, [[0.2, 0.8]], None), (-1, [0.2, 0.8], None),
                (10, [0.8, 0.8], None), (10, [0.6, 0.5, 0.0], None), (10, [0.5, 1.5], None), (10.7, [0.5, 0.5], None),
                (10, [], None), (10, [], 3), (10, 0.5, None), (numpy.array(10), [0.5, 0.5], None)]


@pytest.mark.parametrize("case", range(len(LEGACY_CASES)))
def test_legacy_multinomial_shapes_and_errors(case):
    n, pvals, size = LEGACY_CASES[case]
    got = same_as_numpy(lambda: kiln.random.RandomState(1).multinomial(n, pvals, size),
                        lambda: numpy.random.RandomState(1).multinomial(n, pvals, size))
    if got is not None and got.shape[-1]:
        assert (got.get().sum(axis=-1) == int(n)).all()


def test_multinomial_counts():
    rng = kiln.random.default_rng(23)
    x = rng.multinomial(20, [0.2, 0.5, 0.3], size=N)
    assert x.shape == (N, 3) and x.dtype == numpy.int64
    x = x.get()
    assert (x.sum(axis=1) == 20).all() and x.min() >= 0
    for j, p in enumerate([0.2, 0.5, 0.3]):   # each count is Binomial(20, p_j)
        stat, dof = discrete_chi_square(x[:, j], binomial_pmf(20, p), 20)
        assert stat < chi2_critical(dof), (j, stat, dof)
    assert rng.multinomial(0, [0.3, 0.7], size=2).get().tolist() == [[0, 0], [0, 0]]
    assert rng.multinomial(7, [0.3, 0.3]).get()[1] >= 0   # the last category takes what is left


def test_multinomial_broadcast_counts():
    # rows of different n and pvals in one call: each count is Binomial(n_r, p_rj)
    n = kiln.asarray(numpy.array([5, 40]))
    pvals = numpy.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    x = kiln.random.default_rng(29).multinomial(n, pvals, size=(N // 2, 2))
    assert x.shape == (N // 2, 2, 3) and x.dtype == numpy.int64
    x = x.get()
    assert (x.sum(axis=-1) == [5, 40]).all() and x.min() >= 0
    for r, total in enumerate([5, 40]):
        for j in range(3):
            p = pvals[r, j]
            stat, dof = discrete_chi_square(x[:, r, j], binomial_pmf(total, p), total)
            assert stat < chi2_critical(dof), (r, j, stat, dof)
            mean = total * p
            assert abs(x[:, r, j].mean() - mean) < 5 * math.sqrt(mean * (1 - p) / len(x))
    # array n with one pvals row, and n broadcast against the rows of pvals
    y = kiln.random.default_rng(30).multinomial([[3], [1000]], [[0.5, 0.5], [0.9, 0.1]]).get()
    assert y.shape == (2, 2, 2) and (y.sum(axis=-1) == [[3, 3], [1000, 1000]]).all()


def test_multinomial_reproducible():
    a = kiln.random.default_rng(3).multinomial([10, 200], [0.1, 0.2, 0.7], size=(50, 2)).get()
    b = kiln.random.default_rng(3).multinomial([10, 200], [0.1, 0.2, 0.7], size=(50, 2)).get()
    c = kiln.random.default_rng(4).multinomial([10, 200], [0.1, 0.2, 0.7], size=(50, 2)).get()
    assert numpy.array_equal(a, b) and not numpy.array_equal(a, c)
    # n given as an int and as an array of that int give the same counts
    d = kiln.random.default_rng(5).multinomial(30, [0.1, 0.9], size=8).get()
    e = kiln.random.default_rng(5).multinomial(numpy.full(8, 30), [0.1, 0.9]).get()
    assert numpy.array_equal(d, e)


def beta_moments(a, b):
    return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))


def test_dirichlet():
    rng = kiln.random.default_rng(17)
    x = rng.dirichlet([2.0, 3.0, 5.0], size=N)
    assert x.shape == (N, 3) and x.dtype == numpy.float64
    x = x.get()
    numpy.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    check_continuous(x[:, 0], lambda v: betainc(2.0, 8.0, v), 0.2, 2 * 8 / (100 * 11))
    assert rng.dirichlet(numpy.array([1.0, 1.0]), dtype=kiln.float32).shape == (2,)


def binned_chi_square(x, cdf, edges):
    """(statistic, dof) of samples x over the cells between `edges` and the
    two tails, against the probabilities of `cdf`. For distributions with
    mass below double's range (Beta(0.001, ...) is below 1e-308 with
    probability about 0.4), where values round to 0 or 1 and a KS test on
    them cannot pass."""
    probs = numpy.diff(numpy.concatenate([[0.0], cdf(numpy.asarray(edges)), [1.0]]))
    cells = numpy.searchsorted(edges, x, side="right")
    return discrete_chi_square(cells, lambda k: probs[k], len(edges))


EDGES = [1e-300, 1e-100, 1e-30, 1e-10, 1e-4, 0.1, 0.5, 0.9, 1 - 1e-4, 1 - 1e-10]


@pytest.mark.parametrize("alpha", [[1e-3, 2e-3, 5e-3], [0.01, 0.5, 3.0], [1e-3] * 3])
def test_dirichlet_small_alphas(alpha):
    # alpha = 1e-3: a gamma draw underflows to 0 half the time, and a row of
    # zeros used to give 0/0 (Note [Dirichlet in logarithms])
    x = kiln.random.default_rng(19).dirichlet(alpha, size=N).get()
    assert x.shape == (N, 3) and not numpy.isnan(x).any() and (x >= 0).all() and (x <= 1).all()
    numpy.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    total = sum(alpha)
    for j, a in enumerate(alpha):   # component j is Beta(a_j, sum - a_j)
        mean, var = beta_moments(a, total - a)
        assert abs(x[:, j].mean() - mean) < 5 * math.sqrt(var / N), (j, x[:, j].mean(), mean)
        stat, dof = binned_chi_square(x[:, j], lambda v: betainc(a, total - a, v), EDGES)
        assert stat < chi2_critical(dof), (j, stat, dof)
    y = kiln.random.default_rng(20).dirichlet(alpha, size=N, dtype=kiln.float32)
    assert y.dtype == numpy.float32
    y = y.get()
    assert not numpy.isnan(y).any()
    # float64 rows rounded to float32 component by component: within 2^-24 of 1 each
    numpy.testing.assert_allclose(y.sum(axis=1, dtype=numpy.float64), 1.0, rtol=3 * 2.0 ** -24)


def test_dirichlet_zeros_errors_and_shapes():
    rng = kiln.random.default_rng(1)
    x = rng.dirichlet([0.0, 1.0, 2.0], size=100).get()   # Generator: alpha = 0 is a zero component
    assert (x[:, 0] == 0).all()
    numpy.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    assert rng.dirichlet([0.0, 0.0]).get().tolist() == [0.0, 0.0]
    assert rng.dirichlet([], size=3).shape == (3, 0)
    assert rng.dirichlet([1.0, 2.0], size=(2, 0)).shape == (2, 0, 2)
    assert numpy.isnan(rng.dirichlet([1.0, math.nan]).get()).all()
    rs = kiln.random.RandomState(1)
    for alpha, size, exc in (([1.0, -1.0], None, ValueError), ([[1.0, 2.0]], None, ValueError),
                             (1.0, None, TypeError), ([1.0, 2.0], -1, ValueError), ([1.0, 0.0], None, None)):
        for kiln_api, numpy_api in ((rng, numpy.random.default_rng(1)), (rs, numpy.random.RandomState(1))):
            shape, want = numpy_outcome(lambda: numpy_api.dirichlet(alpha, size))
            if want is None:
                assert kiln_api.dirichlet(alpha, size).shape == shape
            else:
                with pytest.raises(want):
                    kiln_api.dirichlet(alpha, size)


def test_dirichlet_reproducible():
    a = kiln.random.default_rng(8).dirichlet([1e-3, 0.5, 2.0], size=100).get()
    b = kiln.random.default_rng(8).dirichlet([1e-3, 0.5, 2.0], size=100).get()
    c = kiln.random.default_rng(9).dirichlet([1e-3, 0.5, 2.0], size=100).get()
    assert numpy.array_equal(a, b) and not numpy.array_equal(a, c)


# (colors, nsample, size, method) for Generator.multivariate_hypergeometric
MVH_CASES = [([16, 8, 4], 6, None, "marginals"), ([16, 8, 4], 6, (2, 3), "count"), ([16, 8, 4], 29, None, "marginals"),
             ([16, -8, 4], 6, None, "marginals"), ([16, 8, 4], -1, None, "marginals"),
             ([[16, 8, 4]], 6, None, "marginals"), (16, 6, None, "marginals"), ([16.5, 8, 4], 6, None, "marginals"),
             ([16, 8, 4], 6, None, "foo"), ([10 ** 9, 1], 6, None, "marginals"),
             ([], 0, None, "marginals"), ([0, 0], 0, 3, "marginals"), ([16, 8, 4], 6.0, None, "marginals"),
             (numpy.array([16, 8, 4], numpy.uint8), 6, None, "marginals"), ([2 ** 62, 2 ** 62], 6, None, "count"),
             ([16, 8, 4], 28, None, "marginals"), ([16, 8, 4], 6, 0, "marginals")]


@pytest.mark.parametrize("case", range(len(MVH_CASES)))
def test_multivariate_hypergeometric_shapes_and_errors(case):
    colors, nsample, size, method = MVH_CASES[case]
    got = same_as_numpy(
        lambda: kiln.random.default_rng(1).multivariate_hypergeometric(colors, nsample, size, method),
        lambda: numpy.random.default_rng(1).multivariate_hypergeometric(colors, nsample, size, method))
    if got is not None:
        got = got.get()
        assert (got.sum(axis=-1) == nsample).all() and (got >= 0).all() and (got <= numpy.asarray(colors)).all()


def test_multivariate_hypergeometric_counts():
    colors = [30, 50, 20]
    x = kiln.random.default_rng(37).multivariate_hypergeometric(colors, 25, size=N).get()
    assert x.shape == (N, 3) and (x.sum(axis=1) == 25).all()
    for j, c in enumerate(colors):   # each count is Hypergeometric(c, 100 - c, 25)
        stat, dof = discrete_chi_square(x[:, j], hypergeometric_pmf(c, 100 - c, 25), 25)
        assert stat < chi2_critical(dof), (j, stat, dof)
        mean, var = 25 * c / 100, 25 * (c / 100) * (1 - c / 100) * 75 / 99
        assert abs(x[:, j].mean() - mean) < 5 * math.sqrt(var / N)
    # 'count' takes sums of 10^9 and more (NumPy's too, slowly: not compared)
    big = kiln.random.default_rng(8).multivariate_hypergeometric([10 ** 9, 1], 6, method="count").get()
    assert big.shape == (2,) and big.sum() == 6
    a = kiln.random.default_rng(8).multivariate_hypergeometric(colors, 25, size=50, method="count").get()
    b = kiln.random.default_rng(8).multivariate_hypergeometric(colors, 25, size=50).get()
    c = kiln.random.default_rng(9).multivariate_hypergeometric(colors, 25, size=50).get()
    assert numpy.array_equal(a, b) and not numpy.array_equal(a, c)
