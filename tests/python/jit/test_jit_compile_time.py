"""Calls made when a kernel is imported (Note [Compile-time calls] in
pyfrontend/ast_import.cpp): factories of device functions, dtype objects
built in the kernel's text, and `if` tests on constants that drop the branch
not taken; and device functions declared with rawkernel(device=True)."""
import numpy
import pytest

import kiln
from kiln import jit


def offset_by(c):
    @jit.rawkernel(device=True)
    def f(a, b):                   # the same name for every factory call
        return a + b + c
    return f


def halving(step):
    @jit.rawkernel(device=True)
    def f(x, tid):
        if step > 0:               # a constant: the recursion's last step imports no call
            if tid < step:
                x[tid] += x[tid + step]
            jit.syncthreads()
            halving(step // 2)(x, tid)
    return f


@jit.rawkernel(device=True)
def twice(v):
    v += v
    return v


DT = numpy.float16
UNROLL = False


@jit.rawkernel()
def folded(x, y, out, special):
    t = jit.threadIdx.x
    out[t] = offset_by(10)(x[t], y[t]) + offset_by(20)(x[t], y[t]) * 100 + twice(x[t]) * 10000
    halving(4)(x, t)
    if DT == numpy.float32:
        out[t] = out[t] + x                # not imported: an array into a number
    k = 0
    for j in jit.range(3, unroll=UNROLL):  # a captured bool
        k += j
    out[t] += k * 1000000
    special[0] = numpy.dtype(DT).type(numpy.inf)
    special[1] = kiln.dtype(DT).type(-numpy.inf)


def test_factories_recursion_and_dtype_constants():
    x = kiln.arange(8, dtype=kiln.int64)
    y = kiln.arange(8, dtype=kiln.int64) * 3
    out = kiln.zeros(8, dtype=kiln.int64)
    special = kiln.zeros(2, dtype=kiln.float16)
    folded[1, 8](x, y, out, special)
    xs, ys = numpy.arange(8), numpy.arange(8) * 3
    numpy.testing.assert_array_equal(kiln.asnumpy(out), (xs + ys + 10) + (xs + ys + 20) * 100 + xs * 20000 + 3000000)
    assert int(x[0]) == xs.sum()           # the halving steps 4, 2, 1: a tree sum
    assert kiln.asnumpy(special).tolist() == [numpy.inf, -numpy.inf]
    src = folded.cached_code
    assert "#pragma unroll(1)\n" in src and "DT == numpy.float32" not in src   # the folded `if` leaves no trace
    assert src.count("__device__ long long kiln_dev_f_") == 2   # the two offsets
    assert src.count("__device__ void kiln_dev_f_") == 4        # the halving steps 4, 2, 1 and the empty 0


def test_recursive_device_function_is_a_value_error():
    @jit.rawkernel(device=True)
    def g(a):
        return a + g(a)

    @jit.rawkernel()
    def k(x):
        x[0] = g(x[0])

    with pytest.raises(ValueError, match="calls itself"):
        k[1, 1](kiln.zeros(1, dtype=kiln.int32))
