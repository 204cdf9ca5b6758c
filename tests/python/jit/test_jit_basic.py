"""kiln.jit.rawkernel: the seeds' examples, launch syntaxes, argument errors,
device functions and the generated source."""
import numpy
import pytest

import kiln
from kiln import jit


@jit.rawkernel()
def add_kernel(x1, x2, y, N):
    tid = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
    if tid < N:
        y[tid] = x1[tid] + x2[tid]


def test_seed_add_kernel_both_launch_syntaxes(rng):
    x1 = kiln.asarray(rng.random(25))
    x2 = kiln.asarray(rng.random(25))
    y = kiln.empty_like(x1)
    add_kernel((5,), (5,), (x1, x2, y, 25))
    numpy.testing.assert_array_equal(kiln.asnumpy(y), kiln.asnumpy(x1) + kiln.asnumpy(x2))
    y2 = kiln.zeros_like(x1)
    add_kernel[5, 5](x1, x2, y2, 25)  # also works!
    numpy.testing.assert_array_equal(kiln.asnumpy(y2), kiln.asnumpy(x1) + kiln.asnumpy(x2))


def test_add_kernel_float32_and_strided(rng):
    a = rng.random((6, 10)).astype(numpy.float32)
    b = rng.random((6, 10)).astype(numpy.float32)
    x1 = kiln.asarray(a)[:, 1::3]          # non-contiguous views
    x2 = kiln.asarray(b)[::-1, 2::3]       # negative strides
    y = kiln.zeros((6, 3), dtype=kiln.float32)[:, ::-1]
    x1f, x2f = x1.ravel(), x2.ravel()
    n = x1f.size
    yf = kiln.zeros(n, dtype=kiln.float32)
    add_kernel[2, 16](x1f, x2f, yf, n)
    numpy.testing.assert_array_equal(kiln.asnumpy(yf), (a[:, 1::3] + b[::-1, 2::3]).ravel())
    assert y.shape == (6, 3)


def func_while(x):
    y = 0
    while x > 0:
        y += x
        x -= 1
    return y


@jit.rawkernel()
def apply_func_while(a, out, n):
    i = jit.grid(1)
    if i < n:
        out[i] = func_while(a[i])


def test_seed_func_while_as_device_function():
    a = kiln.arange(100, dtype=kiln.int32)
    out = kiln.zeros(100, dtype=kiln.int32)
    apply_func_while[4, 32](a, out, 100)
    expected = numpy.array([func_while(int(v)) for v in range(100)], dtype=numpy.int32)
    numpy.testing.assert_array_equal(kiln.asnumpy(out), expected)


def test_negative_python_int_compares_by_value():
    x = kiln.ones(4, dtype=kiln.float64)
    y = kiln.zeros(4, dtype=kiln.float64)
    add_kernel[1, 4](x, x, y, -1)      # tid (uint32) < -1 is false for every thread
    assert kiln.asnumpy(y).tolist() == [0.0] * 4


def test_argument_errors_name_the_parameter():
    x = kiln.zeros(4, dtype=kiln.float64)
    with pytest.raises(TypeError, match=r"argument `y` \(position 2\): expected a kiln array or a number .*numpy.ndarray"):
        add_kernel[1, 4](x, x, numpy.zeros(4), 4)
    with pytest.raises(TypeError, match=r"takes 4 arguments, got 3"):
        add_kernel[1, 4](x, x, x)
    with pytest.raises(ValueError, match=r"argument `N` \(position 3\).*does not fit"):
        add_kernel[1, 4](x, x, x, 2 ** 70)


def test_cached_code_has_line_directives_and_comments():
    x = kiln.zeros(4, dtype=kiln.float32)
    src = add_kernel.inspect_source(x, x, x, 4)
    assert '#line 13 "' in src and "test_jit_basic.py" in src
    assert "// line 13: if tid < N:" in src
    assert 'extern "C" __global__ void kiln_jit_add_kernel(' in src
    add_kernel[1, 4](x, x, x, 4)
    # cached_code is the most recently compiled signature's, which another test in this process may have
    # compiled after float32 (float64 in test_negative_python_int_compares_by_value): look it up by types.
    assert [code for key, code in add_kernel.cached_codes.items() if "float32" in key] == [src]
    fresh = jit.rawkernel()(add_kernel.__wrapped__)
    fresh[1, 4](x, x, x, 4)
    assert fresh.cached_code == src


def test_device_function_kernel_cannot_be_launched():
    @jit.rawkernel(device=True)
    def twice(v):
        return v * 2

    with pytest.raises(TypeError, match="device function"):
        twice[1, 1](1)


@jit.rawkernel()
def widen(out, n):
    n = n * 0.5            # a Python int parameter that becomes a float: copied into a float64 local
    out[0] = n


def test_parameter_widened_by_assignment():
    out = kiln.zeros(1, dtype=kiln.float64)
    widen[1, 1](out, 5)
    assert kiln.asnumpy(out).tolist() == [2.5]
    assert "long long n_in" in widen.cached_code and "double n_ = " in widen.cached_code


@jit.rawkernel()
def rotate(x, out):
    buf = jit.shared_memory(kiln.float32, None)
    t = jit.threadIdx.x
    buf[t] = x[t]
    jit.syncthreads()
    out[t] = buf[(t + 1) % jit.blockDim.x]


def test_bracket_launch_with_stream_and_shared_mem():
    x = kiln.arange(16, dtype=kiln.float32)
    out = kiln.zeros(16, dtype=kiln.float32)
    s = kiln.cuda.Stream()
    rotate[1, 16, s, 16 * 4](x, out)
    s.synchronize()
    assert kiln.asnumpy(out).tolist() == [float((i + 1) % 16) for i in range(16)]
    out2 = kiln.zeros(16, dtype=kiln.float32)
    rotate((1,), (16,), (x, out2), shared_mem=64, stream=s)
    s.synchronize()
    assert kiln.asnumpy(out2).tolist() == kiln.asnumpy(out).tolist()
