"""NumPy's type names and printing helpers on the kiln module: the dtype
class, the scalar hierarchy and the C-named aliases are NumPy's objects;
issubdtype & co. answer for kiln arrays' dtypes; array_repr, array_str,
array2string and format_float_* print as NumPy prints the same values."""
import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, make, name

TYPE_NAMES = ["dtype", "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
              "complexfloating", "byte", "short", "intc", "int_", "long", "longlong", "ubyte", "ushort", "uintc",
              "uint", "ulong", "ulonglong", "intp", "uintp", "half", "single", "double", "csingle", "cdouble",
              "issubdtype", "mintypecode", "typename", "iterable", "get_printoptions", "set_printoptions",
              "printoptions"]


@pytest.mark.parametrize("attr", TYPE_NAMES)
def test_names_are_numpys(attr):
    assert getattr(kiln, attr) is getattr(numpy, attr)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_hierarchy_answers_for_kiln_dtypes(dtype):
    a = kiln.zeros(3, dtype)
    assert a.dtype == kiln.dtype(dtype) and isinstance(a.dtype, kiln.dtype)
    for abstract in (kiln.generic, kiln.number, kiln.integer, kiln.signedinteger, kiln.unsignedinteger,
                     kiln.inexact, kiln.floating, kiln.complexfloating):
        assert kiln.issubdtype(a.dtype, abstract) == numpy.issubdtype(numpy.dtype(dtype), abstract)


def test_c_aliases_and_helpers():
    assert kiln.dtype(kiln.intp) == kiln.int64 and kiln.dtype(kiln.single) == kiln.float32
    assert kiln.cdouble is kiln.complex128 and kiln.half is kiln.float16
    assert kiln.typename("d") == "double precision" and kiln.mintypecode("idF") == "D"
    assert kiln.iterable(kiln.arange(3)) and not kiln.iterable(3)
    assert kiln.arange(3, dtype=kiln.intc).dtype == numpy.intc


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_printing_matches_numpy(rng, layout, dtype):
    k, h = make(rng, layout, dtype)
    h = numpy.asarray(h)
    assert kiln.array_repr(k) == numpy.array_repr(h)
    assert kiln.array_str(k) == numpy.array_str(h)
    assert kiln.array2string(k) == numpy.array2string(h)
    assert kiln.array2string(k, separator=", ", precision=2) == numpy.array2string(h, separator=", ", precision=2)
    assert numpy.array_repr(k) == numpy.array_repr(h)   # through __array_function__


def test_printing_options_and_host_values():
    k, h = kiln.arange(2000, dtype=kiln.float64) / 7, numpy.arange(2000, dtype=numpy.float64) / 7
    assert kiln.array_repr(k) == numpy.array_repr(h)   # summarised with '...'
    with kiln.printoptions(precision=3, threshold=5):
        assert kiln.array_str(k) == numpy.array_str(h) and "..." in kiln.array_str(k)
    assert kiln.array_repr(k[:3], precision=1) == numpy.array_repr(h[:3], precision=1)
    assert kiln.array2string(numpy.arange(3)) == numpy.array2string(numpy.arange(3))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64], ids=name)
def test_format_float(dtype):
    for value in (1.0, 0.1, 1e-20, -3.25e4, float("inf")):
        h = numpy.array(value, dtype)   # a 0-d array prints as NumPy prints the same 0-d array
        k = kiln.asarray(h)
        assert kiln.format_float_positional(dtype(value)) == numpy.format_float_positional(dtype(value))
        assert kiln.format_float_positional(k) == numpy.format_float_positional(h)
        assert kiln.format_float_scientific(k) == numpy.format_float_scientific(h)
        assert kiln.format_float_positional(k, precision=3, trim="-") == numpy.format_float_positional(
            h, precision=3, trim="-")
    assert kiln.format_float_positional(1.0) == numpy.format_float_positional(1.0)


@pytest.mark.parametrize("name", ["AxisError", "ComplexWarning", "DTypePromotionError", "ModuleDeprecationWarning",
                                  "RankWarning", "TooHardError", "VisibleDeprecationWarning"])
def test_exceptions_are_numpys(name):
    """kiln.exceptions (cupy.exceptions' place) holds NumPy's classes."""
    assert getattr(kiln.exceptions, name) is getattr(numpy.exceptions, name)
    with pytest.raises(numpy.exceptions.AxisError):
        kiln.sum(kiln.zeros(3), axis=1)
