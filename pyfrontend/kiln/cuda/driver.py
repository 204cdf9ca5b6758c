"""The driver's errors (cupy.cuda.driver's place): a failed module load, a kernel or global not found."""
from kiln._core import CUDADriverError

__all__ = ["CUDADriverError"]
