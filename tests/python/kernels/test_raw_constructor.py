"""RawKernel/RawModule constructor keywords (CuPy's), pickling, compile logs."""
import io
import pickle
import warnings

import numpy
import pytest

import kiln

ADD = r'''
extern "C" __global__ void add(const float* a, const float* b, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a[i] + b[i];
}
'''

TEMPLATE = r'''
template <typename T>
__global__ void twice(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + x[i];
}
'''


def run_add(kernel, n=37):
    a = kiln.arange(n, dtype=kiln.float32)
    b = kiln.full(n, 0.5, dtype=kiln.float32)
    y = kiln.zeros(n, dtype=kiln.float32)
    kernel((2,), (32,), (a, b, y, n))
    numpy.testing.assert_array_equal(y.get(), numpy.arange(n, dtype=numpy.float32) + 0.5)


@pytest.mark.parametrize("backend", ["nvrtc", "nvcc"])
def test_backend_keyword_compiles_and_runs(backend):
    kernel = kiln.RawKernel(ADD, "add", backend=backend)
    module = kiln.RawModule(code=ADD, backend=backend, options=("-DUNUSED=1",))
    assert kernel.backend == backend and module.backend == backend
    if backend == "nvcc" and kiln.get_backend() == "cuda":
        try:
            kernel.compile()
        except kiln.cuda.compiler.CompileException as e:   # no CUDA toolkit: a clear error
            assert "nvcc was not found" in str(e) and "backend='nvrtc'" in str(e)
            return
    run_add(kernel)
    run_add(module.get_function("add"))


def test_bad_keyword_combinations():
    with pytest.raises(TypeError, match="exactly one of code= or path="):
        kiln.RawModule(path=None)
    with pytest.raises(ValueError, match="backend must be 'nvrtc' or 'nvcc', got 'clang'"):
        kiln.RawModule(code=ADD, backend="clang")
    with pytest.raises(ValueError, match="backend must be 'nvrtc' or 'nvcc'"):
        kiln.RawKernel(ADD, "add", backend="gcc")
    with pytest.raises(ValueError, match="name_expressions need backend='nvrtc'"):
        kiln.RawModule(code=TEMPLATE, backend="nvcc", name_expressions=["twice<int>"])
    with pytest.raises(TypeError):   # path= is keyword-only, as in CuPy
        kiln.RawModule(None, "x.cubin")
    with pytest.raises(TypeError, match="options must be a sequence of strings"):
        kiln.RawKernel(ADD, "add", options="-DX=1")


@pytest.mark.parametrize("jitify, message", [(True, "jitify=True is deprecated"),
                                             (False, "Avoid passing jitify=False")])
def test_jitify_is_deprecated_and_changes_nothing(jitify, message):
    with pytest.warns(DeprecationWarning, match=message):
        kernel = kiln.RawKernel(ADD, "add", jitify=jitify)
    with pytest.warns(DeprecationWarning, match=message):
        module = kiln.RawModule(code=TEMPLATE, name_expressions=["twice<int>"], jitify=jitify)
    run_add(kernel)
    x = kiln.arange(5, dtype=kiln.int32)
    module.get_function("twice<int>")((1,), (8,), (x, 5))
    assert x.get().tolist() == [0, 2, 4, 6, 8]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # not passing it warns nothing
        kiln.RawKernel(ADD, "add")


CU_COMPLEX = r'''
#include <cuComplex.h>
extern "C" __global__ void ops(const cuFloatComplex* a, const cuFloatComplex* b, cuFloatComplex* q,
                               float* m, cuDoubleComplex* w, cuFloatComplex s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    q[i] = cuCaddf(cuCdivf(a[i], b[i]), s);
    m[i] = cuCabsf(cuConjf(a[i]));
    w[i] = cuCmul(cuComplexFloatToDouble(a[i]), make_cuDoubleComplex(cuCrealf(b[i]), 0.0));
}
'''


def test_translate_cucomplex_gives_kilns_complex_arithmetic(rng):
    n = 21
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(numpy.complex64)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(numpy.complex64)
    ka, kb = kiln.asarray(a), kiln.asarray(b)
    q = kiln.zeros(n, dtype=kiln.complex64)
    m = kiln.zeros(n, dtype=kiln.float32)
    w = kiln.zeros(n, dtype=kiln.complex128)
    s = numpy.complex64(2 - 1j)
    mod = kiln.RawModule(code=CU_COMPLEX, translate_cucomplex=True)
    assert mod.translate_cucomplex and mod.code == CU_COMPLEX   # the code as written
    mod.get_function("ops")((1,), (32,), (ka, kb, q, m, w, s, n))
    # the same operations as kiln's ufuncs, to the bit
    numpy.testing.assert_array_equal(q.get(), (ka / kb + s).get())
    numpy.testing.assert_array_equal(m.get(), kiln.abs(ka).get())
    numpy.testing.assert_allclose(w.get(), a.astype(numpy.complex128) * b.real, rtol=1e-12)


def test_cooperative_flag_is_kept_and_launches():
    kernel = kiln.RawKernel(ADD, "add", enable_cooperative_groups=True)
    assert kernel.enable_cooperative_groups
    run_add(kernel)
    module = kiln.RawModule(code=ADD, enable_cooperative_groups=True)
    assert module.enable_cooperative_groups and module.get_function("add").enable_cooperative_groups
    assert not kiln.RawKernel(ADD, "add").enable_cooperative_groups


@pytest.mark.parametrize("compiled", [False, True])
def test_pickling_recreates_from_the_arguments(compiled):
    kernel = kiln.RawKernel(ADD, "add", options=("-DX=1",), enable_cooperative_groups=True)
    module = kiln.RawModule(code=TEMPLATE, name_expressions=["twice<float>"])
    if compiled:
        kernel.compile()
        module.compile()
    k2 = pickle.loads(pickle.dumps(kernel))
    assert (k2.code, k2.name, k2.options, k2.enable_cooperative_groups) == (ADD, "add", ("-DX=1",), True)
    run_add(k2)
    m2 = pickle.loads(pickle.dumps(module))
    assert m2.name_expressions == ("twice<float>",) and m2.path is None
    f = pickle.loads(pickle.dumps(m2.get_function("twice<float>")))   # a module's kernel
    x = kiln.arange(4, dtype=kiln.float32)
    f((1,), (4,), (x, 4))
    assert x.get().tolist() == [0.0, 2.0, 4.0, 6.0]


def test_compile_log_stream_and_source_dump(monkeypatch):
    log = io.StringIO()
    kiln.RawModule(code=ADD).compile(log_stream=log)
    kiln.RawKernel(ADD, "add").compile(log_stream=log)
    assert isinstance(log.getvalue(), str)   # the compiler's warnings, if it gave any
    bad = 'extern "C" __global__ void bad(int* x) {\n    x[0] = missing_name;\n}\n'
    with pytest.raises(kiln.cuda.compiler.CompileException) as info:
        kiln.RawKernel(bad, "bad").compile()
    assert "====" not in str(info.value)
    monkeypatch.setenv("KILN_DUMP_CUDA_SOURCE_ON_ERROR", "1")
    with pytest.raises(kiln.cuda.compiler.CompileException) as info:
        kiln.RawKernel(bad + "// again\n", "bad").compile()
    assert "==== bad.cu ====" in str(info.value)
    assert "   2     x[0] = missing_name;" in str(info.value)
