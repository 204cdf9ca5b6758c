"""RawKernel: the seeds' examples, shared memory, barriers, atomics, scalars, errors."""
import numpy
import pytest

import kiln

MY_ADD = r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
} '''

SEED_OUTPUT = """array([[ 0.,  2.,  4.,  6.,  8.],
       [10., 12., 14., 16., 18.],
       [20., 22., 24., 26., 28.],
       [30., 32., 34., 36., 38.],
       [40., 42., 44., 46., 48.]], dtype=float32)"""


def test_seed_my_add_prints_seed_output():
    add_kernel = kiln.RawKernel(MY_ADD, 'my_add')
    x1 = kiln.arange(25, dtype=kiln.float32).reshape(5, 5)
    x2 = kiln.arange(25, dtype=kiln.float32).reshape(5, 5)
    y = kiln.zeros((5, 5), dtype=kiln.float32)
    add_kernel((5,), (5,), (x1, x2, y))
    assert repr(y) == SEED_OUTPUT
    numpy.testing.assert_array_equal(y.get(), 2 * numpy.arange(25, dtype=numpy.float32).reshape(5, 5))


def test_kernel_attributes():
    k = kiln.RawKernel(MY_ADD, 'my_add', options=('-DUNUSED=1',))
    assert k.name == 'my_add'
    assert k.code == MY_ADD
    assert k.options == ('-DUNUSED=1',)
    k.compile()
    assert k.param_sizes == [8, 8, 8]


REDUCE = r'''
extern "C" __global__ void block_sum(const int* x, long long* out, int n) {
    __shared__ long long partial[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? x[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}'''


@pytest.mark.parametrize("block", [32, 256, 1024])
def test_shared_memory_block_reduction(rng, block):
    n = 5000
    host = rng.integers(-10**6, 10**6, size=n, dtype=numpy.int32)
    x = kiln.asarray(host)
    blocks = (n + block - 1) // block
    out = kiln.zeros(blocks, dtype=kiln.int64)
    kiln.RawKernel(REDUCE, 'block_sum')((blocks,), (block,), (x, out, n))
    expected = [host[b * block:(b + 1) * block].astype(numpy.int64).sum() for b in range(blocks)]
    numpy.testing.assert_array_equal(out.get(), expected)


DYNAMIC = r'''
extern "C" __global__ void reverse_block(const float* x, float* y) {
    extern __shared__ float buf[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    buf[t] = x[base + t];
    __syncthreads();
    y[base + t] = buf[blockDim.x - 1 - t];
}'''


@pytest.mark.parametrize("block", [64, 512])
def test_dynamic_shared_memory(rng, block):
    blocks = 7
    host = rng.standard_normal(blocks * block).astype(numpy.float32)
    y = kiln.zeros(blocks * block, dtype=kiln.float32)
    kiln.RawKernel(DYNAMIC, 'reverse_block')((blocks,), (block,), (kiln.asarray(host), y),
                                             shared_mem=block * 4)
    numpy.testing.assert_array_equal(y.get(), host.reshape(blocks, block)[:, ::-1].ravel())


ATOMICS = r'''
extern "C" __global__ void count(int* total, unsigned long long* wide, float* f, int* hist, int bins) {
    atomicAdd(total, 1);
    atomicAdd(wide, 3ULL);
    atomicAdd(f, 1.0f);
    __shared__ int local;
    if (threadIdx.x == 0) local = 0;
    __syncthreads();
    atomicAdd(&local, 2);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&hist[blockIdx.x % bins], local);
    atomicMax(total + 1, (int)(blockIdx.x * blockDim.x + threadIdx.x));
}'''


def test_atomics_under_contention_give_exact_totals():
    blocks, threads, bins = 96, 256, 5
    total = kiln.zeros(2, dtype=kiln.int32)
    wide = kiln.zeros(1, dtype=kiln.uint64)
    f = kiln.zeros(1, dtype=kiln.float32)
    hist = kiln.zeros(bins, dtype=kiln.int32)
    kiln.RawKernel(ATOMICS, 'count')((blocks,), (threads,), (total, wide, f, hist, bins))
    n = blocks * threads
    assert total.get().tolist() == [n, n - 1]
    assert int(wide.get()[0]) == 3 * n
    assert float(f.get()[0]) == float(n)  # exact: n < 2**24
    expected = numpy.zeros(bins, numpy.int32)
    for b in range(blocks):
        expected[b % bins] += 2 * threads
    numpy.testing.assert_array_equal(hist.get(), expected)


SCALARS = r'''
extern "C" __global__ void scalars(float* out, float f, double d, int i, long long q,
                                   unsigned char u8, bool b, short s) {
    out[0] = f; out[1] = (float)d; out[2] = (float)i; out[3] = (float)q;
    out[4] = (float)u8; out[5] = b ? 1.0f : -1.0f; out[6] = (float)s;
}'''


def test_python_scalars_take_the_parameter_type():
    k = kiln.RawKernel(SCALARS, 'scalars')
    out = kiln.zeros(7, dtype=kiln.float32)
    k((1,), (1,), (out, 5.0, 2.5, -7, 2**40, 200, True, -3))
    assert out.get().tolist() == [5.0, 2.5, -7.0, float(2**40), 200.0, 1.0, -3.0]
    assert k.param_sizes == [8, 4, 8, 4, 8, 1, 1, 2]


def test_python_int_to_float_parameter_is_converted():
    out = kiln.zeros(7, dtype=kiln.float32)
    kiln.RawKernel(SCALARS, 'scalars')((1,), (1,), (out, 3, 4, 0, 0, 0, False, 0))
    assert out.get().tolist()[:2] == [3.0, 4.0]


def test_numpy_scalars_must_match_the_parameter():
    k = kiln.RawKernel(SCALARS, 'scalars')
    out = kiln.zeros(7, dtype=kiln.float32)
    k((1,), (1,), (out, numpy.float32(1.5), numpy.float64(0.25), numpy.int32(9),
                   numpy.int64(-4), numpy.uint8(255), numpy.bool_(False), numpy.int16(12)))
    assert out.get().tolist() == [1.5, 0.25, 9.0, -4.0, 255.0, -1.0, 12.0]
    with pytest.raises(TypeError, match=r"argument 1 .*float64.* 8 bytes, the parameter 4"):
        k((1,), (1,), (out, numpy.float64(1.5), 0.0, 0, 0, 0, False, 0))
    with pytest.raises(TypeError, match=r"argument 2 .*int64 is signed integer, the parameter is floating-point"):
        k((1,), (1,), (out, 1.0, numpy.int64(3), 0, 0, 0, False, 0))


def test_wrong_argument_count_names_the_counts():
    k = kiln.RawKernel(MY_ADD, 'my_add')
    x = kiln.zeros(5, dtype=kiln.float32)
    with pytest.raises(TypeError, match="takes 3 arguments, got 4"):
        k((1,), (5,), (x, x, x, 25))
    with pytest.raises(TypeError, match="takes 3 arguments, got 2"):
        k((1,), (5,), (x, x))


def test_unsupported_argument_type_names_the_position():
    k = kiln.RawKernel(MY_ADD, 'my_add')
    x = kiln.zeros(5, dtype=kiln.float32)
    with pytest.raises(TypeError, match=r"argument 1 .*unsupported argument type 'str'"):
        k((1,), (5,), (x, "oops", x))
    with pytest.raises(TypeError, match=r"argument 2 .*Python float cannot be passed to a pointer"):
        k((1,), (5,), (x, x, 1.0))
    with pytest.raises(TypeError, match=r"argument 1 .*kiln.ndarray is passed as a pointer"):
        kiln.RawKernel(SCALARS, 'scalars')((1,), (1,), (x, x, 0.0, 0, 0, 0, False, 0))
    with pytest.raises(TypeError, match="args must be a tuple"):
        k((1,), (5,), x)


def test_integer_overflow_is_refused():
    out = kiln.zeros(7, dtype=kiln.float32)
    k = kiln.RawKernel(SCALARS, 'scalars')
    with pytest.raises(ValueError, match=r"argument 5 .*unsigned char.*256 does not fit"):
        k((1,), (1,), (out, 0.0, 0.0, 0, 0, 256, False, 0))
    with pytest.raises(ValueError, match=r"argument 3 .*'int'.*2147483648 does not fit"):
        k((1,), (1,), (out, 0.0, 0.0, 2**31, 0, 0, False, 0))


def test_bad_grid_and_block():
    k = kiln.RawKernel(MY_ADD, 'my_add')
    x = kiln.zeros(5, dtype=kiln.float32)
    with pytest.raises(ValueError, match="grid dimension 0 must be positive"):
        k((0,), (5,), (x, x, x))
    with pytest.raises(ValueError, match="block must have 1 to 3 dimensions"):
        k((1,), (1, 1, 1, 1), (x, x, x))
    with pytest.raises(TypeError, match="block must be an int or a tuple"):
        k((1,), "5", (x, x, x))


def test_compile_error_shows_the_offending_line():
    bad = 'extern "C" __global__ void broken(float* y) {\n    y[0] = undefined_name + 1;\n}\n'
    with pytest.raises(kiln.cuda.compiler.CompileException) as info:
        kiln.RawKernel(bad, 'broken').compile()
    assert isinstance(info.value, RuntimeError)
    message = str(info.value)
    assert "broken.cu" in message and ("(2)" in message or ":2:" in message)  # file and line
    assert "y[0] = undefined_name + 1;" in message                            # the source line


def test_unknown_kernel_name_lists_the_module_kernels():
    with pytest.raises(RuntimeError, match=r"no kernel named 'my_sub'.*my_add"):
        kiln.RawKernel(MY_ADD, 'my_sub').compile()


def test_multidimensional_grid_and_block():
    src = r'''
extern "C" __global__ void index3d(int* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    int w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
    out[(z * h + y) * w + x] = x + 100 * y + 10000 * z;
}'''
    out = kiln.zeros(4 * 6 * 6, dtype=kiln.int32)
    kiln.RawKernel(src, 'index3d')((2, 3, 2), (2, 2, 3), (out,))
    z, y, x = numpy.meshgrid(range(6), range(6), range(4), indexing="ij")
    numpy.testing.assert_array_equal(out.get(), (x + 100 * y + 10000 * z).ravel())


def test_warp_shuffle_reduction():
    src = r'''
extern "C" __global__ void warp_sum(const int* x, int* out) {
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    unsigned ballot = __ballot_sync(0xffffffff, v > 0);
    if ((threadIdx.x & 31) == 0) {
        out[2 * ((blockIdx.x * blockDim.x + threadIdx.x) / 32)] = v;
        out[2 * ((blockIdx.x * blockDim.x + threadIdx.x) / 32) + 1] = (int)(ballot & 1u);
    }
}'''
    host = numpy.arange(-64, 192, dtype=numpy.int32)
    out = kiln.zeros(2 * 8, dtype=kiln.int32)
    kiln.RawKernel(src, 'warp_sum')((2,), (128,), (kiln.asarray(host), out))
    got = out.get().reshape(8, 2)
    numpy.testing.assert_array_equal(got[:, 0], host.reshape(8, 32).sum(axis=1))
    numpy.testing.assert_array_equal(got[:, 1], (host.reshape(8, 32).sum(axis=1) > 0).astype(int))


def test_printf_reaches_stdout(capfd):
    src = r'''
extern "C" __global__ void hello(int n) {
    if (threadIdx.x == 0) printf("hello from block %d of %d\n", (int)blockIdx.x, n);
}'''
    kiln.RawKernel(src, 'hello')((3,), (4,), (3,))
    kiln.cuda.runtime.deviceSynchronize()
    out = capfd.readouterr().out
    assert sorted(line for line in out.splitlines() if line.startswith("hello")) == [
        "hello from block %d of 3" % b for b in range(3)]


def test_call_signature_errors():
    k = kiln.RawKernel(MY_ADD, 'my_add')
    x = kiln.zeros(5, dtype=kiln.float32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'shared'"):
        k((1,), (5,), (x, x, x), shared=4)
    with pytest.raises(TypeError, match="missing the argument 'args'"):
        k((1,), (5,))
    with pytest.raises(TypeError, match="got 1 positional argument$"):
        k((1,))
    with pytest.raises(TypeError, match="multiple values for argument 'args'"):
        k((1,), (5,), (x, x, x), args=(x, x, x))
    with pytest.raises(ValueError, match="shared_mem must be between"):
        k((1,), (5,), (x, x, x), shared_mem=-1)
    k((1,), (5,), (x, x, x), shared_mem=0, stream=kiln.cuda.Stream.null)
    assert x.get().tolist() == [0.0] * 5
