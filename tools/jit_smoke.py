"""One kiln.jit kernel and one kiln.vectorize call, checked against NumPy:
tools/gpu_check.sh runs this first, under faulthandler (and gdb when the
machine has it), so a crash in the transpiler leaves a backtrace in
jit_smoke.log instead of taking down pytest workers one by one."""
import numpy

import kiln
from kiln import jit


@jit.rawkernel()
def add_kernel(x1, x2, y, n):
    tid = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
    if tid < n:
        y[tid] = x1[tid] + x2[tid]


def func_while(x):
    y = 0
    while x > 0:
        y += x
        x -= 1
    return y


def main():
    print("backend:", kiln.get_backend(), flush=True)
    x = kiln.arange(25, dtype=kiln.float32)
    y = kiln.empty_like(x)
    print("transpile + launch add_kernel", flush=True)
    add_kernel((1,), (32,), (x, x, y, 25))
    numpy.testing.assert_array_equal(kiln.asnumpy(y), 2 * numpy.arange(25, dtype=numpy.float32))
    print("vectorize func_while", flush=True)
    a = kiln.arange(100, dtype=kiln.int32)
    got = kiln.asnumpy(kiln.vectorize(func_while)(a))
    numpy.testing.assert_array_equal(got, numpy.arange(100) * (numpy.arange(100) + 1) // 2)
    print("jit smoke: ok", flush=True)


if __name__ == "__main__":
    main()
