"""The CUDA Array Interface (version 3) settings. The work is C++
(pyfrontend/interop_cai.cpp): ndarray.__cuda_array_interface__ on the CUDA
backend (Note [CAI export]), and kiln.asarray/kiln.array of any object that
has the interface viewing its memory without a copy (Note [CAI import]).

    t = torch.rand((4, 4), device="cuda")
    a = kiln.asarray(t)                  # shares t's memory
    b = torch.as_tensor(a, device="cuda")  # shares a's memory

KILN_CUDA_ARRAY_INTERFACE_SYNC=0 (read at import, as CuPy reads its
CUPY_CUDA_ARRAY_INTERFACE_SYNC) skips the stream wait on import: the caller
then orders the producer's work and kiln's itself.
"""
import os

SYNC = os.environ.get("KILN_CUDA_ARRAY_INTERFACE_SYNC", "1") != "0"
