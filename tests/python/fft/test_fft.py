"""kiln.fft, kiln.fft.config and kiln.scipy.fftpack against numpy.fft on
random data: every function, the dtypes (float16 to complex128, integers,
bool), layouts (C, F, strided, negative strides, offset views, batches),
n / s / axes / norm, out=, NumPy's errors; the plan cache's limits and
get_fft_plan as plan= and as a context manager; the seeds' examples.

On the host backend numpy.fft computes (Note [FFT on the host backend]); the
tests marked `model` run the cuFFT path's Python (passes, copies, padding,
in-place transforms, out=, normalisation, work-area accounting) on the host
against NumPyCufft, a NumPy model of _core._FftPlan's contract. On the cuda
backend every test but those runs cuFFT itself.

Note [FFT tolerances]
A result is compared with the exact transform of the same (cast) input,
computed by NumPy in long double, norm-wise: ||got - exact||_2 <= 8 u S
||exact||_2, u the unit roundoff of the compute precision (float32 for
float16/float32/complex64, float64 otherwise). An FFT's error is bounded
norm-wise by one rounding bound per butterfly stage (Higham, Accuracy and
Stability of Numerical Algorithms, 24.1: eta = mu + gamma_4 (sqrt 2 + mu)
<= 7 u per stage with twiddles accurate to u), so S counts the stages: log2 n per
transformed axis whose length has no prime factor above 7 (radix 2, 3, 4,
5, 7 butterflies); for other lengths the larger of 3 log2(2n) + 1
(Bluestein: two FFTs and a convolution of length >= 2n - 1, and the chirp's
rounding) and, where every prime factor is at most 127 (lengths both
libraries may run as a direct p-point pass), log2 p per small factor plus
p / 4 per factor p above 7 (a p-term complex sum rounds by up to 2 p u);
plus one stage for the input cast and one for the normalisation. 8 u covers the 7 u per
stage and the final rounding to the output dtype. Integer and bool inputs
are exact in double; float16 inputs are exact in float32.
"""
import math
import re
import pathlib

import numpy
import pytest

import kiln
import kiln.scipy.fftpack as fftpack
from kiln.fft import config
from kiln.fft import _plan

ON_CUDA = kiln.get_backend() == "cuda"
SINGLE = {numpy.dtype(t) for t in ("float16", "float32", "complex64")}


def compute_complex(dtype):
    return numpy.dtype(numpy.complex64 if numpy.dtype(dtype) in SINGLE else numpy.complex128)


def compute_real(dtype):
    return numpy.dtype(numpy.float32 if numpy.dtype(dtype) in SINGLE else numpy.float64)


def data(rng, shape, dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-50 if dtype.kind == "i" else 0, 50, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _prime_factors(n):
    factors, p = [], 2
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors + ([n] if n > 1 else [])


def _stages(n):
    """S of Note [FFT tolerances] for one axis of n points."""
    if n <= 1:
        return 0
    factors = _prime_factors(n)
    if max(factors) <= 7:
        return math.log2(n)
    bluestein = 3 * math.log2(2 * n) + 1
    if max(factors) > 127:
        return bluestein
    generic = sum(math.log2(p) if p <= 7 else p / 4 for p in factors)
    return max(bluestein, generic)


def exact(fn, h, **kw):
    """NumPy's fn in long double on host array h (Note [FFT tolerances])."""
    wide = h.astype(numpy.clongdouble if h.dtype.kind == "c" else numpy.longdouble)
    return fn(wide, **kw)


def assert_fft_close(got, expected, dtype, sizes, precision=None):
    """got (kiln) equals expected (long double) within Note [FFT tolerances];
    dtype is the result dtype kiln must give, sizes the transformed lengths,
    precision the compute dtype when it differs from dtype (a wider out=)."""
    g = kiln.asnumpy(got)
    assert g.dtype == dtype, (g.dtype, dtype)
    assert g.shape == expected.shape, (g.shape, expected.shape)
    u = numpy.finfo(numpy.dtype(precision or g.dtype).type(0).real.dtype).eps / 2
    bound = 8 * u * (sum(_stages(n) for n in sizes) + 2)
    diff = numpy.linalg.norm((g.astype(expected.dtype) - expected).ravel().astype(numpy.complex128))
    scale = numpy.linalg.norm(expected.ravel().astype(numpy.complex128))
    assert diff <= bound * scale + numpy.finfo(numpy.float64).tiny, (diff / max(scale, 1e-300), bound)


@pytest.fixture
def fresh_cache():
    """An empty default-size plan cache, restored afterwards."""
    cache = config.get_plan_cache()
    size, memsize = cache.get_size(), cache.get_memsize()
    cache.clear()
    cache.set_size(16)
    cache.set_memsize(-1)
    yield cache
    cache.clear()
    cache.set_size(size)
    cache.set_memsize(memsize)


# --- complex transforms, dtypes ------------------------------------------------

DTYPES = [numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int32,
          numpy.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_ifft_dtypes(rng, name, dtype):
    h = data(rng, (3, 40), dtype)
    a = kiln.asarray(h)
    fn = getattr(kiln.fft, name)
    ref_fn = getattr(numpy.fft, name)
    cd = compute_complex(dtype)
    for n, norm in [(None, None), (40, "ortho"), (27, "forward"), (64, "backward"), (1, None)]:
        assert_fft_close(fn(a, n=n, norm=norm), exact(ref_fn, h.astype(cd), n=n, norm=norm), cd, [n or 40])
    assert_fft_close(fn(a, axis=0), exact(ref_fn, h.astype(cd), axis=0), cd, [3])


@pytest.mark.parametrize("n", [16, 17, 97, 1000, 1031, 4096])
def test_fft_lengths(rng, n):
    """Powers of two, smooth and prime lengths (Bluestein), odd and even."""
    h = data(rng, (2, n), numpy.complex64)
    assert_fft_close(kiln.fft.fft(kiln.asarray(h)), exact(numpy.fft.fft, h), numpy.complex64, [n])
    g = data(rng, (n,), numpy.float64)
    assert_fft_close(kiln.fft.ifft(kiln.asarray(g)), exact(numpy.fft.ifft, g), numpy.complex128, [n])


# --- real transforms -------------------------------------------------------------

@pytest.mark.parametrize("name, sizes", [("irfft", [18]), ("hfft", [18]), ("irfftn", [4, 18]), ("irfft2", [4, 18]),
                                         ("rfft", [10]), ("ihfft", [10])])
def test_real_transform_dtype_of_float16_input(rng, name, sizes):
    """NumPy's irfft and hfft of float16 data give float16; the n-D inverses
    give float32 and the forward ones complex64."""
    h = data(rng, (4, 10), numpy.float16)
    want = getattr(numpy.fft, name)(h)
    got = getattr(kiln.fft, name)(kiln.asarray(h))
    assert got.dtype == want.dtype
    assert_fft_close(got, exact(getattr(numpy.fft, name), h.astype(numpy.float32)), want.dtype, sizes)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.int64],
                         ids=lambda d: numpy.dtype(d).name)
def test_rfft_irfft(rng, dtype):
    h = data(rng, (5, 30), dtype)
    a = kiln.asarray(h)
    cd, rd = compute_complex(dtype), compute_real(dtype)
    for n, norm in [(None, None), (31, "ortho"), (16, "forward"), (45, None)]:
        assert_fft_close(kiln.fft.rfft(a, n, norm=norm), exact(numpy.fft.rfft, h.astype(rd), n=n, norm=norm),
                         cd, [n or 30])
    # irfft of a Hermitian half spectrum (the transform of real data), even and odd n
    for n in (30, 29, None, 40, 12):
        spec = numpy.fft.rfft(h.astype(numpy.float64)).astype(cd)
        got = kiln.fft.irfft(kiln.asarray(spec), n, axis=-1)
        assert_fft_close(got, exact(numpy.fft.irfft, spec, n=n), rd, [n or 2 * (spec.shape[-1] - 1)])
    # any complex input: the imaginary parts of the DC and Nyquist terms are dropped, as NumPy does
    raw = data(rng, (4, 9), cd)
    for n in (16, 17, 10, 20):
        assert_fft_close(kiln.fft.irfft(kiln.asarray(raw), n), exact(numpy.fft.irfft, raw, n=n), rd, [n])
        assert_fft_close(kiln.fft.hfft(kiln.asarray(raw), n), exact(numpy.fft.hfft, raw, n=n), rd, [n])
    spec0 = numpy.fft.rfft(h.astype(numpy.float64), axis=0).astype(cd)
    assert_fft_close(kiln.fft.irfft(kiln.asarray(spec0), 5, axis=0, norm="ortho"),
                     exact(numpy.fft.irfft, spec0, n=5, axis=0, norm="ortho"), rd, [5])


def hermitian_1d(rng, shape, n, dtype):
    """m = n // 2 + 1 random complex terms with the imaginary parts that an
    n-point real signal's spectrum cannot have (DC, Nyquist) set to 0."""
    h = data(rng, shape[:-1] + (n // 2 + 1,), dtype)
    h[..., 0] = h[..., 0].real
    if n % 2 == 0:
        h[..., -1] = h[..., -1].real
    return h


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=lambda d: numpy.dtype(d).name)
def test_hfft_ihfft(rng, dtype):
    rd = compute_real(dtype)
    for n in (20, 21):
        h = hermitian_1d(rng, (3, 0), n, dtype)
        for norm in (None, "ortho", "forward"):
            assert_fft_close(kiln.fft.hfft(kiln.asarray(h), n, norm=norm),
                             exact(numpy.fft.hfft, h, n=n, norm=norm), rd, [n])
    g = data(rng, (4, 33), rd)
    for n, norm in [(None, None), (20, "ortho"), (40, "forward")]:
        assert_fft_close(kiln.fft.ihfft(kiln.asarray(g), n, norm=norm),
                         exact(numpy.fft.ihfft, g, n=n, norm=norm), numpy.dtype(dtype), [n or 33])


# --- n-D transforms ----------------------------------------------------------------

ND_CASES = [  # (s, axes)
    (None, None),
    (None, (0, 2)),
    ((5, 8), (-1, 0)),
    ((3, 4, 7), (0, 1, 2)),
    (None, (1,)),
    ((6,), (2,)),
    (None, (2, 2)),       # a repeated axis: transformed twice, as NumPy does
    ((4, 9), (0, 0)),
]


@pytest.mark.parametrize("s,axes", ND_CASES, ids=str)
def test_fftn_ifftn(rng, s, axes):
    h = data(rng, (4, 6, 10), numpy.complex128)
    a = kiln.asarray(h)
    for fn, ref in ((kiln.fft.fftn, numpy.fft.fftn), (kiln.fft.ifftn, numpy.fft.ifftn)):
        for norm in (None, "ortho"):
            sizes = _sizes(h.shape, s, axes)
            assert_fft_close(fn(a, s, axes, norm), exact(ref, h, s=s, axes=axes, norm=norm), numpy.complex128,
                             sizes)


def _sizes(shape, s, axes):
    if axes is None:
        axes = range(len(shape)) if s is None else range(-len(s), 0)
    return list(s) if s is not None else [shape[ax] for ax in axes]


@pytest.mark.parametrize("s,axes", [c for c in ND_CASES if c[1] is None or len(set(c[1])) == len(c[1])], ids=str)
def test_rfftn_irfftn(rng, s, axes):
    h = data(rng, (4, 6, 10), numpy.float32)
    a = kiln.asarray(h)
    sizes = _sizes(h.shape, s, axes)
    assert_fft_close(kiln.fft.rfftn(a, s, axes), exact(numpy.fft.rfftn, h, s=s, axes=axes), numpy.complex64, sizes)
    # irfftn of the spectrum of real data of the output shape
    real_shape = list(h.shape)
    ax = list(range(3)) if axes is None else [x % 3 for x in axes]
    for x, e in zip(ax, sizes):
        real_shape[x] = e
    spec = numpy.fft.rfftn(data(rng, tuple(real_shape), numpy.float64), sizes, ax).astype(numpy.complex64)
    assert_fft_close(kiln.fft.irfftn(kiln.asarray(spec), sizes, ax, "forward"),
                     exact(numpy.fft.irfftn, spec, s=sizes, axes=ax, norm="forward"), numpy.float32, sizes)


def test_fft2_family_and_four_axes(rng):
    h = data(rng, (3, 4, 5, 6, 2), numpy.complex64)
    a = kiln.asarray(h)
    assert_fft_close(kiln.fft.fft2(a), exact(numpy.fft.fft2, h), numpy.complex64, [6, 2])
    assert_fft_close(kiln.fft.ifft2(a, (3, 3), (0, 2)), exact(numpy.fft.ifft2, h, s=(3, 3), axes=(0, 2)),
                     numpy.complex64, [3, 3])
    # five axes: more than one cuFFT plan (Note [FFT passes])
    assert_fft_close(kiln.fft.fftn(a), exact(numpy.fft.fftn, h), numpy.complex64, h.shape)
    r = data(rng, (3, 4, 5, 6), numpy.float64)
    assert_fft_close(kiln.fft.rfft2(kiln.asarray(r)), exact(numpy.fft.rfft2, r), numpy.complex128, [5, 6])
    assert_fft_close(kiln.fft.rfftn(kiln.asarray(r)), exact(numpy.fft.rfftn, r), numpy.complex128, r.shape)
    spec = numpy.fft.rfftn(r)
    assert_fft_close(kiln.fft.irfftn(kiln.asarray(spec), r.shape, (0, 1, 2, 3)),
                     exact(numpy.fft.irfftn, spec, s=r.shape, axes=(0, 1, 2, 3)), numpy.float64, r.shape)
    # a repeated axis, truncated differently each time: NumPy's order of passes
    c = data(rng, (3, 4, 5, 6), numpy.complex128)
    assert_fft_close(kiln.fft.irfftn(kiln.asarray(c), (3, 2, 6), (0, 0, 3)),
                     exact(numpy.fft.irfftn, c, s=(3, 2, 6), axes=(0, 0, 3)), numpy.float64, [3, 2, 6])
    assert_fft_close(kiln.fft.rfftn(kiln.asarray(r), (5, 3, 2), (3, 1, 1)),
                     exact(numpy.fft.rfftn, r, s=(5, 3, 2), axes=(3, 1, 1)), numpy.complex128, [5, 3, 2])
    spec2 = numpy.fft.rfft2(r)
    assert_fft_close(kiln.fft.irfft2(kiln.asarray(spec2), (5, 6)), exact(numpy.fft.irfft2, spec2, s=(5, 6)),
                     numpy.float64, [5, 6])


def test_s_without_axes_is_deprecated_as_in_numpy(rng):
    h = data(rng, (4, 6), numpy.complex128)
    with pytest.warns(DeprecationWarning):
        got = kiln.fft.fftn(kiln.asarray(h), s=(3, 5))
    with pytest.warns(DeprecationWarning):
        expected = exact(numpy.fft.fftn, h, s=(3, 5))
    assert_fft_close(got, expected, numpy.complex128, [3, 5])
    assert_fft_close(kiln.fft.fftn(kiln.asarray(h), s=(-1, 8), axes=(0, 1)),
                     exact(numpy.fft.fftn, h, s=(4, 8), axes=(0, 1)), numpy.complex128, [4, 8])


# --- layouts ---------------------------------------------------------------------

def layout(rng, kind, dtype):
    """(kiln array, equal NumPy array) in a layout: views of a (6, 8, 10) base."""
    return same_layout(kind, data(rng, (6, 8, 10), dtype))


def same_layout(kind, base):
    """(kiln view, NumPy view) of 3-d host array base in a layout kind."""
    k = kiln.asarray(base)
    if kind == "C":
        return k, base
    if kind == "F":
        return kiln.asfortranarray(k), numpy.asfortranarray(base)
    if kind == "strided":
        return k[::2, 1::2, ::3], base[::2, 1::2, ::3]
    if kind == "negative":
        return k[::-1, :, ::-2], base[::-1, :, ::-2]
    if kind == "offset":
        return k[1:5, 2:, 3:], base[1:5, 2:, 3:]
    return k.transpose(2, 0, 1), base.transpose(2, 0, 1)   # "transposed"


LAYOUT_KINDS = ["C", "F", "strided", "negative", "offset", "transposed"]


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
def test_layouts(rng, kind):
    a, h = layout(rng, kind, numpy.complex64)
    for axis in (0, 1, -1):
        assert_fft_close(kiln.fft.fft(a, axis=axis), exact(numpy.fft.fft, h, axis=axis), numpy.complex64,
                         [h.shape[axis]])
    assert_fft_close(kiln.fft.fftn(a, axes=(0, 2)), exact(numpy.fft.fftn, h, axes=(0, 2)), numpy.complex64,
                     [h.shape[0], h.shape[2]])
    r, hr = layout(rng, kind, numpy.float64)
    assert_fft_close(kiln.fft.rfftn(r, axes=(1, 0)), exact(numpy.fft.rfftn, hr, axes=(1, 0)), numpy.complex128,
                     [hr.shape[1], hr.shape[0]])
    # irfft along axis 1 of half spectra in the same layout kind, their DC and
    # Nyquist terms real (as the spectrum of an n-point real signal has them)
    base = data(rng, (6, 8, 10), numpy.complex128)
    view = same_layout(kind, base)[1]
    target = view if numpy.shares_memory(view, base) else base   # "F" copies the whole base
    target[:, 0].imag = target[:, -1].imag = 0
    ks, spec = same_layout(kind, base)
    n = 2 * (spec.shape[1] - 1)
    assert_fft_close(kiln.fft.irfft(ks, n, axis=1), exact(numpy.fft.irfft, spec, n=n, axis=1), numpy.float64, [n])


def test_input_is_not_modified(rng):
    """irfft and hfft (complex-to-real: cuFFT overwrites its input), the
    complex-to-complex and real-to-complex transforms leave the caller's
    array alone."""
    spec = numpy.fft.rfftn(data(rng, (4, 6, 8), numpy.float32)).astype(numpy.complex64)
    a = kiln.asarray(spec)
    kiln.fft.irfftn(a)
    kiln.fft.irfft(a)
    kiln.fft.hfft(a)
    kiln.fft.fftn(a)
    numpy.testing.assert_array_equal(kiln.asnumpy(a), spec)
    h = data(rng, (4, 6, 8), numpy.float64)
    r = kiln.asarray(h)
    kiln.fft.rfftn(r)
    kiln.fft.rfft(r)
    kiln.fft.ihfft(r)
    numpy.testing.assert_array_equal(kiln.asnumpy(r), h)


def test_empty_batches_and_zero_length_input(rng):
    a = kiln.zeros((0, 8), dtype=kiln.complex64)
    r = kiln.fft.fft(a)
    assert r.shape == (0, 8) and r.dtype == numpy.complex64
    assert kiln.fft.rfft(kiln.zeros((3, 0, 8), dtype=kiln.float64)).shape == (3, 0, 5)
    # n pads an empty axis with zeros, as NumPy does
    assert_fft_close(kiln.fft.fft(kiln.zeros(0, dtype=kiln.float32), n=4), numpy.zeros(4, numpy.clongdouble),
                     numpy.complex64, [4])


# --- errors ------------------------------------------------------------------------

def test_errors_like_numpy(rng):
    a = kiln.asarray(data(rng, (4, 6), numpy.complex64))
    for bad in (0, -3):
        with pytest.raises(ValueError, match="Invalid number of FFT data points"):
            kiln.fft.fft(a, n=bad)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        kiln.fft.fft(kiln.zeros((3, 0), dtype=kiln.complex64))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        kiln.fft.irfft(kiln.zeros(1, dtype=kiln.complex64))        # default n = 2 * (1 - 1)
    with pytest.raises(IndexError):
        kiln.fft.fft(kiln.zeros((), dtype=kiln.complex64))          # 0-d, as NumPy
    with pytest.raises(IndexError):
        kiln.fft.fft(a, axis=2)
    with pytest.raises(IndexError):
        kiln.fft.fftn(a, axes=(0, 5))
    with pytest.raises(ValueError, match="Invalid norm value"):
        kiln.fft.fft(a, norm="unitary")
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        kiln.fft.fftn(a, s=(4, 4, 4), axes=(0, 1))
    with pytest.raises(TypeError):
        kiln.fft.rfft(a)                                            # complex input
    with pytest.raises(TypeError):
        kiln.fft.fft(a, n=2.5)
    with pytest.raises(IndexError):
        kiln.fft.rfftn(a.real, axes=())
    # axes=() transforms nothing: the values come back
    numpy.testing.assert_array_equal(kiln.asnumpy(kiln.fft.fftn(a, axes=())), kiln.asnumpy(a))


def test_out(rng):
    h = data(rng, (4, 6), numpy.complex128)
    a = kiln.asarray(h)
    out = kiln.empty((4, 6), dtype=kiln.complex128)
    r = kiln.fft.fft(a, out=out)
    assert r is out
    assert_fft_close(out, exact(numpy.fft.fft, h), numpy.complex128, [6])
    # Fortran-ordered and narrower outputs (same_kind casts, as NumPy)
    outf = kiln.empty((4, 6), dtype=kiln.complex64, order="F")
    assert kiln.fft.fftn(a, out=outf) is outf
    assert_fft_close(outf, exact(numpy.fft.fftn, h).astype(numpy.complex64).astype(numpy.clongdouble),
                     numpy.complex64, [4, 6])
    outr = kiln.empty((4, 10), dtype=kiln.float64)[:, ::2]
    spec = numpy.fft.rfft(data(rng, (4, 5), numpy.float64))
    assert kiln.fft.irfft(kiln.asarray(spec), 5, out=outr) is outr
    assert_fft_close(outr, exact(numpy.fft.irfft, spec, n=5), numpy.float64, [5])
    # in place: the input as out
    b = kiln.asarray(h)
    assert kiln.fft.ifft(b, out=b) is b
    assert_fft_close(b, exact(numpy.fft.ifft, h), numpy.complex128, [6])
    with pytest.raises(ValueError, match="wrong shape"):
        kiln.fft.fft(a, out=kiln.empty((4, 7), dtype=kiln.complex128))
    with pytest.raises(TypeError):
        kiln.fft.fft(a, out=kiln.empty((4, 6), dtype=kiln.float64))
    with pytest.raises(TypeError):
        kiln.fft.fft(a, out=numpy.empty((4, 6), numpy.complex128))


# --- helpers: frequencies and shifts ------------------------------------------------

def test_fftfreq_rfftfreq_shifts(rng):
    for n in (1, 8, 9):
        for d in (1.0, 0.25):
            numpy.testing.assert_allclose(kiln.asnumpy(kiln.fft.fftfreq(n, d)), numpy.fft.fftfreq(n, d),
                                          rtol=1e-15, atol=0)
            numpy.testing.assert_allclose(kiln.asnumpy(kiln.fft.rfftfreq(n, d)), numpy.fft.rfftfreq(n, d),
                                          rtol=1e-15, atol=0)
    assert kiln.fft.fftfreq(8).dtype == numpy.float64
    h = data(rng, (5, 6), numpy.float32)
    a = kiln.asarray(h)
    for axes in (None, 0, (1,), (0, 1), -1):
        numpy.testing.assert_array_equal(kiln.asnumpy(kiln.fft.fftshift(a, axes)), numpy.fft.fftshift(h, axes))
        numpy.testing.assert_array_equal(kiln.asnumpy(kiln.fft.ifftshift(a, axes)), numpy.fft.ifftshift(h, axes))


# --- plan cache ----------------------------------------------------------------------

def test_plan_cache_lru_size_and_clear(rng, fresh_cache):
    cache = fresh_cache
    assert config.get_plan_cache() is cache and cache.enabled
    arrays = [kiln.asarray(data(rng, (n,), numpy.complex64)) for n in (8, 9, 10, 11)]
    for x in arrays:
        kiln.fft.fft(x)
    assert cache.get_curr_size() == 4 and len(cache) == 4
    kiln.fft.fft(arrays[0])                       # 8 becomes the most recently used
    cache.set_size(2)                             # evicts the least recently used: 9, 10
    assert [k[2] for k in cache.keys()] == [(11,), (8,)]
    kiln.fft.fft(arrays[2])                       # 10 comes back, 11 goes
    assert [k[2] for k in cache.keys()] == [(8,), (10,)]
    assert config.get_plan_cache_size() == 2
    config.set_plan_cache_size(3)
    assert cache.get_size() == 3
    cache.clear()
    assert cache.get_curr_size() == 0 and cache.get_curr_memsize() == 0
    cache.set_size(0)                             # disabled: nothing kept
    kiln.fft.fft(arrays[1])
    assert not cache.enabled and len(cache) == 0
    cache.set_size(-1)
    for x in arrays:
        kiln.fft.fft(x)
    assert len(cache) == 4
    with pytest.raises(ValueError):
        cache.set_size(-2)


def test_plan_cache_memsize(rng, fresh_cache, capsys):
    cache = fresh_cache
    for n in (64, 128, 256):
        kiln.fft.fft(kiln.asarray(data(rng, (2, n), numpy.complex128)))
    plans = [cache.get(k) for k in cache.keys()]
    sizes = [p.memsize for p in plans]
    assert cache.get_curr_memsize() == sum(sizes)
    if not ON_CUDA:
        assert sizes == [0, 0, 0]                  # descriptors: no work areas off cuda
    # a limit that keeps only the two most recently used plans (or all, when they need no memory)
    limit = max(sizes[1] + sizes[2], 1)
    cache.set_memsize(limit)
    assert cache.get_curr_memsize() <= limit
    assert [p.memsize for p in (cache.get(k) for k in cache.keys())] == (sizes[1:] if sizes[0] else sizes)
    config.set_plan_cache_max_memsize(0)           # 0 disables the cache
    assert config.get_plan_cache_max_memsize() == 0 and len(cache) == 0 and not cache.enabled
    cache.set_memsize(-1)
    config.show_plan_cache_info()
    assert "plan cache" in capsys.readouterr().out
    config.clear_plan_cache()
    assert len(cache) == 0


def test_plans_are_reused(rng, fresh_cache):
    h = data(rng, (8, 16), numpy.complex64)
    kiln.fft.fft(kiln.asarray(h))
    plan = fresh_cache.get(fresh_cache.keys()[0])
    assert (plan.kind, plan.double_precision, plan.n, plan.batch) == ("C2C", False, (16,), 8)
    kiln.fft.ifft(kiln.asarray(h))                # the same plan serves both directions
    assert fresh_cache.keys() == [plan.key] and fresh_cache.get(plan.key) is plan


# --- get_fft_plan ----------------------------------------------------------------------

def test_get_fft_plan_three_spellings(rng, fresh_cache):
    h = data(rng, (3, 8, 10), numpy.complex128)
    a = kiln.asarray(h)
    expected = exact(numpy.fft.fftn, h, axes=(1, 2))
    plan = fftpack.get_fft_plan(a, axes=(1, 2))
    assert (plan.kind, plan.n, plan.batch, plan.double_precision) == ("C2C", (8, 10), 3, True)
    b1 = fftpack.fftn(a, axes=(1, 2), plan=plan)
    with plan:
        b2 = kiln.fft.fftn(a, axes=(1, 2))
    assert len(fresh_cache) == 0                  # the given plan served, none was cached
    b3 = kiln.fft.fftn(a, axes=(1, 2))
    for b in (b1, b2, b3):
        assert_fft_close(b, expected, numpy.complex128, [8, 10])
    numpy.testing.assert_array_equal(kiln.asnumpy(b1), kiln.asnumpy(b2))
    numpy.testing.assert_array_equal(kiln.asnumpy(b1), kiln.asnumpy(b3))
    assert _plan.current_plan() is None


def test_plan_types_by_cupy_names(rng):
    """get_fft_plan's plans are kiln.cuda.cufft.Plan1d (one axis) or PlanNd
    (two or three), as CuPy's; get_current_plan() is the ``with`` block's."""
    a = kiln.asarray(data(rng, (4, 6, 8), numpy.complex64))
    one, two = fftpack.get_fft_plan(a, axes=-1), fftpack.get_fft_plan(a, axes=(1, 2))
    assert type(one) is kiln.cuda.cufft.Plan1d and type(two) is kiln.cuda.cufft.PlanNd
    assert isinstance(one, kiln.fft.Plan) and not isinstance(one, kiln.cuda.cufft.PlanNd)
    assert kiln.cuda.cufft.get_current_plan() is None
    with two:
        assert kiln.cuda.cufft.get_current_plan() is two
    assert kiln.cuda.cufft.get_current_plan() is None


def test_get_fft_plan_real_and_1d(rng):
    r = data(rng, (4, 12), numpy.float32)
    a = kiln.asarray(r)
    p = fftpack.get_fft_plan(a, axes=-1, value_type="R2C")
    assert (p.kind, p.n, p.batch, p.double_precision) == ("R2C", (12,), 4, False)
    with p:
        got = kiln.fft.rfft(a)
    assert_fft_close(got, exact(numpy.fft.rfft, r), numpy.complex64, [12])
    spec = kiln.asarray(numpy.fft.rfft(r).astype(numpy.complex64))
    q = fftpack.get_fft_plan(spec, axes=(1,), value_type="C2R")
    assert q.n == (12,)
    with q:
        back = kiln.fft.irfft(spec)
    assert_fft_close(back, exact(numpy.fft.irfft, kiln.asnumpy(spec)), numpy.float32, [12])
    one = fftpack.get_fft_plan(a.astype(kiln.complex64), shape=(16,), axes=(1,))
    assert_fft_close(fftpack.fft(a.astype(kiln.complex64), 16, plan=one),
                     exact(numpy.fft.fft, r.astype(numpy.complex64), n=16), numpy.complex64, [16])


def test_wrong_plan_raises(rng):
    a = kiln.asarray(data(rng, (3, 8, 10), numpy.complex64))
    plan = fftpack.get_fft_plan(a, axes=(1, 2))
    with pytest.raises(ValueError, match="Target array size does not match the plan. The FFT plan is for"):
        fftpack.fftn(a, axes=(0, 2), plan=plan)                      # other axes
    with pytest.raises(ValueError, match="does not match the plan"):
        fftpack.fftn(a.astype(kiln.complex128), axes=(1, 2), plan=plan)   # other precision
    with pytest.raises(ValueError, match="does not match the plan"):
        with plan:
            kiln.fft.rfftn(a.real, axes=(1, 2))                      # other kind
    with pytest.raises(ValueError, match="one cuFFT transform"):
        with plan:
            kiln.fft.fftn(kiln.zeros((2, 2, 2, 2), dtype=kiln.complex64))   # four axes: two passes
    assert _plan.current_plan() is None
    with pytest.raises(ValueError):
        fftpack.get_fft_plan(a, value_type="R2R")
    with pytest.raises(ValueError):
        fftpack.get_fft_plan(kiln.zeros((2, 2, 2, 2), dtype=kiln.complex64))
    with pytest.raises(TypeError):
        fftpack.get_fft_plan(a, value_type="R2C")


# --- scipy.fftpack -----------------------------------------------------------------------

def packed_rfft(h, n, axis):
    """scipy.fftpack.rfft's packed format from NumPy's rfft (long double)."""
    y = numpy.moveaxis(exact(numpy.fft.rfft, h, n=n, axis=axis), axis, -1)
    out = numpy.empty(y.shape[:-1] + (n,), numpy.longdouble)
    out[..., 0] = y[..., 0].real
    out[..., 1::2] = y[..., 1:1 + n // 2].real
    out[..., 2::2] = y[..., 1:1 + (n - 1) // 2].imag
    return numpy.moveaxis(out, -1, axis)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=lambda d: numpy.dtype(d).name)
def test_fftpack(rng, dtype):
    h = data(rng, (4, 9), dtype)
    a = kiln.asarray(h)
    cd = compute_complex(dtype)
    assert_fft_close(fftpack.fft(a), exact(numpy.fft.fft, h.astype(cd)), cd, [9])
    assert_fft_close(fftpack.ifft(a, 12, axis=0), exact(numpy.fft.ifft, h.astype(cd), n=12, axis=0), cd, [12])
    assert_fft_close(fftpack.fftn(a, shape=(3, 5)), exact(numpy.fft.fftn, h.astype(cd), s=(3, 5), axes=(0, 1)),
                     cd, [3, 5])
    assert_fft_close(fftpack.ifft2(a), exact(numpy.fft.ifft2, h.astype(cd)), cd, [4, 9])
    assert_fft_close(fftpack.fft2(a, axes=(1, 0)), exact(numpy.fft.fft2, h.astype(cd), axes=(1, 0)), cd, [9, 4])
    assert_fft_close(fftpack.ifftn(a, axes=(0,)), exact(numpy.fft.ifftn, h.astype(cd), axes=(0,)), cd, [4])
    for n, axis in ((None, -1), (8, 1), (5, 0), (11, -1)):
        n_ = n or h.shape[axis]
        packed = fftpack.rfft(a, n, axis)
        assert_fft_close(packed, packed_rfft(h, n_, axis), numpy.dtype(dtype), [n_])
        back = fftpack.irfft(packed, axis=axis)
        hn = numpy.moveaxis(numpy.moveaxis(h, axis, -1)[..., :n_], -1, axis)
        if hn.shape[axis] < n_:
            pad = [(0, 0)] * h.ndim
            pad[axis] = (0, n_ - hn.shape[axis])
            hn = numpy.pad(hn, pad)
        assert_fft_close(back, hn.astype(numpy.longdouble), numpy.dtype(dtype), [n_, n_])
    try:
        import scipy.fftpack as sp
    except ImportError:
        return
    assert_fft_close(fftpack.rfft(a, 10), sp.rfft(h.astype(numpy.float64), 10).astype(numpy.longdouble),
                     numpy.dtype(dtype), [10, 10])
    packed = sp.rfft(h.astype(numpy.float64))
    assert_fft_close(fftpack.irfft(kiln.asarray(packed.astype(dtype)), 7),
                     sp.irfft(packed.astype(dtype).astype(numpy.float64), 7).astype(numpy.longdouble),
                     numpy.dtype(dtype), [7, 7])
    with pytest.raises(TypeError):
        fftpack.rfft(a.astype(kiln.complex64))


# --- the seeds' examples --------------------------------------------------------------

SEED = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "seeds" / "002_d1c63e1d229719c2.txt"
SEED_VIEW = """
import kiln as cp
a = cp.arange(100, dtype=cp.complex128)
b = cp.exp(1j*a)
c = b[0:10]
d = cp.fft.fft(c)
"""
SEED_PLANS = {  # the seed's v6, v7, v8 (cupy -> kiln, cupyx.scipy -> kiln.scipy)
    "v6": """
import kiln as cp
a = cp.random.random((256, 512, 512))
a = a.astype(cp.complex128)
b = cp.fft.fftn(a, axes=(1,2))
""",
    "v7": """
import kiln as cp
import kiln.scipy.fftpack as cufft
a = cp.random.random((256, 512, 512))
a = a.astype(cp.complex128)
plan = cufft.get_fft_plan(a, axes=(1,2))
b = cufft.fftn(a, axes=(1,2), plan=plan)
""",
    "v8": """
import kiln as cp
import kiln.scipy.fftpack as cufft
a = cp.random.random((256, 512, 512))
a = a.astype(cp.complex128)
plan = cufft.get_fft_plan(a, axes=(1,2))
with plan:
    b = cp.fft.fftn(a, axes=(1,2))
""",
}


def _seed_text_matches(snippet):
    """The snippet is the seed's own code with cupy spelled kiln (when the
    seeds are present beside the repository)."""
    if SEED.exists():
        # the slides' code lines end in Markdown's two-space line breaks
        seed = "\n".join(ln.rstrip() for ln in SEED.read_text().splitlines())
        original = snippet.replace("import kiln.scipy.fftpack", "import cupyx.scipy.fftpack").replace(
            "import kiln as cp", "import cupy as cp")
        assert original.strip() in seed, original


def test_seed_fft_of_a_view():
    _seed_text_matches(SEED_VIEW)
    ns = {}
    exec(SEED_VIEW, ns)
    h = numpy.exp(1j * numpy.arange(100, dtype=numpy.complex128))[0:10]
    assert_fft_close(ns["d"], exact(numpy.fft.fft, h), numpy.complex128, [10])


@pytest.mark.parametrize("version", sorted(SEED_PLANS))
def test_seed_plan_variants(version, fresh_cache):
    """v6-v8 give the same b; on the host backend at (4, 16, 16) (the seed's
    (256, 512, 512) complex128 is 1 GiB), on cuda at the seed's size."""
    text = SEED_PLANS[version]
    _seed_text_matches(text)
    if not ON_CUDA:
        text = text.replace("(256, 512, 512)", "(4, 16, 16)")
    kiln.random.seed(7)
    ns = {}
    exec(text, ns)
    a = kiln.asnumpy(ns["a"])
    # compare a slab (the whole reference in long double would be 4 GiB on cuda)
    expected = exact(numpy.fft.fftn, a[:4], axes=(1, 2))
    assert_fft_close(ns["b"][:4], expected, numpy.complex128, a.shape[1:])
    assert ns["b"].shape == a.shape


# --- the cuFFT path's Python on the host: NumPyCufft ------------------------------------

class NumPyCufft:
    """A model of _core._FftPlan (arraycore/fft.h) in NumPy: the same checks
    of the operands, unnormalised transforms, a C2R input overwritten
    (Note [C2R overwrites its input]), and a work area of 8 bytes a point so
    memsize limits have something to count."""

    def __init__(self, kind, double_precision, n, batch):
        assert kind in ("C2C", "R2C", "C2R") and 1 <= len(n) <= 3 and min(n) >= 1 and batch >= 1
        self.kind, self.double, self.n, self.batch = kind, double_precision, tuple(n), batch
        self.work_bytes = 8 * math.prod(n) * batch
        half = self.n[:-1] + (self.n[-1] // 2 + 1,)
        real = numpy.dtype(numpy.float64 if double_precision else numpy.float32)
        cplx = numpy.dtype(numpy.complex128 if double_precision else numpy.complex64)
        self.input_shape = (batch,) + (half if kind == "C2R" else self.n)
        self.output_shape = (batch,) + (half if kind == "R2C" else self.n)
        self.input_dtype = real if kind == "R2C" else cplx
        self.output_dtype = real if kind == "C2R" else cplx
        self.calls = []

    def execute(self, x, y, forward):
        for arr, shape, dtype in ((x, self.input_shape, self.input_dtype), (y, self.output_shape, self.output_dtype)):
            assert arr.dtype == dtype and arr.shape == shape and arr.flags.c_contiguous, (arr.shape, shape)
        hx, hy = numpy.from_dlpack(x), numpy.from_dlpack(y)
        axes = tuple(range(1, len(self.n) + 1))
        if self.kind == "C2C":
            r = numpy.fft.fftn(hx, axes=axes) if forward else numpy.fft.ifftn(hx, axes=axes, norm="forward")
        elif self.kind == "R2C":
            r = numpy.fft.rfftn(hx, axes=axes)
        else:
            if len(self.n) == 1:   # Note [Hermitian C2R input]: kiln made these real
                assert not hx[:, 0].imag.any() and (self.n[0] % 2 or not hx[:, -1].imag.any())
            r = numpy.fft.irfftn(hx, self.n, axes=axes, norm="forward")
            hx[...] = numpy.nan       # cuFFT may overwrite a C2R input
        self.calls.append((x.data.ptr == y.data.ptr, forward))
        hy[...] = r


@pytest.fixture
def model(monkeypatch, fresh_cache):
    if ON_CUDA:
        pytest.skip("cuFFT itself runs these paths on the cuda backend")
    monkeypatch.setattr(_plan, "uses_cufft", lambda: True)
    monkeypatch.setattr(_plan, "cufft_plan_class", lambda: NumPyCufft)
    return fresh_cache


def test_model_c2c_passes_layouts_and_out(rng, model):
    for kind in LAYOUT_KINDS:
        a, h = layout(rng, kind, numpy.complex64)
        for norm in (None, "ortho", "forward"):
            assert_fft_close(kiln.fft.fft(a, axis=1, norm=norm), exact(numpy.fft.fft, h, axis=1, norm=norm),
                             numpy.complex64, [h.shape[1]])
        assert_fft_close(kiln.fft.ifftn(a, s=(3, 12), axes=(2, 0)),
                         exact(numpy.fft.ifftn, h, s=(3, 12), axes=(2, 0)), numpy.complex64, [3, 12])
    h = data(rng, (2, 3, 4, 5, 3), numpy.complex64)
    a = kiln.asarray(h)
    assert_fft_close(kiln.fft.fftn(a), exact(numpy.fft.fftn, h), numpy.complex64, h.shape)   # 5 axes: 2 passes
    assert_fft_close(kiln.fft.ifftn(a, axes=(1, 1, 3)), exact(numpy.fft.ifftn, h, axes=(1, 1, 3)),
                     numpy.complex64, [3, 3, 5])
    with pytest.warns(DeprecationWarning, match="enable_nd_planning is deprecated"):
        assert config.enable_nd_planning is True
    with pytest.warns(DeprecationWarning, match="enable_nd_planning is deprecated"):
        config.enable_nd_planning = False
    try:
        assert_fft_close(kiln.fft.fft2(a), exact(numpy.fft.fft2, h), numpy.complex64, [5, 3])
        assert all(p.n in ((5,), (3,)) for p in (model.get(k) for k in model.keys()) if p.batch == 120 or
                   p.batch == 200)
    finally:
        with pytest.warns(DeprecationWarning):
            config.enable_nd_planning = True
    # out=: written directly when it has the layout, through a copy otherwise
    hc = data(rng, (6, 8), numpy.complex64)
    c = kiln.asarray(hc)
    for out in (kiln.empty((6, 8), dtype=kiln.complex64), kiln.empty((6, 8), dtype=kiln.complex128, order="F"),
                kiln.empty((8, 6), dtype=kiln.complex64).T):
        assert kiln.fft.fft(c, axis=0, norm="ortho", out=out) is out
        assert_fft_close(out, exact(numpy.fft.fft, hc, axis=0, norm="ortho"), out.dtype, [6], numpy.complex64)
    assert kiln.fft.fft(c, out=c) is c
    assert_fft_close(c, exact(numpy.fft.fft, hc), numpy.complex64, [8])


def test_model_dtypes_real_and_hermitian(rng, model):
    for dtype in (numpy.float16, numpy.int16, numpy.bool_):
        h = data(rng, (3, 10), dtype)
        assert_fft_close(kiln.fft.fft(kiln.asarray(h), 12), exact(numpy.fft.fft, h.astype(compute_complex(dtype)),
                                                                     n=12), compute_complex(dtype), [12])
    r = data(rng, (4, 6, 10), numpy.float64)
    a = kiln.asarray(r)
    assert_fft_close(kiln.fft.rfft(a[:, ::-1], 7, axis=1), exact(numpy.fft.rfft, r[:, ::-1], n=7, axis=1),
                     numpy.complex128, [7])
    assert_fft_close(kiln.fft.rfftn(a, axes=(0, 2), norm="ortho"),
                     exact(numpy.fft.rfftn, r, axes=(0, 2), norm="ortho"), numpy.complex128, [4, 10])
    r4 = data(rng, (2, 3, 4, 6), numpy.float32)
    spec = numpy.fft.rfftn(r4).astype(numpy.complex64)
    assert_fft_close(kiln.fft.rfftn(kiln.asarray(r4)), exact(numpy.fft.rfftn, r4), numpy.complex64, r4.shape)
    ks = kiln.asarray(spec)
    assert_fft_close(kiln.fft.irfftn(ks, r4.shape, (0, 1, 2, 3)),
                     exact(numpy.fft.irfftn, spec, s=r4.shape, axes=(0, 1, 2, 3)), numpy.float32, r4.shape)
    numpy.testing.assert_array_equal(kiln.asnumpy(ks), spec)        # the model overwrote a copy, not ks
    # a repeated axis truncated differently each time: the passes run in NumPy's order
    assert_fft_close(kiln.fft.irfftn(ks, (3, 2, 6), (0, 0, 3)), exact(numpy.fft.irfftn, spec, s=(3, 2, 6),
                                                                      axes=(0, 0, 3)), numpy.float32, [3, 2, 6])
    assert_fft_close(kiln.fft.rfftn(kiln.asarray(r4), (5, 3, 2), (3, 1, 1)),
                     exact(numpy.fft.rfftn, r4, s=(5, 3, 2), axes=(3, 1, 1)), numpy.complex64, [5, 3, 2])
    assert_fft_close(kiln.fft.irfft(ks, 9, axis=-1, norm="forward"),
                     exact(numpy.fft.irfft, spec, n=9, norm="forward"), numpy.float32, [9])
    hh = hermitian_1d(rng, (3, 0), 14, numpy.complex128)
    assert_fft_close(kiln.fft.hfft(kiln.asarray(hh), 14, norm="ortho"),
                     exact(numpy.fft.hfft, hh, n=14, norm="ortho"), numpy.float64, [14])
    g = data(rng, (3, 15), numpy.float32)
    assert_fft_close(kiln.fft.ihfft(kiln.asarray(g)), exact(numpy.fft.ihfft, g), numpy.complex64, [15])
    assert_fft_close(fftpack.rfft(kiln.asarray(g), 12), packed_rfft(g, 12, -1), numpy.float32, [12])
    assert kiln.fft.rfft(kiln.zeros((0, 4), dtype=kiln.float32)).shape == (0, 3)


def test_model_plan_memsize_and_given_plans(rng, model):
    cache = model
    for n in (64, 128, 256):
        kiln.fft.fft(kiln.asarray(data(rng, (2, n), numpy.complex128)))
    assert [cache.get(k).memsize for k in cache.keys()] == [1024, 2048, 4096]
    assert cache.get_curr_memsize() == 7168
    cache.set_memsize(6144)                      # the least recently used (1024) goes
    assert [cache.get(k).memsize for k in cache.keys()] == [2048, 4096]
    kiln.fft.fft(kiln.asarray(data(rng, (2, 512), numpy.complex128)))   # 8192 bytes: more than the limit, not kept
    assert cache.get_curr_memsize() == 6144 and len(cache) == 2
    cache.set_memsize(-1)
    h = data(rng, (3, 8, 10), numpy.complex128)
    a = kiln.asarray(h)
    plan = fftpack.get_fft_plan(a, axes=(1, 2))
    assert plan.memsize == 8 * 80 * 3
    b1 = fftpack.fftn(a, axes=(1, 2), plan=plan)
    with plan:
        b2 = kiln.fft.fftn(a, axes=(1, 2))
    assert len(plan._cufft.calls) == 2
    numpy.testing.assert_array_equal(kiln.asnumpy(b1), kiln.asnumpy(b2))
    assert_fft_close(b1, exact(numpy.fft.fftn, h, axes=(1, 2)), numpy.complex128, [8, 10])


def test_model_plan_out_of_memory_retries_after_clearing(rng, model, monkeypatch):
    """A plan that cannot get its memory is made again once the cached plans
    are dropped (kiln.fft's MemoryError path); with nothing cached, it raises."""
    cache = model
    kiln.fft.fft(kiln.asarray(data(rng, (16,), numpy.complex64)))
    assert len(cache) == 1
    failures = []

    class Flaky(NumPyCufft):
        def __init__(self, *args):
            if not failures:
                failures.append(args)
                raise MemoryError("cufftMakePlanMany64 failed: CUFFT_ALLOC_FAILED")
            super().__init__(*args)

    monkeypatch.setattr(_plan, "cufft_plan_class", lambda: Flaky)
    h = data(rng, (20,), numpy.complex64)
    assert_fft_close(kiln.fft.fft(kiln.asarray(h)), exact(numpy.fft.fft, h), numpy.complex64, [20])
    assert len(failures) == 1 and [k[2] for k in cache.keys()] == [(20,)]
    cache.clear()
    failures.clear()
    with pytest.raises(MemoryError):
        kiln.fft.fft(kiln.asarray(h))


def test_numpy_fft_dispatches_to_kiln(rng):
    """numpy.fft's functions on kiln arrays run kiln.fft (__array_function__)."""
    h = data(rng, (4, 8), numpy.float32)
    a = kiln.asarray(h)
    for name, args in (("fft", ()), ("rfftn", ()), ("ifft2", ()), ("fftshift", ())):
        r = getattr(numpy.fft, name)(a, *args)
        assert isinstance(r, kiln.ndarray), name
    assert_fft_close(numpy.fft.rfft(a, 10), exact(numpy.fft.rfft, h, n=10), numpy.complex64, [10])


def test_plan_used_on_another_stream(rng, fresh_cache):
    """A cached plan runs on whichever stream is current; dropped after
    running on a stream other than its work area's, it waits for that run
    (Note [FFT work areas from kiln's pool])."""
    h = data(rng, (8, 4096), numpy.complex64)
    a = kiln.asarray(h)
    kiln.fft.fft(a)                               # the plan and its work area: default stream
    stream = kiln.cuda.Stream(non_blocking=True)
    with stream:
        r = kiln.fft.ifft(a)
        fresh_cache.clear()                       # the plan goes while its run may be in flight
        s = kiln.fft.fft(a, n=4000)               # a new plan may take the old work area
    stream.synchronize()
    assert_fft_close(r, exact(numpy.fft.ifft, h), numpy.complex64, [4096])
    assert_fft_close(s, exact(numpy.fft.fft, h, n=4000), numpy.complex64, [4000])
