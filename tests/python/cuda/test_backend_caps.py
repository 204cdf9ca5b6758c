"""Backend traits (Note [Backend traits] in runtime/backend.h): what the
Python layer asks instead of comparing backend names."""
import os
import subprocess
import sys

import kiln
from kiln import _core

TRAITS = ("host_addressable", "cuda_interop", "concurrent_streams", "runs_kernels_on_calling_thread",
          "one_module_per_source", "multiprocessor_residency", "vendor_libraries")


def test_caps_are_a_new_dict_of_bools():
    caps = _core._backend_caps()
    assert set(caps) == set(TRAITS)
    assert all(type(v) is bool for v in caps.values())
    caps["host_addressable"] = None            # a copy: the backend's traits stay
    assert type(_core._backend_caps()["host_addressable"]) is bool


def test_caps_of_each_backend():
    caps = _core._backend_caps()
    assert kiln.get_backend() in ("cuda", "host")   # get_backend() still names it
    on_cuda = kiln.get_backend() == "cuda"
    assert kiln.is_available() is on_cuda          # CuPy's is_available: a GPU serves this process
    assert caps == {"host_addressable": not on_cuda, "cuda_interop": on_cuda, "concurrent_streams": on_cuda,
                    "runs_kernels_on_calling_thread": not on_cuda, "one_module_per_source": not on_cuda,
                    "multiprocessor_residency": on_cuda, "vendor_libraries": on_cuda}


def test_library_availability_follows_the_backend():
    ok, why = _core._cufft_usable()
    if not _core._backend_caps()["vendor_libraries"]:
        assert not ok and why == "the backend is %s, not cuda" % kiln.get_backend()
    else:
        assert ok or why


def test_kiln_imports_where_the_requested_cuda_backend_cannot_start():
    """KILN_BACKEND=cuda with no usable GPU (here: no visible device, or no
    driver at all): `import kiln` works and is_available() is False, as
    `import cupy` and cupy.is_available() (runtime::backend_caps); using
    the device raises the backend's error."""
    code = ("import kiln\n"
            "print(kiln.is_available())\n"
            "try:\n"
            "    kiln.zeros(3)\n"
            "except RuntimeError as e:\n"
            "    print(type(e).__name__, 'cannot start' in str(e))\n")
    env = dict(os.environ, KILN_BACKEND="cuda", CUDA_VISIBLE_DEVICES="-1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["False", "CUDADriverError True"]
