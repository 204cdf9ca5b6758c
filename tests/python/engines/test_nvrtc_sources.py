"""Every stdlib_kernels header compiles with NVRTC for sm_90 (needs libnvrtc,
not a GPU). Every kernel source the suite compiled is checked the same way at
the end of the session: conftest.py, Note [NVRTC check]."""
import os

import pytest

import kiln

HAVE_NVRTC, WHY_NOT = kiln._core._nvrtc_available()
INCLUDE_DIR = os.path.join(os.path.dirname(kiln.__file__), "include", "kiln")
DEVICE_HEADERS = sorted(h for h in os.listdir(INCLUDE_DIR)
                        if h.endswith(".h") and not h.startswith("host_")) if os.path.isdir(INCLUDE_DIR) else []


if DEVICE_HEADERS:  # none yet: the host prelude (host_*.h) is for the host compiler only
    @pytest.mark.run_last
    @pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC not loadable: %s" % WHY_NOT)
    @pytest.mark.parametrize("header", DEVICE_HEADERS)
    def test_stdlib_header_builds_for_sm90(header):
        src = '#include <kiln/%s>\nextern "C" __global__ void probe(int* x) { x[0] = 1; }\n' % header
        binary = kiln._core._nvrtc_compile(src, ["-I" + os.path.dirname(INCLUDE_DIR)], [], "sm_90")
        assert binary[:4] == b"\x7fELF"


@pytest.mark.run_last
@pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC not loadable: %s" % WHY_NOT)
def test_host_prelude_is_refused_by_nvrtc():
    # The host prelude must never leak into device compiles.
    src = '#include <kiln/host_kernel.h>\nextern "C" __global__ void probe(int* x) { x[0] = 1; }\n'
    with pytest.raises(kiln.cuda.compiler.CompileException, match="host C\\+\\+ compiler only"):
        kiln._core._nvrtc_compile(src, ["-I" + os.path.dirname(INCLUDE_DIR)], [], "sm_90")
