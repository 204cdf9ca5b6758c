"""The objects kernels name: thread indices, barriers, memory, atomics, warp
operations. Outside a kernel they only describe themselves; inside one the
transpiler knows them by their ``_kiln_builtin`` name. The transpiler's table
(transpiler/builtins.cpp) is the one list: every ``kiln.jit.NAME`` row
becomes the object ``NAME`` here, with the row's doc."""
from kiln._core import _jit_builtins


class Builtin:
    """A kernel builtin (``kiln.jit.threadIdx``, ``kiln.jit.syncthreads``, ...)."""

    def __init__(self, name, doc):
        self._kiln_builtin = name
        self.__doc__ = doc

    def __repr__(self):
        return "<kiln.jit builtin %s>" % self._kiln_builtin[len("kiln.jit."):]

    def __call__(self, *args, **kwargs):
        raise RuntimeError("%s can only be called inside a kernel (a function decorated with "
                           "@kiln.jit.rawkernel)" % self._kiln_builtin)

    __getitem__ = __call__   # jit.cub.WarpReduce[dtype]: inside kernels too

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError("%s.%s can only be read inside a kernel" % (self._kiln_builtin, attr))


def rows(prefix):
    """{name after prefix: Builtin} for the table's rows directly under prefix ("kiln.jit.")."""
    return {name[len(prefix):]: Builtin(name, doc) for name, doc in _jit_builtins()
            if name.startswith(prefix) and "." not in name[len(prefix):]}


globals().update(rows("kiln.jit."))
