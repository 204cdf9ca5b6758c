"""What a name a kernel reads from its globals or closure is, for the
transpiler (pyfrontend/ast_import.cpp calls ``classify``)."""
import builtins as _py_builtins
import math as _math
import types as _types

import numpy as _numpy

from kiln._core import _jit_builtins
from kiln.jit._builtins import Builtin

_REGISTRY = {}
for _n, _ in _jit_builtins():   # the transpiler's table: its "builtins.*" rows
    if _n.startswith("builtins."):
        _REGISTRY[id(getattr(_py_builtins, _n[len("builtins."):]))] = _n
for _n in dir(_math):
    _o = getattr(_math, _n)
    if callable(_o):
        _REGISTRY[id(_o)] = "math." + _n
del _n, _, _o


def classify(obj):
    """(kind, payload...) for obj: ('builtin', name), ('constant', value, dtype name or None),
    ('dtype', name), ('module', name), ('function', python function), ('opaque', type name)."""
    from kiln._core import ufunc as _kiln_ufunc
    if isinstance(obj, Builtin):
        return ("builtin", obj._kiln_builtin)
    wrapped = getattr(obj, "_kiln_jit_function", None)
    if wrapped is not None:
        return ("function", wrapped)
    if isinstance(obj, _types.ModuleType):
        return ("module", obj.__name__)
    name = _REGISTRY.get(id(obj))
    if name is not None:
        return ("builtin", name)
    if isinstance(obj, (_kiln_ufunc, _numpy.ufunc)):
        return ("builtin", "kiln." + obj.__name__)
    if isinstance(obj, type) and issubclass(obj, _numpy.generic):
        try:
            dt = _numpy.dtype(obj)
        except TypeError:
            return ("opaque", obj.__name__)
        return ("dtype", dt.name) if dt.kind in "biufc" else ("opaque", obj.__name__)
    if isinstance(obj, _numpy.dtype):
        return ("dtype", obj.name) if obj.kind in "biufc" else ("opaque", "numpy.dtype")
    if isinstance(obj, _numpy.generic):
        if obj.dtype.kind in "biufc":
            return ("constant", obj.item(), obj.dtype.name)
        return ("opaque", type(obj).__name__)
    if obj is None or isinstance(obj, (bool, int, float, complex, str)):
        return ("constant", obj, None)
    if isinstance(obj, _types.FunctionType):
        return ("function", obj)
    return ("opaque", type(obj).__name__)
