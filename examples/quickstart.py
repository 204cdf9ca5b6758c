"""kiln quickstart: arrays on the device, and a CUDA C++ kernel called from Python.

Runs on a GPU (KILN_BACKEND=cuda) or, with no GPU, on the CPU (KILN_BACKEND=host).
"""
import numpy

import kiln

add_kernel = kiln.RawKernel(r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}''', 'my_add')

x1 = kiln.arange(25, dtype=kiln.float32).reshape(5, 5)
x2 = kiln.arange(25, dtype=kiln.float32).reshape(5, 5)
y = kiln.zeros((5, 5), dtype=kiln.float32)
add_kernel((5,), (5,), (x1, x2, y))      # grid, block and arguments

print("backend:", kiln.get_backend())
print(y)
assert (kiln.asnumpy(y) == 2 * numpy.arange(25, dtype=numpy.float32).reshape(5, 5)).all()
