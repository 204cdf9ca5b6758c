"""NumPy's exceptions and warnings, under kiln (cupy.exceptions' place): kiln
raises and warns with these very classes, so `except numpy.exceptions.X`
and `except kiln.exceptions.X` catch the same errors."""
from numpy.exceptions import (AxisError, ComplexWarning, DTypePromotionError, ModuleDeprecationWarning,  # noqa: F401
                              RankWarning, TooHardError, VisibleDeprecationWarning)

__all__ = ["AxisError", "ComplexWarning", "DTypePromotionError", "ModuleDeprecationWarning", "RankWarning",
           "TooHardError", "VisibleDeprecationWarning"]
