"""Every kiln ufunc against NumPy 2.4: the public attributes (types, nin,
nout, nargs, ntypes, identity, __name__, aliases), then every type loop of
every ufunc called through kiln.<ufunc> on one array holding the special
values (zeros of both signs, infinities, NaNs, integer limits, -1,
subnormals, domain edges), their pairwise combinations for binary ufuncs and
random values. Results must equal NumPy's bit for bit, except the
transcendental functions, which must stay within ULP_BOUNDS (real) or
COMPLEX_EPS (complex); NaN-ness, infinities and the sign of zero must always
match. Where NumPy raises or warns on host data instead of producing a value
(integer power to a negative exponent), kiln's documented value is tested
(docs/ufuncs.md).

    pytest tests/python/core/test_ufuncs.py -q -n 2
"""
import warnings

import numpy
import pytest

import kiln
from kiln import _core

NAMES = sorted(_core._ufunc_names())
ALIASES = {"true_divide": "divide", "mod": "remainder", "conj": "conjugate", "bitwise_not": "invert",
           "abs": "absolute"}
KILN_CHARS = "?bBhHiIqQefdFD"


def numpy_types(uf, exact=False):
    """NumPy's loops over kiln's dtypes, in NumPy's order ('l' read as 'q'
    unless exact: both are int64 on Linux, and NumPy names some loops both
    ways, some one way)."""
    kept = []
    for t in uf.types:
        if not exact:
            t = t.replace("l", "q").replace("L", "Q")
        if all(c in KILN_CHARS + "lL->" for c in t) and t not in kept:
            kept.append(t)
    return kept


# --- attributes ----------------------------------------------------------------

def test_every_issue_ufunc_is_exported():
    assert len(NAMES) == 84
    for n in NAMES + sorted(ALIASES):
        assert isinstance(getattr(kiln, n), kiln.ufunc), n


@pytest.mark.parametrize("name", NAMES)
def test_attributes_equal_numpy(name):
    k, n = getattr(kiln, name), getattr(numpy, name)
    assert k.__name__ == n.__name__ == name
    assert (k.nin, k.nout, k.nargs) == (n.nin, n.nout, n.nargs)
    assert list(dict.fromkeys(t.replace("l", "q").replace("L", "Q") for t in k.types)) == numpy_types(n)
    if name in ("add", "subtract", "multiply", "negative", "absolute", "sin", "bitwise_and", "maximum", "equal"):
        assert k.types == numpy_types(n, exact=True)   # 'll->l' before 'qq->q', as NumPy lists them
    assert k.ntypes == len(k.types)
    assert k.signature is None and n.signature is None
    if n.identity is None:
        assert k.identity is None
    else:
        assert k.identity == n.identity and type(k.identity) is type(n.identity)
    assert repr(k) == repr(n)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases_are_the_same_object(alias):
    assert getattr(kiln, alias) is getattr(kiln, ALIASES[alias])
    assert getattr(numpy, alias) is getattr(numpy, ALIASES[alias])


# --- values ----------------------------------------------------------------------

def float_specials(dtype):
    """Zeros, infinities, NaNs of both signs, limits, subnormals and the edges
    of the transcendental domains (+-1 and their neighbours, overflow points
    of exp/sinh/cosh, pi/2, huge arguments of sin/cos)."""
    f = numpy.finfo(dtype)
    one_up, one_down = 1 + float(f.eps), 1 - float(f.epsneg)
    big_exp = float(numpy.log(numpy.float64(f.max)))
    v = [0.0, 1.0, 0.5, 2.0, 3.0, 10.0, 100.0, 1e4, 0.1, 1.5, 2.5, 0.75,
         float(f.smallest_subnormal), 3 * float(f.smallest_subnormal), float(f.tiny), float(f.max),
         float(f.eps), one_up, one_down, big_exp, big_exp + 1, big_exp - 1, numpy.pi / 2, numpy.pi, 1e10,
         4.5, 1e-5, numpy.inf]
    signed = v + [-x for x in v]
    with numpy.errstate(over="ignore"):
        out = numpy.array(signed, dtype=numpy.float64).astype(dtype)
    nan = numpy.array([numpy.nan], dtype=dtype)
    return numpy.concatenate([out, nan, -nan])


def int_specials(dtype):
    info = numpy.iinfo(dtype)
    v = [0, 1, 2, 3, 5, 7, 8, 12, 15, 16, 31, 32, 33, 63, 64, 65, 100, 127, 128, 255,
         info.max, info.max - 1, info.max // 2, info.max // 2 + 1]
    if info.min < 0:
        v += [-x for x in v[1:16]] + [info.min, info.min + 1, info.min // 2]
    return numpy.array(sorted({x for x in v if info.min <= x <= info.max}), dtype=dtype)


def specials(dtype, few=False):
    """The special values of `dtype`; complex: a grid of real specials
    (fewer with `few`, for the all-pairs inputs of binary loops)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return numpy.array([False, True])
    if dtype.kind in "iu":
        return int_specials(dtype)
    if dtype.kind == "f":
        return float_specials(dtype)
    part = float_specials(numpy.float32 if dtype == numpy.complex64 else numpy.float64)
    # 0, 1, 2, subnormal, tiny, max, log(max), pi/2, 1e10, inf, their negatives, NaN
    keep = part[[0, 1, 3, 12, 14, 15, 19, 22, 24, 27, 28, 29, 31, 40, 43, 50, 51, 55, 56, 57]]
    if few:
        keep = part[[0, 1, 3, 15, 27, 28, 29, 55, 56]]
    re, im = numpy.meshgrid(keep, keep)
    z = numpy.empty(re.size, dtype=dtype)
    z.real, z.imag = re.ravel(), im.ravel()
    return z


def randoms(rng, dtype, n):
    """n random values: small magnitudes and values spread over the whole range."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        wide = rng.integers(info.min, info.max, n // 2, endpoint=True, dtype=dtype)
        small = rng.integers(max(info.min, -50), 50, n - n // 2, endpoint=True).astype(dtype)
        return numpy.concatenate([wide, small])
    real = numpy.float32 if dtype in (numpy.complex64, numpy.float32) else numpy.float64
    if dtype == numpy.float16:
        real = numpy.float16

    def one():
        f = numpy.finfo(real)
        lo, hi = numpy.log10(float(f.smallest_subnormal)), numpy.log10(float(f.max))
        k = n // 3
        with numpy.errstate(over="ignore"):
            return numpy.concatenate([rng.uniform(-2, 2, k), rng.standard_normal(k) * 30,
                                      10.0 ** rng.uniform(lo, hi, n - 2 * k) * rng.choice([-1.0, 1.0], n - 2 * k)
                                      ]).astype(real)
    if dtype.kind == "f":
        return one()
    z = numpy.empty(n, dtype=dtype)
    z.real, z.imag = one(), rng.permutation(one())
    return z


def loop_inputs(rng, ins):
    """Host arrays, one per input type char: specials (all pairs of them for
    binary loops) followed by random values."""
    dts = [numpy.dtype(c) for c in ins]
    if len(dts) == 1:
        return [numpy.concatenate([specials(dts[0]), randoms(rng, dts[0], 600)])]
    s0, s1 = specials(dts[0], few=True), specials(dts[1], few=True)
    a, b = numpy.meshgrid(s0, s1)
    n = 600
    return [numpy.concatenate([a.ravel(), randoms(rng, dts[0], n)]),
            numpy.concatenate([b.ravel(), randoms(rng, dts[1], n)])]


# --- comparison ----------------------------------------------------------------

def _float_bits(a):
    return a.view({2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}[a.dtype.itemsize])


def ulp_distance(got, expected):
    """|got - expected| in units in the last place of the real dtype (both
    finite or both infinite; +0 and -0 are 0 apart here, signs are checked
    separately). The ordinals are subtracted as int64: a float64 ordinal is
    near 2^62, where float64 itself steps by 1024 (a 1-ulp difference would
    read as 0 or 1024)."""
    bits = {2: numpy.int16, 4: numpy.int32, 8: numpy.int64}[got.dtype.itemsize]

    def ordinal(a):
        i = a.view(bits).astype(numpy.int64)
        magnitude = i & numpy.int64((1 << (8 * a.dtype.itemsize - 1)) - 1)
        return numpy.where(i < 0, -magnitude, magnitude)
    og, oe = ordinal(got), ordinal(expected)
    same_sign = (og >= 0) == (oe >= 0)  # then og - oe cannot overflow
    with numpy.errstate(over="ignore"):
        apart = numpy.abs(og - oe).astype(numpy.float64)
    return numpy.where(same_sign, apart, numpy.abs(og.astype(numpy.float64)) + numpy.abs(oe.astype(numpy.float64)))


def real_mismatches(got, expected, ulps, exact_nan_bits=False, magnitude=None):
    """Mask of elements where a real floating result breaks the rules:
    NaN-ness, infinities and zero signs exact; otherwise within `ulps`
    (0: the same bits): ulps of the result, or of `magnitude` where given
    (Note [ulp bounds]). NaN bits are compared when `exact_nan_bits`."""
    g_nan, e_nan = numpy.isnan(got), numpy.isnan(expected)
    bad = g_nan != e_nan
    if exact_nan_bits:
        bad |= e_nan & (_float_bits(got) != _float_bits(expected))
    num = ~g_nan & ~e_nan
    inf = num & (numpy.isinf(got) | numpy.isinf(expected))
    bad |= inf & (got != expected)
    zero = num & ((got == 0) | (expected == 0))
    bad |= zero & (_float_bits(got) != _float_bits(expected)) & ((ulps == 0) | (got == expected))
    fin = num & ~inf
    dist = numpy.zeros(got.shape)
    if magnitude is None:
        dist[fin] = ulp_distance(got[fin], expected[fin])
    else:
        with numpy.errstate(over="ignore"):
            apart = numpy.abs(got[fin].astype(numpy.float64) - expected[fin].astype(numpy.float64))
        dist[fin] = apart / ulp_of(magnitude[fin].astype(got.dtype))
    bad |= dist > ulps
    return bad, dist


def ulp_of(m):
    """The unit in the last place of each m >= 0 (of its dtype), as float64:
    numpy.spacing, except at the largest finite value, where spacing
    overflows to inf."""
    with numpy.errstate(over="ignore"):
        up = numpy.spacing(m)
    below = m - numpy.nextafter(m, numpy.zeros_like(m))
    return numpy.where(numpy.isinf(up), below, up).astype(numpy.float64)


def bound_magnitude(name, args, expected):
    """For logaddexp and logaddexp2, the largest of the two terms of the
    final sum, max(x, y) and result - max(x, y), and the result, in
    magnitude (0 where not finite): their bound is in ulps of that, not of
    the result (Note [ulp bounds]). None (ulps of the result) for the other
    functions."""
    if name not in ("logaddexp", "logaddexp2"):
        return None
    with numpy.errstate(invalid="ignore", over="ignore"):
        top = numpy.maximum(*args).astype(numpy.float64)
        result = expected.astype(numpy.float64)
        parts = [numpy.abs(v) for v in (top, result - top, result)]
    return numpy.maximum.reduce([numpy.where(numpy.isfinite(v), v, 0) for v in parts]).astype(expected.dtype)


def complex_mismatches(got, expected, eps_bound):
    """Per part: NaN-ness, infinities and zero signs exact; finite results
    within eps_bound * eps * max(|re|, |im|) of NumPy's (normwise, as
    Note [Transcendental accuracy] states the complex bounds)."""
    bad = numpy.zeros(got.shape, dtype=bool)
    for g, e in ((got.real, expected.real), (got.imag, expected.imag)):
        g_nan, e_nan = numpy.isnan(g), numpy.isnan(e)
        bad |= g_nan != e_nan
        bad |= ~e_nan & (numpy.isinf(g) | numpy.isinf(e)) & (g != e)
        bad |= (g == 0) & (e == 0) & (numpy.signbit(g) != numpy.signbit(e))
    fin = numpy.isfinite(expected) & numpy.isfinite(got) & ~bad
    e, g = expected[fin].astype(numpy.complex128), got[fin].astype(numpy.complex128)
    scale = numpy.maximum(numpy.abs(e.real), numpy.abs(e.imag))
    diff = numpy.maximum(numpy.abs(g.real - e.real), numpy.abs(g.imag - e.imag))
    eps = float(numpy.finfo(got.real.dtype).eps)
    tiny = float(numpy.finfo(got.real.dtype).smallest_subnormal)
    err = numpy.zeros(got.shape)
    err[fin] = diff / (numpy.maximum(scale, tiny / eps) * eps)
    bad |= err > eps_bound
    return bad, err


# Note [ulp bounds]
# Real transcendental loops (float32 / float64) may differ from NumPy by CUDA's
# documented maximum error for the function plus NumPy's own (NumPy calls the
# C library, < 1 ulp, except its SIMD float32 exp/log, ~4 ulp, and sin/cos,
# ~2), the budget of Note [Transcendental accuracy] in
# kiln/ufunc_transcendental.h; float64 hypot is kiln's own, correctly
# rounded on a GPU (Note [Double hypot on the device]): 1 ulp from glibc's.
# float16 loops compute in float32 and round once, as NumPy's do: 1 ulp of
# float16. Complex transcendental loops are bounded normwise in eps
# (COMPLEX_EPS). Everything not listed is exact.
# logaddexp(x, y) = max(x, y) + log1p(exp(-|x - y|)) (logaddexp2 alike,
# with log2(e) log1p(exp2(...))) is bounded in ulps of the larger of the
# sum's two terms and the result, max(|max(x, y)|, |log1p term|, |result|),
# not of the result alone: where the result is near 0 the sum cancels
# (exactly), and what is left is the rounding error of the log1p term (up
# to ln 2), which NumPy's result carries as well: in ulps of a result near
# 0 the difference of any two libraries is unbounded (a GPU's 1-ulp exp
# and log1p against glibc's: up to 256 ulp of the result in the suite).
# docs/ufuncs.md lists these bounds and the errors measured on the host.
ULP_BOUNDS = {  # name: (float32, float64)
    "exp": (6, 2), "exp2": (3, 2), "expm1": (2, 2), "log": (5, 2), "log2": (2, 2), "log10": (3, 2),
    "log1p": (2, 2), "cbrt": (2, 2), "sin": (4, 3), "cos": (4, 3), "tan": (5, 3), "arcsin": (3, 3),
    "arccos": (3, 3), "arctan": (3, 3), "arctan2": (4, 3), "hypot": (4, 1), "sinh": (4, 3), "cosh": (3, 2),
    "tanh": (3, 2), "arcsinh": (4, 4), "arccosh": (5, 4), "arctanh": (4, 3), "power": (5, 3),
    "float_power": (5, 3), "logaddexp": (5, 4), "logaddexp2": (5, 4),
}
COMPLEX_EPS = {"exp": 4, "exp2": 4, "log": 4, "log2": 4, "log10": 4, "sqrt": 4, "sinh": 4, "cosh": 4,
               "sin": 4, "cos": 4, "tanh": 8, "tan": 8, "expm1": 8, "log1p": 8, "arcsin": 8, "arccos": 8,
               "arctan": 8, "arcsinh": 8, "arccosh": 8, "arctanh": 8}
# Functions that only move or select bits: NaNs come back with their payload
# and sign (Note [NaN payloads] in kiln/ufunc_arith.h).
BIT_MOVERS = {"absolute", "fabs", "negative", "positive", "conjugate", "copysign", "maximum", "minimum",
              "fmax", "fmin", "floor", "ceil", "trunc", "rint", "nextafter", "modf", "frexp", "ldexp"}


def real_bound(name, dtype):
    if name not in ULP_BOUNDS:
        return 0
    if dtype == numpy.float16:
        return 1
    return ULP_BOUNDS[name][0 if dtype == numpy.float32 else 1]


def power_growth(args):
    """|b log a| for complex a ** b (computed as exp(b log a)): the factor by
    which the rounding error of log a is amplified."""
    a, b = (x.astype(numpy.complex128) for x in args)
    with numpy.errstate(all="ignore"):
        growth = numpy.abs(b * numpy.log(a))
    return numpy.where(numpy.isnan(growth), numpy.inf, growth)


def complex_bound(name, args):
    """COMPLEX_EPS, or 8 (1 + |b log a|) for power."""
    if name not in ("power", "float_power"):
        return COMPLEX_EPS[name]
    growth = power_growth(args)
    with numpy.errstate(over="ignore"):
        return 8 * (1 + numpy.where(numpy.isfinite(growth), growth, 0))


def phase_is_lost(name, args):
    """Complex powers whose phase b log a carries an error above one radian
    (|b log a| eps > 1): the direction of the result means nothing, NumPy's
    included, so only its class (NaN, 0, inf, finite) is compared."""
    if name not in ("power", "float_power") or args[0].dtype.kind != "c":
        return numpy.zeros(args[0].shape, dtype=bool)
    eps = float(numpy.finfo(args[0].real.dtype).eps)
    growth = power_growth(args)
    return numpy.isfinite(args[0]) & numpy.isfinite(args[1]) & (growth * eps > 1)


def magnitude_class(z):
    a = numpy.abs(z.astype(numpy.complex128))
    return numpy.select([numpy.isnan(z.real) | numpy.isnan(z.imag), a == 0, numpy.isinf(a)], [0, 1, 2], 3)


def sign_with_neighbour_hypot(got, z):
    """Where complex128 sign(z) is bit for bit NumPy's z / hypot(z) with the
    hypot replaced by one of its two neighbours. On a GPU kiln's double
    hypot is the correctly rounded one, glibc's (NumPy's) is within an ulp
    of it (Note [Double hypot on the device] in kiln/ufunc_arith.h), so a
    sign part may differ by a few ulp, more for a subnormal |z|, and only so.
    Nowhere on the host, whose hypot is glibc's: there sign is exact."""
    ok = numpy.zeros(z.shape, dtype=bool)
    if kiln.get_backend() == "host" or z.dtype != numpy.complex128:
        return ok
    with numpy.errstate(all="ignore"):
        h = numpy.hypot(z.real, z.imag)
        usable = numpy.isfinite(z) & (h > 0) & numpy.isfinite(h)
        got_bits = numpy.ascontiguousarray(got).view(numpy.uint64).reshape(-1, 2)
        for n in (numpy.nextafter(h, 0), numpy.nextafter(h, numpy.inf)):
            other = numpy.empty_like(z)
            other.real = numpy.where(numpy.isinf(n), 0.0, z.real / n)  # |z| overflows: +-1j
            other.imag = numpy.where(numpy.isinf(n), numpy.copysign(1.0, z.imag), z.imag / n)
            ok |= usable & (other.view(numpy.uint64).reshape(-1, 2) == got_bits).all(axis=1)
    return ok


def numpy_is_accurate(name, z):
    """Where NumPy's complex result can be the reference. NumPy's log1p(z) is
    log(1 + z): it loses z's low bits for |re z|, |im z| < 1/2 and overflows
    when |1 + z| does; kiln's is accurate there (Note [Complex log1p is
    accurate]; its accuracy is checked in test_ufunc_transcendental_header).
    expm1 at infinities, NaNs and zero is the array API standard's, not
    NumPy's (Note [Complex expm1 special values]; test_complex_expm1_special_values)."""
    if name == "expm1":
        return numpy.isfinite(z) & (z != 0)
    if name != "log1p":
        return numpy.ones(z.shape, dtype=bool)
    with numpy.errstate(all="ignore"):
        wide = numpy.abs(z.astype(numpy.complex128) + 1)
    finite = numpy.isfinite(z)
    return ((numpy.abs(z.real) >= 0.5) | (numpy.abs(z.imag) >= 0.5) | ~finite) & \
        ~(finite & (wide > numpy.finfo(z.real.dtype).max))


def numpy_call(name, args):
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        r = getattr(numpy, name)(*args)
    return list(r) if isinstance(r, tuple) else [r]


def with_c_nextafter_ties(x, y, numpy_out):
    """nextafter(x, y) is y where x == y (C's rule: nextafter(0.0, -0.0) is
    -0.0). NumPy's float32/float64 loops call C's; its float16 loop returned
    x there before NumPy 2.5; kiln follows C for every dtype."""
    return numpy.where(x == y, y, numpy_out).astype(numpy_out.dtype)


def expected_results(name, ins, args):
    """NumPy's results, except where NumPy raises on the data: integer power
    with negative exponents, whose kiln values are Note [Integer power]'s
    (1 for a == 1, +-1 for a == -1, 0 otherwise); and nextafter of equal
    arguments, which is y whatever the NumPy version (with_c_nextafter_ties)."""
    if name == "nextafter":
        return [with_c_nextafter_ties(*args, numpy_call(name, args)[0])]
    if name == "power" and ins[1] in "bhiq":
        a, b = args
        neg = b < 0
        r = numpy_call(name, [a, numpy.where(neg, 0, b).astype(b.dtype)])[0]
        one = numpy.ones_like(r)
        with numpy.errstate(all="ignore"):
            special = numpy.where(a == 1, one, numpy.where(a == -1, numpy.where(b % 2 == 0, one, -one), 0 * one))
        return [numpy.where(neg, special, r).astype(r.dtype)]
    return numpy_call(name, args)


def loop_ids():   # each 64-bit loop once (its 'q' name; the 'l' name is the same loop)
    return [(n, t) for n in NAMES for t in getattr(kiln, n).types if not set(t) & set("lL")]


@pytest.mark.parametrize("name,loop", loop_ids(), ids=[f"{n}-{t}" for n, t in loop_ids()])
def test_loop_matches_numpy(name, loop):
    ins, outs = loop.split("->")
    rng = numpy.random.default_rng(sum(map(ord, name + loop)))
    args = loop_inputs(rng, ins)
    got = getattr(kiln, name)(*[kiln.asarray(a) for a in args])
    got = [r.get() for r in (got if isinstance(got, tuple) else (got,))]
    expected = expected_results(name, ins, args)
    chars = [[x.dtype.char.replace("l", "q").replace("L", "Q") for x in r] for r in (got, expected)]
    assert chars[0] == chars[1] == list(outs)
    for j, (g, e) in enumerate(zip(got, expected)):
        where = f"{name} {loop} output {j}"
        if e.dtype.kind in "biu":
            bad = g != e
        elif e.dtype.kind == "f":
            bad, _ = real_mismatches(g, e, real_bound(name, e.dtype), exact_nan_bits=name in BIT_MOVERS,
                                     magnitude=bound_magnitude(name, args, e))
        elif name in COMPLEX_EPS or name in ("power", "float_power"):
            bad, _ = complex_mismatches(g, e, complex_bound(name, args))
            bad &= numpy_is_accurate(name, args[0])
            lost = phase_is_lost(name, args)
            bad[lost] = magnitude_class(g[lost]) != magnitude_class(e[lost])
        else:
            bad = numpy.zeros(g.shape, dtype=bool)
            for gp, ep in ((g.real, e.real), (g.imag, e.imag)):
                bad |= real_mismatches(gp, ep, 0, exact_nan_bits=name in BIT_MOVERS)[0]
            if name == "sign":
                bad &= ~sign_with_neighbour_hypot(g, args[0])
        if bad.any():
            idx = numpy.flatnonzero(bad)[:6]
            inputs = ", ".join(repr(a[idx]) for a in args)
            pytest.fail(f"{where}: {bad.sum()} of {bad.size} differ; inputs {inputs}: "
                        f"kiln {g[idx]!r} NumPy {e[idx]!r}")


@pytest.mark.parametrize("kind", ["complex64", "complex128"])
def test_complex_power_of_infinity_to_minus_one(kind):
    # NumPy's integer powers multiply from 1 with the plain product: 1 (inf + 0j)
    # is inf + NaN j, whose reciprocal is NaN (kiln once gave 0).
    a = numpy.array([complex(numpy.inf, 0), complex(-numpy.inf, 1), complex(1, numpy.inf)], dtype=kind)
    b = numpy.full(a.shape, -1, dtype=kind)
    expected = numpy_call("power", [a, b])[0]
    assert numpy.isnan(expected).all()
    got = kiln.power(kiln.asarray(a), kiln.asarray(b)).get()
    bad, _ = complex_mismatches(got, expected, 8)
    assert not bad.any(), (got, expected)


@pytest.mark.parametrize("kind", ["complex64", "complex128"])
def test_complex_sqrt_of_minus_infinity_and_negative_nan(kind):
    # sqrt(-inf + NaN j) is NaN + inf j with the NaN's sign (kiln once ignored it).
    z = numpy.array([complex(-numpy.inf, 0)], dtype=kind)
    z.imag = -numpy.array(numpy.nan, dtype=z.real.dtype)
    expected = numpy_call("sqrt", [z])[0]
    got = kiln.sqrt(kiln.asarray(z)).get()
    assert numpy.signbit(expected.imag[0]) and numpy.isinf(expected.imag[0])
    assert numpy.signbit(got.imag[0]) == numpy.signbit(expected.imag[0])


@pytest.mark.parametrize("kind", ["complex64", "complex128"])
def test_complex_integer_powers_bit_for_bit(kind):
    # Real integer exponents below 100 in magnitude are products (and a
    # Smith quotient) of exact IEEE operations: NumPy's bits, zero signs
    # and NaNs from inf * 0 included, on every backend.
    parts = numpy.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, numpy.inf, -numpy.inf, numpy.nan],
                        dtype="float32" if kind == "complex64" else "float64")
    re, im = numpy.meshgrid(parts, parts)
    a = numpy.empty(re.size, dtype=kind)
    a.real, a.imag = re.ravel(), im.ravel()
    n = numpy.arange(-99, 100)
    a, b = numpy.repeat(a, n.size), numpy.tile(n, a.size).astype(kind)
    expected = numpy_call("power", [a, b])[0]
    got = kiln.power(kiln.asarray(a), kiln.asarray(b)).get()
    bad = numpy.zeros(a.shape, dtype=bool)
    for g, e in ((got.real, expected.real), (got.imag, expected.imag)):
        bad |= real_mismatches(g, e, 0)[0]
    assert not bad.any(), (a[bad][:5], b[bad][:5], got[bad][:5], expected[bad][:5])
    i4 = (a == 1j) & (b == 4)
    assert i4.any() and not numpy.signbit(got.imag[i4]).any()  # 1j ** 4 is 1 + 0j
