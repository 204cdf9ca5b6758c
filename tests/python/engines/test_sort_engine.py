"""The sort engine (arraycore/sort.h, kiln._core._sort_rows) against NumPy's
stable sort: lengths across the warp (32), the block's item rows and the
tile (3840 keys with values, 6144 for keys of up to 4 bytes alone, 2048 for
complex128), many tiles (look-back chains), every
dtype, NaNs (every class for complex), -0.0, infinities, stability of ties,
rows (the (row, key) passes), strided, negative-stride and in-place
operands, trivial passes (all keys equal, keys differing in one byte); sorts
in segments (Note [Sort segments]: small ones set through a private binding,
and 2^31 - 2^20 keys on a GPU)."""
import numpy
import pytest

import kiln
from kiln import _core
from conftest import ALL_DTYPES, assert_same_bits, name, random_array

LENGTHS = [1, 2, 31, 33, 479, 480, 481, 2047, 2048, 2049, 3839, 3840, 3841, 9000]


def sort_rows(x, keys=True, index=True):
    """(sorted rows, their indices) of the 2-D NumPy array x, through the engine."""
    k = kiln.asarray(x)
    ko = kiln.empty(x.shape, x.dtype) if keys else None
    io = kiln.empty(x.shape, numpy.int64) if index else None
    _core._sort_rows(k, ko, io)
    return (None if ko is None else ko.get()), (None if io is None else io.get())


def special(rng, n, dtype):
    """Random values with ties, and for floats NaNs, +-0.0 and +-inf mixed in."""
    dtype = numpy.dtype(dtype)
    x = random_array(rng, n, dtype)
    if dtype.kind in "iu":
        x[::3] = x[0]                      # ties
    if dtype.kind == "f":
        specials = numpy.array([numpy.nan, -numpy.nan, 0.0, -0.0, numpy.inf, -numpy.inf], dtype)
        pick = rng.integers(0, 3 * len(specials), n)
        x = numpy.where(pick < len(specials), specials[numpy.minimum(pick, len(specials) - 1)], x)
    if dtype.kind == "c":
        part = numpy.dtype("f%d" % (dtype.itemsize // 2))
        re, im = x.real.astype(part), x.imag.astype(part)
        re[::5], im[1::7], im[2::4] = numpy.nan, numpy.nan, 0.0
        re[3::6] = -0.0
        re[::11] = re[0]
        x = (re + 1j * im).astype(dtype)   # NaNs of all four classes
    return x


def check(x, got_keys, got_index):
    ref = numpy.argsort(x, axis=-1, kind="stable")
    if got_index is not None:
        numpy.testing.assert_array_equal(got_index, ref)
    if got_keys is not None:
        assert_same_bits(got_keys, numpy.take_along_axis(x, ref, axis=-1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_every_dtype_across_tiles(rng, dtype):
    for n in LENGTHS:
        x = special(rng, (1, n), dtype)
        check(x, *sort_rows(x))


KEYS_ONLY_LENGTHS = [767, 768, 769, 6143, 6144, 6145, 12289, 20000]


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.float16, numpy.uint16, numpy.float32,
                                   numpy.int32], ids=name)
def test_keys_only_across_tiles(rng, dtype):
    """Keys of up to 4 bytes sorted alone: their own tile of 6144 keys."""
    for n in KEYS_ONLY_LENGTHS:
        x = special(rng, (1, n), dtype)
        check(x, *sort_rows(x, index=False))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int64, numpy.complex128], ids=name)
def test_many_tiles_keys_only(rng, dtype):
    x = special(rng, (1, 40000), dtype)
    check(x, *sort_rows(x, index=False))


def test_stability_with_many_ties(rng):
    x = rng.integers(0, 3, (1, 12000)).astype(numpy.int16)
    check(x, *sort_rows(x, keys=False))


def test_negative_zero_equals_zero_and_keeps_order():
    x = numpy.array([[0.0, -0.0, 1.0, -0.0, 0.0, -1.0]], numpy.float32)
    keys, index = sort_rows(x)
    numpy.testing.assert_array_equal(index, [[5, 0, 1, 3, 4, 2]])
    assert_same_bits(keys, x[:, [5, 0, 1, 3, 4, 2]])


def test_nan_payloads_and_signs_sort_last_in_order():
    bits = numpy.array([[0x7FC00001, 0x3F800000, 0xFFC00002, 0xFF800000, 0x7F800000, 0x7FC00003]], numpy.uint32)
    x = bits.view(numpy.float32)
    keys, index = sort_rows(x)
    numpy.testing.assert_array_equal(index, [[3, 1, 4, 0, 2, 5]])
    assert_same_bits(keys, x[:, [3, 1, 4, 0, 2, 5]])


def test_complex_nan_classes_follow_numpy():
    nan = numpy.nan
    x = numpy.array([[complex(nan, nan), complex(nan, 1), complex(2, nan), 3 + 0j, complex(1, nan),
                      complex(nan, -1), 1 + 5j, 2 - 1j]], numpy.complex64)
    check(x, *sort_rows(x))


@pytest.mark.parametrize("shape", [(2, 5000), (300, 7), (70000, 1), (257, 3), (3, 0), (0, 4)])
def test_rows(rng, shape):
    x = special(rng, shape, numpy.float64)
    check(x, *sort_rows(x))


def test_rows_keys_only_and_many_row_bytes(rng):
    x = random_array(rng, (66000, 2), numpy.int8)   # rows need two row passes
    check(x, *sort_rows(x, index=False))


def test_trivial_passes(rng):
    same = numpy.full((1, 5000), 7, numpy.int64)                 # every pass dropped
    check(same, *sort_rows(same))
    check(same, *sort_rows(same, index=False))
    one_byte = rng.integers(0, 256, (1, 5000)).astype(numpy.uint64) << numpy.uint64(40)
    check(one_byte, *sort_rows(one_byte))                         # one pass of eight
    rows_same = numpy.full((5, 100), 3, numpy.uint8)
    check(rows_same, *sort_rows(rows_same))


def test_strided_negative_and_in_place(rng):
    base = random_array(rng, (40, 60), numpy.float32)
    k = kiln.asarray(base)
    view = k[::-2, 1::3]
    ko = kiln.empty((20, 20), numpy.float32).T
    io = kiln.zeros((20, 20), numpy.int64).T        # a transposed (non C-contiguous) output
    _core._sort_rows(view, ko, io)
    check(base[::-2, 1::3], ko.get(), io.get())
    for passes_dtype in [numpy.int16, numpy.int8]:   # an even and an odd number of passes
        x = random_array(rng, (7, 300), passes_dtype)
        kx = kiln.asarray(x)
        _core._sort_rows(kx, kx, None)
        assert_same_bits(kx.get(), numpy.sort(x, axis=-1, kind="stable"))


def test_errors():
    x = kiln.zeros((2, 3), numpy.float32)
    with pytest.raises(ValueError, match="2-D"):
        _core._sort_rows(kiln.zeros(3, numpy.float32), None, kiln.zeros(3, numpy.int64))
    with pytest.raises(ValueError, match="no output"):
        _core._sort_rows(x, None, None)
    with pytest.raises(ValueError, match="int64"):
        _core._sort_rows(x, None, kiln.zeros((2, 3), numpy.int32))
    with pytest.raises(ValueError, match="shape and dtype"):
        _core._sort_rows(x, kiln.zeros((2, 3), numpy.float64), None)
    assert _core._sort_max_elements == 2 ** 32 - 1


# Segments (Note [Sort segments]): sorts of more than 2^30 - 2^16 elements run
# each pass as one launch per segment. A private binding makes segments
# small, so small arrays sort in many of them.

SEGMENT_DTYPES = [numpy.bool_, numpy.int8, numpy.uint16, numpy.int32, numpy.int64, numpy.float16,
                  numpy.float32, numpy.float64, numpy.complex64]
# A segment shorter than any tile, one not a multiple of the warp, one of two
# keys-only tiles (6144) and a key.
SEGMENTS = [1000, 4096 + 7, 6144 * 2 + 1]


@pytest.fixture
def segment():
    """set(n): later sorts use segments of n elements; the default comes back after the test."""
    previous = _core._set_sort_segment_elements(0)
    _core._set_sort_segment_elements(previous)
    try:
        yield _core._set_sort_segment_elements
    finally:
        _core._set_sort_segment_elements(previous)


def duplicates(rng, shape, dtype):
    """special()'s values, most of them drawn from a pool of 13 (NaN, -0.0 and 0.0 among them for floats)."""
    x = special(rng, shape, dtype)
    pool = special(rng, 13, dtype)
    if numpy.dtype(dtype).kind in "fc":
        pool[:3] = [numpy.nan, -0.0, 0.0]
    pick = rng.random(shape) < 0.7
    x[pick] = pool[rng.integers(0, len(pool), int(pick.sum()))]
    return x


def check_public(x):
    """kiln.sort and kiln.argsort (stable) of x along its last axis against NumPy's."""
    ref = numpy.argsort(x, axis=-1, kind="stable")
    numpy.testing.assert_array_equal(kiln.argsort(kiln.asarray(x), kind="stable").get(), ref)
    assert_same_bits(kiln.sort(kiln.asarray(x), kind="stable").get(), numpy.take_along_axis(x, ref, axis=-1))


def test_segment_setting(segment):
    assert segment(1000) == 2 ** 30 - 2 ** 16
    assert segment(1) == 1000
    assert segment(0) == 1
    assert segment(0) == 2 ** 30 - 2 ** 16
    for bad in [-1, 2 ** 30 - 2 ** 16 + 1]:
        with pytest.raises(ValueError, match="segment"):
            segment(bad)


@pytest.mark.parametrize("seg", SEGMENTS)
@pytest.mark.parametrize("dtype", SEGMENT_DTYPES, ids=name)
def test_segments_1d(rng, segment, dtype, seg):
    """Lengths around the segment and the tiles (3840 with values, 6144 keys alone)."""
    segment(seg)
    for n in sorted({seg - 1, seg, seg + 1, 2 * seg + 1, 3839, 3841, 6143, 6145}):
        check_public(duplicates(rng, n, dtype))


@pytest.mark.parametrize("seg", SEGMENTS)
@pytest.mark.parametrize("dtype", SEGMENT_DTYPES, ids=name)
def test_segments_rows(rng, segment, dtype, seg):
    """Rows straddling segments; 300 rows take two row passes."""
    segment(seg)
    for shape in [(3, seg + 1), (300, 7), (41, 61)]:
        check_public(duplicates(rng, shape, dtype))


@pytest.mark.parametrize("dtype", SEGMENT_DTYPES, ids=name)
def test_segments_of_one_element(rng, segment, dtype):
    segment(1)
    for shape in [(1,), (2,), (13,), (2, 5)]:
        check_public(duplicates(rng, shape, dtype))


def test_segments_engine_outputs_and_in_place(rng, segment):
    """The engine's keys-only, index-only and in-place forms in segments; an
    even and an odd number of passes; every pass trivial."""
    segment(1000)
    for dtype in [numpy.int16, numpy.int8, numpy.float64]:
        x = duplicates(rng, (3, 2500), dtype)
        check(x, *sort_rows(x, index=False))
        check(x, *sort_rows(x, keys=False))
        kx = kiln.asarray(x)
        _core._sort_rows(kx, kx, None)
        assert_same_bits(kx.get(), numpy.sort(x, axis=-1, kind="stable"))
    same = numpy.full((1, 5000), 7, numpy.int64)
    check(same, *sort_rows(same))
    check(same, *sort_rows(same, index=False))


def test_more_than_the_most_elements_raises():
    """2^16 (2^16 + 1) > 2^32 - 1 elements, as broadcast views (nothing allocated)."""
    shape = (2 ** 16, 2 ** 16 + 1)
    x = kiln.broadcast_to(kiln.zeros((1, 1), numpy.float32), shape)
    idx = kiln.broadcast_to(kiln.zeros((1, 1), numpy.int64), shape)
    with pytest.raises(ValueError, match="at most 4294967295 elements a call, got 4295032832"):
        _core._sort_rows(x, None, idx)


def check_hashed_sort(log_k, reps):
    """Sorts reps 2^log_k float32 keys, each of 2^log_k values reps times
    (made on the device from a multiplicative hash of the index), and checks
    sortedness and a sample against NumPy."""
    k = 2 ** log_k
    mult, shift = numpy.uint32(2654435761), numpy.float32(k // 2)
    x = kiln.arange(k * reps, dtype=numpy.uint32)
    x = (x * mult) & numpy.uint32(k - 1)     # x[i] depends on i mod k only, a permutation of [0, k)
    x = (x.astype(numpy.float32) - shift) * numpy.float32(0.25)
    y = kiln.sort(x)
    del x
    assert bool((y[1:] >= y[:-1]).all())
    values = numpy.sort(((numpy.arange(k, dtype=numpy.uint32) * mult) & numpy.uint32(k - 1)).astype(numpy.float32)
                        - shift) * numpy.float32(0.25)
    pos = numpy.random.default_rng(5).integers(0, k * reps, 100000)
    pos[:4] = [0, k * reps - 1, reps, reps - 1]
    assert_same_bits(y[kiln.asarray(pos)].get(), values[pos // reps])


def test_hashed_sort_in_segments(segment):
    segment(4096 + 7)
    check_hashed_sort(10, 23)


@pytest.mark.skipif(kiln.get_backend() != "cuda", reason="2^31 keys: the cuda backend only")
def test_two_billion_float32_keys():
    """2^31 - 2^20 float32 keys (8 GB, three segments of the default size)."""
    free, _ = kiln.cuda.Device().mem_info
    if free < 40 << 30:
        pytest.skip("needs 40 GB of free device memory")
    check_hashed_sort(20, 2 ** 11 - 1)
