"""kiln.random.Generator (NumPy's new API) and the distributions it shares
with the legacy RandomState (_legacy.py). Argument checking and shapes here;
the numbers come from kiln._core._random_* (arraycore/random.h).

    rng = kiln.random.default_rng(42)
    x = rng.standard_normal((2, 3), dtype=kiln.float32)
    k = rng.integers(0, 10, size=5)
    y = rng.normal(loc=kiln.arange(3.0), scale=0.1)     # broadcast parameters

Differs from NumPy: every result is a kiln array (a 0-d one for size=None),
floating-point distributions take ``dtype`` (float32 or float64), and the
numbers are Philox4x32's, not NumPy's (the same on every kiln backend).
"""
import numbers
import operator
import warnings

import numpy

from kiln import _core
from kiln import _creation
from kiln import _math_functions as _math
from kiln import linalg
from kiln._core import ndarray
from kiln.random import _permutations
from kiln.random._philox import Philox
from kiln.random._shapes import output_shape as _output_shape
from kiln.random._shapes import shape_of as _shape_of


def _param(x):
    """A Python scalar, or a kiln array for array-like parameters (None is
    NumPy's TypeError, not a failed comparison further on)."""
    if isinstance(x, ndarray):
        return x
    if x is None:
        raise TypeError("a distribution parameter must be a real number or an array of them, not NoneType")
    if isinstance(x, (numpy.ndarray, list, tuple)):
        a = numpy.asarray(x)
        return a.item() if a.ndim == 0 else _creation.asarray(a)
    if isinstance(x, numpy.generic):
        return x.item()
    return x


def _int_bound(x):
    """An integer bound: a Python int, or a kiln array of int64 (uint64
    kept as it is, for bounds up to 2^64 - 1). Floating bounds are truncated
    toward zero, as NumPy's randint and integers take them."""
    x = _param(x)
    if isinstance(x, ndarray):
        if x.dtype.kind not in "iubf":
            raise TypeError("integer bounds must be integers, got dtype %s" % x.dtype)
        return x if x.dtype == numpy.uint64 else x.astype(numpy.int64, copy=False)
    if isinstance(x, float):
        return int(x)   # NaN and infinities: Python's ValueError/OverflowError, as NumPy's
    return operator.index(x)


def _as_uint64(x):
    if isinstance(x, ndarray):
        return x.astype(numpy.uint64)
    return numpy.uint64(x % (1 << 64))


def _any(condition):
    """A Python bool of a scalar or kiln array condition (true anywhere)."""
    return bool(condition.any()) if isinstance(condition, ndarray) else bool(condition)


def _check(p, bad, message):
    """ValueError(message) where bad(p) holds (for an array p: anywhere)."""
    if _any(bad(p)):
        raise ValueError(message)


def _host(x):
    """Array-like x as a NumPy array (a kiln array copied to the host)."""
    return numpy.asarray(x.get() if isinstance(x, ndarray) else x)


def _int64s(n, legacy):
    """multinomial's n as an int64 NumPy array (0-d for a scalar): Python
    and NumPy scalars, floats truncated; arrays of ints for Generator only."""
    if isinstance(n, ndarray):
        n = n.get()
    if isinstance(n, (numbers.Integral, float, numpy.floating)) or legacy:
        if legacy and numpy.ndim(n):
            raise TypeError("n must be an integer, got an array of shape %s" % (numpy.shape(n),))
        value = int(n)
        if not -(1 << 63) <= value < (1 << 63):
            raise OverflowError("n = %d does not fit in int64" % value)
        return numpy.asarray(value, dtype=numpy.int64)
    a = numpy.asarray(n)
    if not numpy.can_cast(a.dtype, numpy.int64, "safe"):
        raise TypeError("Cannot cast n from %s to int64 according to the rule 'safe'" % a.dtype)
    return a.astype(numpy.int64)


def _nonneg(p, name):
    _check(p, lambda v: v < 0, "%s < 0" % name)


def _positive(p, name):
    _check(p, lambda v: v <= 0, "%s <= 0" % name)


class _Sampler:
    """What Generator and RandomState share: a Philox bit generator and the
    distributions whose signatures are the same in NumPy's two APIs
    (``_legacy`` picks RandomState's checks where the two differ)."""

    _legacy = False

    def __init__(self, bit_generator):
        self._bit_generator = bit_generator

    def _draw(self, dist, size, dtype, *params, out=None, c_only=False):
        """Samples of `dist`; into `out` when given (Generator's out=: a
        kiln array of exactly `dtype`, C- or F-contiguous (C-contiguous with
        `c_only`, as NumPy's standard_gamma wants), of shape `size` if both
        are given, as NumPy checks it)."""
        params = tuple(_param(p) for p in params)
        if out is None:   # RandomState: any dtype, as CuPy's (Note [Samples in any dtype])
            return _core._random_draw(self._bit_generator, dist, dtype, params, _output_shape(size, params),
                                      any_dtype=self._legacy)
        if not isinstance(out, ndarray):
            raise TypeError("out must be a kiln.ndarray, got %s" % type(out).__name__)
        if out.dtype != numpy.dtype(dtype):
            raise TypeError("out has dtype %s where the samples are %s" % (out.dtype, numpy.dtype(dtype)))
        if c_only and not out.flags.c_contiguous:
            raise ValueError("Supplied output array must be C-contiguous, writable, aligned, and in machine "
                             "byte-order.")
        if not (out.flags.c_contiguous or out.flags.f_contiguous):
            raise ValueError("out must be C- or F-contiguous")
        if size is not None and _shape_of(size) != out.shape:
            raise ValueError("size must match out.shape when used together")
        shape = _output_shape(out.shape, params)
        if out.flags.c_contiguous:
            return _core._random_draw(self._bit_generator, dist, dtype, params, shape, out)
        out[...] = _core._random_draw(self._bit_generator, dist, dtype, params, shape)
        return out

    # ---- continuous ----
    def standard_normal(self, size=None, dtype=numpy.float64):
        """Standard normal samples (Box-Muller on Philox uniforms)."""
        return self._draw("standard_normal", size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        """Normal samples; ``loc`` and ``scale`` broadcast."""
        loc, scale = _param(loc), _param(scale)
        _nonneg(scale, "scale")
        return self._draw("normal", size, dtype, loc, scale)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=numpy.float64):
        """Samples of [low, high): low + (high - low) * U[0, 1)."""
        low, high = _param(low), _param(high)
        return self._draw("uniform", size, dtype, low, high)

    def standard_exponential(self, size=None, dtype=numpy.float64):
        """Exponential samples of scale 1 (inversion: -log U)."""
        return self._draw("standard_exponential", size, dtype)

    def exponential(self, scale=1.0, size=None, dtype=numpy.float64):
        """Exponential samples of mean ``scale``."""
        scale = _param(scale)
        _nonneg(scale, "scale")
        return self._draw("exponential", size, dtype, scale)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=numpy.float64):
        """exp of normal samples of ``mean`` and ``sigma``."""
        mean, sigma = _param(mean), _param(sigma)
        _nonneg(sigma, "sigma")
        return self._draw("lognormal", size, dtype, mean, sigma)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        """Laplace (double exponential) samples."""
        loc, scale = _param(loc), _param(scale)
        _nonneg(scale, "scale")
        return self._draw("laplace", size, dtype, loc, scale)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        """Logistic samples."""
        loc, scale = _param(loc), _param(scale)
        _nonneg(scale, "scale")
        return self._draw("logistic", size, dtype, loc, scale)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        """Gumbel (extreme value type I) samples."""
        loc, scale = _param(loc), _param(scale)
        _nonneg(scale, "scale")
        return self._draw("gumbel", size, dtype, loc, scale)

    def rayleigh(self, scale=1.0, size=None, dtype=numpy.float64):
        """Rayleigh samples."""
        scale = _param(scale)
        _nonneg(scale, "scale")
        return self._draw("rayleigh", size, dtype, scale)

    def weibull(self, a, size=None, dtype=numpy.float64):
        """Weibull samples of shape ``a`` (scale 1)."""
        a = _param(a)
        _nonneg(a, "a")
        return self._draw("weibull", size, dtype, a)

    def pareto(self, a, size=None, dtype=numpy.float64):
        """Pareto II (Lomax) samples of shape ``a``, as NumPy's pareto."""
        a = _param(a)
        _positive(a, "a")
        return self._draw("pareto", size, dtype, a)

    def standard_cauchy(self, size=None, dtype=numpy.float64):
        """Standard Cauchy samples."""
        return self._draw("standard_cauchy", size, dtype)

    def triangular(self, left, mode, right, size=None, dtype=numpy.float64):
        """Triangular samples on [left, right] with peak at ``mode``."""
        left, mode, right = _param(left), _param(mode), _param(right)
        if _any(left > mode):
            raise ValueError("left > mode")
        if _any(mode > right):
            raise ValueError("mode > right")
        if _any(left == right):
            raise ValueError("left == right")
        return self._draw("triangular", size, dtype, left, mode, right)

    def standard_gamma(self, shape, size=None, dtype=numpy.float64):
        """Gamma samples of scale 1 (Marsaglia-Tsang)."""
        shape = _param(shape)
        _nonneg(shape, "shape")
        return self._draw("standard_gamma", size, dtype, shape)

    def gamma(self, shape, scale=1.0, size=None, dtype=numpy.float64):
        """Gamma samples of ``shape`` and ``scale`` (Marsaglia-Tsang)."""
        shape, scale = _param(shape), _param(scale)
        _nonneg(shape, "shape")
        _nonneg(scale, "scale")
        return self._draw("gamma", size, dtype, shape, scale)

    def beta(self, a, b, size=None, dtype=numpy.float64):
        """Beta samples (Johnk's method for a, b <= 1, else two gammas)."""
        a, b = _param(a), _param(b)
        _positive(a, "a")
        _positive(b, "b")
        return self._draw("beta", size, dtype, a, b)

    def chisquare(self, df, size=None, dtype=numpy.float64):
        """Chi-square samples with ``df`` degrees of freedom."""
        df = _param(df)
        _positive(df, "df")
        return self._draw("chisquare", size, dtype, df)

    def standard_t(self, df, size=None, dtype=numpy.float64):
        """Student's t samples with ``df`` degrees of freedom."""
        df = _param(df)
        _positive(df, "df")
        return self._draw("standard_t", size, dtype, df)

    def power(self, a, size=None, dtype=numpy.float64):
        """Power-function samples on [0, 1] (CDF x^a), a > 0."""
        a = _param(a)
        _positive(a, "a")
        return self._draw("power", size, dtype, a)

    def f(self, dfnum, dfden, size=None, dtype=numpy.float64):
        """F (Fisher-Snedecor) samples: a ratio of scaled chi-squares."""
        dfnum, dfden = _param(dfnum), _param(dfden)
        _positive(dfnum, "dfnum")
        _positive(dfden, "dfden")
        return self._draw("f", size, dtype, dfnum, dfden)

    def noncentral_chisquare(self, df, nonc, size=None, dtype=numpy.float64):
        """Non-central chi-square samples."""
        df, nonc = _param(df), _param(nonc)
        _positive(df, "df")
        _nonneg(nonc, "nonc")
        return self._draw("noncentral_chisquare", size, dtype, df, nonc)

    def noncentral_f(self, dfnum, dfden, nonc, size=None, dtype=numpy.float64):
        """Non-central F samples."""
        dfnum, dfden, nonc = _param(dfnum), _param(dfden), _param(nonc)
        _positive(dfnum, "dfnum")
        _positive(dfden, "dfden")
        _nonneg(nonc, "nonc")
        return self._draw("noncentral_f", size, dtype, dfnum, dfden, nonc)

    def wald(self, mean, scale, size=None, dtype=numpy.float64):
        """Wald (inverse Gaussian) samples."""
        mean, scale = _param(mean), _param(scale)
        _positive(mean, "mean")
        _positive(scale, "scale")
        return self._draw("wald", size, dtype, mean, scale)

    def vonmises(self, mu, kappa, size=None, dtype=numpy.float64):
        """von Mises samples on [-pi, pi] (Best-Fisher), computed in double."""
        mu, kappa = _param(mu), _param(kappa)
        _nonneg(kappa, "kappa")
        return self._draw("vonmises", size, dtype, mu, kappa)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd",
                            dtype=numpy.float64):
        """Multivariate normal samples, shape ``size + (len(mean),)``:
        ``mean + z @ A.T`` with ``A A^T = cov`` and z standard normal. The
        k x k factor A (``method`` 'svd', 'eigh' or 'cholesky', as NumPy) is
        computed in float64 by kiln.linalg on the array's device (cuSOLVER on
        the cuda backend); ``check_valid`` ('warn', 'raise', 'ignore') checks
        that cov is positive semi-definite, which reads one bool back."""
        mean = _creation.asarray(mean, dtype=numpy.float64)
        cov = _creation.asarray(cov, dtype=numpy.float64)
        if mean.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        k = mean.shape[0]
        if cov.shape != (k, k):
            raise ValueError("cov must be 2 dimensional and square, of the size of mean")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method == "cholesky":
            factor = linalg.cholesky(cov)
        elif method in ("svd", "eigh"):
            if method == "svd":
                u, sv, vh = linalg.svd(cov)
                factor = u * _core._ufuncs["sqrt"](sv)
                psd = lambda: _math.allclose((vh.T * sv) @ vh, cov, rtol=tol, atol=tol)
            else:
                w, v = linalg.eigh(cov)
                factor = v * _core._ufuncs["sqrt"](_core._ufuncs["maximum"](w, 0.0))
                psd = lambda: not bool((w < -tol).any())
            if check_valid != "ignore" and not psd():
                if check_valid == "raise":
                    raise ValueError("covariance is not symmetric positive-semidefinite.")
                warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
        else:
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        shape = _shape_of(size)
        z = self._draw("standard_normal", (() if shape is None else shape) + (k,), dtype)
        dtype = z.dtype
        return z @ factor.T.astype(dtype) + mean.astype(dtype)

    def dirichlet(self, alpha, size=None, dtype=numpy.float64):
        """Dirichlet samples, shape ``size + (len(alpha),)``: gamma draws of
        shapes ``alpha`` over their sum, taken in logarithms so that rows
        of alphas far below 1 still sum to 1 (Note [Dirichlet in
        logarithms]); computed in float64. Generator allows alpha = 0 (a
        zero component), RandomState wants alpha > 0, as NumPy's."""
        host = _host(alpha)
        if host.ndim == 0:
            raise TypeError("alpha must be a sequence of floats, not a scalar")
        host = host.astype(numpy.float64)
        if host.ndim != 1:
            raise ValueError("alpha must be 1-dimensional")
        if (host <= 0).any() if self._legacy else (host < 0).any():
            raise ValueError("alpha <= 0" if self._legacy else "alpha < 0")
        shape = _shape_of(size)
        shape = (() if shape is None else shape) + host.shape
        return _core._random_dirichlet(self._bit_generator, _creation.asarray(host), shape, dtype,
                                       any_dtype=self._legacy)

    # ---- discrete (int64, as NumPy; RandomState's take dtype= as CuPy's) ----
    def poisson(self, lam=1.0, size=None, dtype=numpy.int64):
        """Poisson samples (int64): multiplication below lam = 10, PTRS above."""
        lam = _param(lam)
        _nonneg(lam, "lam")
        _check(lam, lambda v: v > 1e18, "lam value too large")
        return self._draw("poisson", size, dtype, lam)

    def binomial(self, n, p, size=None, dtype=numpy.int64):
        """Binomial samples (int64): inversion while n min(p, 1-p) < 10, BTRD above."""
        n, p = _param(n), _param(p)
        _nonneg(n, "n")
        _nonneg(p, "p")
        _check(p, lambda v: v > 1, "p > 1")
        _check(p, lambda v: v != v, "p is nan")
        return self._draw("binomial", size, dtype, n, p)

    def negative_binomial(self, n, p, size=None, dtype=numpy.int64):
        """Negative binomial samples (int64): failures before the n-th
        success, as a Poisson of a gamma rate."""
        n, p = _param(n), _param(p)
        _positive(n, "n")
        _check(p, lambda v: (v <= 0) | (v > 1) if isinstance(v, ndarray) else not 0 < v <= 1,
               "p must be in (0, 1]")
        return self._draw("negative_binomial", size, dtype, n, p)

    def multinomial(self, n, pvals, size=None):
        """Counts (int64) of ``n`` draws over the categories of
        probabilities ``pvals`` (the last one is what the others leave).
        Generator: ``n`` (ints) and the rows of ``pvals`` (..., k)
        broadcast, the result is ``size + (k,)`` or ``broadcast shape +
        (k,)``; RandomState: an int ``n`` and a 1-d ``pvals``, as NumPy's."""
        host_n = _int64s(n, self._legacy)
        if (host_n < 0).any():
            raise ValueError("n < 0")
        host_p = _host(pvals)
        if self._legacy and host_p.ndim != 1:
            if host_p.ndim == 0:
                raise TypeError("pvals must be a 1-d sequence")
            raise ValueError("pvals must be 1-dimensional, got %d dimensions" % host_p.ndim)
        if not self._legacy and (host_p.ndim == 0 or host_p.shape[-1] == 0):
            raise ValueError("pvals must have at least 1 dimension and its last dimension must be greater than 0")
        p64 = host_p.astype(numpy.float64)
        if ((p64 < 0) | (p64 > 1) | numpy.isnan(p64)).any():
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if (p64[..., :-1].sum(axis=-1) > 1.0 + 1e-12).any():
            raise ValueError("sum(pvals[%s:-1]) > 1.0%s" % ("" if p64.ndim == 1 else "...,",
                             "" if host_p.dtype == p64.dtype else " (after casting pvals to float64)"))
        lead = numpy.broadcast_shapes(host_n.shape, p64.shape[:-1])
        shape = _shape_of(size)
        if shape is None:
            shape = lead
        elif numpy.broadcast_shapes(lead, shape) != shape:
            raise ValueError("Output size %s is not compatible with broadcast dimensions of inputs %s."
                             % (shape, lead))
        if host_n.ndim:
            host_n = numpy.broadcast_to(host_n, shape)
        if p64.ndim > 1:
            p64 = numpy.broadcast_to(p64, shape + p64.shape[-1:])
        return _core._random_multinomial(self._bit_generator, _creation.asarray(numpy.ascontiguousarray(host_n)),
                                         _creation.asarray(numpy.ascontiguousarray(p64)), shape)

    def hypergeometric(self, ngood, nbad, nsample, size=None, dtype=numpy.int64):
        """Hypergeometric samples (int64): good items among ``nsample``
        drawn without replacement (inversion from the mode). RandomState
        wants nsample >= 1, Generator nsample >= 0, as NumPy's."""
        ngood, nbad, nsample = _param(ngood), _param(nbad), _param(nsample)
        _nonneg(ngood, "ngood")
        _nonneg(nbad, "nbad")
        _nonneg(nsample, "nsample")
        if self._legacy:   # NumPy's RandomState wants a sample; its Generator takes nsample = 0
            _check(nsample, lambda v: v < 1, "nsample < 1 or nsample is NaN")
        if _any(nsample > ngood + nbad):
            raise ValueError("ngood + nbad < nsample")
        return self._draw("hypergeometric", size, dtype, ngood, nbad, nsample)

    def bytes(self, length):
        """``length`` random bytes (a Python bytes object)."""
        length = operator.index(length)
        if length < 0:
            raise ValueError("length must be non-negative")
        words = _core._random_words(self._bit_generator, ((length + 3) // 4,), numpy.uint32)
        return words.get().astype("<u4").tobytes()[:length]

    def zipf(self, a, size=None, dtype=numpy.int64):
        """Zipf samples (int64) of exponent ``a`` > 1 (Devroye's rejection)."""
        a = _param(a)
        _check(a, lambda v: v <= 1, "a <= 1.0")
        return self._draw("zipf", size, dtype, a)

    def logseries(self, p, size=None, dtype=numpy.int64):
        """Logarithmic series samples (int64), 0 <= p < 1 (Kemp's method)."""
        p = _param(p)
        _check(p, lambda v: (v < 0) | (v >= 1) if isinstance(v, ndarray) else not 0 <= v < 1,
               "p < 0, p >= 1 or p is NaN")
        return self._draw("logseries", size, dtype, p)

    def geometric(self, p, size=None, dtype=numpy.int64):
        """Geometric samples (int64): trials up to the first success, >= 1."""
        p = _param(p)
        _check(p, lambda v: (v <= 0) | (v > 1) if isinstance(v, ndarray) else not 0 < v <= 1,
               "p must be in (0, 1]")
        return self._draw("geometric", size, dtype, p)

    # ---- integers, choice, permutations ----
    def _integers(self, low, high, size, dtype, endpoint):
        dtype = numpy.dtype(dtype)
        if dtype == numpy.bool_:
            lo_limit, hi_limit = 0, 1
        elif dtype.kind in "iu":
            info = numpy.iinfo(dtype)
            lo_limit, hi_limit = int(info.min), int(info.max)
        else:
            raise TypeError("Unsupported dtype %s for integers" % dtype)
        if high is None:
            low, high = 0, low
        low, high = _int_bound(low), _int_bound(high)
        # int64 and uint64 arrays and Python ints compare exactly (before
        # high - 1, which wraps for a uint64 high of 0)
        if _any(low > high if endpoint else low >= high):
            raise ValueError("low > high" if endpoint else "low >= high")
        top = high if endpoint else high - 1
        if _any(low < lo_limit):
            raise ValueError("low is out of bounds for %s" % dtype.name)
        if _any(top > hi_limit):
            raise ValueError("high is out of bounds for %s" % dtype.name)
        shape = _output_shape(size, (low, top))
        if not isinstance(low, ndarray) and not isinstance(top, ndarray):
            return _core._random_integers(self._bit_generator, shape, dtype, low % (1 << 64), top - low)
        # spans in uint64 arithmetic: top - low wraps to the right value
        low_u = _as_uint64(low)
        span = _core._ufuncs["subtract"](_as_uint64(top), low_u)
        return _core._random_integers(self._bit_generator, shape, dtype, low_u, span)


class Generator(_Sampler):
    """NumPy's ``numpy.random.Generator`` over kiln's Philox bit generator.

    ``Generator(bit_generator)``; ``kiln.random.default_rng(seed)`` makes one.
    Every method returns a kiln array (0-d for ``size=None``); floating-point
    methods take ``dtype`` (float32 or float64)."""

    def __init__(self, bit_generator=None):
        if bit_generator is None:
            bit_generator = Philox()
        if not isinstance(bit_generator, Philox):
            raise TypeError("kiln.random.Generator takes a kiln.random.Philox bit generator")
        _Sampler.__init__(self, bit_generator)

    def __repr__(self):
        return "Generator(Philox)"

    @property
    def bit_generator(self):
        """The Philox bit generator; assignable, as CuPy's (NumPy's is
        read-only), to re-key the Generator in place."""
        return self._bit_generator

    @bit_generator.setter
    def bit_generator(self, bit_generator):
        if not isinstance(bit_generator, Philox):
            raise TypeError("kiln.random.Generator takes a kiln.random.Philox bit generator")
        self._bit_generator = bit_generator

    def spawn(self, n_children):
        """``n_children`` new Generators over Philox generators spawned
        from this one's (``Philox.spawn``): independent streams, the same
        for the same seed."""
        return [Generator(bg) for bg in self._bit_generator.spawn(n_children)]

    def random(self, size=None, dtype=numpy.float64, out=None):
        """Uniform samples of [0, 1): the top 24 (float32) or 53 (float64)
        bits of the words, exact on every backend; into ``out`` (a
        contiguous kiln array of ``dtype``) when given."""
        return self._draw("random", size, dtype, out=out)

    def standard_normal(self, size=None, dtype=numpy.float64, out=None):
        """Standard normal samples (Box-Muller on Philox uniforms); into
        ``out`` (a contiguous kiln array of ``dtype``) when given."""
        return self._draw("standard_normal", size, dtype, out=out)

    def standard_exponential(self, size=None, dtype=numpy.float64, method="zig", out=None):
        """Exponential samples of scale 1, by inversion (-log U) whatever
        ``method`` says; into ``out`` (a contiguous kiln array of
        ``dtype``) when given."""
        return self._draw("standard_exponential", size, dtype, out=out)

    def standard_gamma(self, shape, size=None, dtype=numpy.float64, out=None):
        """Gamma samples of scale 1 (Marsaglia-Tsang); ``shape``
        broadcasts; into ``out`` (a C-contiguous kiln array of ``dtype``,
        as NumPy's standard_gamma wants) when given."""
        shape = _param(shape)
        _nonneg(shape, "shape")
        return self._draw("standard_gamma", size, dtype, shape, out=out, c_only=True)

    def integers(self, low, high=None, size=None, dtype=numpy.int64, endpoint=False):
        """Uniform integers of [low, high) ([low, high] with endpoint=True),
        without modulo bias (Lemire's multiply-and-reject); bounds broadcast
        (array bounds are taken as int64, or uint64 for uint64 arrays)."""
        return self._integers(low, high, size, dtype, endpoint)

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
        """Counts (int64, shape ``size + (len(colors),)``) of each colour
        among ``nsample`` items drawn without replacement from
        ``colors[j]`` items of colour j: hypergeometric draws colour by
        colour from what is left, whichever ``method`` ('marginals' or
        'count', checked as NumPy's) is named; both give this
        distribution."""
        if method not in ("count", "marginals"):
            raise ValueError("method must be 'count' or 'marginals', got %r" % (method,))
        host = _host(colors)
        counts = host.tolist() if host.ndim == 1 and (host.dtype.kind in "iub" or not host.size) else None
        if counts is None or any(c < 0 or c >= 1 << 63 for c in counts):
            raise ValueError("colors must be a 1-d sequence of non-negative integers below 2^63")
        if not isinstance(nsample, numbers.Integral):
            raise ValueError("nsample must be an integer, got %s" % type(nsample).__name__)
        nsample = operator.index(nsample)
        if nsample < 0:
            raise ValueError("nsample must be non-negative")
        total = sum(counts)
        if total >= 1 << 63:
            raise ValueError("sum(colors) must be below 2^63")
        if method == "marginals" and total >= 10 ** 9:
            raise ValueError("with method 'marginals', sum(colors) must be less than 1000000000")
        if nsample > total:
            raise ValueError("nsample > sum(colors)")
        shape = _shape_of(size)
        return _core._random_multivariate_hypergeometric(
            self._bit_generator, _creation.asarray(numpy.asarray(counts, dtype=numpy.int64)), total, nsample,
            () if shape is None else shape)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Samples of ``a`` (an int n: of range(n)) along ``axis``, with or
        without replacement, with probabilities ``p``; the result's shape is
        ``a.shape[:axis] + size + a.shape[axis + 1:]``. Samples without
        replacement come in random order whatever ``shuffle`` says."""
        return _permutations.choice(self, a, size, replace, p, axis)

    def permutation(self, x, axis=0):
        """A random permutation of ``range(x)`` for an int ``x``, else a
        copy of ``x`` with its slices along ``axis`` in a random order."""
        return _permutations.permutation(self, x, axis)

    def shuffle(self, x, axis=0):
        """Reorders the slices of ``x`` along ``axis`` in place (a kiln or
        NumPy array, or a mutable sequence with axis 0)."""
        _permutations.shuffle(self, x, axis)

    def permuted(self, x, axis=None, out=None):
        """``x`` with each slice along ``axis`` shuffled independently of
        the others (the flattened array for ``axis=None``); into ``out``
        (which may be ``x``) when given."""
        return _permutations.permuted(self, x, axis, out)


def default_rng(seed=None):
    """A Generator over Philox keyed from ``seed`` (an int, a sequence of
    ints, None for fresh entropy, or a Generator / Philox to use as is)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))
