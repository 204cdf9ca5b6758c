"""The elementwise engine's own paths (arraycore/elementwise.cpp, Note
[Elementwise kernels]): the contiguous kernel and its 4-wide vector variant
(aligned or not, lengths not a multiple of 4), the 32-bit strided variant and
the 64-bit one (more than 8 dims that don't collapse), conversions on load and
store, bool bytes, scalars, raw params and launches with no array."""
import numpy
import pytest

import kiln
from kiln import _core
from conftest import ALL_DTYPES, assert_same_bits, name, random_array


def axpy_spec(ctype="double", write_only=True):
    return _core._EwSpec("test_axpy", [("x", ctype, "", "in"), ("y", ctype, "", "in"), ("a", ctype, "", "in"),
                                       ("z", ctype, "", "out")], "z = a * x + y;", outputs_write_only=write_only,
                         options=_core._EXACT_FP_OPTIONS)   # a * x + y rounded twice, as NumPy


@pytest.mark.parametrize("n", [1, 3, 4, 5, 17, 1000, 1027])
@pytest.mark.parametrize("offset", [0, 1, 2, 3])
def test_contiguous_and_vector_paths(rng, n, offset):
    # Offsets 1..3 elements make the data unaligned for 16-byte vectors: the scalar kernel runs.
    hx, hy = random_array(rng, (n + 4,), numpy.float64), random_array(rng, (n + 4,), numpy.float64)
    x, y = kiln.asarray(hx)[offset:offset + n], kiln.asarray(hy)[offset:offset + n]
    z = kiln.zeros(n + 4)[offset:offset + n]
    _core._elementwise_launch(axpy_spec(), [x, y, numpy.float64(3.0), z], (n,))
    assert_same_bits(z.get(), 3.0 * hx[offset:offset + n] + hy[offset:offset + n])


@pytest.mark.parametrize("write_only", [True, False])
def test_outputs_read_when_not_write_only(write_only):
    spec = _core._EwSpec("test_accumulate", [("x", "float", "", "in"), ("z", "float", "", "out")],
                         "z = z * 0 + x;" if write_only else "z += x;", outputs_write_only=write_only)
    z = kiln.asarray(numpy.full(9, 10, numpy.float32))
    _core._elementwise_launch(spec, [kiln.asarray(numpy.arange(9, dtype=numpy.float32)), z], (9,))
    expected = numpy.arange(9, dtype=numpy.float32) + (0 if write_only else 10)
    assert_same_bits(z.get(), expected)


def test_strided_32_and_64_bit_variants(rng):
    # 3 dims (32-bit variant) and 10 non-collapsible dims (more than 8: the 64-bit one).
    for shape in [(5, 6, 7), (2,) * 10]:
        host = random_array(rng, tuple(2 * s for s in shape), numpy.float64)
        sl = tuple(slice(None, None, 2) for _ in shape)
        x = kiln.asarray(host)[sl]
        y = kiln.asarray(host)[tuple(slice(1, None, 2) for _ in shape)]
        z = kiln.empty(shape, order="F")
        _core._elementwise_launch(axpy_spec(), [x, y, numpy.float64(-2.0), z], shape)
        assert_same_bits(z.get(), -2.0 * host[sl] + host[tuple(slice(1, None, 2) for _ in shape)])


@pytest.mark.parametrize("src", ALL_DTYPES, ids=name)
def test_storage_types_convert_as_numpy(rng, src):
    # Inputs of another dtype are cast with NumPy's rules on load; outputs on store.
    host = random_array(rng, (33,), src)
    spec = _core._EwSpec("test_copy_as_double", [("x", "double", "", "in"), ("z", "double", "", "out")], "z = x;",
                         outputs_write_only=True)
    for out_dtype in [numpy.float64, numpy.int16, numpy.bool_, numpy.complex64]:
        z = kiln.empty(33, dtype=out_dtype)
        _core._elementwise_launch(spec, [kiln.asarray(host), z], (33,))
        with numpy.errstate(all="ignore"), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            expected = host.astype(numpy.float64).astype(out_dtype)
        assert_same_bits(z.get(), expected)


def test_bool_bytes_other_than_one_read_as_true():
    raw = kiln.asarray(numpy.array([0, 1, 2, 255], numpy.uint8)).view(numpy.bool_)
    spec = _core._EwSpec("test_not", [("x", "bool", "", "in"), ("z", "int", "", "out")], "z = x ? 7 : 3;")
    z = kiln.empty(4, dtype=numpy.int32)
    _core._elementwise_launch(spec, [raw, z], (4,))
    assert z.get().tolist() == [3, 7, 7, 7]


def test_broadcast_inputs_and_scalar_kinds():
    x = _core._broadcast_to(kiln.asarray(numpy.arange(3.0)), (4, 3))
    spec = _core._EwSpec("test_scalars", [("x", "double", "", "in"), ("c", "kiln::complex<double>", "", "in"),
                                          ("h", "kiln::half", "", "in"), ("b", "bool", "", "in"),
                                          ("z", "kiln::complex<double>", "", "out")],
                         "z = c * x + (double)(float)h + (b ? 100.0 : 0.0);", outputs_write_only=True)
    z = kiln.empty((4, 3), dtype=numpy.complex128)
    _core._elementwise_launch(spec, [x, numpy.complex128(1 + 2j), numpy.float16(0.5), numpy.bool_(True), z], (4, 3))
    expected = numpy.broadcast_to((1 + 2j) * numpy.arange(3.0) + 100.5, (4, 3))
    assert_same_bits(z.get(), expected)


def test_raw_params_and_launch_without_arrays():
    host = numpy.arange(12.0).reshape(3, 4)
    r = kiln.asarray(host).T                    # raw, not contiguous: flat C-order index of the view
    z = kiln.empty(12)
    spec = _core._EwSpec("test_raw", [("r", "double", "", "raw"), ("z", "double", "", "out")],
                         "z = r[_ind.size() - 1 - i] + r.size();")
    _core._elementwise_launch(spec, [r, z], (12,))
    assert_same_bits(z.get(), host.T.ravel()[::-1] + 12)
    # Only raw params: i runs over the given shape.
    out = kiln.zeros(5)
    only = _core._EwSpec("test_raw_only", [("o", "double", "", "raw")], "o[i] = 2 * i;")
    _core._elementwise_launch(only, [out], (5,))
    assert out.get().tolist() == [0, 2, 4, 6, 8]


def test_empty_launch_and_bad_arguments():
    z = kiln.empty((0, 3))
    _core._elementwise_launch(axpy_spec(), [z, z, numpy.float64(1), z], (0, 3))   # nothing to do
    with pytest.raises(TypeError, match="takes 4 arguments"):
        _core._elementwise_launch(axpy_spec(), [z, z, z], (0, 3))
    with pytest.raises(TypeError, match="kiln.ndarray or a NumPy scalar"):
        _core._elementwise_launch(axpy_spec(), [z, z, 1.0, z], (0, 3))
    with pytest.raises(ValueError, match="wrong shape"):
        _core._elementwise_launch(axpy_spec(), [kiln.empty(2), kiln.empty(3), numpy.float64(1), kiln.empty(3)], (3,))


def test_compile_errors_point_at_the_operation():
    spec = _core._EwSpec("test_broken", [("x", "float", "", "in"), ("z", "float", "", "out")],
                         "z = x;\nz = undefined_name;", operation_file="<my operation>")
    with pytest.raises(kiln.cuda.compiler.CompileException, match="<my operation>.*2"):
        _core._elementwise_launch(spec, [kiln.zeros(2, dtype=numpy.float32), kiln.zeros(2, dtype=numpy.float32)], (2,))


def test_generated_source_has_every_variant():
    x = kiln.zeros(4)
    src = _core._elementwise_source(axpy_spec(), [x, x, numpy.float64(1), x])
    for suffix in ["_contig(", "_contig4(", "_strided32(", "_strided64("]:
        assert "test_axpy" + suffix in src
    src = _core._elementwise_source(axpy_spec(write_only=False), [x, x, numpy.float64(1), x])
    assert "_contig4(" not in src   # outputs may be read: no vector stores
