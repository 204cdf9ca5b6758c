"""The kernels behind kiln.random: one table of distributions, each made
into ElementwiseKernels (kiln/_elementwise_kernel.py) over the device
functions of stdlib_kernels/kiln/philox.h and random_distributions.h.

A distribution is of one of four kinds (Note [Random counters]):
- "co"/"oo": a map of one uniform u in [0, 1) or (0, 1);
- "normal": a map of one standard normal z (Box-Muller pairs);
- "stream": a sampler with its own Stream `s` per element (rejection).
The first three take a whole block of 4 words per unit: 4 float or 2 double
outputs. With scalar parameters one thread makes a unit's outputs and stores
them at once (the "unit" kernel); with array parameters each element finds
its unit and lane and computes the same value (the "element" kernel), so the
numbers do not depend on how the parameters were given.
"""
import collections

import numpy

from kiln import _creation
from kiln._core import ndarray
from kiln._elementwise_kernel import ElementwiseKernel, _CTYPES

Dist = collections.namedtuple("Dist", "kind params expr out")
Dist.__doc__ = """kind: co, oo, normal or stream; params: parameter names, in
the kernel's order; expr: C++ of the value (u, z or s, and the params, all of
the arithmetic type F); out: the output dtype, or None for the float dtype
asked for. Integer-valued distributions compute in double."""

_F = "kiln::random::"
DISTS = {
    "random": Dist("co", (), "u", None),
    "uniform": Dist("co", ("low", "high"), _F + "uniform(u, low, high)", None),
    "standard_normal": Dist("normal", (), "z", None),
    "normal": Dist("normal", ("loc", "scale"), "loc + scale * z", None),
    "lognormal": Dist("normal", ("mean", "sigma"), "::exp(mean + sigma * z)", None),
    "standard_exponential": Dist("oo", (), "-::log(u)", None),
    "exponential": Dist("oo", ("scale",), _F + "exponential(u, scale)", None),
    "laplace": Dist("oo", ("loc", "scale"), _F + "laplace(u, loc, scale)", None),
    "logistic": Dist("oo", ("loc", "scale"), _F + "logistic(u, loc, scale)", None),
    "gumbel": Dist("oo", ("loc", "scale"), _F + "gumbel(u, loc, scale)", None),
    "rayleigh": Dist("oo", ("scale",), _F + "rayleigh(u, scale)", None),
    "weibull": Dist("oo", ("a",), _F + "weibull(u, a)", None),
    "pareto": Dist("oo", ("a",), _F + "pareto(u, a)", None),
    "standard_cauchy": Dist("oo", (), _F + "standard_cauchy(u)", None),
    "power": Dist("oo", ("a",), _F + "power(u, a)", None),
    "triangular": Dist("co", ("left", "mode", "right"), _F + "triangular(u, left, mode, right)", None),
    "geometric": Dist("oo", ("p",), _F + "geometric(u, p)", numpy.dtype(numpy.int64)),
    "standard_gamma": Dist("stream", ("shape",), _F + "gamma<F>(s, shape)", None),
    "log_gamma": Dist("stream", ("shape",), _F + "log_gamma(s, shape)", numpy.dtype(numpy.float64)),
    "gamma": Dist("stream", ("shape", "scale"), _F + "gamma<F>(s, shape) * scale", None),
    "beta": Dist("stream", ("a", "b"), _F + "beta<F>(s, a, b)", None),
    "chisquare": Dist("stream", ("df",), _F + "chisquare<F>(s, df)", None),
    "standard_t": Dist("stream", ("df",), _F + "standard_t<F>(s, df)", None),
    "f": Dist("stream", ("dfnum", "dfden"), _F + "f<F>(s, dfnum, dfden)", None),
    "noncentral_chisquare": Dist("stream", ("df", "nonc"), _F + "noncentral_chisquare<F>(s, df, nonc)", None),
    "noncentral_f": Dist("stream", ("dfnum", "dfden", "nonc"), _F + "noncentral_f<F>(s, dfnum, dfden, nonc)", None),
    "wald": Dist("stream", ("mean", "scale"), _F + "wald<F>(s, mean, scale)", None),
    "negative_binomial": Dist("stream", ("n", "p"), _F + "negative_binomial(s, n, p)", numpy.dtype(numpy.int64)),
    "vonmises": Dist("stream", ("mu", "kappa"), _F + "vonmises(s, mu, kappa)", None),
    "zipf": Dist("stream", ("a",), _F + "zipf(s, a)", numpy.dtype(numpy.int64)),
    "logseries": Dist("stream", ("p",), _F + "logseries(s, p)", numpy.dtype(numpy.int64)),
    "hypergeometric": Dist("stream", ("ngood", "nbad", "nsample"),
                           _F + "hypergeometric(s, (long long)ngood, (long long)nbad, (long long)nsample)",
                           numpy.dtype(numpy.int64)),
    "poisson": Dist("stream", ("lam",), _F + "poisson(s, lam)", numpy.dtype(numpy.int64)),
    "binomial": Dist("stream", ("n", "p"), _F + "binomial(s, (long long)n, p)", numpy.dtype(numpy.int64)),
}

_FLOATS = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))
_PREAMBLE = "#include <kiln/random_distributions.h>\n"
_KEY_PARAMS = "uint32 key0, uint32 key1, uint64 ctr_lo, uint64 ctr_hi"
# Note [Exact floating point] (arraycore/elementwise.h): uniform's
# low + (high - low) * u must not become an FMA on one backend only.
_EXACT = ("--fmad=false",)


def per_unit(dist, ftype):
    """Outputs one unit makes (4 float or 2 double from a block; 1 for
    stream samplers)."""
    if DISTS[dist].kind == "stream":
        return 1
    return 4 if ftype == numpy.float32 else 2


def compute_type(dist, dtype):
    """(F, output dtype) of `dist` asked for in `dtype`."""
    d = DISTS[dist]
    if d.out is not None:
        return numpy.dtype(numpy.float64), d.out
    dtype = numpy.dtype(dtype)
    if dtype not in _FLOATS:
        raise TypeError("kiln.random: dtype must be float32 or float64, got %s" % dtype)
    return dtype, dtype


_kernels = {}


def _value(kind):
    if kind == "normal":
        return "kiln::random::normals<F>(x_, w_);\n", "z"
    return "kiln::random::uniforms_%s<F>(x_, w_);\n" % kind, "u"


def unit_kernel(dist, ftype, out_dtype):
    """ElementwiseKernel(key..., n, params..., raw out) over units."""
    key = ("unit", dist, ftype, out_dtype)
    k = _kernels.get(key)
    if k is None:
        d = DISTS[dist]
        f, t, per = _CTYPES[ftype], _CTYPES[out_dtype], per_unit(dist, ftype)
        fill, var = _value(d.kind)
        params = "".join(", %s %s" % (ftype.name, p) for p in d.params)
        op = ("typedef %s F;\nunsigned x_[4];\n"
              "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)i, 0ull);\n"
              "F w_[%d];\n%s%s v_[%d];\n"
              "#pragma unroll\nfor (int k_ = 0; k_ < %d; ++k_) { const F %s = w_[k_]; v_[k_] = (%s)(%s); }\n"
              "kiln::random::store<%s, %d>(out.data, n, i, v_);\n"
              % (f, per, fill, t, per, per, var, t, d.expr, t, per))
        k = ElementwiseKernel(_KEY_PARAMS + ", int64 n" + params, "raw %s out" % out_dtype.name, op,
                              "kiln_random_%s_units" % dist, preamble=_PREAMBLE,
                              options=_EXACT if d.kind == "co" else ())
        _kernels[key] = k
    return k


def element_kernel(dist, ftype, out_dtype):
    """ElementwiseKernel(key..., params..., out) over elements: params
    broadcast; the value of element i is the unit kernel's."""
    key = ("element", dist, ftype, out_dtype)
    k = _kernels.get(key)
    if k is None:
        d = DISTS[dist]
        f, t, per = _CTYPES[ftype], _CTYPES[out_dtype], per_unit(dist, ftype)
        params = "".join(", %s %s" % (ftype.name, p) for p in d.params)
        if d.kind == "stream":
            op = ("typedef %s F;\n"
                  "kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
                  "out = (%s)(%s);\n" % (f, t, d.expr))
        else:
            fill, var = _value(d.kind)
            op = ("typedef %s F;\nunsigned x_[4];\n"
                  "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)(i / %d), 0ull);\n"
                  "F w_[%d];\n%sconst F %s = w_[i %% %d];\nout = (%s)(%s);\n"
                  % (f, per, per, fill, var, per, t, d.expr))
        k = ElementwiseKernel(_KEY_PARAMS + params, "%s out" % out_dtype.name, op,
                              "kiln_random_%s" % dist, preamble=_PREAMBLE,
                              options=_EXACT if d.kind == "co" else ())
        _kernels[key] = k
    return k


def launch(bitgen, dist, shape, dtype, params, out=None):
    """A new array of `shape` drawn from `dist` (or `out`, C-contiguous, of
    that shape and the output dtype); `params` are Python scalars (already
    checked) or kiln arrays broadcastable to `shape`. Moves bitgen's
    counter past the units used."""
    ftype, out_dtype = compute_type(dist, dtype)
    if out is None:
        out = _creation.empty(shape, dtype=out_dtype)
    n = out.size
    if n == 0:
        return out
    per = per_unit(dist, ftype)
    units = -(-n // per)
    key = bitgen._take(units)
    if per > 1 and not any(isinstance(p, ndarray) for p in params):
        args = [ftype.type(p) for p in params]
        unit_kernel(dist, ftype, out_dtype)(*key, n, *args, out, size=units)
        return out
    args = [p.astype(ftype, copy=False) if isinstance(p, ndarray) else ftype.type(p) for p in params]
    element_kernel(dist, ftype, out_dtype)(*key, *args, out)
    return out


_words = {}


def _words_kernel(dtype):
    """Raw words: uint32 (4 a block) or uint64 (2 a block, high word first)."""
    k = _words.get(dtype)
    if k is None:
        if dtype == numpy.uint32:
            op = ("unsigned x_[4];\n"
                  "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)i, 0ull);\n"
                  "kiln::random::store<unsigned int, 4>(out.data, n, i, x_);\n")
        else:
            op = ("unsigned x_[4];\n"
                  "kiln::random::block(x_, key0, key1, ctr_lo, ctr_hi, (unsigned long long)i, 0ull);\n"
                  "unsigned long long v_[2] = {((unsigned long long)x_[0] << 32) | x_[1],"
                  " ((unsigned long long)x_[2] << 32) | x_[3]};\n"
                  "kiln::random::store<unsigned long long, 2>(out.data, n, i, v_);\n")
        k = ElementwiseKernel(_KEY_PARAMS + ", int64 n", "raw %s out" % numpy.dtype(dtype).name, op,
                              "kiln_random_words%d" % (8 * numpy.dtype(dtype).itemsize), preamble=_PREAMBLE)
        _words[dtype] = k
    return k


def raw_words(bitgen, size, dtype=numpy.uint32):
    """Philox words as they come, uint32 (or uint64 from pairs)."""
    shape = () if size is None else size
    out = _creation.empty(shape, dtype=dtype)
    if out.size:
        per = 4 if out.dtype == numpy.uint32 else 2
        units = -(-out.size // per)
        _words_kernel(out.dtype)(*bitgen._take(units), out.size, out, size=units)
    return out


_integer_kernels = {}


def integers(bitgen, shape, dtype, low, span):
    """Uniform integers low + [0, span] (span = high - low, at most 2^64 - 1)
    in `dtype`, without bias (kiln::random::bounded); low and span are
    numpy.uint64 scalars or uint64 kiln arrays broadcastable to `shape`
    (low is taken mod 2^64 and the sum wraps into dtype as two's complement)."""
    dtype = numpy.dtype(dtype)
    k = _integer_kernels.get(dtype)
    if k is None:
        op = ("kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
              "out = (%s)(low + kiln::random::bounded(s, span));\n" % _CTYPES[dtype])
        k = ElementwiseKernel(_KEY_PARAMS + ", uint64 low, uint64 span", "%s out" % dtype.name, op,
                              "kiln_random_integers", preamble=_PREAMBLE)
        _integer_kernels[dtype] = k
    out = _creation.empty(shape, dtype=dtype)
    if out.size:
        k(*bitgen._take(out.size), low, span, out)
    return out


_multinomial_kernel = None


def multinomial(bitgen, n, pvals, shape):
    """Counts of n[r] draws over the k categories of pvals[r] for each row
    r of `shape` (output shape + (k,), int64): binomials of what is left,
    category by category, each row from its own Stream. `n` is an int64
    kiln array of shape `shape` (or of one element, for every row); `pvals`
    a float64 one of shape `shape` + (k,) (or (k,), for every row), both
    C-contiguous."""
    global _multinomial_kernel
    if _multinomial_kernel is None:
        op = ("kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
              "long long left = nv[i * nstride];\ndouble rest = 1.0;\n"
              "for (long long j = 0; j < k - 1; ++j) {\n"
              "  const double p = pvals[i * pstride + j];\n"
              "  long long x = 0;\n"
              "  if (left > 0 && rest > 0.0) x = kiln::random::binomial(s, left, p < rest ? p / rest : 1.0);\n"
              "  out[i * k + j] = x;\n  left -= x;\n  rest -= p;\n}\n"
              "out[i * k + k - 1] = left;\n")
        _multinomial_kernel = ElementwiseKernel(
            _KEY_PARAMS + ", raw int64 nv, int64 nstride, int64 k, raw float64 pvals, int64 pstride",
            "raw int64 out", op, "kiln_random_multinomial", preamble=_PREAMBLE)
    k = pvals.shape[-1]
    return _count_rows(_multinomial_kernel, bitgen, shape, k, n, 0 if n.size == 1 else 1, k, pvals,
                       0 if pvals.ndim == 1 else k)


def _count_rows(kernel, bitgen, shape, k, *args):
    """A new int64 array of shape + (k,), `kernel(key..., *args, out)` run
    with a unit (a Stream) per row of k counts."""
    out = _creation.empty(tuple(shape) + (k,), dtype=numpy.int64)
    rows = out.size // k if k else 0
    if rows:
        kernel(*bitgen._take(rows), *args, out, size=rows)
    return out


_multivariate_hypergeometric_kernel = None


def multivariate_hypergeometric(bitgen, colors, total, nsample, shape):
    """Counts of each colour among nsample items drawn without replacement
    from colors[j] items of colour j (total in all), per row of `shape`
    (output shape + (k,), int64): hypergeometric draws colour by colour
    from what is left, each row from its own Stream."""
    global _multivariate_hypergeometric_kernel
    if _multivariate_hypergeometric_kernel is None:
        op = ("kiln::random::Stream s(key0, key1, ctr_lo, ctr_hi, (unsigned long long)i);\n"
              "long long items = total, left = nsample;\n"
              "for (long long j = 0; j < k; ++j) {\n"
              "  const long long c = colors[j];\n"
              "  const long long x = kiln::random::hypergeometric(s, c, items - c, left);\n"
              "  out[i * k + j] = x;\n  items -= c;\n  left -= x;\n}\n")
        _multivariate_hypergeometric_kernel = ElementwiseKernel(
            _KEY_PARAMS + ", raw int64 colors, int64 k, int64 total, int64 nsample", "raw int64 out", op,
            "kiln_random_multivariate_hypergeometric", preamble=_PREAMBLE)
    k = colors.shape[0]
    return _count_rows(_multivariate_hypergeometric_kernel, bitgen, shape, k, colors, k, total, nsample)


_dirichlet_kernels = {}


def dirichlet_rows(logs, dtype):
    """Rows of exp(logs - max) / sum (Note [Dirichlet in logarithms]) in
    `dtype`, one thread per row of the C-contiguous float64 `logs` (which
    it overwrites): a row with a NaN is NaN; a row of -inf (zero alphas
    only) is zeros. (A thread per row, not the reduction engine: rows are
    short, and many.)"""
    dtype = numpy.dtype(dtype)
    k = _dirichlet_kernels.get(dtype)
    if k is None:
        op = ("double* row = logs.data + i * k;\n"
              "double top = -1.7976931348623157e308;\n"
              "for (long long j = 0; j < k; ++j) top = row[j] > top ? row[j] : top;\n"
              "double sum = 0.0;\n"
              "for (long long j = 0; j < k; ++j) {\n  row[j] = ::exp(row[j] - top);\n  sum += row[j];\n}\n"
              "sum = sum < 1.0 ? 1.0 : sum;   // the top gives 1 unless the row is all -inf; NaN stays\n"
              "for (long long j = 0; j < k; ++j) out.data[i * k + j] = (%s)(row[j] / sum);\n" % _CTYPES[dtype])
        k = ElementwiseKernel("raw float64 logs, int64 k", "raw %s out" % dtype.name, op,
                              "kiln_random_dirichlet_rows", preamble=_PREAMBLE)
        _dirichlet_kernels[dtype] = k
    out = _creation.empty(logs.shape, dtype=dtype)
    cols = logs.shape[-1]
    if out.size:
        k(logs, cols, out, size=out.size // cols)
    return out
