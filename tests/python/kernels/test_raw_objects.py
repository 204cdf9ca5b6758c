"""RawModule.get_global / .module, RawKernel.kernel, and kernel attributes."""
import numpy
import pytest

import kiln

GLOBALS = r'''
__device__ float weights[6];
__constant__ int offset;
__device__ unsigned long long calls;

extern "C" __global__ void apply(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * weights[i] + offset;
    if (i == 0) atomicAdd(&calls, 1ULL);
}
'''

ATTRIBUTES = ("binary_version", "cache_mode_ca", "const_size_bytes", "local_size_bytes",
              "max_dynamic_shared_size_bytes", "max_threads_per_block", "num_regs",
              "preferred_shared_memory_carveout", "ptx_version", "shared_size_bytes")


def test_get_global_views_device_variables():
    mod = kiln.RawModule(code=GLOBALS)
    ptr = mod.get_global("weights")
    assert isinstance(ptr, kiln.cuda.MemoryPointer) and ptr.mem.size == 6 * 4
    weights = kiln.ndarray((6,), kiln.float32, ptr)
    weights[...] = kiln.asarray(numpy.array([1, 2, 3, 4, 5, 6], dtype=numpy.float32))
    offset = kiln.ndarray((), kiln.int32, mod.get_global("offset"))
    offset.fill(10)
    calls = kiln.ndarray((), kiln.uint64, mod.module.get_global("calls"))
    calls.fill(0)
    x = kiln.ones(6, dtype=kiln.float32)
    kernel = mod.get_function("apply")
    kernel((1,), (8,), (x, 6))
    kernel((1,), (8,), (x, 6))
    assert x.get().tolist() == [21.0, 34.0, 49.0, 66.0, 85.0, 106.0]
    assert int(calls) == 2                                  # written by the kernel, read through the view
    with pytest.raises(kiln.cuda.driver.CUDADriverError, match="named symbol not found"):
        mod.get_global("no_such_variable")


def test_module_and_kernel_objects():
    src = 'template <typename T> __global__ void neg(T* x) { x[threadIdx.x] = -x[threadIdx.x]; }\n' + GLOBALS
    mod = kiln.RawModule(code=src, name_expressions=["neg<int>"])
    module = mod.module
    assert set(module.mapping) == {"neg<int>"}
    assert kiln.RawModule(code=GLOBALS).module.mapping is None
    function = module.get_function("apply")
    assert function.name == "apply" and function.ptr != 0
    x = kiln.ones(6, dtype=kiln.float32)
    function((1,), (8,), (x, 6))   # a module's function launches as its RawKernel
    assert x.get().tolist() == [0.0] * 6   # weights and offset start at zero
    kernel = mod.get_function("neg<int>")
    assert kernel.kernel.ptr == module.get_function("neg<int>").ptr
    with pytest.raises(kiln.cuda.driver.CUDADriverError, match="named symbol not found"):
        mod.get_function("neg<double>")


def test_kernel_attributes_documented_values():
    kernel = kiln.RawModule(code=GLOBALS).get_function("apply")
    attrs = kernel.attributes
    assert set(attrs) == set(ATTRIBUTES)
    assert attrs == kernel.kernel.attributes
    for name in ATTRIBUTES:
        assert getattr(kernel, name) == attrs[name]
    assert kernel.max_threads_per_block > 0 and kernel.shared_size_bytes == 0
    if kiln.get_backend() == "host":   # Note [Kernel attributes] (runtime/host/cpu_backend.cpp)
        assert attrs["max_threads_per_block"] == 1024
        assert attrs["max_dynamic_shared_size_bytes"] == 227 * 1024
        assert attrs["preferred_shared_memory_carveout"] == -1
        assert all(attrs[k] == 0 for k in ("num_regs", "ptx_version", "binary_version", "const_size_bytes",
                                           "local_size_bytes", "cache_mode_ca"))
    else:
        assert kernel.num_regs > 0 and kernel.binary_version >= 50


def test_settable_attributes():
    kernel = kiln.RawModule(code=GLOBALS).get_function("apply")
    kernel.max_dynamic_shared_size_bytes = 4096
    assert kernel.max_dynamic_shared_size_bytes == 4096
    kernel.preferred_shared_memory_carveout = 50
    assert kernel.preferred_shared_memory_carveout == 50
    with pytest.raises(ValueError):
        kernel.max_dynamic_shared_size_bytes = 1 << 30
    with pytest.raises(AttributeError):
        kernel.num_regs = 3


def test_memory_pointer_argument():
    src = 'extern "C" __global__ void fill(void* p, int n) { if (threadIdx.x < n) ((double*)p)[threadIdx.x] = 2.5; }'
    ptr = kiln.cuda.alloc(5 * 8)
    kiln.RawKernel(src, "fill")((1,), (8,), (ptr, 5))
    assert kiln.ndarray((5,), kiln.float64, ptr).get().tolist() == [2.5] * 5


def test_compile_with_cache_is_deprecated_and_returns_a_module():
    with pytest.warns(UserWarning, match="compile_with_cache is deprecated"):
        module = kiln.cuda.compile_with_cache(GLOBALS, options=("-DUNUSED=1",))
    weights = kiln.ndarray((6,), kiln.float32, module.get_global("weights"))
    weights.fill(3)
    x = kiln.ones(6, dtype=kiln.float32)
    module.get_function("apply")((1,), (8,), (x, 6))
    assert x.get().tolist() == [3.0] * 6
