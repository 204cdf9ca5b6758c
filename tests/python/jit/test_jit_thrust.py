"""kiln.jit.thrust: Thrust's algorithms run by one thread over its row of an
array (partial indexing, begin()/end(), strided iterators for any layout),
over shared memory with pointer arithmetic, and the iterator makers
(Note [kiln.jit.thrust] in transpiler/thrust.h), against NumPy."""
import numpy
import pytest

import kiln
from kiln import jit


@jit.rawkernel()
def per_row(x, keys, vals, out, stats):
    i = jit.threadIdx.x
    row = x[i]                                   # a view of row i
    k = keys[i]
    jit.thrust.sort_by_key(jit.thrust.device, k.begin(), k.end(), vals[i].begin())
    stats[i, 0] = jit.thrust.count(jit.thrust.device, row.begin(), row.end(), 2)
    stats[i, 1] = jit.thrust.find(jit.thrust.seq, row.begin(), row.end(), 3) - row.begin()
    stats[i, 2] = jit.thrust.reduce(jit.thrust.seq, row.begin(), row.end(), 100)
    o = out[i]
    jit.thrust.inclusive_scan(jit.thrust.seq, row.begin(), row.end(), o.begin())
    jit.thrust.stable_sort(jit.thrust.seq, row.begin(), row.end())
    n = jit.thrust.unique(jit.thrust.seq, row.begin(), row.end()) - row.begin()
    stats[i, 3] = n
    stats[i, 4] = jit.thrust.lower_bound(jit.thrust.seq, row.begin(), row.begin() + n, 2) - row.begin()
    stats[i, 5] = jit.thrust.is_sorted(jit.thrust.seq, o.begin(), o.end())


@pytest.mark.parametrize("order", ["C", "F"])
def test_algorithms_on_rows(order):
    rng = numpy.random.default_rng(3)
    x = rng.integers(0, 5, (8, 24)).astype(numpy.int32)
    keys = numpy.stack([rng.permutation(24) for _ in range(8)]).astype(numpy.int64)
    vals = rng.random((8, 24))
    kx, kk, kv = (kiln.asarray(numpy.asarray(a, order=order)) for a in (x, keys, vals))
    out = kiln.zeros((8, 24), dtype=kiln.int32)
    stats = kiln.zeros((8, 6), dtype=kiln.int64)
    per_row[1, 8](kx, kk, kv, out, stats)
    order_ = numpy.argsort(keys, axis=1)
    numpy.testing.assert_array_equal(kiln.asnumpy(kk), numpy.sort(keys, axis=1))
    numpy.testing.assert_array_equal(kiln.asnumpy(kv), numpy.take_along_axis(vals, order_, axis=1))
    numpy.testing.assert_array_equal(kiln.asnumpy(out), numpy.cumsum(x, axis=1))
    s = kiln.asnumpy(stats)
    for i in range(8):
        u = numpy.unique(x[i])
        found = numpy.flatnonzero(x[i] == 3)
        assert s[i].tolist() == [(x[i] == 2).sum(), found[0] if found.size else 24, x[i].sum() + 100, u.size,
                                 numpy.searchsorted(u, 2), 1]
        numpy.testing.assert_array_equal(kiln.asnumpy(kx)[i, :u.size], u)


@jit.rawkernel()
def one_thread(a, b, out, sizes):
    smem = jit.shared_memory(kiln.int64, 16)
    jit.thrust.sequence(jit.thrust.seq, smem, smem + 16, 0, 3)          # 0, 3, ..., 45
    sizes[0] = jit.thrust.set_intersection(jit.thrust.seq, a.begin(), a.end(), smem, smem + 16,
                                           out.begin()) - out.begin()
    first, second = jit.thrust.mismatch(jit.thrust.seq, a.begin(), a.end(), b.begin())
    sizes[1] = first - a.begin()
    sizes[2] = second - b.begin()
    c = jit.thrust.make_counting_iterator(5)
    k = jit.thrust.make_constant_iterator(7)
    sizes[3] = c[4] * 10 + k[100]
    lo, hi = jit.thrust.equal_range(jit.thrust.seq, a.begin(), a.end(), 9)
    sizes[4] = hi - lo


def test_shared_memory_pointers_pairs_and_makers():
    a = kiln.asarray(numpy.array([1, 3, 6, 9, 9, 12, 20], dtype=numpy.int64))
    b = kiln.asarray(numpy.array([1, 3, 6, 8, 9, 12, 20], dtype=numpy.int64))
    out = kiln.zeros(8, dtype=kiln.int64)
    sizes = kiln.zeros(5, dtype=kiln.int64)
    one_thread[1, 1](a, b, out, sizes)
    assert kiln.asnumpy(sizes).tolist() == [4, 3, 3, 97, 2]
    assert kiln.asnumpy(out)[:4].tolist() == [3, 6, 9, 12]


def _kernel(body):
    ns = {"jit": jit, "kiln": kiln}
    source = "def k(x, y):\n" + "".join("    " + line + "\n" for line in body)
    exec(compile(source, "thrust_errors.py", "exec"), ns)
    return jit.rawkernel(source=source)(ns["k"])


@pytest.mark.parametrize("body, exc, message", [
    (["jit.thrust.sort(x.begin(), x.end())"], TypeError, "takes 3 arguments, the policy first"),
    (["jit.thrust.sort(jit.thrust.seq, x[0], x.end())"], TypeError, "a range is two iterators"),
    (["y[0] = x.begin() - y.begin()"], TypeError, "iterators of different kinds cannot be subtracted"),
    (["x[0] = 1"], TypeError, "is indexed with fewer indices than it has dimensions"),
])
def test_thrust_errors(body, exc, message):
    with pytest.raises(exc, match=message):
        _kernel(body)[1, 1](kiln.zeros((2, 3), dtype=kiln.int32), kiln.zeros(3, dtype=kiln.float32))
