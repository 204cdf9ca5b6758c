"""kiln.RawModule: a CUDA C++ module from source or from a compiled file."""
from kiln import _core


class RawModule:
    """CUDA C++ source (``code=``) or a compiled binary (``path=``), with its kernels.

    ``path`` takes a ``.cubin``/``.ptx`` on the cuda backend and a shared
    object built from the same source on the host backend. C++ template
    kernels are reached through ``name_expressions``, e.g.
    ``RawModule(code=src, name_expressions=["f<float>"]).get_function("f<float>")``.
    Compilation happens at the first ``get_function`` (or ``compile()``).
    """

    def __init__(self, code=None, path=None, options=(), name_expressions=None,
                 backend="nvrtc", translate_cucomplex=False, jitify=False):
        if (code is None) == (path is None):
            raise TypeError("RawModule needs exactly one of code= or path=")
        if jitify:
            raise NotImplementedError("jitify is not supported by kiln")
        self.code = code
        self.path = path
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions) if name_expressions else ()
        if code is not None:
            self._source = _core._raw_module_from_code(code, self.options, self.name_expressions)
        else:
            self._source = _core._raw_module_from_path(str(path))

    def compile(self):
        """Compile and load now instead of at the first get_function."""
        _core._raw_module_compile(self._source)

    def get_function(self, name):
        """The kernel ``name`` (a kernel name with C linkage, or one of the name expressions)."""
        return _core._raw_module_get_function(self._source, name)
