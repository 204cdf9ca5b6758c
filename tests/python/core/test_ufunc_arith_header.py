"""kiln/ufunc_arith.h: every scalar function of the arithmetic, integer,
bitwise, comparison, logical, classification and rounding ufuncs, for every
NumPy type loop over kiln's dtypes, in a kernel on the selected backend
against NumPy 2's ufunc on random data and special values (0, -0.0, +-inf,
NaN, integer extremes, -1, denormals, halfway cases); and all of it compiled
with NVRTC for sm_90 (needs libnvrtc, not a GPU).

Results are compared bit for bit: integers, booleans and every float or
complex result, NaNs included where the function only moves bits. Where an
arithmetic instruction makes the NaN, only NaN-ness is compared (its payload
is the hardware's: see Note [NaN payloads] in the header). The ufunc-level
tests (kiln.add etc.) live with the elementwise engine.
"""
import math
import os
import warnings
from fractions import Fraction

import numpy
import pytest

import kiln
from conftest import name
from test_ufuncs import sign_with_neighbour_hypot

HAVE_NVRTC, WHY_NOT = kiln._core._nvrtc_available()
INCLUDE_DIR = os.path.join(os.path.dirname(kiln.__file__), "include")

UFUNCS = ("add subtract multiply divide floor_divide remainder fmod divmod negative positive absolute fabs "
          "sign heaviside conjugate square reciprocal gcd lcm bitwise_and bitwise_or bitwise_xor invert "
          "left_shift right_shift greater greater_equal less less_equal equal not_equal logical_and "
          "logical_or logical_xor logical_not maximum minimum fmax fmin isfinite isinf isnan signbit "
          "copysign floor ceil trunc rint deg2rad rad2deg degrees radians power").split()

C_TYPES = {"?": "bool", "b": "signed char", "h": "short", "i": "int", "q": "long long",
           "B": "unsigned char", "H": "unsigned short", "I": "unsigned int", "Q": "unsigned long long",
           "e": "kiln::half", "f": "float", "d": "double",
           "F": "kiln::complex<float>", "D": "kiln::complex<double>"}
DTYPES = [numpy.dtype(c) for c in "?bhiqBHIQefdFD"]

# Functions that only select or move bits: their NaN results are compared bit
# for bit too (heaviside and complex sign return NumPy's NaN constant).
NAN_BITS_EXACT = {"negative", "positive", "absolute", "fabs", "conjugate", "copysign", "maximum", "minimum",
                  "fmax", "fmin", "sign", "heaviside"}


def loops(ufunc_name):
    """NumPy's loops over kiln's dtypes as (input chars, output chars); int64
    and uint64 spelled q/Q. power's float and complex loops are the
    transcendental header's."""
    seen = []
    for t in getattr(numpy, ufunc_name).types:
        ins, outs = t.replace("l", "q").replace("L", "Q").split("->")
        if all(c in C_TYPES for c in ins + outs) and (ins, outs) not in seen:
            if ufunc_name == "power" and ins[0] in "efdFD":
                continue
            seen.append((ins, outs))
    return seen


def kernel_name(ufunc_name, ins):
    return "k_%s_%s" % (ufunc_name, "".join("u%s" % c.lower() if c.isupper() else c for c in ins).replace("?", "bool"))


def kernel_source(ufunc_name, ins, outs):
    params = ["const %s* in%d" % (C_TYPES[c], k) for k, c in enumerate(ins)]
    params += ["%s* out%d" % (C_TYPES[c], k) for k, c in enumerate(outs)]
    args = ", ".join("in%d[i]" % k for k in range(len(ins)))
    if len(outs) == 1:
        body = "out0[i] = kiln::ufn::%s(%s);" % (ufunc_name, args)
    else:
        body = "kiln::ufn::%s(%s, %s);" % (ufunc_name, args, ", ".join("out%d[i]" % k for k in range(len(outs))))
    return ('extern "C" __global__ void %s(%s, int n) {\n'
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) %s\n}\n") % (kernel_name(ufunc_name, ins), ", ".join(params), body)


def loops_of(dtype):
    """(ufunc name, ins, outs) for every loop whose first input is `dtype`."""
    return [(u, ins, outs) for u in UFUNCS for ins, outs in loops(u) if ins[0] == dtype.char.replace("l", "q")]


def module_source(dtype):
    return "#include <kiln/ufunc_arith.h>\n" + "".join(kernel_source(*loop) for loop in loops_of(dtype))


# Compiled as the engine compiles ufunc kernels: without FMA contraction
# (an a b - c d contracted to fma gives inf - inf = -inf where NumPy has NaN).
_modules = {}


def module(dtype):
    if dtype not in _modules:
        _modules[dtype] = kiln.RawModule(code=module_source(dtype), options=kiln._core._EXACT_FP_OPTIONS)
    return _modules[dtype]


# ---- operands ----

def special_values(dtype):
    if dtype.kind == "b":
        return numpy.array([False, True])
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        vals = [0, 1, 2, 3, 7, 8, info.max, info.max - 1, info.max // 2, info.max // 2 + 1]
        if dtype.kind == "i":
            vals += [-1, -2, -3, -7, -8, info.min, info.min + 1]
        return numpy.array(vals, dtype=dtype)
    part = numpy.dtype(dtype.char.lower())
    finfo = numpy.finfo(part)
    neg_nan = -numpy.array(numpy.nan, dtype=part)
    reals = numpy.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 5.5, 180.0, numpy.pi,
                         numpy.inf, -numpy.inf, numpy.nan, neg_nan, finfo.max, -finfo.max, finfo.tiny,
                         finfo.smallest_subnormal, -finfo.smallest_subnormal, finfo.eps], dtype=part)
    if dtype.kind == "f":
        return reals
    parts = reals[[0, 1, 2, 3, 7, 14, 15, 16, 17, 18, 21]]
    z = numpy.empty((parts.size, parts.size), dtype=dtype)
    z.real, z.imag = parts[:, None], parts[None, :]
    return z.reshape(-1)


def random_values(rng, dtype, n):
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        wide = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        small = rng.integers(max(info.min, -50), 50, n, endpoint=True).astype(dtype)
        return numpy.where(rng.random(n) < 0.5, wide, small)
    if dtype.kind == "c":
        part = numpy.dtype(dtype.char.lower())
        z = numpy.empty(n, dtype=dtype)
        z.real, z.imag = random_values(rng, part, n), random_values(rng, part, n)
        return z
    x = rng.standard_normal(n) * numpy.exp(rng.standard_normal(n) * 3)
    x[: n // 4] = numpy.round(x[: n // 4] * 4) / 4  # integers and halves: rounding ties, exact quotients
    with numpy.errstate(over="ignore"):
        return x.astype(dtype)  # float16: some overflow to inf


def operands(rng, dtype, nin):
    """Inputs for a loop: every pair of special values, then random ones."""
    s = special_values(dtype)
    if nin == 1:
        return [numpy.concatenate([s, random_values(rng, dtype, 2000)])]
    a, b = numpy.repeat(s, s.size), numpy.tile(s, s.size)
    return [numpy.concatenate([a, random_values(rng, dtype, 2000)]),
            numpy.concatenate([b, random_values(rng, dtype, 2000)])]


def shift_counts(rng, dtype, n):
    bits = 8 * dtype.itemsize
    lo = -3 if dtype.kind == "i" else 0
    return rng.integers(lo, bits + 4, n).astype(dtype)


# ---- running a loop and the oracle ----

def run(ufunc_name, ins, outs, args):
    n = args[0].size
    results = [kiln.zeros(n, dtype=numpy.dtype(c)) for c in outs]
    kernel = module(numpy.dtype(ins[0])).get_function(kernel_name(ufunc_name, ins))
    kernel(((n + 127) // 128,), (128,), tuple(kiln.asarray(a) for a in args) + tuple(results) + (numpy.int32(n),))
    return [r.get() for r in results]


def numpy_result(ufunc_name, args):
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = getattr(numpy, ufunc_name)(*args)
    return list(r) if isinstance(r, tuple) else [r]


def bits_of(x):
    if x.dtype.kind == "c":
        x = x.view(numpy.dtype(x.dtype.char.lower())).reshape(-1)
    return x.view("u%d" % x.dtype.itemsize)


def assert_matches(got, expected, nan_bits, what, also_ok=None):
    """Bit for bit (NaN bits too when `nan_bits`), except where `also_ok`."""
    assert got.dtype == expected.dtype, what
    if expected.dtype.kind not in "fc":
        bad = numpy.flatnonzero(got != expected)
    else:
        g, e = bits_of(got), bits_of(expected)
        part = numpy.dtype(expected.dtype.char.lower()) if expected.dtype.kind == "c" else expected.dtype
        gn, en = numpy.isnan(g.view(part)), numpy.isnan(e.view(part))
        ok = (g == e) | (gn & en & (not nan_bits))
        if expected.dtype.kind == "c":
            ok = ok.reshape(-1, 2).all(axis=1)
        if also_ok is not None:
            ok |= also_ok
        bad = numpy.flatnonzero(~ok)
    assert bad.size == 0, "%s: %d mismatches, first at %d: got %r, NumPy %r" % (
        what, bad.size, bad[0], got[bad[0]], expected[bad[0]])


def all_loops():
    return [pytest.param(dt, id=name(dt)) for dt in DTYPES]


@pytest.mark.parametrize("dtype", all_loops())
def test_every_loop_matches_numpy(dtype):
    rng = numpy.random.default_rng(2024)
    checked = 0
    for ufunc_name, ins, outs in loops_of(dtype):
        if ufunc_name == "power":
            continue  # test_integer_power
        if len(set(ins)) > 1:
            continue  # test_int64_uint64_comparisons
        args = operands(rng, dtype, len(ins))
        if ufunc_name in ("left_shift", "right_shift"):
            args[1] = numpy.concatenate([args[1], shift_counts(rng, dtype, 2000)])
            args[0] = numpy.concatenate([args[0], random_values(rng, dtype, 2000)])
        got = run(ufunc_name, ins, outs, args)
        expected = numpy_result(ufunc_name, args)
        if ufunc_name in ("fmax", "fmin") and dtype.char in "fd":
            expected = [fmax_fmin_rule(ufunc_name, *args, expected[0])]
        nan_bits = ufunc_name in NAN_BITS_EXACT and not (ufunc_name == "absolute" and dtype.kind == "c")
        # complex128 sign on a GPU: the device's hypot is correctly rounded, NumPy's (glibc's) within 1 ulp.
        also_ok = sign_with_neighbour_hypot(got[0], args[0]) if ufunc_name == "sign" else None
        for k, (g, e) in enumerate(zip(got, expected)):
            assert_matches(g, e, nan_bits, "%s %s output %d" % (ufunc_name, "".join(ins), k), also_ok)
        checked += 1
    assert checked >= 20


def fmax_fmin_rule(ufunc_name, a, b, numpy_out):
    """NumPy's fmax/fmin bits for float32/64 depend on an element's position
    (SIMD body or scalar tail) for +-0 ties and for two NaNs; elsewhere they
    are the rule of Note [NaN in maximum and fmax], which is checked against
    NumPy here and used at those positions."""
    take_a = numpy.isnan(b) | ((a > b) if ufunc_name == "fmax" else (a < b))
    rule = numpy.where(take_a, a, b)
    ambiguous = (a == b) & (bits_of(a) != bits_of(b)) | (numpy.isnan(a) & numpy.isnan(b))
    numpy.testing.assert_array_equal(bits_of(rule)[~ambiguous], bits_of(numpy_out)[~ambiguous])
    assert ambiguous.sum() > 0  # the rule itself is exercised
    return rule


@pytest.mark.parametrize("dtype", [pytest.param(numpy.dtype(c), id=name(c)) for c in "bhiqBHIQ"])
def test_integer_power(dtype):
    rng = numpy.random.default_rng(7)
    base = numpy.concatenate([special_values(dtype), random_values(rng, dtype, 3000)])
    top = min(200, numpy.iinfo(dtype).max)
    exps = numpy.concatenate([numpy.arange(base.size - 3000) % 70, rng.integers(0, top, 3000)]).astype(dtype)
    (got,) = run("power", dtype.char * 2, dtype.char, [base, exps])
    with numpy.errstate(all="ignore"):
        numpy.testing.assert_array_equal(got, numpy.power(base, exps))
    if dtype.kind == "i":
        # NumPy raises for negative exponents; kiln's kernels give the
        # truncated 1 / a^|b| (Note [Integer power]).
        base = numpy.array([1, 1, -1, -1, 0, 2, -2, 5, numpy.iinfo(dtype).min, numpy.iinfo(dtype).max], dtype)
        exps = numpy.array([-1, -2, -1, -2, -1, -1, -3, -4, -1, -2], dtype)
        (got,) = run("power", dtype.char * 2, dtype.char, [base, exps])
        numpy.testing.assert_array_equal(got, numpy.array([1, 1, -1, 1, 0, 0, 0, 0, 0, 0], dtype))


def test_int64_uint64_comparisons():
    i64 = numpy.array([0, 1, -1, 2**62, -(2**63), 2**63 - 1, 5, -5, 2**63 - 1, 0], numpy.int64)
    u64 = numpy.array([0, 1, 2**64 - 1, 2**62, 2**63, 2**63 - 1, 4, 5, 2**63, 2**64 - 1], numpy.uint64)
    for ufunc_name in ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal"):
        for ins, (a, b) in (("qQ", (i64, u64)), ("Qq", (u64, i64))):
            (got,) = run(ufunc_name, ins, "?", [a, b])
            numpy.testing.assert_array_equal(got, getattr(numpy, ufunc_name)(a, b), err_msg=ufunc_name + ins)


def test_documented_edges():
    # Spot checks of the Notes, independent of the NumPy oracle above.
    a8, b8 = numpy.array([-128, 7, -7], numpy.int8), numpy.array([-1, 0, 2], numpy.int8)
    (q,), (r,) = run("floor_divide", "bb", "b", [a8, b8]), run("remainder", "bb", "b", [a8, b8])
    assert q.tolist() == [-128, 0, -4] and r.tolist() == [0, 0, 1]
    (recip,) = run("reciprocal", "i", "i", [numpy.array([0, 1, -1, 2], numpy.int32)])
    assert recip.tolist() == [-(2**31), 1, -1, 0]
    (shl,) = run("left_shift", "qq", "q", [numpy.array([1, 1, 1, -1], numpy.int64), numpy.array([63, 64, -1, 200], numpy.int64)])
    (shr,) = run("right_shift", "qq", "q", [numpy.array([-8, -8, 8, -1], numpy.int64), numpy.array([1, 64, 64, -1], numpy.int64)])
    assert shl.tolist() == [-(2**63), 0, 0, 0] and shr.tolist() == [-4, -1, 0, -1]
    x = numpy.array([1.0, -1.0, -0.0, 0.0], numpy.float64)
    y = numpy.array([-numpy.inf, numpy.inf, 3.0, -3.0], numpy.float64)
    (fd,), (rem,) = run("floor_divide", "dd", "d", [x, y]), run("remainder", "dd", "d", [x, y])
    assert fd.tolist() == [-1.0, -1.0, -0.0, -0.0] and numpy.signbit(fd).tolist() == [True, True, True, True]
    assert rem.tolist() == [-numpy.inf, numpy.inf, 0.0, -0.0] and numpy.signbit(rem).tolist() == [True, False, False, True]
    (mx,) = run("maximum", "ff", "f", [numpy.array([0.0, -0.0, numpy.nan, 1.0], numpy.float32),
                                      numpy.array([-0.0, 0.0, 1.0, numpy.nan], numpy.float32)])
    assert numpy.signbit(mx[:2]).tolist() == [True, False] and numpy.isnan(mx[2:]).all()


def correctly_rounded_hypot(a, b):
    """sqrt(a^2 + b^2) rounded to nearest even, from integers (doubles are
    multiples of 2^-1074; Python's int / int rounds correctly, subnormals too)."""
    if math.isinf(a) or math.isinf(b):
        return math.inf
    x, y = (int(Fraction(v) * 2 ** 1074) for v in (a, b))
    s = x * x + y * y
    extra = 120  # bits of the root below its units
    root = math.isqrt(s << (2 * extra))
    inexact = int(root * root != s << (2 * extra))  # a sticky bit: never mistaken for a tie
    try:
        return (2 * root + inexact) / 2 ** (extra + 1 + 1074)
    except OverflowError:
        return math.inf


def hypot_operands(rng, n):
    """Pairs over the whole range, near DBL_MAX, subnormal, around the
    2^-27 ratio where the result becomes the larger magnitude, and with
    comparable magnitudes."""
    top = numpy.finfo(numpy.float64).max
    wide = lambda k: 2.0 ** rng.uniform(-1074, 1024, k) * rng.choice([-1.0, 1.0], k)
    near_max = top * (1 - rng.random(n) * 2.0 ** -rng.integers(1, 52, n))
    subnormal = rng.integers(1, 2 ** 52, n).astype(numpy.float64) * 5e-324
    tiny = subnormal * 2.0 ** -rng.integers(0, 52, n)
    base = wide(n)
    ratio = 2.0 ** -(27 + rng.uniform(-1, 1, n))
    a = numpy.concatenate([wide(n), near_max, near_max, subnormal, base, base, rng.standard_normal(n)])
    b = numpy.concatenate([wide(n), near_max * 2.0 ** -rng.uniform(0, 30, n), rng.standard_normal(n), tiny,
                           base * ratio, base * rng.uniform(0.1, 1, n), rng.standard_normal(n)])
    return a, b


def test_device_hypot_is_correctly_rounded():
    # arith_detail::hypot_rounded is what a GPU's kernels use for double
    # hypot (Note [Double hypot on the device]); run here on every backend.
    source = ("#include <kiln/ufunc_arith.h>\n"
              'extern "C" __global__ void k(const double* a, const double* b, double* out, int n) {\n'
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "  if (i < n) out[i] = kiln::ufn::arith_detail::hypot_rounded(a[i], b[i]);\n}\n")
    fn = kiln.RawModule(code=source, options=kiln._core._EXACT_FP_OPTIONS).get_function("k")
    a, b = hypot_operands(numpy.random.default_rng(31), 3000)
    specials = special_values(numpy.dtype(numpy.float64))
    a = numpy.concatenate([a, numpy.repeat(specials, specials.size)])
    b = numpy.concatenate([b, numpy.tile(specials, specials.size)])
    out = kiln.zeros(a.size, dtype=numpy.float64)
    fn(((a.size + 127) // 128,), (128,), (kiln.asarray(a), kiln.asarray(b), out, numpy.int32(a.size)))
    got = out.get()
    expected = numpy.array([math.nan if math.isnan(x + y) and not (math.isinf(x) or math.isinf(y))
                            else correctly_rounded_hypot(x, y) for x, y in zip(a.tolist(), b.tolist())])
    nan = numpy.isnan(expected)
    assert (numpy.isnan(got) == nan).all()
    bad = numpy.flatnonzero(bits_of(got[~nan]) != bits_of(expected[~nan]))
    assert bad.size == 0, (a[~nan][bad[:5]], b[~nan][bad[:5]], got[~nan][bad[:5]], expected[~nan][bad[:5]])
    assert numpy.isfinite(got[numpy.isfinite(expected)]).all()
    with numpy.errstate(over="ignore"):
        assert (numpy.hypot(a, b) != got)[~nan].any()  # glibc's is not correctly rounded: the test can tell


@pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC not loadable: %s" % WHY_NOT)
def test_every_overload_compiles_with_nvrtc_for_sm90():
    source = "#include <kiln/ufunc_arith.h>\n" + "".join(
        kernel_source(u, ins, outs) for u in UFUNCS for ins, outs in loops(u))
    assert source.count("__global__") > 400
    binary = kiln._core._nvrtc_compile(source, ["-I" + INCLUDE_DIR], [], "sm_90")
    assert binary[:4] == b"\x7fELF"
