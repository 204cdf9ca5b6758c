"""kiln with other GPU libraries, as the seeds show them (seeds/000 and 001):
PyTorch (CUDA Array Interface, DLPack, a custom autograd function written
with kiln.RawKernel), Numba, JAX and mpi4py. These need the CUDA backend
and the library: each test skips with the reason otherwise."""
import os

import numpy
import pytest

import kiln

ON_CUDA = kiln.get_backend() == "cuda"
pytestmark = pytest.mark.skipif(not ON_CUDA, reason="needs the CUDA backend (KILN_BACKEND=cuda on a GPU)")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    return torch


def test_seed_torch_cuda_array_interface():
    torch = _torch()
    # convert a torch tensor to a kiln array
    a = torch.rand((4, 4), device="cuda")
    want = (a * a).cpu().numpy()
    b = kiln.asarray(a)
    b *= b
    numpy.testing.assert_array_equal(b.get(), want)
    numpy.testing.assert_array_equal(a.cpu().numpy(), want)
    assert a.__cuda_array_interface__["data"][0] == b.__cuda_array_interface__["data"][0]
    # convert a kiln array to a torch tensor
    a = kiln.arange(10)
    b = torch.as_tensor(a, device="cuda")
    b += 3
    assert b.cpu().tolist() == list(range(3, 13))
    assert a.get().tolist() == list(range(3, 13))
    assert a.__cuda_array_interface__["data"][0] == b.__cuda_array_interface__["data"][0]


def test_torch_strided_tensors_share_memory():
    torch = _torch()
    t = torch.arange(24, dtype=torch.float64, device="cuda").reshape(4, 6)
    for view in (t.T, t[::2, 1::2], t[1]):
        k = kiln.asarray(view)
        assert k.data.ptr == view.data_ptr() and k.strides == tuple(s * 8 for s in view.stride())
        numpy.testing.assert_array_equal(k.get(), view.cpu().numpy())
    k = kiln.arange(12, dtype=kiln.float32).reshape(3, 4)
    for view in (k.T, k[::2, 1::2], k[1]):
        u = torch.as_tensor(view, device="cuda")
        assert u.data_ptr() == view.data.ptr and u.stride() == tuple(s // 4 for s in view.strides)
        numpy.testing.assert_array_equal(u.cpu().numpy(), view.get())


def test_seed_torch_dlpack():
    torch = _torch()
    from torch.utils.dlpack import from_dlpack, to_dlpack
    tx1 = torch.randn(1, 2, 3, 4).cuda()
    dx = to_dlpack(tx1)
    cx = kiln.from_dlpack(dx)
    assert cx.data.ptr == tx1.data_ptr()
    tx2 = from_dlpack(cx.toDlpack())
    assert tx2.data_ptr() == tx1.data_ptr()
    assert torch.equal(tx2, tx1)
    cx = kiln.fromDlpack(to_dlpack(tx1))   # seeds/001's spelling
    numpy.testing.assert_array_equal(cx.get(), tx1.cpu().numpy())


def test_torch_dlpack_protocol_both_ways():
    torch = _torch()
    t = torch.randn(5, 7, device="cuda")
    k = kiln.from_dlpack(t)
    assert k.data.ptr == t.data_ptr()
    k *= 2
    numpy.testing.assert_array_equal(t.cpu().numpy(), k.get())
    a = kiln.arange(12, dtype=kiln.float32).reshape(3, 4).T
    u = torch.from_dlpack(a)
    assert u.data_ptr() == a.data.ptr and u.stride() == (1, 4)
    u += 1
    assert a.get().tolist() == (numpy.arange(12, dtype=numpy.float32).reshape(3, 4).T + 1).tolist()
    # On a PyTorch side stream: kiln's work is ordered before PyTorch's.
    s = torch.cuda.Stream()
    big = kiln.ones(1 << 22, dtype=kiln.float32) * 3
    with torch.cuda.stream(s):
        total = torch.from_dlpack(big).sum()
    s.synchronize()
    assert total.item() == 3 * (1 << 22)


FWD = r"""
extern "C" __global__
void kiln_custom_kernel_fwd(const float* x, float* y, int size) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < size)
        y[tid] = log(x[tid]);
}
"""
BWD = r"""
extern "C" __global__
void kiln_custom_kernel_bwd(const float* x, float* gy, float* gx, int size) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < size)
        gx[tid] = gy[tid] / x[tid];
}
"""


def test_seed_torch_autograd_function_with_raw_kernels():
    torch = _torch()
    kiln_custom_kernel_fwd = kiln.RawKernel(FWD, "kiln_custom_kernel_fwd")
    kiln_custom_kernel_bwd = kiln.RawKernel(BWD, "kiln_custom_kernel_bwd")

    class KilnLog(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.input = x
            kiln_x = kiln.ascontiguousarray(kiln.from_dlpack(x.detach()))
            kiln_y = kiln.empty(kiln_x.shape, dtype=kiln_x.dtype)
            x_size = kiln_x.size
            bs = 128
            kiln_custom_kernel_fwd((bs,), ((x_size + bs - 1) // bs,), (kiln_x, kiln_y, x_size))
            return torch.from_dlpack(kiln_y)

        @staticmethod
        def backward(ctx, grad_y):
            kiln_input = kiln.from_dlpack(ctx.input.detach()).ravel()
            kiln_grad_y = kiln.from_dlpack(grad_y.detach()).ravel()
            kiln_grad_x = kiln.zeros(kiln_grad_y.shape, dtype=kiln_grad_y.dtype)
            gy_size = kiln_grad_y.size
            bs = 128
            kiln_custom_kernel_bwd((bs,), ((gy_size + bs - 1) // bs,),
                                   (kiln_input, kiln_grad_y, kiln_grad_x, gy_size))
            return torch.from_dlpack(kiln_grad_x)

    # x in [2, 3): log(x) away from 0, so CUDA's logf and PyTorch's agree to an ulp or two.
    # One-dimensional, as the seed's backward (which ravels) assumes: PyTorch
    # rejects a raveled gradient for a 2-D input. 150 elements: two blocks of 128.
    x = (torch.rand(150, device="cuda") + 2.0).requires_grad_()
    y = KilnLog.apply(x)
    torch.testing.assert_close(y, torch.log(x.detach()), rtol=1e-6, atol=0)
    w = torch.randn(150, device="cuda")
    (y * w).sum().backward()
    torch.testing.assert_close(x.grad, w / x.detach(), rtol=1e-6, atol=0)


def test_external_stream_from_torch():
    torch = _torch()
    s = torch.cuda.Stream()
    with kiln.cuda.ExternalStream(s.cuda_stream):
        assert kiln.cuda.get_current_stream().ptr == s.cuda_stream
        a = kiln.arange(1 << 20, dtype=kiln.float32) * 2
    s.synchronize()
    assert float(a[-1]) == 2.0 * ((1 << 20) - 1)
    # kiln's stream handed to PyTorch
    k = kiln.cuda.Stream(non_blocking=True)
    ts = torch.cuda.ExternalStream(k.ptr)
    with torch.cuda.stream(ts):
        t = torch.ones(8, device="cuda") * 5
    k.synchronize()
    assert t.sum().item() == 40.0


def _numba_numpy_alias():
    """Numba 0.68 still looks up numpy.row_stack, an alias of numpy.vstack that
    NumPy 2.5 removed (the GPU machine has both): put the alias back for
    Numba's sake before it is imported. Nothing in kiln uses it."""
    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack


def _numba_cuda():
    """numba.cuda, once it has run a kernel on its own device arrays: a Numba
    that cannot (one older than the machine's NumPy fails inside its own
    compiler) is a broken environment, not a kiln failure, and skips."""
    _numba_numpy_alias()
    numba_cuda = pytest.importorskip("numba.cuda")
    try:
        @numba_cuda.jit
        def probe(x):
            x[0] = 1

        d = numba_cuda.to_device(numpy.zeros(1, dtype=numpy.int64))
        probe[1, 1](d)
        assert d.copy_to_host()[0] == 1
    except Exception as e:  # noqa: BLE001 - any failure of Numba on its own arrays
        import numba
        pytest.skip(f"Numba {numba.__version__} cannot run a kernel on NumPy {numpy.__version__} here: "
                    f"{type(e).__name__}: {e}")
    return numba_cuda


def test_seed_numba_kernel_on_kiln_arrays():
    numba_cuda = _numba_cuda()

    @numba_cuda.jit
    def add(x, y, out):
        start = numba_cuda.grid(1)
        stride = numba_cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            out[i] = x[i] + y[i]

    a = kiln.arange(10)
    b = a * 2
    out = kiln.zeros_like(a)
    assert str(out) == "[0 0 0 0 0 0 0 0 0 0]"
    add[1, 32](a, b, out)
    assert str(out) == "[ 0  3  6  9 12 15 18 21 24 27]"


def test_seed_numba_device_array_to_kiln_zero_copy():
    _numba_numpy_alias()
    numba = pytest.importorskip("numba")
    import numba.cuda  # noqa: F401
    x = numpy.arange(10)
    x_numba = numba.cuda.to_device(x)
    x_kiln = kiln.asarray(x_numba)
    assert type(x_kiln) is kiln.ndarray
    assert x_kiln.data.ptr == x_numba.__cuda_array_interface__["data"][0]
    x_kiln += 1
    numpy.testing.assert_array_equal(x_numba.copy_to_host(), x + 1)


def test_jax_dlpack_both_ways():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if not gpus:
        pytest.skip("JAX has no GPU device")
    import jax.numpy as jnp
    j = jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4)
    k = kiln.from_dlpack(j)       # JAX arrays are immutable: read-only tensors come back copied
    numpy.testing.assert_array_equal(k.get(), numpy.arange(12.0, dtype=numpy.float32).reshape(3, 4))
    a = kiln.arange(6, dtype=kiln.float32) * 3
    back = jnp.from_dlpack(a)
    numpy.testing.assert_array_equal(numpy.asarray(back), a.get())


def _mpi():
    mpi4py = pytest.importorskip("mpi4py")
    from mpi4py import MPI
    return mpi4py, MPI


def test_mpi_allreduce_through_host_buffers():
    _, MPI = _mpi()
    comm = MPI.COMM_WORLD
    size = comm.Get_size()
    sendbuf = kiln.arange(10, dtype="i")
    recvbuf = kiln.empty_like(sendbuf)
    host = numpy.empty(10, dtype="i")
    comm.Allreduce(kiln.asnumpy(sendbuf), host)
    recvbuf.set(host)
    assert kiln.allclose(recvbuf, sendbuf * size)


def test_seed_mpi_allreduce_on_device_buffers():
    _, MPI = _mpi()
    query = getattr(MPI, "Query_cuda_support", None)
    if query is None or not query():
        pytest.skip("this MPI is not CUDA-aware: kiln buffers go through the host (the test above)")
    comm = MPI.COMM_WORLD
    size = comm.Get_size()
    sendbuf = kiln.arange(10, dtype="i")
    recvbuf = kiln.empty_like(sendbuf)
    comm.Allreduce(sendbuf, recvbuf)
    assert kiln.allclose(recvbuf, sendbuf * size)
