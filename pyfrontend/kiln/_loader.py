"""Start-up wiring of kiln._core: where kiln's kernel headers, NVRTC and the CUDA libraries live."""
import os
import site
import sys

from kiln import _core

_core._set_stdlib_include_dir(os.path.join(os.path.dirname(__file__), "include"))


def _nvidia_wheel_dirs():
    """Library folders of pip's NVIDIA wheels (nvidia-cuda-nvrtc, nvidia-cublas,
    ...), if installed: where kiln also looks for NVRTC and the CUDA libraries
    it loads (Note [CUDA library search] in runtime/cuda/library_search.h)."""
    roots = list(sys.path)
    try:
        roots += site.getsitepackages()
    except AttributeError:  # some virtualenvs
        pass
    seen = []
    for root in roots:
        for sub in ("nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cuda_nvrtc/lib", "nvidia/cublas/lib",
                    "nvidia/cufft/lib", "nvidia/cusolver/lib", "nvidia/curand/lib"):
            d = os.path.join(root, sub)
            if os.path.isdir(d) and d not in seen:
                seen.append(d)
    return seen


for _d in _nvidia_wheel_dirs():
    _core._add_library_search_dir(_d)
