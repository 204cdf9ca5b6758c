"""kiln.linalg: NumPy's numpy.linalg for kiln arrays (the array API
standard's linear algebra extension too).

So far the products: matmul, tensordot, vecdot, outer (1-D operands only,
as numpy.linalg.outer) and matrix_transpose, with NumPy 2's semantics
(docs/linalg.md). Products run through cuBLAS on the cuda backend where it
can and through kiln's own kernel everywhere else (Note [Matmul paths] in
arraycore/matmul.h). The decompositions and solvers (cholesky, qr, svd,
svdvals, eigh, eigvalsh, eig, eigvals, solve, inv, det, slogdet, lstsq,
pinv, matrix_power, matrix_rank, tensorsolve, tensorinv, cond) are composed from
LAPACK primitives: cuSOLVER on the cuda backend, SciPy's LAPACK on the host
(_lapack.py, Note [LAPACK primitives on the host]); LinAlgError is
numpy.linalg.LinAlgError itself.

    import kiln
    c = kiln.linalg.matmul(a, b)
    d = kiln.linalg.vecdot(u, v, axis=0)
    u, s, vh = kiln.linalg.svd(a)
"""
from kiln.linalg._products import linalg_matmul as matmul
from kiln.linalg._products import linalg_outer as outer
from kiln.linalg._products import linalg_tensordot as tensordot
from kiln.linalg._products import linalg_vecdot as vecdot
from kiln.linalg._products import matrix_transpose
from kiln.linalg._stacks import LinAlgError
from kiln.linalg._decompositions import (EigResult, EighResult, QRResult, SVDResult, cholesky, eig, eigh, eigvals,
                                         eigvalsh, qr, svd, svdvals)
from kiln.linalg._solvers import (SlogdetResult, cond, det, inv, lstsq, matrix_power, matrix_rank, pinv, slogdet,
                                  solve, tensorinv, tensorsolve)
from kiln._numeric import linalg_cross as cross
from kiln.linalg._norms import diagonal, matrix_norm, norm, trace, vector_norm

for _f, _name in ((matmul, "matmul"), (outer, "outer"), (tensordot, "tensordot"), (vecdot, "vecdot")):
    _f.__name__ = _f.__qualname__ = _name
    _f.__module__ = __name__
del _f, _name

__all__ = ["matmul", "matrix_transpose", "outer", "tensordot", "vecdot"]
__all__ += ["LinAlgError", "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond",
            "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_power", "matrix_rank", "pinv", "qr",
            "slogdet", "solve", "svd", "svdvals", "tensorinv", "tensorsolve"]
__all__ += ["cross", "diagonal", "matrix_norm", "norm", "trace", "vector_norm"]
