"""Einstein summation: kiln.einsum, with numpy.einsum's subscript language
(explicit and implicit output, ellipsis broadcasting, repeated labels in
one operand, the sublist form), and kiln.einsum_path.

    c = kiln.einsum("ij,jk->ik", a, b)             # a @ b
    t = kiln.einsum("ii", m)                        # the trace of m (0-d)
    d = kiln.einsum("ii->i", m)                     # m's diagonal, a view of m
    e = kiln.einsum("...ij,...jk", x, y)            # batched products, broadcast
    f = kiln.einsum(a, [0, 1], b, [1, 2], [0, 2])   # the first line, sublist form
    g = kiln.einsum("ij,jk,kl->il", a, b, c, optimize=True)   # cheapest pair first

Note [Einsum plan]
No element is touched from Python. Each operand's repeated labels become
one axis of a strided view (the diagonal: the axes' strides added), axes
of size 1 are broadcast (stride 0) to their label's size, and a label
found in one operand only and not in the output is summed away there
(kiln.sum). Operands are then contracted two at a time: the labels both
hold are batch labels when still needed (by the output or another
operand) and summed labels otherwise; each operand is transposed to
(batch, free, summed) / (batch, summed, free), reshaped to three axes and
multiplied through matmul's engine (linalg/_products.py's _product: cuBLAS
or kiln's kernel, batched; integers exact, bool OR of ANDs), or through
kiln.multiply of broadcast views when nothing is summed. The last
operand's remaining labels are summed, and its axes transposed into the
output's order: a single operand needing neither sum nor cast comes back
as a view, as NumPy's. Every product and sum runs in the result dtype,
except float16, which is computed in float32 and rounded once at the end
(NumPy's einsum also accumulates float16 in float32).

Note [Einsum order]
optimize=False contracts the operands in order, each into the product of
those before it. optimize=True, 'greedy' and 'optimal' choose greedily:
at each step the pair whose product is smallest (in elements; ties: the
fewest multiply-adds, then the first pair), which is what NumPy's
'greedy' aims at too, though not always its choice; 'optimal' (NumPy's
exhaustive search) is the same greedy order in kiln. A path from
einsum_path (['einsum_path', (i, j), ...]: each tuple's operands are
contracted into one that goes to the end of the list) is followed as
given.
"""
import itertools
import operator
import string

import numpy

from kiln import _core
from kiln import _creation
from kiln import _manipulation
from kiln import _reductions
from kiln._core import ndarray

_LETTERS = string.ascii_uppercase + string.ascii_lowercase   # sublist subscripts 0..51
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


# --- the subscript language ------------------------------------------------------

def _sublist_text(sublist):
    text = []
    for s in sublist:
        if s is Ellipsis:
            text.append("...")
            continue
        s = operator.index(s)
        if not 0 <= s < len(_LETTERS):
            raise ValueError("subscript is not within the valid range [0, 52)")
        text.append(_LETTERS[s])
    return "".join(text)


def _split_arguments(args):
    """(subscripts text, operands) from einsum's two call forms."""
    if not args:
        raise ValueError("must specify the einstein sum subscripts string and at least one operand, or at least "
                         "one operand and its corresponding subscripts list")
    if isinstance(args[0], str):
        return args[0], list(args[1:])
    if len(args) < 2:
        raise ValueError("must provide at least an operand and a subscripts list to einsum")
    operands = list(args[0:len(args) - len(args) % 2:2])
    terms = [_sublist_text(s) for s in args[1::2]]
    text = ",".join(terms[:len(operands)])
    if len(args) % 2:
        text += "->" + _sublist_text(args[-1])
    return text, operands


def _term(text, where):
    """A term's letters, with None where its ellipsis is."""
    labels, i = [], 0
    while i < len(text):
        c = text[i]
        if c == ".":
            if text[i:i + 3] != "..." or None in labels:
                raise ValueError("einstein sum subscripts string contains a '.' that is not part of an ellipsis "
                                 "('...') in %s" % where)
            labels.append(None)
            i += 3
            continue
        if c not in _LETTERS:
            raise ValueError("invalid subscript '%s' in einstein sum subscripts string, subscripts must be letters"
                             % c)
        labels.append(c)
        i += 1
    return labels


def _parse(subscripts, ndims):
    """Each operand's labels, one per axis, and the output's: letters, and
    for the axes an ellipsis covers the ints 0..E-1 (E the longest
    ellipsis; shorter ones take the last numbers, so that they broadcast
    from the right)."""
    text = subscripts.replace(" ", "")
    if text.count("->") > 1 or text.replace("->", "").count("-") or text.replace("->", "").count(">"):
        raise ValueError("einstein sum subscript string does not contain proper '->' output specified")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):   # (NumPy's messages for this say "more" and "fewer" the other way round)
        raise ValueError("the einstein sum subscripts string has %d operand terms, but %d operands were given"
                         % (len(terms), len(ndims)))
    parsed = [_term(t, "operand %d" % i) for i, t in enumerate(terms)]
    spans = []
    for i, (labels, ndim) in enumerate(zip(parsed, ndims)):
        letters = len(labels) - (None in labels)
        if letters > ndim:
            raise ValueError("einstein sum subscripts string contains too many subscripts for operand %d" % i)
        if None not in labels and letters < ndim:
            raise ValueError("operand has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions.")
        spans.append(ndim - letters)
    longest = max(spans, default=0)
    inputs = []
    for labels, span in zip(parsed, spans):
        expanded = []
        for c in labels:
            expanded += list(range(longest - span, longest)) if c is None else [c]
        inputs.append(expanded)
    if arrow:
        out = _term(rhs, "the output")
        seen = set()
        for c in out:
            if c is None:
                continue
            if c in seen:
                raise ValueError("einstein sum subscripts string includes output subscript '%s' multiple times" % c)
            if not any(c in labels for labels in parsed):
                raise ValueError("einstein sum subscripts string included output subscript '%s' which never "
                                 "appeared in an input" % c)
            seen.add(c)
        if None not in out and any(spans):
            raise ValueError("output has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions.")
        output = []
        for c in out:
            output += list(range(longest)) if c is None else [c]
    else:
        counts = {}
        for labels in parsed:
            for c in labels:
                if c is not None:
                    counts[c] = counts.get(c, 0) + 1
        output = list(range(longest)) + sorted(c for c, n in counts.items() if n == 1)
    return inputs, output


def _label_text(label):
    return label if isinstance(label, str) else "..."


def _sizes(inputs, shapes, output):
    """Each label's size: equal wherever it appears, or 1 (broadcast)."""
    sizes = {}
    for i, (labels, shape) in enumerate(zip(inputs, shapes)):
        mine = {}
        for label, n in zip(labels, shape):
            if label in mine and mine[label] != n:
                raise ValueError("dimensions in %s for collapsing index '%s' don't match (%d != %d)"
                                 % ("single operand" if len(inputs) == 1 else "operand %d" % i,
                                    _label_text(label), mine[label], n))
            mine[label] = n
        for label, n in mine.items():
            if sizes.get(label, 1) != 1 and n != 1 and sizes[label] != n:
                raise _broadcast_error(inputs, shapes, output)
            if n != 1 or label not in sizes:
                sizes[label] = n
    return sizes


def _broadcast_error(inputs, shapes, output):
    """NumPy's message: each operand's shape, and seen along the output's
    labels then the summed ones."""
    order = list(output) + [c for labels in inputs for c in labels if c not in output]
    order = list(dict.fromkeys(order))
    parts = []
    for labels, shape in zip(inputs, shapes):
        remapped = [str(shape[labels.index(c)]) if c in labels else "newaxis" for c in order]
        parts.append("(%s)->(%s)" % (",".join(map(str, shape)) + ("," if len(shape) == 1 else ""),
                                     ",".join(remapped)))
    return ValueError("operands could not be broadcast together with remapped shapes [original->remapped]: %s"
                      % " ".join(parts))


# --- the contraction order (Note [Einsum order]) ----------------------------------

def _size(labels, sizes):
    n = 1
    for c in labels:
        n *= sizes[c]
    return n


def _needed(terms, skip, output):
    """The labels still needed by the output or the terms not in ``skip``."""
    need = set(output)
    for i, labels in enumerate(terms):
        if i not in skip:
            need.update(labels)
    return need


def _pair(la, lb, need):
    """How a product of terms labelled la and lb goes (Note [Einsum plan]):
    its batch, summed, a-only and b-only labels; the result holds batch +
    a-only + b-only. Labels of one side not needed are summed beforehand."""
    la = [c for c in la if c in need or c in lb]
    lb = [c for c in lb if c in need or c in la]
    batch = [c for c in la if c in lb and c in need]
    summed = [c for c in la if c in lb and c not in need]
    return batch, summed, [c for c in la if c not in lb], [c for c in lb if c not in la]


def _greedy_path(terms, sizes, output):
    terms = [list(dict.fromkeys(t)) for t in terms]
    path = []
    while len(terms) > 1:
        best = None
        for i, j in itertools.combinations(range(len(terms)), 2):
            need = _needed(terms, (i, j), output)
            batch, summed, free_a, free_b = _pair(terms[i], terms[j], need)
            result = batch + free_a + free_b
            key = (_size(result, sizes), _size(result + summed, sizes))
            if best is None or key < best[0]:
                best = (key, i, j, result)
        _, i, j, result = best
        path.append((i, j))
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [result]
    return path


def _path(optimize, terms, sizes, output):
    """The contraction path: a list of tuples of positions (Note [Einsum order])."""
    n = len(terms)
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        path = [tuple(operator.index(i) for i in step) for step in optimize[1:]]
        count = n
        for step in path:
            if not step or any(not 0 <= i < count for i in step) or len(set(step)) != len(step):
                raise ValueError("einsum_path step %r does not name distinct operands among the %d then present"
                                 % (step, count))
            count -= len(step) - 1
        if count != 1:
            raise ValueError("einsum_path %r leaves %d operands, not one" % (optimize, count))
        return path
    strategy = optimize[0] if isinstance(optimize, tuple) and len(optimize) == 2 else optimize
    if strategy is False or strategy is None:
        return [(0,)] if n == 1 else [(0, 1)] + [(0, n - 1 - k) for k in range(1, n - 1)]
    if strategy is True or strategy in ("greedy", "optimal"):
        return [(0,)] if n == 1 else _greedy_path(terms, sizes, output)
    raise TypeError("Did not understand the path: %s" % (optimize,))


# --- running a contraction (Note [Einsum plan]) -----------------------------------

def _view(a, shape, strides, offset=0):
    return _core._as_strided(a, tuple(shape), tuple(strides), offset)


def _prepare(a, labels, sizes):
    """a with each repeated label's axes made one (the diagonal) and size-1
    axes broadcast to their label's size: (view, its labels, distinct)."""
    first = list(dict.fromkeys(labels))
    shape = [sizes[c] for c in first]
    strides = [0] * len(first)
    for c, n, s in zip(labels, a.shape, a.strides):
        if n != 1:
            strides[first.index(c)] += s
    return _view(a, shape, strides), first


def _sum_labels(a, labels, keep, dtype):
    """a summed over its labels not in ``keep``."""
    drop = [k for k, c in enumerate(labels) if c not in keep]
    if not drop:
        return a, labels
    return _reductions.sum(a, tuple(drop), dtype), [c for c in labels if c in keep]


def _transposed(a, labels, order):
    return _manipulation.transpose(a, [labels.index(c) for c in order])


def _contract(a, la, b, lb, need, sizes, dtype):
    """The product of a and b summed over their shared labels not in
    ``need``: (result, its labels: batch, a's free, b's free)."""
    from kiln.linalg import _products
    batch, summed, free_a, free_b = _pair(la, lb, need)
    a, la = _sum_labels(a, la, need | set(lb), dtype)
    b, lb = _sum_labels(b, lb, need | set(la), dtype)
    labels = batch + free_a + free_b
    shape = [sizes[c] for c in labels]
    k = _size(summed, sizes)
    if k == 1:   # nothing summed: a product of broadcast views
        av = _transposed(a, la, batch + free_a + summed)
        bv = _transposed(b, lb, batch + summed + free_b)
        nb, na = len(batch), len(free_a)
        sa = av.strides[:nb + na] + (0,) * len(free_b)
        sb = bv.strides[:nb] + (0,) * na + bv.strides[nb + len(summed):]
        return _core._ufuncs["multiply"](_view(av, shape, sa), _view(bv, shape, sb)), labels
    nbatch, m, n = _size(batch, sizes), _size(free_a, sizes), _size(free_b, sizes)
    a3 = _manipulation.reshape(_transposed(a, la, batch + free_a + summed), (nbatch, m, k))
    b3 = _manipulation.reshape(_transposed(b, lb, batch + summed + free_b), (nbatch, k, n))
    return _manipulation.reshape(_products._product(a3, b3, dtype, None), tuple(shape)), labels


def _operands(operands):
    return [x if isinstance(x, ndarray) else _creation.asarray(x) for x in operands]


def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """numpy.einsum: ``einsum(subscripts, *operands)`` or the sublist form
    ``einsum(op0, sublist0, op1, sublist1, ..., [sublistout])``.

    Result dtype: NumPy's result_type of the operands (``dtype`` overrides;
    operands are cast to it under ``casting``). Products go through matmul's
    engine and sums through kiln's reductions (Note [Einsum plan]); operands
    are contracted two at a time, in the order ``optimize`` picks (Note
    [Einsum order]). Differences from NumPy: a single operand that needs no
    sum comes back as a writable view (NumPy's is writable too); floating
    sums may round differently (other summation order); ``optimize`` names
    with one operand are checked even where NumPy ignores them."""
    subscripts, arrays = _split_arguments(operands)
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got %r)"
                         % (casting,))
    order = _creation._order(order)
    arrays = _operands(arrays)
    inputs, output = _parse(subscripts, [a.ndim for a in arrays])
    sizes = _sizes(inputs, [a.shape for a in arrays], output)
    rdtype = numpy.result_type(*[a.dtype for a in arrays]) if dtype is None else numpy.dtype(dtype)
    for i, a in enumerate(arrays):
        if not numpy.can_cast(a.dtype, rdtype, casting):
            raise TypeError("Iterator operand %d dtype could not be cast from %r to %r according to the rule %r"
                            % (i, a.dtype, rdtype, casting))
    shape = tuple(sizes[c] for c in output)
    if out is not None:
        _check_out(out, shape, rdtype, casting, len(arrays))
    acc = numpy.dtype(numpy.float32) if rdtype == numpy.float16 else rdtype
    terms = []
    for a, labels in zip(arrays, inputs):
        view, distinct = _prepare(a, labels, sizes)
        terms.append((view if view.dtype == acc else view.astype(acc), distinct))
    for step in _path(optimize, [t[1] for t in terms], sizes, output):
        chosen = [terms[i] for i in step]
        rest = [t for k, t in enumerate(terms) if k not in step]
        need = _needed([t[1] for t in rest], (), output)
        a, la = chosen[0]
        for k, (b, lb) in enumerate(chosen[1:]):
            a, la = _contract(a, la, b, lb, need | _needed([t[1] for t in chosen[k + 2:]], (), ()), sizes, acc)
        terms = rest + [_sum_labels(a, la, need, acc)]
    res, labels = terms[0]
    res = _transposed(res, labels, output)
    if res.dtype != rdtype:
        res = res.astype(rdtype)
    if out is not None:
        from kiln._copyto import copyto
        copyto(out, res, casting="unsafe")
        return out
    if order in ("C", "F"):
        res = _creation.array(res, copy=None, order=order)
    return res


def _check_out(out, shape, rdtype, casting, nops):
    if not isinstance(out, ndarray):
        raise TypeError("einsum's out must be a kiln array, not %s" % type(out).__name__)
    if out.ndim != len(shape):
        raise ValueError("out parameter does not have the correct number of dimensions, has %d but should have %d"
                         % (out.ndim, len(shape)))
    if out.shape != shape:
        raise ValueError("out parameter has shape %s, the einstein sum's output has shape %s" % (out.shape, shape))
    if not numpy.can_cast(rdtype, out.dtype, casting):
        raise TypeError("Iterator requested dtype could not be cast from %r to %r, the operand %d dtype, according "
                        "to the rule %r" % (rdtype, out.dtype, nops, casting))


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy.einsum_path: the contraction order einsum would follow with
    ``optimize`` (kiln's greedy order, Note [Einsum order]), as
    (['einsum_path', (i, j), ...], a text listing each step's
    contraction). Operands need only shapes (kiln or NumPy arrays)."""
    subscripts, arrays = _split_arguments(operands)
    shapes = [tuple(numpy.shape(a)) if not isinstance(a, ndarray) else a.shape for a in arrays]
    inputs, output = _parse(subscripts, [len(s) for s in shapes])
    sizes = _sizes(inputs, shapes, output)
    terms = [list(dict.fromkeys(t)) for t in inputs]
    path = _path("greedy" if optimize is True else optimize, terms, sizes, output)
    lines = ["  Complete contraction:  %s" % _text(inputs, output)]
    for step in path:
        chosen = [terms[i] for i in step]
        rest = [t for k, t in enumerate(terms) if k not in step]
        need = _needed(rest, (), output)
        result = [c for c in chosen[0] if c in need]
        for k, labels in enumerate(chosen[1:]):
            batch, _, free_a, free_b = _pair(result, labels, need | _needed(chosen[k + 2:], (), ()))
            result = batch + free_a + free_b
        lines.append("  %-32s elements %d" % (_text(chosen, result), _size(result, sizes)))
        terms = rest + [result]
    return ["einsum_path"] + path, "\n".join(lines)


def _text(terms, output):
    def term(labels):
        text, dots = "", False
        for c in labels:
            if isinstance(c, str):
                text += c
            elif not dots:
                text, dots = text + "...", True
        return text
    return "%s->%s" % (",".join(term(t) for t in terms), term(output))
