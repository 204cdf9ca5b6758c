"""kiln/ufunc_transcendental.h: every kiln::ufn overload (one per NumPy type
loop over kiln's dtypes) run in a RawModule kernel on the selected backend
against NumPy 2.4, on random data over the domain and on special values;
the same sources compiled with NVRTC for sm_90. Bounds are the header's
Note [Transcendental accuracy]."""
import math
import os
import warnings

import numpy
import pytest

import kiln
from test_ufuncs import bound_magnitude, ulp_of, with_c_nextafter_ties

HAVE_NVRTC, WHY_NOT = kiln._core._nvrtc_available()
INCLUDE_DIR = os.path.join(os.path.dirname(kiln.__file__), "include")

C_TYPE = {"e": "kiln::half", "f": "float", "d": "double", "F": "kiln::complex<float>",
          "D": "kiln::complex<double>", "i": "int", "l": "long long"}
UNARY = ("exp exp2 expm1 log log2 log10 log1p sqrt cbrt sin cos tan arcsin arccos arctan sinh cosh tanh "
         "arcsinh arccosh arctanh spacing").split()
BINARY = "logaddexp logaddexp2 arctan2 hypot power float_power nextafter".split()
EXACT = {"nextafter", "spacing", "modf", "frexp", "ldexp", "sqrt"}


def loops(kind):
    """(ufunc name, input type chars, output type chars) for every NumPy loop
    whose first input is `kind`."""
    found = []
    for name in UNARY + BINARY + ["modf", "frexp", "ldexp"]:
        seen = set()
        for t in getattr(numpy, name).types:
            ins, outs = t.split("->")
            if ins[0] != kind or t in seen or not all(c in C_TYPE for c in ins + outs):
                continue
            seen.add(t)
            found.append((name, ins, outs))
    return found


def kernel_source(kind):
    lines = ["#include <kiln/ufunc_transcendental.h>"]
    for name, ins, outs in loops(kind):
        params = ["const %s* in%d" % (C_TYPE[c], j) for j, c in enumerate(ins)]
        params += ["%s* out%d" % (C_TYPE[c], j) for j, c in enumerate(outs)]
        args = ", ".join("in%d[i]" % j for j in range(len(ins)))
        if len(outs) == 1:
            body = "out0[i] = kiln::ufn::%s(%s);" % (name, args)
        else:
            body = "kiln::ufn::%s(%s, out0[i], out1[i]);" % (name, args)
        lines.append('extern "C" __global__ void %s_%s(%s, int n) {\n'
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) %s\n}"
                     % (name, ins, ", ".join(params), body))
    lines.append('extern "C" __global__ void aux_%s(const %s* in0, %s* i0_out, %s* sinc_out, int n) {\n'
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i < n) { %s }\n}" % (
                     kind, C_TYPE[kind], C_TYPE[kind], C_TYPE[kind],
                     ("i0_out[i] = kiln::ufn::i0(in0[i]); " if kind in "fd" else "") +
                     ("sinc_out[i] = kiln::ufn::sinc(in0[i]);" if kind in "efd" else "")))
    return "\n".join(lines) + "\n"


# Compiled as the engine compiles ufunc kernels: without FMA contraction
# (an a b - c d contracted to fma gives inf - inf = -inf where NumPy has NaN).
_modules = {}


def module(kind):
    if kind not in _modules:
        _modules[kind] = kiln.RawModule(code=kernel_source(kind), options=kiln._core._EXACT_FP_OPTIONS)
    return _modules[kind]


def run(kind, name, ins, outs, args):
    n = args[0].size
    dev_in = [kiln.asarray(numpy.ascontiguousarray(a)) for a in args]
    dev_out = [kiln.zeros(n, dtype=numpy.dtype(c)) for c in outs]
    fn = module(kind).get_function("%s_%s" % (name, ins))
    fn(((n + 127) // 128,), (128,), tuple(dev_in) + tuple(dev_out) + (numpy.int32(n),))
    return [d.get() for d in dev_out]


# ---- inputs ----
def real_specials(dtype):
    f = numpy.finfo(dtype)
    v = [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
         float(f.smallest_subnormal), -float(f.smallest_subnormal), float(f.tiny), -float(f.tiny),
         float(f.max), -float(f.max), float(f.eps), 1 - float(f.epsneg), 1 + float(f.eps), 10.0, -10.0, 100.0, 1e4]
    return numpy.array(v, dtype=numpy.float64).astype(dtype)


def real_values(rng, dtype, n):
    """Random values over the domain: O(1), O(100) and log-uniform magnitudes
    across the exponent range, both signs, then the special values."""
    f = numpy.finfo(dtype)
    lo, hi = numpy.log10(float(f.smallest_subnormal)), numpy.log10(float(f.max))
    parts = [rng.uniform(-1, 1, n), rng.standard_normal(n) * 3, rng.standard_normal(n) * 100,
             10.0 ** rng.uniform(lo, hi, n) * rng.choice([-1.0, 1.0], n),
             10.0 ** rng.uniform(-3, 3, n) * rng.choice([-1.0, 1.0], n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return numpy.concatenate([numpy.concatenate(parts).astype(dtype), real_specials(dtype)])


def all_halves():
    return numpy.arange(65536, dtype=numpy.uint32).astype(numpy.uint16).view(numpy.float16)


def complex_values(rng, dtype, n):
    part = numpy.float32 if dtype == numpy.complex64 else numpy.float64
    re, im = real_values(rng, part, n), real_values(rng, part, n)
    rng.shuffle(im)
    s = real_specials(part)
    grid_re, grid_im = numpy.meshgrid(s, s)
    # Branch cuts: both axes beyond +-1 with either zero.
    axis = numpy.array([1.5, -1.5, 3.0, -3.0, 1.0, -1.0, 0.25, -0.25, 1e10, -1e10], dtype=part)
    zeros = numpy.array([0.0, -0.0], dtype=part)
    cut_re, cut_im = numpy.meshgrid(axis, zeros)
    out = numpy.empty(re.size + grid_re.size + 2 * cut_re.size, dtype=dtype)
    out.real = numpy.concatenate([re, grid_re.ravel(), cut_re.ravel(), cut_im.ravel()])
    out.imag = numpy.concatenate([im, grid_im.ravel(), cut_im.ravel(), cut_re.ravel()])
    return out


# ---- comparison ----
def ordinal(a):
    """Floating values as integers whose difference counts ulps (+0 and -0 both 0)."""
    bits = {2: numpy.int16, 4: numpy.int32, 8: numpy.int64}[a.dtype.itemsize]
    i = a.view(bits).astype(numpy.int64)
    top = numpy.int64(-1) ^ (numpy.int64(-1) << (8 * a.dtype.itemsize - 1))
    return numpy.where(i < 0, -(i & top), i)


def ulp_distance(a, b):
    oa, ob = ordinal(a), ordinal(b)
    same_sign = (oa >= 0) == (ob >= 0)  # then oa - ob cannot overflow
    with numpy.errstate(over="ignore"):
        return numpy.where(same_sign, numpy.abs(oa - ob).astype(numpy.float64),
                           numpy.abs(oa.astype(numpy.float64)) + numpy.abs(ob.astype(numpy.float64)))


def check_real(got, expected, ulps, what, magnitude=None):
    """NaN-ness, infinities and signs of zero exact; otherwise within `ulps`
    of the result, or of `magnitude` where given (test_ufuncs' Note [ulp
    bounds]: logaddexp's bound is in ulps of max(|x|, |y|, |result|))."""
    __tracebackhide__ = True
    nan = numpy.isnan(expected)
    bad = numpy.isnan(got) != nan
    bad |= ~nan & (numpy.isinf(got) != numpy.isinf(expected))
    both_zero = (got == 0) & (expected == 0)
    bad |= both_zero & (numpy.signbit(got) != numpy.signbit(expected))
    finite = numpy.isfinite(expected) & numpy.isfinite(got)
    dist = numpy.zeros(got.shape)
    if magnitude is None:
        dist[finite] = ulp_distance(got[finite], expected[finite])
    else:
        with numpy.errstate(over="ignore"):
            apart = numpy.abs(got[finite].astype(numpy.float64) - expected[finite].astype(numpy.float64))
        dist[finite] = apart / ulp_of(magnitude[finite].astype(got.dtype))
    bad |= dist > ulps
    if bad.any():
        idx = numpy.flatnonzero(bad)[:8]
        raise AssertionError("%s: %d mismatches (bound %s ulp), e.g. got %r expected %r (ulp %r)" % (
            what, bad.sum(), ulps, got[idx], expected[idx], dist[idx]))
    return dist.max() if dist.size else 0


def check_complex(got, expected, eps_bound, what):
    """NaN-ness, infinities and signs of zero per part; otherwise
    max(|d re|, |d im|) <= eps_bound * max(eps * max(|re|, |im|), smallest
    subnormal): no bound in ulps is finer than the subnormals' spacing."""
    __tracebackhide__ = True
    eps = numpy.finfo(got.real.dtype).eps
    bad = numpy.zeros(got.shape, dtype=bool)
    for g, e in ((got.real, expected.real), (got.imag, expected.imag)):
        bad |= numpy.isnan(g) != numpy.isnan(e)
        inf = numpy.isinf(e)
        bad |= (inf | numpy.isinf(g)) & (g != e) & ~numpy.isnan(e)
        bad |= (g == 0) & (e == 0) & (numpy.signbit(g) != numpy.signbit(e))
    finite = numpy.isfinite(expected.real) & numpy.isfinite(expected.imag) & ~bad
    e, g = expected[finite].astype(numpy.complex128), got[finite].astype(numpy.complex128)
    scale = numpy.maximum(numpy.abs(e.real), numpy.abs(e.imag))
    diff = numpy.maximum(numpy.abs(g.real - e.real), numpy.abs(g.imag - e.imag))
    tiny = float(numpy.finfo(got.real.dtype).smallest_subnormal)
    err = diff / numpy.maximum(scale * float(eps), tiny)
    bound = numpy.broadcast_to(eps_bound, got.shape)[finite]
    bad[numpy.flatnonzero(finite)[err > bound]] = True
    if bad.any():
        idx = numpy.flatnonzero(bad)[:6]
        raise AssertionError("%s: %d mismatches, e.g. got %r expected %r" % (what, bad.sum(), got[idx], expected[idx]))
    return err.max() if err.size else 0


# CUDA's documented maximum ulp (float, double) plus NumPy's own: 1 ulp, or
# its SIMD float32 exp/log (4) and sin/cos (2). Double hypot is kiln's,
# correctly rounded on a GPU (0, as sqrt; Note [Double hypot on the device]).
CUDA_ULPS = {"exp": (2, 1), "exp2": (2, 1), "expm1": (1, 1), "log": (1, 1), "log2": (1, 1), "log10": (2, 1),
             "log1p": (1, 1), "sqrt": (0, 0), "cbrt": (1, 1), "sin": (2, 2), "cos": (2, 2), "tan": (4, 2),
             "arcsin": (2, 2), "arccos": (2, 2), "arctan": (2, 2), "arctan2": (3, 2), "hypot": (3, 0),
             "sinh": (3, 2), "cosh": (2, 1), "tanh": (2, 1), "arcsinh": (3, 3), "arccosh": (4, 3),
             "arctanh": (3, 2), "power": (4, 2), "float_power": (4, 2), "logaddexp": (4, 3), "logaddexp2": (4, 3)}
NUMPY_F32 = {"exp": 4, "log": 4, "sin": 2, "cos": 2}


def real_bound(name, dtype):
    if name in EXACT:
        return 0
    if dtype == numpy.float16:
        return 1
    cuda = CUDA_ULPS[name][0 if dtype == numpy.float32 else 1]
    return cuda + (NUMPY_F32.get(name, 1) if dtype == numpy.float32 else 1)


# Complex bounds, in eps normwise (Note [Transcendental accuracy]).
COMPLEX_EPS = {"exp": 4, "exp2": 4, "log": 4, "log2": 4, "log10": 4, "sqrt": 4, "sinh": 4, "cosh": 4,
               "sin": 4, "cos": 4, "tanh": 8, "tan": 8, "expm1": 8, "log1p": 8, "arcsin": 8, "arccos": 8,
               "arctan": 8, "arcsinh": 8, "arccosh": 8, "arctanh": 8}


def numpy_result(name, args):
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        r = getattr(numpy, name)(*args)
    return list(r) if isinstance(r, tuple) else [r]


REAL_KINDS = {"e": numpy.float16, "f": numpy.float32, "d": numpy.float64}


@pytest.mark.parametrize("kind", ["e", "f", "d"], ids=["float16", "float32", "float64"])
def test_real_loops_match_numpy(rng, kind):
    dtype = REAL_KINDS[kind]
    x = all_halves() if kind == "e" else real_values(rng, dtype, 4000)
    failures = []
    for name, ins, outs in loops(kind):
        args = [x]
        if len(ins) == 2:
            if ins[1] in "il":
                args.append(rng.integers(-40, 40, x.size).astype(numpy.dtype(ins[1])))
                args[1][:4] = [2 ** 31 - 1, -2 ** 31, 1000, -1000]
                if ins[1] == "l":
                    args[1][4:6] = [2 ** 40, -2 ** 40]
            else:
                y = real_values(rng, dtype, x.size)
                args.append(numpy.resize(rng.permutation(y), x.size))
                args[1][: 576] = numpy.repeat(real_specials(dtype), 24)[:576]  # specials against specials
                args[0] = args[0].copy()
                args[0][: 576] = numpy.tile(real_specials(dtype), 24)[:576]
        got = run(kind, name, ins, outs, args)
        expected = numpy_result(name, args)
        if name == "cbrt" and kind == "d" and kiln.get_backend() == "host":
            # NumPy's float64 cbrt is SVML's on AVX-512 CPUs and the C
            # library's elsewhere; the host backend calls the C library's,
            # up to 3 ulp from SVML's: the reference is the C library's.
            expected = [numpy.array([math.cbrt(v) for v in args[0]])]
        if name == "nextafter":
            expected = [with_c_nextafter_ties(*args, expected[0])]
        for j, (g, e) in enumerate(zip(got, expected)):
            try:
                if e.dtype.kind == "f":
                    e = e.astype(g.dtype)
                    check_real(g, e, real_bound(name, dtype), "%s %s out%d" % (name, ins, j),
                               bound_magnitude(name, args, e))
                else:
                    numpy.testing.assert_array_equal(g, e, err_msg="%s %s out%d" % (name, ins, j))
            except AssertionError as ex:
                failures.append(str(ex))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kind", ["F", "D"], ids=["complex64", "complex128"])
def test_complex_loops_match_numpy(rng, kind):
    dtype = numpy.complex64 if kind == "F" else numpy.complex128
    z = complex_values(rng, dtype, 3000)
    failures = []
    for name, ins, outs in loops(kind):
        if name in ("power", "float_power"):
            continue  # test_complex_power
        expected = numpy_result(name, [z])[0]
        keep = numpy.ones(z.size, dtype=bool)
        if name == "log1p":  # NumPy is accurate only away from 0 (Note [Complex log1p is accurate])
            # and where |1 + z| does not overflow (NumPy's log1p then is inf).
            with numpy.errstate(all="ignore"):
                wide = numpy.abs(z.astype(numpy.complex128) + 1)
            keep = ((numpy.abs(z.real) >= 0.5) | (numpy.abs(z.imag) >= 0.5) | ~numpy.isfinite(z)) & \
                ~(numpy.isfinite(z) & (wide > numpy.finfo(z.real.dtype).max))
        if name == "expm1":  # the standard's special values (Note [Complex expm1 special values])
            keep = numpy.isfinite(z) & (z != 0)
        got = run(kind, name, ins, outs, [z])[0]
        try:
            check_complex(got[keep], expected[keep], COMPLEX_EPS[name], "%s %s" % (name, ins))
        except AssertionError as ex:
            failures.append(str(ex))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=["complex64", "complex128"])
def test_complex_expm1_special_values(dtype):
    # The array API standard's table (Note [Complex expm1 special values]), and its conjugates.
    inf, nan = numpy.inf, numpy.nan
    table = [((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)), ((1.0, inf), (nan, nan)), ((1.0, nan), (nan, nan)),
             ((inf, 0.0), (inf, 0.0)), ((-inf, 0.0), (-1.0, 0.0)), ((-inf, 2.0), (-1.0, 0.0)),
             ((-inf, 4.0), (-1.0, -0.0)), ((inf, 2.0), (-inf, inf)), ((-inf, inf), (-1.0, 0.0)), ((inf, inf), (inf, nan)),
             ((-inf, nan), (-1.0, 0.0)), ((inf, nan), (inf, nan)), ((nan, 0.0), (nan, 0.0)), ((nan, 1.0), (nan, nan)),
             ((nan, nan), (nan, nan))]
    ins = [complex(*a) for a, _ in table] + [complex(a[0], -a[1]) for a, _ in table]
    want = [complex(*b) for _, b in table] + [complex(b[0], -b[1]) for _, b in table]
    got = kiln.asnumpy(kiln.expm1(kiln.asarray(numpy.array(ins, dtype))))
    for z, g, w in zip(ins, got, want):
        for part_g, part_w in ((g.real, w.real), (g.imag, w.imag)):
            same = (numpy.isnan(part_g) and numpy.isnan(part_w)) or \
                (part_g == part_w and numpy.signbit(part_g) == numpy.signbit(part_w))
            assert same, f"expm1({z}) = {g}, the standard's {w}"


@pytest.mark.parametrize("kind", ["F", "D"], ids=["complex64", "complex128"])
def test_complex_log1p_is_accurate_near_zero(rng, kind):
    dtype = numpy.complex64 if kind == "F" else numpy.complex128
    n = 2000
    x = 10.0 ** rng.uniform(-30, -0.5, n)
    y = 10.0 ** rng.uniform(-30, -0.5, n) * rng.choice([-1.0, 1.0], n)
    x[: n // 2] *= -1
    y[: n // 2] = numpy.minimum(numpy.abs(y[: n // 2]), x[: n // 2] * -1e-3)  # x < 0: |y| << |x|, no cancellation
    z = (x + 1j * y).astype(dtype)
    zx, zy = z.real.astype(numpy.float64), z.imag.astype(numpy.float64)
    # For these, x (2 + x) + y^2 has no cancellation: float64 is accurate to a few ulp.
    expected = 0.5 * numpy.log1p(zx * (2 + zx) + zy * zy) + 1j * numpy.arctan2(zy, 1 + zx)
    got = run(kind, "log1p", kind, kind, [z])[0]
    check_complex(got, expected.astype(dtype), 8, "log1p near 0")


@pytest.mark.parametrize("kind", ["F", "D"], ids=["complex64", "complex128"])
def test_complex_power(rng, kind):
    dtype = numpy.complex64 if kind == "F" else numpy.complex128
    n = 1500
    a = complex_values(rng, dtype, n)
    b = (rng.standard_normal(a.size) * 3 + 1j * rng.standard_normal(a.size)).astype(dtype)
    b[: n // 3] = rng.integers(-120, 120, n // 3)  # integer exponents: binary powering below 100
    b[n // 3: n // 3 + 6] = [0, 0.5, 1j, -1, numpy.nan, 2.5 + 1j]
    a[n // 3: n // 3 + 6] = 0
    a[:n] = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype) * 2  # keep results in range
    a[n // 3: n // 3 + 6] = 0
    for name in ("power", "float_power"):
        if (name, kind + kind, kind) not in loops(kind):
            continue
        expected = numpy_result(name, [a, b])[0]
        got = run(kind, name, kind + kind, kind, [a, b])[0]
        with numpy.errstate(all="ignore"):
            growth = numpy.abs(b.astype(numpy.complex128) * numpy.log(a.astype(numpy.complex128)))
        bound = 8 * (1 + numpy.where(numpy.isfinite(growth), growth, 0))
        check_complex(got, expected, bound, name)


def test_i0_and_sinc(rng):
    for kind in "efd":
        dtype = REAL_KINDS[kind]
        x = all_halves() if kind == "e" else numpy.concatenate(
            [real_values(rng, dtype, 2000), rng.uniform(-30, 30, 2000).astype(dtype),
             rng.uniform(-800, 800, 500).astype(dtype)])
        n = x.size
        i0_out, sinc_out = kiln.zeros(n, dtype=dtype), kiln.zeros(n, dtype=dtype)
        module(kind).get_function("aux_" + kind)(((n + 127) // 128,), (128,),
                                                 (kiln.asarray(x), i0_out, sinc_out, numpy.int32(n)))
        with numpy.errstate(all="ignore"):
            check_real(sinc_out.get(), numpy.sinc(x), real_bound("sin", dtype), "sinc %s" % kind)
            if kind != "e":
                # NumPy's i0 is Cephes' Chebyshev fit evaluated in the argument's
                # precision (float32 loses a few ulp); kiln's works in double.
                check_real(i0_out.get(), numpy.i0(x), 16 if kind == "d" else 8, "i0 %s" % kind)


def test_half_nextafter_and_spacing_exhaustive():
    x = all_halves()
    got = run("e", "spacing", "e", "e", [x])[0]
    check_real(got, numpy.spacing(x), 0, "spacing e")
    for target in (numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, numpy.nan):
        y = numpy.full(x.size, target, dtype=numpy.float16)
        got = run("e", "nextafter", "ee", "e", [x, y])[0]
        with numpy.errstate(all="ignore"):
            expected = with_c_nextafter_ties(x, y, numpy.nextafter(x, y))
        nan = numpy.isnan(expected)
        numpy.testing.assert_array_equal(numpy.isnan(got), nan)
        numpy.testing.assert_array_equal(got[~nan].view(numpy.uint16), expected[~nan].view(numpy.uint16))
        assert (got[nan].view(numpy.uint16) == 0x7e00).all()  # NumPy's quiet NaN
    zeros = numpy.array([-0.0, 0.0], dtype=numpy.float16)
    got = run("e", "nextafter", "ee", "e", [zeros, zeros[::-1].copy()])[0]
    assert got.view(numpy.uint16).tolist() == [0x0000, 0x8000]  # x == y: y, as C's nextafter


@pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC not loadable: %s" % WHY_NOT)
@pytest.mark.parametrize("kind", ["e", "f", "d", "F", "D"])
def test_every_overload_compiles_with_nvrtc_for_sm90(kind):
    binary = kiln._core._nvrtc_compile(kernel_source(kind), ["-I" + INCLUDE_DIR], [], "sm_90")
    assert binary[:4] == b"\x7fELF"
