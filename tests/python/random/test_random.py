"""kiln.random: Philox bits against the published known answers and a
Python model of kiln's counters (so every backend is checked for the same
bits), API shapes and errors, and each distribution's moments and
Kolmogorov-Smirnov (continuous) or chi-square (discrete) statistic against
its exact CDF or pmf, written here (no SciPy on the GPU machine).

Note [Random test thresholds]
Seeds are fixed, so each statistical test is deterministic. Thresholds are
at the 0.1% level: KS D < 1.95 / sqrt(n); chi-square below the 99.9%
quantile (Wilson-Hilferty); the mean within 5 standard errors. A wrong
scale, shape or location of a few percent exceeds them at these sizes."""
import math

import numpy
import pytest

import kiln

N = 20000
MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1


# ---- a Python model of Philox4x32-10 and kiln's counters ----
def philox(c, k0, k1):
    c = list(c)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & MASK32, p1 & MASK32, ((p0 >> 32) ^ c[3] ^ k1) & MASK32,
             p0 & MASK32]
        k0, k1 = (k0 + 0x9E3779B9) & MASK32, (k1 + 0xBB67AE85) & MASK32
    return c


def block(key, counter, unit, draw=0):
    ctr = (counter + unit + (draw << 64)) & ((1 << 128) - 1)
    return philox([(ctr >> (32 * j)) & MASK32 for j in range(4)], key & MASK32, key >> 32)


def model_words(key, counter, n):
    words = []
    for u in range((n + 3) // 4):
        words += block(key, counter, u)
    return words[:n]


# ---- exact bits ----
# Random123's known-answer vectors for philox4x32 with 10 rounds (kat_vectors):
# counter words, key words, output words.
KAT = [((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
       ((MASK32,) * 4, (MASK32,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
       ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
        (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1))]


@pytest.mark.parametrize("case", range(len(KAT)))
def test_philox_known_answers(case):
    ctr, key, expected = KAT[case]
    counter = sum(w << (32 * j) for j, w in enumerate(ctr))
    bg = kiln.random.Philox(key=key[0] | key[1] << 32, counter=counter)
    words = bg.random_raw(4)
    assert words.dtype == numpy.uint32
    assert words.get().tolist() == list(expected)
    assert philox(list(ctr), *key) == list(expected)   # the model too


def test_raw_words_follow_the_counter():
    bg = kiln.random.Philox(key=12345, counter=(1 << 64) - 2)   # crosses the 64-bit carry
    first = bg.random_raw(10).get().tolist()   # 3 blocks: 12 words drawn, 10 kept
    second = bg.random_raw(5).get().tolist()
    assert first == model_words(12345, (1 << 64) - 2, 10)
    assert second == model_words(12345, (1 << 64) + 1, 5)
    assert bg.state["state"]["counter"] == (1 << 64) + 3


def test_random_bits_match_the_model():
    rng = kiln.random.default_rng(2024)
    x64 = rng.random(7).get()
    x32 = rng.random(9, dtype=kiln.float32).get()
    words = model_words(2024, 0, 16)   # 7 doubles: 4 blocks
    want64 = [((words[2 * j] << 32 | words[2 * j + 1]) >> 11) * 2.0 ** -53 for j in range(7)]
    assert x64.tolist() == want64
    words = model_words(2024, 4, 9)
    assert x32.tolist() == [numpy.float32((w >> 8) * 2.0 ** -24) for w in words]


def test_uniform_bits_match_the_model():
    rng = kiln.random.default_rng(7)
    got = rng.uniform(-3.0, 5.0, 3, dtype=kiln.float32).get()
    words = model_words(7, 0, 3)
    u = [numpy.float32((w >> 8) * 2.0 ** -24) for w in words]
    low, high = numpy.float32(-3.0), numpy.float32(5.0)
    assert got.tolist() == [low + (high - low) * v for v in u]


def lemire(words, span):
    """Model of kiln::random::bounded for span < 2^32 - 1."""
    r = span + 1
    it = iter(words)
    prod = next(it) * r
    if prod & MASK32 < r:
        threshold = (2 ** 32 - r) % r
        while prod & MASK32 < threshold:
            prod = next(it) * r
    return prod >> 32


def test_integer_bits_match_the_model():
    rng = kiln.random.default_rng(99)
    got = rng.integers(10, 10 + 1000003, size=6).get().tolist()
    want = []
    for e in range(6):
        stream = [w for d in range(4) for w in block(99, 0, e, d)]
        want.append(10 + lemire(stream, 1000002))
    assert got == want


# ---- seeds, state, shapes ----
def test_same_seed_same_numbers_different_seed_different():
    a = kiln.random.default_rng(5).standard_normal(1000).get()
    b = kiln.random.default_rng(5).standard_normal(1000).get()
    c = kiln.random.default_rng(6).standard_normal(1000).get()
    assert numpy.array_equal(a, b)
    assert not numpy.array_equal(a, c)


def test_consecutive_calls_give_fresh_numbers():
    rng = kiln.random.default_rng(1)
    a, b = rng.random(1001).get(), rng.random(1001).get()
    assert len(numpy.intersect1d(a, b)) == 0
    rng2 = kiln.random.default_rng(1)
    assert numpy.array_equal(numpy.concatenate([a, b]),
                             numpy.concatenate([rng2.random(1001).get(), rng2.random(1001).get()]))


def test_seed_forms():
    assert kiln.random.Philox(3).state["state"]["key"] == 3
    big = kiln.random.Philox(1 << 70).state["state"]["key"]
    arr = kiln.random.Philox(numpy.array([1, 2, 3, 4, 5])).state["state"]["key"]
    assert big != arr and 0 <= big < 1 << 64 and 0 <= arr < 1 << 64
    assert kiln.random.Philox([1, 2, 3, 4, 5]).state == kiln.random.Philox(numpy.array([1, 2, 3, 4, 5])).state
    with pytest.raises(ValueError):
        kiln.random.Philox(-1)
    with pytest.raises(TypeError):
        kiln.random.Philox(1.5)
    assert kiln.random.Philox().state["state"]["key"] != kiln.random.Philox().state["state"]["key"]


def test_legacy_seed_and_random_state():
    kiln.random.seed(11)
    a = kiln.random.rand(5).get()
    kiln.random.seed(11)
    assert numpy.array_equal(kiln.random.rand(5).get(), a)
    assert numpy.array_equal(kiln.random.RandomState(11).rand(5).get(), a)
    rs = kiln.random.RandomState(seed=numpy.array([1, 2, 3, 4, 5]))
    kiln.random.set_random_state(rs)
    assert kiln.random.get_random_state() is rs
    kiln.random.reset_states()
    assert kiln.random.get_random_state() is not rs
    gen = kiln.random.Generator(kiln.random.Philox4x3210(11))   # CuPy's name
    assert numpy.array_equal(gen.random(5).get(), kiln.random.default_rng(11).random(5).get())
    state = rs.get_state()
    x = rs.randn(4).get()
    rs.set_state(state)
    assert numpy.array_equal(rs.randn(4).get(), x)


def test_spawn_and_module_state():
    parent = kiln.random.default_rng(5)
    children = parent.spawn(3) + parent.spawn(1)   # a second call: new children
    draws = [c.random(100).get() for c in children] + [parent.random(100).get()]
    assert all(not numpy.array_equal(a, b) for i, a in enumerate(draws) for b in draws[i + 1:])
    again = kiln.random.default_rng(5).spawn(2)    # the same seed: the same children
    assert numpy.array_equal(again[1].random(100).get(), draws[1])
    key = kiln.random.default_rng(5).bit_generator.spawn(1)[0].state["state"]["key"]
    assert key == children[0].bit_generator.state["state"]["key"] != 5
    assert parent.spawn(0) == []
    with pytest.raises(ValueError):
        parent.spawn(-1)
    kiln.random.seed(3)
    state = kiln.random.get_state()
    a = kiln.random.rand(4).get()
    kiln.random.set_state(state)
    assert numpy.array_equal(kiln.random.rand(4).get(), a)
    assert kiln.random.RandomState(1).get_state(legacy=False) == kiln.random.RandomState(1).get_state()


def test_kiln_seed_keys_the_global_random_state(monkeypatch):
    """KILN_SEED (CuPy's CUPY_SEED) keys the global RandomState made after reset_states."""
    want = kiln.random.RandomState(6).rand(4).get()
    monkeypatch.setenv("KILN_SEED", "6")
    kiln.random.reset_states()
    try:
        assert numpy.array_equal(kiln.random.rand(4).get(), want)
        monkeypatch.delenv("KILN_SEED")
        kiln.random.reset_states()
        assert not numpy.array_equal(kiln.random.rand(4).get(), want)
    finally:
        kiln.random.reset_states()


def test_generator_bit_generator_is_assignable():
    """As CuPy's Generator (NumPy's is read-only): a new Philox re-keys it."""
    rng = kiln.random.default_rng(1)
    rng.bit_generator = kiln.random.Philox4x3210(seed=9)
    assert numpy.array_equal(rng.random(5).get(), kiln.random.default_rng(9).random(5).get())
    with pytest.raises(TypeError):
        rng.bit_generator = numpy.random.PCG64(9)


@pytest.mark.parametrize("size,shape", [(None, ()), (3, (3,)), ((2, 3), (2, 3)), ((0,), (0,)),
                                        ((2, 0, 3), (2, 0, 3))])
def test_shapes(size, shape):
    rng = kiln.random.default_rng(0)
    for x in (rng.random(size), rng.standard_normal(size, dtype=kiln.float32), rng.integers(5, size=size),
              rng.gamma(2.0, size=size), rng.poisson(3.0, size)):
        assert isinstance(x, kiln.ndarray) and x.shape == shape


def test_dtypes():
    rng = kiln.random.default_rng(0)
    assert rng.random(3, dtype=kiln.float32).dtype == numpy.float32
    assert rng.normal(size=3).dtype == numpy.float64
    assert rng.integers(0, 5, 3, dtype=kiln.uint8).dtype == numpy.uint8
    assert rng.poisson(2.0, 3).dtype == numpy.int64
    assert rng.integers(0, 2, 4, dtype=kiln.bool_).dtype == numpy.bool_
    with pytest.raises(TypeError):
        rng.random(3, dtype=kiln.int32)
    with pytest.raises(TypeError):
        rng.integers(0, 5, 3, dtype=kiln.float32)
    with pytest.raises(TypeError, match="binomial gives int64, not int32"):
        rng.binomial(5, 0.5, 3, dtype=kiln.int32)


# Note [Samples in any dtype]: RandomState and the module functions take any
# dtype, as CuPy's legacy API does, and give NumPy's asarray(samples, dtype).
@pytest.mark.parametrize("call,dtype,natural", [
    (lambda rs, d: rs.binomial(9, 0.5, (40, 3), d), numpy.int8, numpy.int64),
    (lambda rs, d: rs.binomial(kiln.full((3,), 9, dtype=numpy.int16), 0.5, (40, 3), d), numpy.uint16, numpy.int64),
    (lambda rs, d: rs.negative_binomial(3, 0.5, 120, d), numpy.uint32, numpy.int64),
    (lambda rs, d: rs.geometric(0.4, 120, d), numpy.int16, numpy.int64),
    (lambda rs, d: rs.poisson(3.0, (4, 30), d), numpy.uint8, numpy.int64),
    (lambda rs, d: rs.hypergeometric(5, 4, 3, 120, d), numpy.int32, numpy.int64),
    (lambda rs, d: rs.logseries(0.5, 120, d), numpy.uint64, numpy.int64),
    (lambda rs, d: rs.beta(3.0, 3.0, 120, d), numpy.float16, numpy.float32),
    (lambda rs, d: rs.noncentral_chisquare(kiln.ones(4, dtype=numpy.float32), 1.0, (30, 4), d), numpy.int64,
     numpy.float64),
    (lambda rs, d: rs.normal(2.0, 1.0, (5, 24), d), numpy.float16, numpy.float32),
    (lambda rs, d: rs.dirichlet([0.5, 2.0, 3.0], 40, d), numpy.float16, numpy.float64),   # rows in float64
])
def test_legacy_distributions_in_any_dtype(call, dtype, natural):
    got = call(kiln.random.RandomState(7), dtype)
    assert got.dtype == dtype and got.size == 120
    want = call(kiln.random.RandomState(7), natural)
    assert want.dtype == natural
    numpy.testing.assert_array_equal(got.get(), want.get().astype(dtype))
    assert kiln.random.binomial(4, 0.5, 3, numpy.int8).dtype == numpy.int8
    with pytest.raises(TypeError):   # Generator's own dtypes only, as NumPy's
        kiln.random.default_rng(7).dirichlet([1.0, 2.0], dtype=numpy.float16)


def test_seed_examples():
    """The seeds' calls: CuPy's dtype= on randn, random(shape), uniform(low=, high=, size=)."""
    x = kiln.random.randn(dtype=numpy.float32)
    assert x.shape == () and x.dtype == numpy.float32
    arr = kiln.random.randn(1, 2, 3, 4).astype(kiln.float32)
    assert arr.shape == (1, 2, 3, 4)
    assert kiln.random.randn(3, dtype=kiln.float32).dtype == numpy.float32
    a = kiln.random.random((4, 5, 6))
    assert a.shape == (4, 5, 6) and 0.0 <= float(a.min()) and float(a.max()) < 1.0
    assert kiln.random.random(10, dtype=kiln.float64).dtype == numpy.float64
    u = kiln.random.uniform(low=-1., high=1., size=(64, 64)).astype(kiln.float32)
    assert u.shape == (64, 64) and -1.0 <= float(u.min()) and float(u.max()) < 1.0
    rs = kiln.random.RandomState(seed=numpy.array([1, 2, 3, 4, 5]))
    assert rs.random_sample(3).shape == (3,)


def test_generator_out():
    """out= of random, standard_normal, standard_exponential and
    standard_gamma: the numbers of the same draw without out, NumPy's checks."""
    for name, call in (("random", lambda r, **k: r.random(**k)),
                       ("standard_normal", lambda r, **k: r.standard_normal(**k)),
                       ("standard_exponential", lambda r, **k: r.standard_exponential(method="inv", **k)),
                       ("standard_gamma", lambda r, **k: r.standard_gamma(kiln.full((4,), 2.5), **k))):
        want = call(kiln.random.default_rng(5), size=(3, 4)).get()
        for out in (kiln.empty((3, 4)), kiln.empty((4, 3)).T):   # C and F order
            if name == "standard_gamma" and not out.flags.c_contiguous:   # C only, as NumPy's
                with pytest.raises(ValueError):
                    numpy.random.default_rng(5).standard_gamma(numpy.full((4,), 2.5), out=numpy.empty((4, 3)).T)
                with pytest.raises(ValueError, match="C-contiguous"):
                    call(kiln.random.default_rng(5), out=out)
                continue
            assert call(kiln.random.default_rng(5), out=out) is out
            assert numpy.array_equal(out.get(), want), name
        out32 = kiln.empty((3, 4), dtype=kiln.float32)
        assert call(kiln.random.default_rng(5), out=out32, size=(3, 4), dtype=kiln.float32) is out32
        for bad, exc in ((dict(out=out32), TypeError), (dict(out=kiln.empty((3, 8))[:, ::2]), ValueError),
                         (dict(out=kiln.empty((3, 4)), size=(4, 3)), ValueError),
                         (dict(out=numpy.empty((3, 4))), TypeError)):
            with pytest.raises(exc):
                call(kiln.random.default_rng(5), **bad)
    with pytest.raises(ValueError):
        kiln.random.default_rng(5).standard_gamma(kiln.ones(5), out=kiln.empty((3, 4)))


def test_bad_parameters_raise():
    rng = kiln.random.default_rng(0)
    for call in (lambda: rng.normal(0, -1), lambda: rng.exponential(-2.0), lambda: rng.gamma(-1.0),
                 lambda: rng.beta(0.0, 1.0), lambda: rng.poisson(-1.0), lambda: rng.binomial(5, 1.5),
                 lambda: rng.geometric(0.0), lambda: rng.chisquare(0), lambda: rng.triangular(2, 1, 3),
                 lambda: rng.integers(5, 5), lambda: rng.integers(-1, 5, dtype=kiln.uint8),
                 lambda: rng.integers(0, 300, dtype=kiln.uint8), lambda: rng.random(-1),
                 lambda: rng.normal(kiln.zeros(3), kiln.asarray(numpy.array([1.0, -1.0, 1.0]))),
                 lambda: rng.choice(3, 4, replace=False), lambda: rng.choice(3, p=[0.5, 0.2, 0.2])):
        with pytest.raises(ValueError):
            call()


def test_none_parameters_raise_type_error():
    """None as a parameter: TypeError, as NumPy's both APIs (CuPy's legacy
    one raises ValueError; kiln follows NumPy)."""
    for kiln_api, numpy_api in ((kiln.random.default_rng(0), numpy.random.default_rng(0)),
                                (kiln.random.RandomState(0), numpy.random.RandomState(0))):
        for name, args in (("poisson", (None,)), ("standard_gamma", (None,)), ("normal", (0.0, None))):
            with pytest.raises(TypeError):
                getattr(numpy_api, name)(*args)
            with pytest.raises(TypeError, match="not NoneType"):
                getattr(kiln_api, name)(*args)


def test_broadcast_parameters():
    rng = kiln.random.default_rng(3)
    loc = kiln.asarray(numpy.array([0.0, 100.0, -100.0]))
    x = rng.normal(loc=loc, scale=0.5, size=(2000, 3)).get()
    assert x.shape == (2000, 3)
    numpy.testing.assert_allclose(x.mean(axis=0), [0.0, 100.0, -100.0], atol=0.05)
    numpy.testing.assert_allclose(x.std(axis=0), 0.5, rtol=0.05)
    y = rng.uniform(kiln.zeros(4), kiln.asarray(numpy.arange(1.0, 5.0))).get()
    assert y.shape == (4,) and (y >= 0).all() and (y < numpy.arange(1.0, 5.0)).all()
    with pytest.raises(ValueError):
        rng.normal(loc=kiln.zeros(3), size=(2, 4))
    # array and scalar parameters give the same numbers for the same counter
    a = kiln.random.default_rng(8).exponential(2.0, size=10).get()
    b = kiln.random.default_rng(8).exponential(kiln.full((10,), 2.0)).get()
    assert numpy.array_equal(a, b)


def test_integers_bounds_and_endpoint():
    rng = kiln.random.default_rng(4)
    x = rng.integers(-3, 4, size=5000).get()
    assert x.min() == -3 and x.max() == 3
    y = rng.integers(-3, 4, size=5000, endpoint=True).get()
    assert y.max() == 4
    full = rng.integers(0, 2 ** 64, size=2000, dtype=kiln.uint64).get()
    assert full.max() > 2 ** 63   # the top bit is used
    i8 = rng.integers(-128, 128, size=4000, dtype=kiln.int8).get()
    assert i8.min() == -128 and i8.max() == 127
    big = rng.integers(0, 3 * 2 ** 40, size=4000).get()
    assert big.max() > 2 ** 41 and big.min() >= 0
    r = kiln.random.RandomState(0)
    assert r.randint(5, size=100).get().max() <= 4
    ri = r.random_integers(3, size=1000).get()
    assert ri.min() == 1 and ri.max() == 3


def test_float_bounds_truncate_toward_zero_as_numpy():
    rs = kiln.random.RandomState(3)
    x = rs.randint(-1.9, 3.9, 400).get()
    assert x.dtype == numpy.int64 and x.min() == -1 and x.max() == 2
    y = kiln.random.default_rng(3).integers(kiln.asarray([-1.5, 2.7]), 5.2, (300, 2)).get()
    assert y[:, 0].min() == -1 and y[:, 1].min() == 2 and y.max() == 4
    assert rs.randint(6.7, size=(2, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        rs.randint(float("nan"), 5)


def test_integers_array_bounds():
    rng = kiln.random.default_rng(31)
    low = kiln.asarray(numpy.array([0, 100, -50]))
    x = rng.integers(low, low + 3, size=(3000, 3)).get()
    assert x.shape == (3000, 3)
    for j, base in enumerate([0, 100, -50]):
        assert sorted(set(x[:, j].tolist())) == [base, base + 1, base + 2]
    y = rng.integers(5, numpy.array([6, 8]), endpoint=True, dtype=kiln.int16).get()
    assert y.dtype == numpy.int16 and y.shape == (2,) and 5 <= y[0] <= 6 and 5 <= y[1] <= 8
    with pytest.raises(ValueError):
        rng.integers(low, low)
    with pytest.raises(ValueError):
        rng.integers(0, kiln.asarray(numpy.array([10, 300])), dtype=kiln.uint8)
    # uint64 array bounds above 2^63 are kept as uint64, as NumPy's
    top = kiln.asarray(numpy.array([2 ** 64 - 1, 3], dtype=numpy.uint64))
    z = rng.integers(kiln.asarray(numpy.array([2 ** 63, 0], dtype=numpy.uint64)), top, size=(2000, 2),
                     dtype=kiln.uint64, endpoint=True).get()
    assert z.dtype == numpy.uint64 and z[:, 0].min() >= 2 ** 63 and sorted(set(z[:, 1].tolist())) == [0, 1, 2, 3]
    assert rng.integers(0, top[:1], size=2000, dtype=kiln.uint64).get().max() > 2 ** 63
    for low, high in ((kiln.asarray(numpy.array([-1])), top), (0, top * 0)):
        with pytest.raises(ValueError):
            rng.integers(low, high, dtype=kiln.uint64)
    with pytest.raises(ValueError):
        rng.integers(0, top, dtype=kiln.int64)


def test_integers_unbiased():
    # 3 * 2^30 values: a modulo reduction of 32-bit words would make the
    # lowest third twice as likely as the rest.
    rng = kiln.random.default_rng(12)
    x = rng.integers(0, 3 * 2 ** 30, size=N).get()
    thirds = numpy.bincount(x // 2 ** 30, minlength=3)
    assert chi_square(thirds, numpy.full(3, N / 3.0)) < chi2_critical(2)


def test_permutation_shuffle_choice():
    rng = kiln.random.default_rng(21)
    p = rng.permutation(1000).get()
    assert sorted(p.tolist()) == list(range(1000)) and p.tolist() != list(range(1000))
    x = kiln.arange(12).reshape(6, 2)
    px = rng.permutation(x).get()
    assert sorted(px[:, 0].tolist()) == [0, 2, 4, 6, 8, 10] and (px[:, 1] == px[:, 0] + 1).all()
    y = kiln.arange(50)
    rng.shuffle(y)
    assert sorted(y.get().tolist()) == list(range(50)) and y.get().tolist() != list(range(50))
    c = rng.choice(5, size=(3, 4)).get()
    assert c.shape == (3, 4) and c.min() >= 0 and c.max() < 5
    d = rng.choice(kiln.arange(10, 20), 10, replace=False).get()
    assert sorted(d.tolist()) == list(range(10, 20))
    assert rng.choice(5).shape == ()
    # a uniform permutation puts values in every (position quarter, value
    # quarter) cell equally often
    q = rng.permutation(N).get()
    cells = numpy.bincount(4 * (numpy.arange(N) * 4 // N) + q * 4 // N, minlength=16)
    assert chi_square(cells, numpy.full(16, N / 16.0)) < chi2_critical(9)


def test_choice_without_replacement_from_a_large_range():
    """Note [Choice without replacement]: for n >= 2 * size, the first
    `size` distinct values of uniform draws of range(n), in draw order (no
    permutation of n: range(2^62) could not be permuted)."""
    x = kiln.random.default_rng(4).choice(2 ** 62, 1000, replace=False).get()
    assert x.shape == (1000,) and len(set(x.tolist())) == 1000 and x.min() >= 0 and x.max() > 2 ** 61
    for api in (kiln.random.default_rng, kiln.random.RandomState):
        got = api(8).choice(300, (4, 25), replace=False).get()
        # the draws of integers/randint of the same seed (consecutive draws
        # continue the counter, so the first 400 cover any second batch)
        draws = (api(8).integers if api is kiln.random.default_rng else api(8).randint)(0, 300, 400).get()
        first = numpy.sort(numpy.unique(draws, return_index=True)[1])[:100]
        assert got.ravel().tolist() == draws[first].tolist()
        assert api(8).choice(kiln.arange(300) * 2, 100, replace=False).get().tolist() == (2 * draws[first]).tolist()


def test_choice_with_probabilities():
    rng = kiln.random.default_rng(5)
    p = numpy.array([0.1, 0.0, 0.6, 0.3])
    x = rng.choice(4, size=N, p=p).get()
    counts = numpy.bincount(x, minlength=4)
    assert counts[1] == 0
    keep = p > 0
    assert chi_square(counts[keep], N * p[keep]) < chi2_critical(2)
    y = rng.choice(4, size=3, replace=False, p=p).get()
    assert sorted(y.tolist()) == [0, 2, 3]
    with pytest.raises(ValueError):
        rng.choice(4, size=4, replace=False, p=p)


# ---- exact CDFs and pmfs ----
def normal_cdf(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


_erf = numpy.vectorize(math.erf)
_lgamma = numpy.vectorize(math.lgamma)


def gammainc(a, x):
    """Regularised lower incomplete gamma P(a, x), elementwise: the series
    below a + 1, Lentz's continued fraction for Q above."""
    x = numpy.asarray(x, dtype=numpy.float64)
    out = numpy.zeros_like(x)
    pos = x > 0
    lead = numpy.where(pos, numpy.exp(-x + a * numpy.log(numpy.where(pos, x, 1.0)) - math.lgamma(a)), 0.0)
    low = pos & (x < a + 1)
    if low.any():
        xs = x[low]
        term = numpy.full_like(xs, 1.0 / a)
        total = term.copy()
        for n in range(1, 500):
            term = term * xs / (a + n)
            total += term
        out[low] = total * lead[low]
    high = pos & ~low
    if high.any():
        xs = x[high]
        tiny = 1e-300
        b = xs + 1.0 - a
        c = numpy.full_like(xs, 1.0 / tiny)
        d = 1.0 / b
        h = d.copy()
        for i in range(1, 300):
            an = -i * (i - a)
            b = b + 2.0
            d = an * d + b
            d = numpy.where(numpy.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = numpy.where(numpy.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            h = h * d * c
        out[high] = 1.0 - lead[high] * h
    return out


def betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b), elementwise (continued
    fraction, with the symmetry I_x(a, b) = 1 - I_{1-x}(b, a))."""
    x = numpy.clip(numpy.asarray(x, dtype=numpy.float64), 0.0, 1.0)
    flip = x > (a + 1.0) / (a + b + 2.0)
    aa, bb = numpy.where(flip, b, a), numpy.where(flip, a, b)
    xx = numpy.where(flip, 1.0 - x, x)
    inner = (xx > 0) & (xx < 1)
    xs = numpy.where(inner, xx, 0.5)
    lbeta = numpy.vectorize(math.lgamma)(aa + bb) - numpy.vectorize(math.lgamma)(aa) - \
        numpy.vectorize(math.lgamma)(bb)
    front = numpy.exp(lbeta + aa * numpy.log(xs) + bb * numpy.log1p(-xs)) / aa
    tiny = 1e-300
    c = numpy.ones_like(xs)
    d = 1.0 - (aa + bb) * xs / (aa + 1.0)
    d = 1.0 / numpy.where(numpy.abs(d) < tiny, tiny, d)
    h = d.copy()
    for m in range(1, 300):
        for num in (m * (bb - m) * xs / ((aa + 2 * m - 1) * (aa + 2 * m)),
                    -(aa + m) * (aa + bb + m) * xs / ((aa + 2 * m) * (aa + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / numpy.where(numpy.abs(d) < tiny, tiny, d)
            c = 1.0 + num / c
            c = numpy.where(numpy.abs(c) < tiny, tiny, c)
            h = h * d * c
    value = numpy.where(inner, front * h, numpy.where(xx <= 0, 0.0, 1.0))
    return numpy.where(flip, 1.0 - value, value)


def t_cdf(df, t):
    t = numpy.asarray(t, dtype=numpy.float64)
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return numpy.where(t > 0, 1.0 - tail, tail)


def ks_statistic(samples, cdf):
    x = numpy.sort(numpy.asarray(samples, dtype=numpy.float64))
    f = cdf(x)
    n = len(x)
    return max((numpy.arange(1, n + 1) / n - f).max(), (f - numpy.arange(n) / n).max())


def chi_square(observed, expected):
    observed, expected = numpy.asarray(observed, float), numpy.asarray(expected, float)
    return float(((observed - expected) ** 2 / expected).sum())


def chi2_critical(k, z=3.09):
    """The 99.9% quantile of chi-square with k degrees of freedom (Wilson-Hilferty)."""
    return k * (1.0 - 2.0 / (9 * k) + z * math.sqrt(2.0 / (9 * k))) ** 3


def discrete_chi_square(samples, pmf, support_max):
    """Chi-square of integer samples against pmf(k), cells with expected
    counts below 5 merged into the tails."""
    n = len(samples)
    ks = numpy.arange(support_max + 1)
    expected = n * pmf(ks)
    counts = numpy.bincount(numpy.clip(samples, 0, support_max + 1), minlength=support_max + 2)
    observed = list(counts[:support_max + 1])
    exp = list(expected)
    observed.append(counts[support_max + 1])
    exp.append(n - expected.sum())
    cells_o, cells_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(observed, exp):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    if cells_e:
        cells_o[-1] += acc_o
        cells_e[-1] += acc_e
    return chi_square(cells_o, cells_e), len(cells_o) - 1


SQRT2PI = math.sqrt(2 * math.pi)
# name: (call, cdf, mean, variance); call(rng, size, dtype)
CONTINUOUS = {
    "random": (lambda r, n, dt: r.random(n, dtype=dt), lambda x: x, 0.5, 1 / 12),
    "uniform": (lambda r, n, dt: r.uniform(-2.0, 3.0, n, dtype=dt), lambda x: (x + 2.0) / 5.0, 0.5, 25 / 12),
    "standard_normal": (lambda r, n, dt: r.standard_normal(n, dtype=dt), normal_cdf, 0.0, 1.0),
    "normal": (lambda r, n, dt: r.normal(3.0, 2.0, n, dtype=dt), lambda x: normal_cdf((x - 3.0) / 2.0), 3.0, 4.0),
    "lognormal": (lambda r, n, dt: r.lognormal(0.5, 0.4, n, dtype=dt),
                  lambda x: normal_cdf((numpy.log(x) - 0.5) / 0.4), math.exp(0.5 + 0.08),
                  (math.exp(0.16) - 1) * math.exp(1.0 + 0.16)),
    "exponential": (lambda r, n, dt: r.exponential(2.0, n, dtype=dt), lambda x: 1 - numpy.exp(-x / 2.0), 2.0, 4.0),
    "standard_exponential": (lambda r, n, dt: r.standard_exponential(n, dtype=dt), lambda x: 1 - numpy.exp(-x),
                             1.0, 1.0),
    "laplace": (lambda r, n, dt: r.laplace(1.0, 2.0, n, dtype=dt),
                lambda x: numpy.where(x < 1.0, 0.5 * numpy.exp((x - 1.0) / 2.0),
                                      1 - 0.5 * numpy.exp(-(x - 1.0) / 2.0)), 1.0, 8.0),
    "logistic": (lambda r, n, dt: r.logistic(1.0, 0.5, n, dtype=dt),
                 lambda x: 1 / (1 + numpy.exp(-(x - 1.0) / 0.5)), 1.0, math.pi ** 2 * 0.25 / 3),
    "gumbel": (lambda r, n, dt: r.gumbel(1.0, 2.0, n, dtype=dt), lambda x: numpy.exp(-numpy.exp(-(x - 1.0) / 2.0)),
               1.0 + 2.0 * numpy.euler_gamma, math.pi ** 2 / 6 * 4.0),
    "rayleigh": (lambda r, n, dt: r.rayleigh(2.0, n, dtype=dt), lambda x: 1 - numpy.exp(-x * x / 8.0),
                 2.0 * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * 4.0),
    "weibull": (lambda r, n, dt: r.weibull(1.5, n, dtype=dt), lambda x: 1 - numpy.exp(-x ** 1.5),
                math.gamma(1 + 1 / 1.5), math.gamma(1 + 2 / 1.5) - math.gamma(1 + 1 / 1.5) ** 2),
    "pareto": (lambda r, n, dt: r.pareto(10.0, n, dtype=dt), lambda x: 1 - (1 + x) ** -10.0, 1 / 9,
               10.0 / (81 * 8)),
    "standard_cauchy": (lambda r, n, dt: r.standard_cauchy(n, dtype=dt), lambda x: 0.5 + numpy.arctan(x) / math.pi,
                        None, None),
    "triangular": (lambda r, n, dt: r.triangular(-1.0, 0.5, 2.0, n, dtype=dt),
                   lambda x: numpy.where(x <= 0.5, (x + 1.0) ** 2 / (3.0 * 1.5), 1 - (2.0 - x) ** 2 / (3.0 * 1.5)),
                   0.5, (1 + 0.25 + 4 - (-0.5) - (-2.0) - 1.0) / 18),
    "gamma": (lambda r, n, dt: r.gamma(2.5, 1.5, n, dtype=dt), lambda x: gammainc(2.5, x / 1.5), 3.75, 2.5 * 2.25),
    "gamma_small_shape": (lambda r, n, dt: r.gamma(0.4, 1.0, n, dtype=dt), lambda x: gammainc(0.4, x), 0.4, 0.4),
    "standard_gamma": (lambda r, n, dt: r.standard_gamma(7.0, n, dtype=dt), lambda x: gammainc(7.0, x), 7.0, 7.0),
    "beta": (lambda r, n, dt: r.beta(2.0, 5.0, n, dtype=dt), lambda x: betainc(2.0, 5.0, x), 2 / 7,
             10 / (49 * 8)),
    "beta_small": (lambda r, n, dt: r.beta(0.5, 0.7, n, dtype=dt), lambda x: betainc(0.5, 0.7, x), 0.5 / 1.2,
                   0.35 / (1.44 * 2.2)),
    "chisquare": (lambda r, n, dt: r.chisquare(3.0, n, dtype=dt), lambda x: gammainc(1.5, x / 2.0), 3.0, 6.0),
    "standard_t": (lambda r, n, dt: r.standard_t(6.0, n, dtype=dt), lambda x: t_cdf(6.0, x), 0.0, 1.5),
    "power": (lambda r, n, dt: r.power(3.0, n, dtype=dt), lambda x: x ** 3, 0.75, 3 / 80),
    "f": (lambda r, n, dt: r.f(5.0, 20.0, n, dtype=dt), lambda x: betainc(2.5, 10.0, 5 * x / (5 * x + 20.0)),
          20 / 18, 2 * 400 * 23 / (5 * 324 * 16)),
    "noncentral_chisquare": (lambda r, n, dt: r.noncentral_chisquare(3.0, 2.0, n, dtype=dt),
                             lambda x: noncentral_chi2_cdf(3.0, 2.0, x), 5.0, 14.0),
    "noncentral_chisquare_small_df": (lambda r, n, dt: r.noncentral_chisquare(0.8, 1.5, n, dtype=dt),
                                      lambda x: noncentral_chi2_cdf(0.8, 1.5, x), 2.3, 7.6),
    "noncentral_f": (lambda r, n, dt: r.noncentral_f(4.0, 20.0, 2.0, n, dtype=dt),
                     lambda x: noncentral_f_cdf(4.0, 20.0, 2.0, x), 20 * (4 + 2) / (4 * 18),
                     2 * (20 / 4) ** 2 * ((4 + 2) ** 2 + (4 + 4) * 18) / (18 ** 2 * 16)),
    "wald": (lambda r, n, dt: r.wald(1.5, 3.0, n, dtype=dt), lambda x: wald_cdf(1.5, 3.0, x), 1.5, 1.125),
    "vonmises": (lambda r, n, dt: r.vonmises(0.5, 2.0, n, dtype=dt), lambda x: vonmises_cdf(0.5, 2.0, x),
                 None, None),
    "vonmises_concentrated": (lambda r, n, dt: r.vonmises(-3.0, 40.0, n, dtype=dt),
                              lambda x: vonmises_cdf(-3.0, 40.0, x), None, None),
}


def vonmises_cdf(mu, kappa, x):
    """By the trapezoid rule on a fine grid of [-pi, pi] (normalised there)."""
    grid = numpy.linspace(-math.pi, math.pi, 400001)
    density = numpy.exp(kappa * (numpy.cos(grid - mu) - 1.0))
    cdf = numpy.concatenate([[0.0], numpy.cumsum((density[1:] + density[:-1]) / 2)])
    return numpy.interp(x, grid, cdf / cdf[-1])


def noncentral_chi2_cdf(df, nonc, x):
    """A Poisson(nonc / 2) mixture of central chi-square CDFs."""
    total = numpy.zeros_like(numpy.asarray(x, dtype=numpy.float64))
    for j in range(60):
        weight = math.exp(-nonc / 2 + j * math.log(nonc / 2) - math.lgamma(j + 1))
        total += weight * gammainc(df / 2 + j, numpy.asarray(x) / 2)
    return total


def noncentral_f_cdf(dfnum, dfden, nonc, x):
    """A Poisson(nonc / 2) mixture of central F CDFs (incomplete betas)."""
    x = numpy.asarray(x, dtype=numpy.float64)
    t = dfnum * x / (dfnum * x + dfden)
    total = numpy.zeros_like(x)
    for j in range(25):
        weight = math.exp(-nonc / 2 + j * math.log(nonc / 2) - math.lgamma(j + 1))
        total += weight * betainc(dfnum / 2 + j, dfden / 2, t)
    return total


def wald_cdf(mean, scale, x):
    r = numpy.sqrt(scale / x)
    return normal_cdf(r * (x / mean - 1)) + math.exp(2 * scale / mean) * normal_cdf(-r * (x / mean + 1))


def check_continuous(x, cdf, mean, var):
    n = len(x)
    assert numpy.isfinite(x).all()
    d = ks_statistic(x, cdf)
    assert d < 1.95 / math.sqrt(n), "KS statistic %g over %g" % (d, 1.95 / math.sqrt(n))
    if mean is not None:
        assert abs(x.mean() - mean) < 5 * math.sqrt(var / n), (x.mean(), mean)
        assert abs(x.var() / var - 1) < 0.1, (x.var(), var)


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_distribution_float64(name):
    call, cdf, mean, var = CONTINUOUS[name]
    x = call(kiln.random.default_rng(1000 + len(name)), N, kiln.float64)
    assert x.dtype == numpy.float64 and x.shape == (N,)
    check_continuous(x.get(), cdf, mean, var)


@pytest.mark.parametrize("name", ["random", "standard_normal", "normal", "exponential", "gamma",
                                  "gamma_small_shape", "beta", "standard_t", "standard_cauchy"])
def test_continuous_distribution_float32(name):
    call, cdf, mean, var = CONTINUOUS[name]
    x = call(kiln.random.RandomState(77), N, kiln.float32)
    assert x.dtype == numpy.float32 and x.shape == (N,)
    check_continuous(x.get().astype(numpy.float64), cdf, mean, var)


def binomial_pmf(n, p):
    return lambda k: numpy.exp(numpy.vectorize(math.lgamma)(n + 1.0) - numpy.vectorize(math.lgamma)(k + 1.0)
                               - numpy.vectorize(math.lgamma)(n - k + 1.0) + k * math.log(p)
                               + (n - k) * math.log1p(-p))


def poisson_pmf(lam):
    return lambda k: numpy.exp(-lam + k * math.log(lam) - numpy.vectorize(math.lgamma)(k + 1.0))


def hypergeometric_pmf(good, bad, sample):
    def lchoose(a, k):
        return _lgamma(a + 1.0) - _lgamma(k + 1.0) - _lgamma(a - k + 1.0)
    def pmf(k):
        k = numpy.asarray(k, dtype=numpy.float64)
        ok = (k <= good) & (sample - k <= bad) & (k >= 0) & (k <= sample)
        kk = numpy.where(ok, k, 0.0)
        value = numpy.exp(lchoose(good, kk) + lchoose(bad, sample - kk) - lchoose(good + bad, sample))
        return numpy.where(ok, value, 0.0)
    return pmf


def zeta(a, terms=1000):
    """Riemann's zeta(a), a > 1: a partial sum and its Euler-Maclaurin tail."""
    k = numpy.arange(1, terms, dtype=numpy.float64)
    n = float(terms)
    return float((k ** -a).sum() + n ** (1 - a) / (a - 1) + n ** -a / 2 + a * n ** (-a - 1) / 12)


ZETA2, ZETA3, ZETA4 = zeta(2.0), zeta(3.0), zeta(4.0)

# name: (call, pmf, support bound for the cells, mean, variance)
DISCRETE = {
    "poisson_small": (lambda r, n: r.poisson(3.5, n), poisson_pmf(3.5), 20, 3.5, 3.5),
    "poisson_large": (lambda r, n: r.poisson(150.0, n), poisson_pmf(150.0), 250, 150.0, 150.0),
    "poisson_ptrs_low": (lambda r, n: r.poisson(12.0, n), poisson_pmf(12.0), 40, 12.0, 12.0),
    "binomial_btrd_low": (lambda r, n: r.binomial(40, 0.3, n), binomial_pmf(40, 0.3), 40, 12.0, 8.4),
    "binomial_small": (lambda r, n: r.binomial(20, 0.3, n), binomial_pmf(20, 0.3), 20, 6.0, 4.2),
    "binomial_large": (lambda r, n: r.binomial(1000, 0.4, n), binomial_pmf(1000, 0.4), 1000, 400.0, 240.0),
    "binomial_high_p": (lambda r, n: r.binomial(200, 0.9, n), binomial_pmf(200, 0.9), 200, 180.0, 18.0),
    "negative_binomial": (lambda r, n: r.negative_binomial(4, 0.35, n),
                          lambda k: numpy.exp(_lgamma(k + 4.0) - _lgamma(k + 1.0) - math.lgamma(4.0)
                                              + 4 * math.log(0.35) + k * math.log(0.65)),
                          80, 4 * 0.65 / 0.35, 4 * 0.65 / 0.35 ** 2),
    "zipf": (lambda r, n: r.zipf(4.0, n), lambda k: numpy.where(k >= 1, numpy.maximum(k, 1.0) ** -4.0 / ZETA4, 0.0),
             40, ZETA3 / ZETA4, ZETA2 / ZETA4 - (ZETA3 / ZETA4) ** 2),
    "logseries": (lambda r, n: r.logseries(0.6, n),
                  lambda k: numpy.where(k >= 1, -0.6 ** numpy.maximum(k, 1.0) / (numpy.maximum(k, 1.0)
                                                                                  * math.log(0.4)), 0.0),
                  40, -0.6 / (0.4 * math.log(0.4)), -0.6 * (0.6 + math.log(0.4)) / (0.16 * math.log(0.4) ** 2)),
    "hypergeometric": (lambda r, n: r.hypergeometric(30, 50, 25, n), hypergeometric_pmf(30, 50, 25), 25,
                       25 * 30 / 80, 25 * (30 / 80) * (50 / 80) * (80 - 25) / 79),
    "hypergeometric_large": (lambda r, n: r.hypergeometric(3000, 7000, 500, n), hypergeometric_pmf(3000, 7000, 500),
                             500, 150.0, 500 * 0.3 * 0.7 * 9500 / 9999),
    "geometric": (lambda r, n: r.geometric(0.3, n), lambda k: numpy.where(k >= 1, 0.3 * 0.7 ** (k - 1.0), 0.0),
                  60, 1 / 0.3, 0.7 / 0.09),
    "integers": (lambda r, n: r.integers(0, 17, n), lambda k: numpy.where(k < 17, 1 / 17, 0.0), 17, 8.0,
                 (17 ** 2 - 1) / 12),
}


@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_discrete_distribution(name):
    call, pmf, top, mean, var = DISCRETE[name]
    x = call(kiln.random.default_rng(500 + len(name)), N)
    assert x.dtype == numpy.int64
    x = x.get()
    assert x.min() >= 0
    stat, dof = discrete_chi_square(x, pmf, top)
    assert stat < chi2_critical(dof), (stat, dof)
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / len(x))


def test_hypergeometric_edges_and_bytes():
    rng = kiln.random.default_rng(41)
    assert rng.hypergeometric(5, 0, 3, size=10).get().tolist() == [3] * 10
    assert rng.hypergeometric(0, 5, 3, size=4).get().tolist() == [0] * 4
    assert rng.hypergeometric(7, 3, 10, size=2).get().tolist() == [7, 7]
    with pytest.raises(ValueError):
        rng.hypergeometric(2, 2, 5)
    # nsample = 0: Generator gives zeros, RandomState raises, as NumPy's two APIs
    assert numpy.random.default_rng(0).hypergeometric(5, 5, 0, size=3).tolist() == [0] * 3
    assert rng.hypergeometric(5, 5, 0, size=3).get().tolist() == [0] * 3
    for nsample in (0, kiln.asarray(numpy.array([1, 0]))):
        with pytest.raises(ValueError, match="nsample < 1"):
            numpy.random.RandomState(0).hypergeometric(5, 5, nsample if isinstance(nsample, int) else nsample.get())
        with pytest.raises(ValueError, match="nsample < 1"):
            kiln.random.RandomState(0).hypergeometric(5, 5, nsample)
    assert kiln.random.hypergeometric(5, 5, 1, size=2).shape == (2,)
    b = kiln.random.default_rng(9).bytes(10)
    assert isinstance(b, bytes) and len(b) == 10
    words = model_words(9, 0, 3)
    assert b == numpy.array(words, dtype="<u4").tobytes()[:10]


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
def test_multivariate_normal(method):
    mean = numpy.array([1.0, -2.0, 0.5])
    cov = numpy.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    x = kiln.random.default_rng(13).multivariate_normal(mean, cov, size=N, method=method)
    assert x.shape == (N, 3) and x.dtype == numpy.float64
    x = x.get()
    numpy.testing.assert_allclose(x.mean(axis=0), mean, atol=5 * math.sqrt(2.0 / N))
    numpy.testing.assert_allclose(numpy.cov(x.T), cov, atol=0.06)
    w = numpy.array([0.3, -1.0, 2.0])   # a projection is normal with variance w^T cov w
    check_continuous((x - mean) @ w / math.sqrt(w @ cov @ w), normal_cdf, 0.0, 1.0)


def test_multivariate_normal_checks():
    rng = kiln.random.default_rng(2)
    y = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], size=(2, 5), dtype=kiln.float32)
    assert y.shape == (2, 5, 2) and y.dtype == numpy.float32
    bad = [[1.0, 2.0], [2.0, 1.0]]   # eigenvalues 3 and -1
    with pytest.raises(ValueError):
        rng.multivariate_normal([0.0, 0.0], bad, check_valid="raise")
    with pytest.warns(RuntimeWarning):
        rng.multivariate_normal([0.0, 0.0], bad)
    with pytest.raises(ValueError):
        rng.multivariate_normal([0.0, 0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(kiln.linalg.LinAlgError):   # NumPy's cholesky refuses it too
        rng.multivariate_normal([0.0, 0.0], bad, method="cholesky")
    # kiln arrays as parameters (the factor is computed on their device) give the same draws
    mean, cov = [1.0, 2.0], [[2.0, 0.5], [0.5, 1.0]]
    for method in ("svd", "eigh", "cholesky"):
        a = kiln.random.default_rng(4).multivariate_normal(mean, cov, size=7, method=method)
        b = kiln.random.default_rng(4).multivariate_normal(kiln.asarray(mean), kiln.asarray(cov), size=7,
                                                           method=method)
        numpy.testing.assert_array_equal(a.get(), b.get())


def test_legacy_functions_exist_and_draw():
    kiln.random.seed(3)
    r = kiln.random
    for x in (r.rand(2, 3), r.randn(2, 3), r.random_sample((2, 3)), r.random((2, 3)), r.uniform(size=(2, 3)),
              r.normal(size=(2, 3)), r.standard_normal((2, 3)), r.exponential(size=(2, 3)),
              r.gamma(2.0, size=(2, 3)), r.beta(1.0, 2.0, (2, 3)), r.lognormal(size=(2, 3)),
              r.randint(0, 5, (2, 3)), r.random_integers(1, 6, (2, 3)), r.poisson(1.0, (2, 3)),
              r.binomial(5, 0.5, (2, 3)), r.choice(4, (2, 3)), r.standard_cauchy((2, 3))):
        assert x.shape == (2, 3)
    assert r.permutation(5).shape == (5,)
    y = kiln.arange(5)
    r.shuffle(y)
    assert sorted(y.get().tolist()) == [0, 1, 2, 3, 4]
