"""Start-up wiring of kiln._core: where kiln's kernel headers and NVRTC live."""
import os
import site
import sys

from kiln import _core

_core._set_stdlib_include_dir(os.path.join(os.path.dirname(__file__), "include"))


def _nvrtc_dirs():
    """Library folders of pip's NVIDIA wheels (nvidia-cuda-nvrtc), if installed."""
    roots = list(sys.path)
    try:
        roots += site.getsitepackages()
    except AttributeError:  # some virtualenvs
        pass
    seen = []
    for root in roots:
        for sub in ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "nvidia/cu12/lib"):
            d = os.path.join(root, sub)
            if os.path.isdir(d) and d not in seen:
                seen.append(d)
    return seen


for _d in _nvrtc_dirs():
    _core._add_nvrtc_search_dir(_d)
