"""The ufunc methods reduce, accumulate, outer and at.

    kiln.add.reduce(a, axis=(0, 2), keepdims=True)       # the reduction engine
    kiln.maximum.reduce(a, axis=None, initial=0, where=mask)
    kiln.subtract.accumulate(a, axis=1)                  # one thread per row
    kiln.multiply.outer(a, b)                            # a[..., None, ...] * b
    kiln.add.at(a, [0, 0, 2], b)                         # repeated indices accumulate

Importing this module attaches the methods to kiln.ufunc. Semantics (result
dtypes, errors, identities, initial=, where=) are NumPy 2.4's. Reorderable
reductions run on the reduction engine, reorderable scans on the scan
engine, the rest on elementwise-engine launches, all generated from the
ufunc's device function kiln::ufn::<name>.
"""
import math
import operator

import numpy

from kiln import _core
from kiln import _creation
from kiln._copyto import copyto
from kiln._core import ndarray
from kiln._elementwise_kernel import _CTYPES
from kiln._ndarray_methods import _axis

# Note [Reorderable ufuncs]
# NumPy calls a binary ufunc reorderable when it has an identity, or is one of
# maximum/minimum/fmax/fmin (identity None, still associative and
# commutative). Only those reduce over several axes at once, and only those
# are reduced and scanned in parallel here (Note [Pairwise passes]); the
# others (subtract, divide, power, lcm, comparisons, ...) fold sequentially in
# NumPy's order, x0 op x1 op x2 ...
_REORDERABLE_WITHOUT_IDENTITY = frozenset(["maximum", "minimum", "fmax", "fmin"])

# Note [Pairwise passes]
# A reorderable reduction runs on the reduction engine (arraycore/reduction.h,
# Note [Reduction kernels]): the operand read in place, each element cast to
# the loop dtype as it is read (masked-out ones replaced by the engine's
# identity: _engine_identity), combined by kiln::ufn::<name> in element
# order, a bracketing of x0 op x1 op ... op x(n-1): maximum/minimum, which
# return their first argument when it is NaN, give the first NaN as NumPy
# does (it matters for complex NaNs). Rounding: a float sum is within
# d * u * sum|x| of the exact sum, d the engine's rounding depth (Note
# [Reduction rounding]: ceil(log2 n) along a contiguous axis of n <= 64, or
# n <= 256 for a full reduction; n - 1 for a column, summed in order as NumPy
# does; between the two for long rows), u the unit roundoff of the
# loop dtype (float32's for float16, plus one final rounding: Note [Float16
# reductions]).
# NumPy's own sums are pairwise along a contiguous axis (8 accumulators per
# block of 128) and sequential along other axes, so results differ from
# NumPy's within those bounds; products, logaddexp and hypot likewise differ
# by rounding. Integer, bool, bitwise, logical, maximum and minimum results
# are exact and equal NumPy's.
#
# accumulate on a reorderable ufunc scans the same (m, n) rows with the scan
# engine (Note [Scan engine] in arraycore/scan.h: tiles, their totals, the
# prefixes added; its rounding bound is Note [Scan rounding]).

# Note [Identity as the start value]
# NumPy starts a reduction from the ufunc's identity whenever it has one, not
# only when the reduction is empty: add.reduce([-0.0]) is 0.0 and
# hypot.reduce([-3.0]) is 3.0. So the result here is f(start, reduce(x))
# with start = initial, else the identity; masked-out elements (where=) count
# as the engine's identity (_engine_identity: for maximum/minimum/fmax/fmin,
# which have none, a value every element beats), so they drop out.

# Note [Float16 reductions]
# NumPy's float16 add, subtract, multiply and divide reductions keep their
# running value in float32 and round to float16 once, at the end, when the
# reduced axis is its innermost loop; otherwise (a column reduction, say)
# they round every step to float16. kiln always runs the passes or the fold
# in float32 and rounds once: never less accurate than NumPy, and where NumPy
# rounds every step, results may differ from NumPy's in the last bits. Scans
# (accumulate) round every partial result to float16, in NumPy and here.
_FLOAT16_IN_FLOAT32 = frozenset(["add", "subtract", "multiply", "divide"])

_NO_VALUE = object()   # initial= not given (None means "no initial", as NumPy)
_INCLUDE = "#include <kiln/ufunc_math.h>\n"
_specs = {}            # (kind, ufunc name, dtypes...) -> _core._EwSpec


def _spec(key, params, operation):
    spec = _specs.get(key)
    if spec is None:
        spec = _core._EwSpec("_".join(str(k) for k in key), params, operation, preamble=_INCLUDE,
                             options=_core._EXACT_FP_OPTIONS)
        _specs[key] = spec
    return spec


def _ctype(dtype):
    return _CTYPES[numpy.dtype(dtype)]


def _host_operand_error(obj):
    return TypeError("Unsupported type %s: kiln ufuncs and operators take kiln arrays and scalars; move host "
                     "data to the device with kiln.asarray() first" % type(obj))


def _operand(obj):
    """A kiln array for an array argument: kiln arrays as they are, Python and
    NumPy scalars as 0-d arrays; host arrays and lists raise TypeError."""
    if isinstance(obj, ndarray):
        return obj
    if isinstance(obj, (bool, int, float, complex, numpy.generic)):
        return _creation.asarray(obj)
    raise _host_operand_error(obj)


def _check_arity(uf, method):
    if uf.nin != 2:
        raise ValueError({"reduce": "reduce only supported for binary functions",
                          "accumulate": "accumulate only supported for binary functions",
                          "outer": "outer product only supported for binary functions"}[method])
    if uf.nout != 1 and method != "outer":
        raise ValueError("%s only supported for functions returning a single value" % method)


def _single_out(out, method):
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("%s: out must be a kiln.ndarray, got %s" % (method, type(out).__name__))
    return out


def _loop_dtype(uf, dtype, requested, out):
    """The dtype a reduction or scan runs in: the loop (t, t) -> t NumPy picks
    for operands (out's dtype or, without out, `dtype`; `dtype`) under
    `requested` (dtype=). Without out and dtype=, add and multiply run bool
    and integers narrower than 64 bits in int64/uint64."""
    dtype = numpy.dtype(dtype)
    name = uf.__name__
    first = dtype if out is None or requested is not None else out.dtype
    if requested is None and out is None and name in ("add", "multiply") and dtype.kind in "biu" and dtype.itemsize < 8:
        requested = numpy.uint64 if dtype.kind == "u" else numpy.int64
    try:
        ins, outs, _ = _core._resolve_loop(name, [first, dtype], requested, "unsafe")
    except _core._UFuncNoLoopError as e:
        # NumPy names a reduction's operands (None, dtype) when out is not given.
        message, head = str(e), "matching types ("
        if head not in message or out is not None:
            raise
        start = message.index(head) + len(head)
        raise _core._UFuncNoLoopError(message[:start] + "None" + message[message.index(", ", start):]) from None
    if ins[0] == ins[1] == outs[0]:
        return outs[0]
    info = _core._ufunc_info(name)
    if info["resolver"] == "logical" and requested is None:
        return numpy.dtype(numpy.bool_)   # logical_and.reduce(ints) runs the ??->? loop, as NumPy
    raise TypeError("No loop matching the specified signature and casting was found for ufunc " + name)


def _reduce_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    if ndim == 0 and operator.index(axis) in (0, -1):
        return ()   # NumPy accepts axis 0 (the default) and -1 on 0-d operands
    return (_axis(axis, ndim),)


def _rows(a, perm, m, n, dtype):
    """a's elements with axes permuted to `perm`, cast to dtype, as a
    C-contiguous (m, n) array (no copy when a already is one)."""
    t = _core._as_strided(a, tuple(a.shape[d] for d in perm), tuple(a.strides[d] for d in perm), 0)
    return t.astype(dtype, order="C", copy=False).reshape((m, n))


def _literal(value, dtype):
    """A C++ expression of dtype's C type with exactly the bits of `value`
    converted to dtype."""
    dtype = numpy.dtype(dtype)
    v = numpy.asarray(value).astype(dtype)[()]
    if dtype.kind == "b":
        return "true" if v else "false"
    if dtype.kind == "c":
        part = numpy.dtype("f%d" % (dtype.itemsize // 2))
        return "%s(%s, %s)" % (_ctype(dtype), _literal(v.real, part), _literal(v.imag, part))
    bits = int(v.view(numpy.dtype("u%d" % dtype.itemsize)))
    if dtype.kind in "iu":
        return "(%s)%dULL" % (_ctype(dtype), bits)
    return {2: "kiln::half::from_bits((unsigned short)%du)", 4: "kiln::detail::bits_float(%du)",
            8: "kiln::detail::bits_double(%dULL)"}[dtype.itemsize] % bits


def _engine_identity(uf, dtype):
    """The reduction engine's start value for uf in dtype: the ufunc's
    identity, else for maximum/minimum the value every element beats (-inf,
    the least integer, (-inf, -inf)), for fmax/fmin on floats _SENTINEL_NAN,
    which their combine skips (_engine_combine). Each is two-sided, signed
    zeros and NaNs included (Note [NaN in maximum and fmax], ufunc_arith.h),
    so the engine's extra combines change no result."""
    if uf.identity is not None:
        return numpy.asarray(uf.identity).astype(dtype)[()]
    name = uf.__name__
    low = name in ("maximum", "fmax")
    if dtype.kind == "b":
        return numpy.bool_(not low)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return dtype.type(info.min if low else info.max)
    if name in ("fmax", "fmin"):
        part = numpy.dtype("f%d" % (dtype.itemsize // (2 if dtype.kind == "c" else 1)))
        bits = numpy.array([_SENTINEL_NAN[part.itemsize]] * 2, numpy.dtype("u%d" % part.itemsize))
        return bits.view(part)[:2 if dtype.kind == "c" else 1].view(dtype)[0]
    value = -numpy.inf if low else numpy.inf
    return dtype.type(complex(value, value) if dtype.kind == "c" else value)


# Note [fmax identity]
# fmax/fmin skip a NaN second argument and keep a NaN first one, so an
# all-NaN reduction gives its first NaN, bits included: no value is a
# two-sided identity (NaN loses to a NaN, -inf beats one). The engine starts
# them from a quiet NaN of one payload, _SENTINEL_NAN, that their combine
# drops on either side by its bits. (A data NaN with exactly those bits would
# be dropped too: its row's result is then another NaN or the sentinel.)
_SENTINEL_NAN = {2: 0x7E5A, 4: 0x7FC5A5A5, 8: 0x7FF8A5A5A5A5A5A5}
_SAME_BITS = ("template <class T> KILN_DEVICE bool _kiln_same_bits(const T& a, const T& b) {\n"
              "  const unsigned char* p = (const unsigned char*)&a; const unsigned char* q = (const unsigned char*)&b;\n"
              "  for (int k = 0; k < (int)sizeof(T); ++k) if (p[k] != q[k]) return false;\n  return true;\n}\n")


def _engine_combine(name, dtype, ident):
    """The engine's reduce_expr for uf: kiln::ufn::<name>(a, b), the
    sentinel dropped for fmax/fmin on floats (Note [fmax identity])."""
    call = "kiln::ufn::%s(a, b)" % name
    if name in ("fmax", "fmin") and dtype.kind in "fc":
        return "_kiln_same_bits(a, %s) ? b : _kiln_same_bits(b, %s) ? a : %s" % (ident, ident, call)
    return call


def _commutes(name, dtype):
    """Whether the engine may combine uf's operands out of element order
    (Note [Reduction kernels]): every reorderable ufunc but the ones whose
    first-NaN rule (maximum, minimum) or sentinel (fmax, fmin) watches the
    order on floating dtypes."""
    return name not in ("maximum", "minimum", "fmax", "fmin") or dtype.kind not in "fc"


_reduction_specs = {}  # (ufunc name, dtype name, masked, skip_nan, from_identity) -> _core._ReductionSpec


def _where_operand(where, shape):
    """where= (a bool or a kiln array) as a kiln array broadcast to shape."""
    if isinstance(where, (bool, numpy.bool_)):
        where = _creation.asarray(numpy.bool_(where))
    elif not isinstance(where, ndarray):
        raise _host_operand_error(where)
    return _core._broadcast_to(where, shape)


def _engine_reduce(uf, a, axes, work, where, skip_nan=False, from_identity=False):
    """A reorderable uf reduced over `axes` of `a` in the loop dtype `work` by
    the reduction engine (arraycore/reduction.h): an array of a's shape
    without those axes. Elements where `where` is False, and NaNs when
    skip_nan (nansum, nanprod), count as the engine's identity (Note
    [Identity as the start value]); from_identity (uf has one) folds the
    start, uf(identity, result), into the kernel's last step."""
    name = uf.__name__
    masked = where is not True
    key = (name, work.name, masked, skip_nan, from_identity)
    spec = _reduction_specs.get(key)
    if spec is None:
        c = _ctype(work)
        ident = _literal(_engine_identity(uf, work), work)
        value = "(kiln::ufn::isnan(x) ? %s : x)" % ident if skip_nan else "x"
        post = "out = kiln::ufn::%s(%s, a);" % (name, ident) if from_identity else "out = a;"
        spec = _core._ReductionSpec("ufunc_reduce_%s_%s%s%s%s" % (name, work.name, "_where" if masked else "",
                                                                "_nan" if skip_nan else "",
                                                                "_start" if from_identity else ""),
                                    [("x", c)] + ([("_where", "bool")] if masked else []),
                                    "_where ? %s : %s" % (value, ident) if masked else value,
                                    _engine_combine(name, work, ident), post, ident, work, c,
                                    preamble=_INCLUDE + _SAME_BITS, options=_core._EXACT_FP_OPTIONS,
                                    ordered=not _commutes(name, work))
        _reduction_specs[key] = spec
    inputs = [a]
    if masked:
        inputs.append(_where_operand(where, a.shape))
    out = _creation.empty(tuple(a.shape[d] for d in range(a.ndim) if d not in axes), work)
    _core._reduce(spec, inputs, list(axes), out)
    return out, spec


def _sequential_reduce(uf, x, mask, start):
    """Folds each row of a C-contiguous (m, n) array in order, skipping
    elements where the (m, n) bool `mask` is False (mask needs a start)."""
    m, n = x.shape
    c = _ctype(x.dtype)
    params = [("x", c, "", "raw"), ("n", "long long", "", "in")]
    args = [x, numpy.int64(n)]
    if mask is not None:
        params.append(("mask", "bool", "", "raw"))
        args.append(mask)
    if start is not None:
        params.append(("start", c, "", "in"))
        args.append(start)
    params.append(("y", c, "", "out"))
    args.append(_creation.empty((m,), x.dtype))
    step = "acc = kiln::ufn::%s(acc, x[i * n + k]);" % uf.__name__
    if mask is not None:
        step = "if (mask[i * n + k]) " + step
    operation = ("%s acc = %s;\nfor (long long k = %d; k < n; ++k) %s\ny = acc;"
                 % (c, "start" if start is not None else "x[i * n]", 0 if start is not None else 1, step))
    key = ("ufunc_reduce_seq", uf.__name__, x.dtype.name, mask is not None, start is not None)
    _core._elementwise_launch(_spec(key, params, operation), args, (m,))
    return args[-1]


def _start_value(uf, dtype, initial):
    """The start of a reduction in `dtype` (Note [Identity as the start
    value]), or None: `initial` converted as NumPy does (OverflowError for a
    Python int out of range), else the ufunc's identity."""
    if initial is _NO_VALUE:
        if uf.identity is None:
            return None
        return numpy.asarray(uf.identity).astype(dtype)[()]   # -1 (bitwise_and) is all ones in any integer type
    if initial is None:
        return None
    return numpy.array(initial, dtype=dtype)[()]


def _where_mask(where, a, perm, m, n):
    if isinstance(where, (bool, numpy.bool_)):
        return None if where else _creation.zeros((m, n), numpy.bool_)
    if not isinstance(where, ndarray):
        raise _host_operand_error(where)
    return _rows(_core._broadcast_to(where, a.shape), perm, m, n, numpy.bool_)


def _check_out(uf, out, shape, keepdims, ndim):
    if out.ndim != len(shape):
        raise ValueError("output parameter for reduction operation %s has the wrong number of dimensions: Found %d "
                         "but expected %d%s" % (uf.__name__, out.ndim, len(shape),
                                                " (must match the operand's when keepdims=True)" if keepdims else ""))
    if tuple(out.shape) != tuple(shape):
        raise ValueError("output parameter for reduction operation %s has shape %s, expected %s"
                         % (uf.__name__, tuple(out.shape), tuple(shape)))


def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Reduces `array` along `axis` (an int, a tuple, or None for all) by
    applying the ufunc, as numpy.ufunc.reduce; a 0-d kiln array for a full
    reduction. Differs from NumPy only in the rounding of float results
    (Note [Pairwise passes])."""
    return _reduce(self, array, axis, dtype, out, keepdims, initial, where)


def _reduce(self, array, axis, dtype, out, keepdims, initial, where, skip_nan=False):
    """ufunc.reduce; with skip_nan (add and multiply only: nansum, nanprod in
    kiln/_reductions.py) NaN elements count as the identity."""
    _check_arity(self, "reduce")
    a = _operand(array)
    name = self.__name__
    axes = _reduce_axes(axis, a.ndim)
    out = _single_out(out, "reduce")
    loop = _loop_dtype(self, a.dtype, dtype, out)
    if len(axes) > 1 and self.identity is None and name not in _REORDERABLE_WITHOUT_IDENTITY:
        raise ValueError("reduction operation '%s' is not reorderable, so at most one axis may be specified" % name)
    start = _start_value(self, loop, initial)
    if where is not True and start is None:
        raise ValueError("reduction operation '%s' does not have an identity, so to use a where mask one has to "
                         "specify 'initial'" % name)
    kept = [d for d in range(a.ndim) if d not in axes]
    m = math.prod(a.shape[d] for d in kept)
    n = math.prod(a.shape[d] for d in axes)
    if n == 0 and start is None:
        raise ValueError("zero-size array to reduction operation %s which has no identity" % name)
    shape = (tuple(1 if d in axes else a.shape[d] for d in range(a.ndim)) if keepdims
             else tuple(a.shape[d] for d in kept))
    if out is not None:
        _check_out(self, out, shape, keepdims, a.ndim)
    perm = kept + sorted(axes)
    if m == 0:
        result = _creation.empty((0,), loop)
    elif n == 0:
        result = _creation.full((m,), start, dtype=loop)
    else:
        work = numpy.dtype(numpy.float32) if loop == numpy.float16 and name in _FLOAT16_IN_FLOAT32 else loop
        if start is not None:
            start = work.type(start)
        if self.identity is None and name not in _REORDERABLE_WITHOUT_IDENTITY:
            x = _rows(a, perm, m, n, work)
            result = _sequential_reduce(self, x, _where_mask(where, a, perm, m, n), start)
        else:
            from_identity = start is not None and initial is _NO_VALUE
            result, spec = _engine_reduce(self, a, axes, work, where, skip_nan and work.kind in "fc", from_identity)
            if start is not None and not from_identity:
                result = self(start, result, dtype=work)
            if (axis is None and dtype is None and out is None and not keepdims and initial is _NO_VALUE
                    and where is True and not skip_nan and work == loop):
                _core._remember_plain_reduction(name, a.dtype, spec, loop)
        result = result.astype(loop, copy=False)
    result = result.reshape(shape)
    if out is None:
        return result
    copyto(out, result, casting="unsafe")
    return out


def _scans_in_parallel(uf):
    return uf.identity is not None or uf.__name__ in _REORDERABLE_WITHOUT_IDENTITY


def _row_view(a, perm, m, n):
    """a with axes permuted to `perm` as an (m, n) view, the last axis of perm
    scanned, or None when the other axes do not merge into one stride."""
    kept = [d for d in perm[:-1] if a.shape[d] != 1]
    for d, e in zip(kept, kept[1:]):
        if a.strides[d] != a.strides[e] * a.shape[e]:
            return None
    return _core._as_strided(a, (m, n), (a.strides[kept[-1]] if kept else 0, a.strides[perm[-1]]), 0)


def _scan(uf, x, y=None):
    """Inclusive scan of each row of the (m, n) array x into y (the loop
    dtype, any strides; a new C-contiguous array when None): the scan engine
    for reorderable ufuncs, else one thread per row (x C-contiguous then)."""
    m, n = x.shape
    c = _ctype(x.dtype)
    if not _scans_in_parallel(uf):
        spec = _spec(("ufunc_accumulate_seq", uf.__name__, x.dtype.name),
                     [("x", c, "", "raw"), ("n", "long long", "", "in"), ("y", c, "", "raw")],
                     "const long long base = i * n;\n%s acc = x[base];\ny[base] = acc;\n"
                     "for (long long k = 1; k < n; ++k) { acc = kiln::ufn::%s(acc, x[base + k]); y[base + k] = acc; }"
                     % (c, uf.__name__))
        y = _creation.empty((m, n), x.dtype)
        _core._elementwise_launch(spec, [x, numpy.int64(n), y], (m,))
        return y
    if y is None:
        y = _creation.empty((m, n), x.dtype)
    _core._scan_rows(x, y, "ufunc_accumulate_%s_%s" % (uf.__name__, y.dtype.name),
                     "kiln::ufn::%s(a, b)" % uf.__name__, _INCLUDE, _core._EXACT_FP_OPTIONS)
    return y


def accumulate(self, array, axis=0, dtype=None, out=None):
    """Running results of the ufunc along one axis, as numpy.ufunc.accumulate
    (a parallel scan for reorderable ufuncs: Note [Scan engine] in arraycore/scan.h)."""
    _check_arity(self, "accumulate")
    a = _operand(array)
    if a.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise ValueError("accumulate does not allow multiple axes")
        axis = axis[0]
    if axis is None:
        if a.ndim != 1:
            raise ValueError("accumulate does not allow multiple axes")
        axis = 0
    axis = _axis(axis, a.ndim)
    out = _single_out(out, "accumulate")
    if out is not None and tuple(out.shape) != tuple(a.shape):
        raise ValueError("output parameter for accumulate has shape %s, expected %s"
                         % (tuple(out.shape), tuple(a.shape)))
    loop = _loop_dtype(self, a.dtype, dtype, out)
    perm = [d for d in range(a.ndim) if d != axis] + [axis]
    n = a.shape[axis]
    m = a.size // n if n else 0
    result = _creation.empty(a.shape, loop)
    rows = _row_view(result, perm, m, n) if a.size and _scans_in_parallel(self) else None
    if rows is not None:
        # Straight from a's layout (no copy when it has the loop dtype) into the result's.
        x = _row_view(a, perm, m, n) if a.dtype == loop else None
        _scan(self, _rows(a, perm, m, n, loop) if x is None else x, rows)
    elif a.size:
        y = _scan(self, _rows(a, perm, m, n, loop)).reshape(tuple(a.shape[d] for d in perm))
        back = perm.index  # position of each original axis in y
        moved = _core._as_strided(y, tuple(a.shape), tuple(y.strides[back(d)] for d in range(a.ndim)), 0)
        result = moved.astype(loop, order="C", copy=False)
    if out is None:
        return result
    copyto(out, result, casting="unsafe")
    return out


def outer(self, A, B, **kwargs):
    """The ufunc over every pair (A[i...], B[j...]): result shape A.shape +
    B.shape, as numpy.ufunc.outer; keyword arguments go to the ufunc."""
    _check_arity(self, "outer")
    # NumPy's outer makes arrays of its operands: a Python scalar is strong
    # here (add.outer(int8_array, 5) is int64), a NumPy scalar of its default dtype.
    A, B = (numpy.asarray(v)[()] if isinstance(v, (bool, int, float, complex)) else v for v in (A, B))
    if isinstance(A, ndarray):
        A = A.reshape(tuple(A.shape) + (1,) * (B.ndim if isinstance(B, ndarray) else 0))
    return self(A, B, **kwargs)   # host arrays raise the ufunc's TypeError


def _flat_positions(shape, indices):
    """The flat C-order positions a[indices] selects in an array of `shape`,
    in NumPy's order (its shape is a[indices].shape), with NumPy's index rules:
    negative indices wrap, out-of-bounds ones raise IndexError, bool arrays are
    masks. Each axis's coordinate is read through a zero-strided view, so the
    cost is that of the selection, not of the array."""
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    total = None
    for d, n in enumerate(shape):
        coord = numpy.arange(n, dtype=numpy.int64).reshape((n,) + (1,) * (len(shape) - d - 1))
        picked = numpy.broadcast_to(coord, shape)[indices] * strides[d]
        total = picked if total is None else total + picked
    if total is None:   # 0-d array: a[()] or a[...] selects its one element
        return numpy.zeros(numpy.empty(())[indices].shape, numpy.int64)
    return numpy.asarray(total, dtype=numpy.int64)


def _host_index(indices):
    """indices with kiln arrays (also inside a tuple) downloaded."""
    if isinstance(indices, ndarray):
        return _creation.asnumpy(indices)
    if isinstance(indices, tuple):
        return tuple(_host_index(i) for i in indices)
    return indices


def at(self, a, indices, b=None):
    """In place a[indices] = ufunc(a[indices], b), unbuffered: an element
    indexed k times is updated k times, in index order (numpy.ufunc.at).

    Indices may be kiln arrays, NumPy arrays, lists, ints, slices, Ellipsis,
    None or tuples of those, with NumPy's indexing rules; they are read on the
    host, so kiln-array indices cost a download. The updates run in one
    thread, sequentially in index order: O(number of updates) serial time on
    the device, not parallel (fine for small index sets; the scatter
    reductions of issue 5 will be parallel). b is a kiln array or a scalar
    (a Python scalar is an array of its default dtype here, as in NumPy's
    at); each update computes as the ufunc's call does, which for complex
    multiply can differ in the last bit from NumPy's at (NumPy's at runs a
    scalar loop whose rounding differs from its own ufunc call)."""
    if self.nout != 1:
        raise ValueError("Only single output ufuncs supported at this time")
    if not isinstance(a, ndarray):
        raise _host_operand_error(a)
    if self.nin == 1 and b is not None:
        raise ValueError("second operand provided when ufunc is unary")
    if self.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if self.nin > 2:
        raise ValueError("at only supported for unary and binary ufuncs")
    name = self.__name__
    operands = [a.dtype]
    if b is not None:
        b = _operand(b) if not isinstance(b, (bool, int, float, complex)) else _creation.asarray(numpy.asarray(b))
        operands.append(b.dtype)
    ins, outs, _ = _core._resolve_loop(name, operands)
    positions = _flat_positions(tuple(a.shape), _host_index(indices))
    if positions.size == 0:
        return
    ca, c0 = _ctype(a.dtype), _ctype(ins[0])
    params = [("a", ca, "", "raw"), ("idx", "long long", "", "raw"), ("count", "long long", "", "in")]
    args = [a, _creation.asarray(positions.reshape(-1)), numpy.int64(positions.size)]
    call = "kiln::numpy_cast<%s>(t)" % c0
    if b is not None:
        try:
            bb = _core._broadcast_to(b, positions.shape)
        except ValueError:
            raise ValueError("array is not broadcastable to correct shape") from None
        params.append(("b", _ctype(ins[1]), "", "raw"))
        args.append(bb.astype(ins[1], copy=False))
        call += ", b[k]"
    operation = ("for (long long k = 0; k < count; ++k) {\n  %s& t = a[idx[k]];\n"
                 "  t = kiln::numpy_cast<%s>(kiln::ufn::%s(%s));\n}" % (ca, ca, name, call))
    key = ("ufunc_at", name, a.dtype.name) + tuple(d.name for d in ins)
    _core._elementwise_launch(_spec(key, params, operation), args, (1,))


_core.ufunc.reduce = reduce
_core.ufunc.accumulate = accumulate
_core.ufunc.outer = outer
_core.ufunc.at = at
