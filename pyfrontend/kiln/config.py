"""kiln's process-wide switches for advanced indexing with device index arrays.

Index arrays that come from the host (lists, tuples, NumPy arrays, Python
ints) are always checked, raising NumPy's IndexError. Index arrays already
on the device are not, by default, as in CuPy:

- ``check_index_bounds`` (default False): out-of-range device indices wrap
  around (``i`` addresses ``i mod n``). True: a check pass runs before the
  gather or scatter and raises NumPy's IndexError ("index 3 is out of bounds
  for axis 0 with size 3") with nothing written; it costs a read of the
  indices and one device-to-host synchronisation per index array.
- ``setitem_last_wins`` (default False): ``a[idx] = v`` with a target named
  several times in ``idx`` stores one of its values, which one unspecified.
  True: NumPy's result, the value of the last of them in C order; it costs
  one more pass over the indices (atomics) and a 64-bit slot per element of
  the target array.

Both are plain attributes (``kiln.config.check_index_bounds = True``) held in
C++, so the launch path reads them without Python; ``kiln.config.indexing``
sets them for a ``with`` block:

    with kiln.config.indexing(check_index_bounds=True, setitem_last_wins=True):
        a[idx] = v          # NumPy's semantics exactly

Matrix products (docs/linalg.md) have two more, also held in C++:

- ``allow_tf32`` (default False): float32 (and complex64) products on the
  cuda backend keep full float32 precision. True lets cuBLAS round their
  inputs to TF32 (10-bit mantissa) on the tensor cores: faster, with
  relative errors near 1e-3. It changes nothing on the host backend or for
  other dtypes.
- ``use_cublas`` (default True): False runs every product through kiln's
  own kernel, as on a machine without cuBLAS.
"""
import contextlib
import sys
import types

from kiln import _core


@contextlib.contextmanager
def indexing(check_index_bounds=None, setitem_last_wins=None):
    """Sets the switches given (None keeps one) for the ``with`` block, then
    restores the previous values."""
    previous = _core._indexing_config(check_index_bounds, setitem_last_wins)
    try:
        yield
    finally:
        _core._indexing_config(*previous)


class _ConfigModule(types.ModuleType):
    @property
    def check_index_bounds(self):
        return _core._indexing_config()[0]

    @check_index_bounds.setter
    def check_index_bounds(self, value):
        _core._indexing_config(check_bounds=bool(value))

    @property
    def setitem_last_wins(self):
        return _core._indexing_config()[1]

    @setitem_last_wins.setter
    def setitem_last_wins(self, value):
        _core._indexing_config(last_wins=bool(value))

    # Matrix products (docs/linalg.md, Note [TF32] in arraycore/blas.h).
    @property
    def allow_tf32(self):
        return _core._blas_config()[0]

    @allow_tf32.setter
    def allow_tf32(self, value):
        _core._blas_config(allow_tf32=bool(value))

    @property
    def use_cublas(self):
        return _core._blas_config()[1]

    @use_cublas.setter
    def use_cublas(self, value):
        _core._blas_config(use_cublas=bool(value))


sys.modules[__name__].__class__ = _ConfigModule
