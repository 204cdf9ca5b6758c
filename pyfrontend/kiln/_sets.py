"""Set routines on sorted data: unique (and the array API's unique_values,
unique_counts, unique_inverse, unique_all), isin, intersect1d, union1d,
setdiff1d, setxor1d.

    kiln.unique(a, return_counts=True)      # sort, mark group starts, scan, scatter
    kiln.isin(a, b)                         # b sorted once, a binary search per element

Note [Unique by sorting]
unique sorts the flattened input with its permutation (the sort engine),
marks each sorted element that differs from its predecessor (NaNs equal to
each other with equal_nan, as NumPy's unique: for complex, any NaN part),
scans the marks into group numbers (the scan engine) and scatters: the
values and first indices of group starts, each element's group to its
original place (inverse), and counts as differences of group starts. With
an axis, rows (the subarrays along it) are sorted lexicographically by
stable sorts of their columns, last column first. Only the number of groups
comes to the host, to size the results. Searches (isin, intersect1d's
indices) compare keys with the sort's own order (kiln::sort::key_less), so
NaNs and -0.0 are placed as the sort placed them; membership is then ==,
so a NaN is never found, as in NumPy.
"""
import collections

import numpy

from kiln import _core
from kiln import _creation
from kiln._core import ndarray
from kiln._manipulation import _asarray, _axis, concatenate, moveaxis
from kiln._sorting import _gather_rows, _sort_axis
from kiln._ufunc_methods import _ctype

UniqueAllResult = collections.namedtuple("UniqueAllResult", "values indices inverse_indices counts")
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", "values counts")
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", "values inverse_indices")

_INCLUDE = "#include <kiln/ufunc_math.h>\n"
_specs = {}


def _launch(key, params, operation, args, size, preamble=""):
    """Runs `operation` for i in [0, size) (raw-array kernels), one spec a key."""
    spec = _specs.get(key)
    if spec is None:
        spec = _core._EwSpec("_".join(str(k) for k in key), params, operation, preamble=_INCLUDE + preamble,
                             options=_core._EXACT_FP_OPTIONS)
        _specs[key] = spec
    if size:
        _core._elementwise_launch(spec, args, (size,))


def _equal_expr(dtype, equal_nan):
    """Device expression: a and b are one value for unique."""
    if dtype.kind == "c":
        isnan = "(%s.real() != %s.real() || %s.imag() != %s.imag())"
        eq = "(a.real() == b.real() && a.imag() == b.imag())"
        return "(%s || (%d && %s && %s))" % (eq, equal_nan, isnan % (("a",) * 4), isnan % (("b",) * 4))
    if dtype.kind == "f":
        fa, fb = ("(float)a", "(float)b") if dtype.itemsize == 2 else ("a", "b")
        return "(%s == %s || (%d && %s != %s && %s != %s))" % (fa, fb, equal_nan, fa, fa, fb, fb)
    return "(a == b)"


def _group_starts(rows, equal_nan):
    """int64 marks of the (R, L) C-contiguous sorted rows: 1 where a row
    differs from the one before (and at row 0)."""
    r, width = rows.shape
    c = _ctype(rows.dtype)
    marks = _creation.empty((r,), numpy.int64)
    _launch(("sets_starts", rows.dtype.name, bool(equal_nan)),
            [("k", c, "", "raw"), ("w", "long long", "", "in"), ("f", "long long", "", "raw")],
            "long long s = i == 0;\n"
            "for (long long q = 0; q < w && !s; ++q) {\n"
            "  const %s a = k[(i - 1) * w + q], b = k[i * w + q];\n"
            "  if (!%s) s = 1;\n}\nf[i] = s;" % (c, _equal_expr(rows.dtype, equal_nan)),
            [rows, numpy.int64(width), marks], r)
    return marks


def _inclusive_sum(x):
    """Running sum of the 1-D int64 x (the scan engine)."""
    out = _creation.empty(x.shape, numpy.int64)
    if x.size:
        _core._scan_rows(x.reshape(1, -1), out.reshape(1, -1), "kiln_sets_cumsum", "a + b")
    return out


def _last(x):
    return int(x[x.shape[0] - 1:].get()[0]) if x.shape[0] else 0


def _unique_rows(rows, perm, equal_nan, want_index, want_inverse, want_counts):
    """Unique of the sorted (R, L) rows, perm their original positions:
    (values (U, L), first index, inverse, counts), None where not wanted."""
    r, width = rows.shape
    marks = _group_starts(rows, equal_nan)
    group = _inclusive_sum(marks)           # 1 + group of each sorted row
    u = _last(group)
    c = _ctype(rows.dtype)
    values = _creation.empty((u, width), rows.dtype)
    _launch(("sets_values", rows.dtype.name),
            [("k", c, "", "raw"), ("f", "long long", "", "raw"), ("g", "long long", "", "raw"),
             ("w", "long long", "", "in"), ("v", c, "", "raw")],
            "if (f[i]) for (long long q = 0; q < w; ++q) v[(g[i] - 1) * w + q] = k[i * w + q];",
            [rows, marks, group, numpy.int64(width), values], r)
    index = inverse = counts = None
    if want_index:
        index = _creation.empty((u,), numpy.int64)
        _launch(("sets_first",), [("p", "long long", "", "raw"), ("f", "long long", "", "raw"),
                                  ("g", "long long", "", "raw"), ("o", "long long", "", "raw")],
                "if (f[i]) o[g[i] - 1] = p[i];", [perm, marks, group, index], r)
    if want_inverse:
        inverse = _creation.empty((r,), numpy.int64)
        _launch(("sets_inverse",), [("p", "long long", "", "raw"), ("g", "long long", "", "raw"),
                                    ("o", "long long", "", "raw")],
                "o[p[i]] = g[i] - 1;", [perm, group, inverse], r)
    if want_counts:
        starts = _creation.empty((u,), numpy.int64)
        _launch(("sets_group_start",), [("f", "long long", "", "raw"), ("g", "long long", "", "raw"),
                                        ("o", "long long", "", "raw")],
                "if (f[i]) o[g[i] - 1] = i;", [marks, group, starts], r)
        counts = _creation.empty((u,), numpy.int64)
        _launch(("sets_counts",), [("s", "long long", "", "raw"), ("u", "long long", "", "in"),
                                   ("r", "long long", "", "in"), ("o", "long long", "", "raw")],
                "o[i] = (i + 1 < u ? s[i + 1] : r) - s[i];", [starts, numpy.int64(u), numpy.int64(r), counts], u)
    return values, index, inverse, counts


def _sorted_with_perm(flat):
    keys = _creation.empty(flat.shape, flat.dtype)
    perm = _creation.empty(flat.shape, numpy.int64)
    _sort_axis(flat, 0, keys_out=keys, index_out=perm)
    return keys, perm


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """Sorted unique elements (or subarrays along `axis`), with NumPy's
    optional first indices, inverse and counts (Note [Unique by sorting]).
    ``sorted=False`` still returns them sorted, which NumPy allows."""
    a = _asarray(ar)
    extra = []
    if axis is None:
        flat = a.reshape(-1)
        keys, perm = _sorted_with_perm(flat)
        values, index, inverse, counts = _unique_rows(keys.reshape(-1, 1), perm, equal_nan, return_index,
                                                      return_inverse, return_counts)
        values = values.reshape(-1)
        if inverse is not None:
            inverse = inverse.reshape(a.shape)
    else:
        axis = _axis(axis, a.ndim)
        moved = moveaxis(a, axis, 0)
        rest = moved.shape[1:]
        r = moved.shape[0]
        width = int(numpy.prod(rest, dtype=numpy.int64))
        rows = moved.reshape(r, width).astype(a.dtype, order="C", copy=False)
        perm = _creation.arange(r, dtype=numpy.int64)
        for q in range(width - 1, -1, -1):   # LSD: last column first
            col = _gather_rows(rows[:, q:q + 1].astype(a.dtype, order="C").reshape(1, r), perm.reshape(1, r))
            step = _creation.empty((1, r), numpy.int64)
            if r:
                _core._sort_rows(col, None, step)
            perm = _gather_rows(perm.reshape(1, r), step).reshape(r)
        ordered = _gather_rows(rows.reshape(1, r * width), _row_offsets(perm, width)).reshape(r, width)
        values, index, inverse, counts = _unique_rows(ordered, perm, equal_nan, return_index, return_inverse,
                                                      return_counts)
        values = moveaxis(values.reshape((values.shape[0],) + tuple(rest)), 0, axis)
    for want, x in ((return_index, index), (return_inverse, inverse), (return_counts, counts)):
        if want:
            extra.append(x)
    return (values, *extra) if extra else values


def _row_offsets(perm, width):
    """Flat element positions of rows perm[0], perm[1], ... of width `width`."""
    r = perm.shape[0]
    out = _creation.empty((1, r * width), numpy.int64)
    _launch(("sets_row_offsets",), [("p", "long long", "", "raw"), ("w", "long long", "", "in"),
                                    ("o", "long long", "", "raw")],
            "o[i] = p[i / w] * w + i % w;", [perm, numpy.int64(width), out], r * width)
    return out


def unique_values(x):
    """The distinct values of x, NaNs each their own (array API)."""
    return unique(x, equal_nan=False)


def unique_counts(x):
    """(values, counts) as a namedtuple (array API; NaNs distinct)."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    """(values, inverse_indices of x's shape) as a namedtuple (array API)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x):
    """(values, indices, inverse_indices, counts) as a namedtuple (array API)."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False))


def _search(sorted_keys, queries):
    """For each query (of sorted_keys' dtype, C-contiguous), the first
    position p with sorted_keys[p] not before it in the sort's order, and
    whether sorted_keys[p] == query: (positions int64, found bool)."""
    dt = sorted_keys.dtype
    c = _ctype(dt)
    n = sorted_keys.shape[0]
    pos = _creation.empty(queries.shape, numpy.int64)
    found = _creation.empty(queries.shape, numpy.bool_)
    preamble = _core._sort_key_source(dt)
    _launch(("sets_search", dt.name),
            [("s", c, "", "raw"), ("n", "long long", "", "in"), ("q", c, "", "raw"),
             ("p", "long long", "", "raw"), ("f", "bool", "", "raw")],
            "typedef kiln_sort_%s_digit D;\n"
            "const _key_t* keys = reinterpret_cast<const _key_t*>(&s[0]);\n"
            "const _key_t x = reinterpret_cast<const _key_t*>(&q[0])[i];\n"
            "long long lo = 0, hi = n;\n"
            "while (lo < hi) {\n  const long long mid = lo + (hi - lo) / 2;\n"
            "  if (kiln::sort::key_less(D{}, keys[mid], x)) lo = mid + 1; else hi = mid;\n}\n"
            "p[i] = lo;\n"
            "bool eq = false;\n"
            "if (lo < n) { const %s a = s[lo], b = q[i]; eq = %s; }\n"
            "f[i] = eq;" % (dt.name, c, _equal_expr(dt, False)),
            [sorted_keys, numpy.int64(n), queries, pos, found], queries.size, preamble)
    return pos, found


def _common(a, b):
    dt = numpy.result_type(a.dtype, b.dtype)
    return a.astype(dt, order="C", copy=False), b.astype(dt, order="C", copy=False)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """element's shape of bools: whether each is in test_elements (==)."""
    if kind not in (None, "sort", "table"):
        raise ValueError("Invalid kind: '%s'. Please use None, 'sort' or 'table'." % (kind,))
    e, t = _common(_asarray(element), _asarray(test_elements).reshape(-1))
    found = _creation.zeros(e.shape, numpy.bool_) if t.size == 0 else _search(_sort_flat(t), e.reshape(-1))[1]
    found = found.reshape(e.shape)
    return ~found if invert else found


def _sort_flat(a):
    out = _creation.empty((a.size,), a.dtype)
    _sort_axis(a.reshape(-1), 0, keys_out=out)
    return out


def _compress(x, mask):
    """The elements of 1-D x where the 1-D bool mask is set, in order."""
    marks = mask.astype(numpy.int64)
    pos = _inclusive_sum(marks)
    out = _creation.empty((_last(pos),), x.dtype)
    c = _ctype(x.dtype)
    _launch(("sets_compress", x.dtype.name),
            [("x", c, "", "raw"), ("f", "long long", "", "raw"), ("g", "long long", "", "raw"), ("o", c, "", "raw")],
            "if (f[i]) o[g[i] - 1] = x[i];", [x, marks, pos, out], x.shape[0])
    return out


def _take(x, idx):
    """x[idx] for 1-D x and int64 idx."""
    return _gather_rows(x.reshape(1, -1), idx.reshape(1, -1)).reshape(idx.shape)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """Sorted values in both arrays (flattened); with return_indices, the
    first index of each in ar1 and in ar2."""
    a, b = _common(_asarray(ar1).reshape(-1), _asarray(ar2).reshape(-1))
    if assume_unique:
        sa, ia = _sorted_with_perm(a)
        sb, ib = _sorted_with_perm(b)
    else:
        sa, ia = unique(a, return_index=True)
        sb, ib = unique(b, return_index=True)
    if sb.size == 0 or sa.size == 0:
        empty = _creation.empty((0,), a.dtype)
        return (empty, _creation.empty((0,), numpy.int64), _creation.empty((0,), numpy.int64)) \
            if return_indices else empty
    pos, found = _search(sb, sa)
    values = _compress(sa, found)
    if not return_indices:
        return values
    return values, _compress(ia, found), _take(ib, _compress(pos, found))


def union1d(ar1, ar2):
    """Sorted unique values of both arrays (flattened)."""
    return unique(concatenate([_asarray(ar1).reshape(-1), _asarray(ar2).reshape(-1)]))


def setdiff1d(ar1, ar2, assume_unique=False):
    """Unique values of ar1 not in ar2 (ar1's own values in order when
    assume_unique)."""
    a = _asarray(ar1).reshape(-1)
    if not assume_unique:
        a = unique(a)
    return _compress(a, isin(a, ar2, invert=True))


def setxor1d(ar1, ar2, assume_unique=False):
    """Sorted values in exactly one of the arrays."""
    a, b = _asarray(ar1).reshape(-1), _asarray(ar2).reshape(-1)
    if not assume_unique:
        a, b = unique(a), unique(b)
    values, counts = unique(concatenate([a, b]), return_counts=True, equal_nan=False)
    return _compress(values, counts == 1)
