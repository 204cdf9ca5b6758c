"""kiln.linalg: NumPy's numpy.linalg for kiln arrays (the array API
standard's linear algebra extension too).

So far the products: matmul, tensordot, vecdot, outer (1-D operands only,
as numpy.linalg.outer) and matrix_transpose, with NumPy 2's semantics
(docs/linalg.md). Products run through cuBLAS on the cuda backend where it
can and through kiln's own kernel everywhere else (Note [Matmul paths] in
arraycore/matmul.h). The decompositions and solvers of issue 9 will live
here too.

    import kiln
    c = kiln.linalg.matmul(a, b)
    d = kiln.linalg.vecdot(u, v, axis=0)
"""
from kiln.linalg._products import linalg_matmul as matmul
from kiln.linalg._products import linalg_outer as outer
from kiln.linalg._products import linalg_tensordot as tensordot
from kiln.linalg._products import linalg_vecdot as vecdot
from kiln.linalg._products import matrix_transpose

for _f, _name in ((matmul, "matmul"), (outer, "outer"), (tensordot, "tensordot"), (vecdot, "vecdot")):
    _f.__name__ = _f.__qualname__ = _name
    _f.__module__ = __name__
del _f, _name

__all__ = ["matmul", "matrix_transpose", "outer", "tensordot", "vecdot"]
