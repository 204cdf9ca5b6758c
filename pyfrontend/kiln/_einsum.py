"""Einstein summation: kiln.einsum, with numpy.einsum's subscript language
(explicit and implicit output, ellipsis broadcasting, repeated labels in
one operand, the sublist form), and kiln.einsum_path. The parsing, NumPy's
checks, the contraction order and its execution are arraycore/einsum.cpp's
(Note [Einsum plan], Note [Einsum order]), one C++ call each.

    c = kiln.einsum("ij,jk->ik", a, b)             # a @ b
    t = kiln.einsum("ii", m)                        # the trace of m (0-d)
    d = kiln.einsum("ii->i", m)                     # m's diagonal, a view of m
    e = kiln.einsum("...ij,...jk", x, y)            # batched products, broadcast
    f = kiln.einsum(a, [0, 1], b, [1, 2], [0, 2])   # the first line, sublist form
    g = kiln.einsum("ij,jk,kl->il", a, b, c, optimize=True)   # cheapest pair first
"""
from kiln import _core


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
    return _core._einsum(operands, out, dtype, order, casting, optimize)


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy.einsum_path: the contraction order einsum would follow with
    ``optimize`` (kiln's greedy order, Note [Einsum order]), as
    (['einsum_path', (i, j), ...], a text listing each step's
    contraction). Operands need only shapes (kiln or NumPy arrays)."""
    return _core._einsum_path(operands, optimize)
