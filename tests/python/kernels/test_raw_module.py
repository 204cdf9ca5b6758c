"""RawModule: code=, path=, name_expressions, and the seeds' module examples."""
import shutil
import subprocess

import numpy
import pytest

import kiln

# The seeds' `some_cuda_code`, verbatim: its `extern "C" {` is never closed.
SEED_CODE_VERBATIM = r'''
extern "C" {
__global__ void my_add(
const float* x1, const float* x2,
float* y) {
    int tid = blockDim.x *
blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
'''
SEED_CODE = SEED_CODE_VERBATIM + "}\n"


def run_my_add(add_kernel):
    x1 = kiln.arange(25, dtype=kiln.float32).reshape(5, 5)
    x2 = kiln.arange(25, dtype=kiln.float32).reshape(5, 5)
    y = kiln.zeros((5, 5), dtype=kiln.float32)
    add_kernel((5,), (5,), (x1, x2, y))
    return y


def test_seed_module_from_code():
    mod = kiln.RawModule(code=SEED_CODE)
    add_kernel = mod.get_function("my_add")
    y = run_my_add(add_kernel)
    numpy.testing.assert_array_equal(y.get(), 2 * numpy.arange(25, dtype=numpy.float32).reshape(5, 5))


def test_seed_code_as_printed_is_a_compile_error():
    # The slide omits the closing brace of extern "C" {; kiln reports it
    # instead of guessing.
    with pytest.raises(kiln.cuda.compiler.CompileException, match="module.cu"):
        kiln.RawModule(code=SEED_CODE_VERBATIM).get_function("my_add")


TEMPLATES = r'''
template <typename T, int N>
__global__ void scale(T* x, T factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) x[i] = x[i] * factor;
}
extern "C" __global__ void fill(double* x, double v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
'''


def test_template_kernels_through_name_expressions():
    mod = kiln.RawModule(code=TEMPLATES, name_expressions=["scale<float, 10>", "scale<double, 6>"])
    f32 = kiln.asarray(numpy.arange(12, dtype=numpy.float32))
    mod.get_function("scale<float, 10>")((1,), (32,), (f32, 3.0))
    expected = numpy.arange(12, dtype=numpy.float32)
    expected[:10] *= 3
    numpy.testing.assert_array_equal(f32.get(), expected)
    f64 = kiln.zeros(8, dtype=kiln.float64)
    mod.get_function("fill")((1,), (8,), (f64, 2.5, 8))
    mod.get_function("scale<double, 6>")((1,), (8,), (f64, -2.0))
    assert f64.get().tolist() == [-5.0] * 6 + [2.5] * 2


def test_unknown_name_expression_lists_what_exists():
    mod = kiln.RawModule(code=TEMPLATES, name_expressions=["scale<float, 10>"])
    with pytest.raises(RuntimeError, match=r"no kernel named 'scale<int, 1>'.*fill.*scale<float, 10>"):
        mod.get_function("scale<int, 1>")


def test_module_options_are_passed_to_the_compiler():
    src = 'extern "C" __global__ void k(int* out) { out[0] = VALUE; }'
    out = kiln.zeros(1, dtype=kiln.int32)
    kiln.RawModule(code=src, options=("-DVALUE=42",)).get_function("k")((1,), (1,), (out,))
    assert out.get().tolist() == [42]


def test_code_or_path_exactly_one():
    with pytest.raises(TypeError, match="exactly one of code= or path="):
        kiln.RawModule()
    with pytest.raises(TypeError, match="exactly one of code= or path="):
        kiln.RawModule(code="", path="x.cubin")


def test_module_from_path(tmp_path):
    source = tmp_path / "some_cuda_code.cu"
    source.write_text(SEED_CODE)
    if kiln.get_backend() == "cuda" and shutil.which("nvcc"):
        # As the seed does it: nvcc -arch=sm_XX -cubin -o cupy_mod.cubin some_cuda_code.cu
        path = tmp_path / "cupy_mod.cubin"
        cc = kiln.cuda.Device().compute_capability
        subprocess.run(["nvcc", "-arch=sm_" + cc, "-cubin", "-o", str(path), str(source)], check=True)
    else:
        # The backend's own compiler: a cubin on cuda, a shared object on host.
        path = tmp_path / ("cupy_mod.cubin" if kiln.get_backend() == "cuda" else "cupy_mod.so")
        path.write_bytes(kiln._core._compile_binary(SEED_CODE, []))
    mod = kiln.RawModule(path=str(path))
    y = run_my_add(mod.get_function("my_add"))
    numpy.testing.assert_array_equal(y.get(), 2 * numpy.arange(25, dtype=numpy.float32).reshape(5, 5))


def test_module_from_ptx_path(tmp_path):
    path = tmp_path / "my_add.ptx"
    if kiln._core._nvrtc_available()[0]:
        path.write_bytes(kiln._core._nvrtc_compile(SEED_CODE, [], [], "compute_90"))
    else:
        path.write_text(".version 8.0\n.target sm_90\n")
    mod = kiln.RawModule(path=str(path))
    if kiln.get_backend() == "cuda":   # the driver JIT-compiles the PTX
        y = run_my_add(mod.get_function("my_add"))
        numpy.testing.assert_array_equal(y.get(), 2 * numpy.arange(25, dtype=numpy.float32).reshape(5, 5))
    else:                              # the host backend loads shared objects only
        with pytest.raises(RuntimeError, match="not a shared object built for the host backend"):
            mod.get_function("my_add")


def test_missing_path_raises():
    with pytest.raises((OSError, RuntimeError), match="nope.cubin"):
        kiln.RawModule(path="/nonexistent/nope.cubin").get_function("my_add")
