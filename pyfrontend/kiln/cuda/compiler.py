"""Kernel compilation errors."""
from kiln._core import CompileException

CompileException.__module__ = "kiln.cuda.compiler"
__all__ = ["CompileException"]
