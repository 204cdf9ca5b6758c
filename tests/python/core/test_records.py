"""Structured (record) and unstructured void dtypes (arraycore/record_dtype.h):
creation, transfers and copies over layouts, field views, multi-field views,
casts between layouts, == and !=, make_aligned_dtype, against NumPy."""
import operator

import numpy
import pytest

import kiln
from conftest import LAYOUTS, make, same_error

NESTED = numpy.dtype([("a", "i4"), ("b", [("x", "f8"), ("y", "i2")]), ("c", "f4", (2,))], align=True)
RECORDS = [numpy.dtype("i4,f8"), NESTED, numpy.dtype("V6")]


def host_records(rng, dtype, shape=(6, 8)):
    """Random values of a record dtype (random bytes for V<n>), padding zero."""
    out = numpy.zeros(shape, dtype)
    if dtype.names is None:
        return rng.integers(0, 256, shape + (dtype.itemsize,), dtype=numpy.uint8).view(dtype)[..., 0]
    for name in dtype.names:
        sub = out[name]
        if sub.dtype.names is not None:
            out[name] = host_records(rng, sub.dtype, sub.shape)
        else:
            out[name] = (rng.random(sub.shape) * 100 - 50).astype(sub.dtype)
    return out


def same(got, expected):
    """Equal dtypes, shapes and values (field by field: padding bytes are NumPy's garbage)."""
    got = kiln.asnumpy(got) if isinstance(got, kiln.ndarray) else got
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", RECORDS, ids=str)
def test_creation(dtype):
    assert kiln.empty((2, 3), dtype).dtype == dtype
    same(kiln.zeros((2, 3), dtype), numpy.zeros((2, 3), dtype))
    if dtype.names is not None:
        same(kiln.ones(4, dtype), numpy.ones(4, dtype))
        same(kiln.full((3,), 2.5, dtype), numpy.full((3,), 2.5, dtype))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", RECORDS, ids=str)
def test_transfers_and_copies_over_layouts(rng, dtype, layout):
    k, host = make(rng, layout, dtype, base=host_records(rng, dtype))
    same(k, host)                                   # strided downloads copy bytes
    same(k.copy(), host.copy())
    same(kiln.ascontiguousarray(k), numpy.ascontiguousarray(host))
    same(k.T, host.T)
    dst = kiln.zeros(host.shape, dtype)
    dst[...] = k
    same(dst, host)


def test_numpy_void_scalars_and_broadcast_values():
    dtype = numpy.dtype("i,i,q,q,q,q")
    for value in [numpy.void((1, 2, 3, 4, 5, 6), dtype="q,q,q,q,i,i"), numpy.int32(-3), 7.0]:
        same(kiln.full(5, value, dtype), numpy.full(5, value, dtype))
        k, h = kiln.empty((2, 3), dtype), numpy.empty((2, 3), dtype)
        k[...], h[...] = value, value
        same(k, h)


@pytest.mark.parametrize("layout", ["C", "strided", "negative", "0-d", "empty"])
def test_field_views(rng, layout):
    k, host = make(rng, layout, NESTED, base=host_records(rng, NESTED))
    for name in ["a", "c"]:
        view = k[name]
        assert view.dtype == host[name].dtype and view.strides == host[name].strides
        same(view, host[name])
    same(k["b"]["x"], host["b"]["x"])
    if host.ndim and host.size:
        assert not k["a"].flags.c_contiguous and k["a"].base is not None
    k["a"] = 7
    host["a"] = 7
    k["b"]["y"] = kiln.asarray(host["a"].astype("i2") * 2)
    host["b"]["y"] = host["a"] * 2
    same(k, host)


def test_field_view_errors():
    k, h = kiln.zeros(3, "i,i"), numpy.zeros(3, "i,i")
    same_error(lambda: k["x"], lambda: h["x"])
    with pytest.raises(KeyError):
        k[["f0", "x"]]
    packed = kiln.zeros(4, "?,f8")
    with pytest.raises(ValueError, match="not sufficiently aligned for GPU"):
        packed["f1"]
    with pytest.raises(ValueError, match="not sufficiently aligned for GPU"):
        packed["f1"] = 1
    same(packed[:0]["f1"], numpy.zeros(4, "?,f8")[:0]["f1"])
    same(kiln.zeros(2, "i,(3,2)i")["f1"], numpy.zeros(2, "i,(3,2)i")["f1"])


def test_multi_field_views_and_assignment(rng):
    host = host_records(rng, numpy.dtype("i,f,i,f,i,f"), (10,))
    k = kiln.asarray(host)
    view = k[["f2", "f1"]]
    assert view.dtype == host[["f2", "f1"]].dtype
    same(view, host[["f2", "f1"]])
    k[["f1", "f0", "f4"]] = k[["f2", "f1", "f5"]].copy()
    host[["f1", "f0", "f4"]] = host[["f2", "f1", "f5"]].copy()
    same(k, host)


def test_casts_between_layouts(rng):
    host = host_records(rng, NESTED, (5,))
    target = numpy.dtype([("p", "f8"), ("q", "f4,i8"), ("r", "i2", (2,))], align=True)
    same(kiln.asarray(host).astype(target), host.astype(target))
    packed = numpy.dtype("(2,)f8,i1", align=True)
    same(kiln.asarray(host)[["c", "a"]].astype(packed), host[["c", "a"]].astype(packed))
    numbers = numpy.arange(6, dtype=numpy.int16)
    wide = numpy.dtype("f4,(2,)i8", align=True)
    same(kiln.asarray(numbers).astype(wide), numbers.astype(wide))
    k = kiln.asarray(host)
    same_error(lambda: k.astype("f8"), lambda: host.astype("f8"))
    same_error(lambda: k.astype("i,i"), lambda: host.astype("i,i"))


@pytest.mark.parametrize("op", [operator.eq, operator.ne])
def test_comparisons(op):
    a = numpy.array([(1, (2.0, 3), (4.0, 5.0))], NESTED)
    other = numpy.dtype([("a", "f8"), ("b", [("x", "f4"), ("y", "i8")]), ("c", "f8", (2,))], align=True)
    b = numpy.array([(1, (2, 3), (4, 5)), (1, (2, 4), (4, 5)), (1, (2, 3), (4, 6))], other)
    numpy.testing.assert_array_equal(op(kiln.asarray(a), kiln.asarray(b)).get(), op(a, b))
    c = numpy.array([[(1, 2.0)], [(3, 4.0)]], "i8,f8")
    d = numpy.array([(1, 2.0), (3, 5.0), (3, 4.0)], "f4,i4")
    numpy.testing.assert_array_equal(op(kiln.asarray(c), kiln.asarray(d)).get(), op(c, d))
    v, w = numpy.array([b"87654321", b"12345678"], "V8"), numpy.array([b"87654321", b"1234567_"], "V8")
    numpy.testing.assert_array_equal(op(kiln.asarray(v), kiln.asarray(w)).get(), op(v, w))


def test_comparison_errors():
    a, b = numpy.zeros(2, "i8,f8"), numpy.zeros(2, "f8,i8")
    ka, kb = kiln.asarray(a), kiln.asarray(b)
    same_error(lambda: ka[["f1", "f0"]] == kb, lambda: a[["f1", "f0"]] == b)
    same_error(lambda: ka == kiln.zeros(2), lambda: a == numpy.zeros(2))
    with pytest.raises(TypeError) as expected:
        a + a
    with pytest.raises(TypeError, match="did not contain a loop") as got:
        ka + ka
    assert str(got.value) == str(expected.value)
    inner = numpy.dtype([("x", "i4"), ("y", "f4")])
    k = kiln.zeros(2, [("a", inner, (3,))])
    with pytest.raises(ValueError, match="subarray dtypes"):
        k == k


@pytest.mark.parametrize("source", [numpy.arange(4, dtype=numpy.int8), numpy.arange(4.0),
                                    numpy.arange(4).astype("complex128").astype("V16")], ids=str)
def test_copyto_unsafe_into_void(source):
    k = kiln.full(4, -1, numpy.int64).view("V8")
    h = numpy.full(4, -1, numpy.int64).view("V8")
    kiln.copyto(k, kiln.asarray(source), casting="unsafe")
    numpy.copyto(h, source, casting="unsafe")
    same(k, h)


@pytest.mark.parametrize("dtype, itemsize", [("?,c8", 16), ("c8,?", 16), ("?,(3,)c8", 32),
                                             ([("a", "c8,?"), ("b", "?")], 24), ("?,(4,)V3", 13)])
def test_make_aligned_dtype(dtype, itemsize):
    aligned = kiln.make_aligned_dtype(dtype)
    assert aligned.itemsize == itemsize and aligned.names == numpy.dtype(dtype).names
    for name in aligned.names:
        assert aligned.fields[name][0] == numpy.dtype(dtype).fields[name][0] or numpy.dtype(dtype).fields[name][0].names
    with pytest.raises(ValueError, match="only supports structured dtypes"):
        kiln.make_aligned_dtype("c16")
    with pytest.raises(ValueError, match="only supports structured dtypes"):
        kiln.make_aligned_dtype("V3")


def test_object_fields_are_refused():
    with pytest.raises(ValueError, match="cannot hold Python objects"):
        kiln.array(numpy.zeros(3, "q,O"))
    with pytest.raises(ValueError, match="cannot hold Python objects"):
        kiln.zeros(3, "q,O")


def test_elementwise_kernel_fields_by_position():
    kernel = kiln.ElementwiseKernel(
        "T x", "T y", "static_assert(T::field_count == 3, \"three fields\");\n"
                      "y.at<2>() = x.at<0>() * 2; y.at<0>() = (int)x.at<1>();",
        "record_fields_by_position")
    dtype = kiln.make_aligned_dtype("i4,f8,i2")
    host = numpy.zeros(4, dtype)
    host["f0"], host["f1"] = numpy.arange(4), numpy.arange(4) + 0.5
    y = kiln.zeros(4, dtype)
    kernel(kiln.asarray(host), y)
    expected = numpy.zeros(4, dtype)
    expected["f0"], expected["f2"] = host["f1"].astype("i4"), host["f0"] * 2
    same(y, expected)
    for bad, message in [("i4,f8,i2", "Field f1 with offset 4 is not aligned"), ("f8,i4,i2", "Itemsize 14 is not")]:
        with pytest.raises(ValueError, match=message):
            kernel(kiln.zeros(2, bad), kiln.zeros(2, bad))


def test_value_operations_refuse_records():
    h = numpy.zeros(4, "i4,f4")
    k = kiln.asarray(h)
    with pytest.raises(TypeError) as expected:
        numpy.sum(h)
    with pytest.raises(TypeError, match="did not contain a loop") as got:
        kiln.sum(k)
    assert str(got.value) == str(expected.value)
    for f in [kiln.mean, lambda a: kiln.where(kiln.asarray([True] * 4), a, a)]:
        with pytest.raises(TypeError, match="does not support structured or void dtypes"):
            f(k)


class Exported:
    """A producer of __cuda_array_interface__ over a kiln array's memory."""

    def __init__(self, a, dtype=None):
        self.a, self.dtype = a, numpy.dtype(dtype or a.dtype)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.a.shape, "typestr": self.dtype.str, "descr": self.dtype.descr,
                "data": (self.a.data.ptr, False), "version": 3, "strides": None}


def test_cuda_array_interface_with_fields():
    dtype = kiln.make_aligned_dtype("?,q")   # padded: descr holds an unnamed void entry
    a = kiln.zeros(3, dtype)
    a["f1"] = 5
    view = kiln.asarray(Exported(a))
    assert view.dtype == dtype and kiln.may_share_memory(a, view)
    same(view, a.get())
    with pytest.raises(ValueError, match="cannot hold Python objects"):
        kiln.asarray(Exported(kiln.zeros(3, "q,q"), "q,O"))
    if kiln.get_backend() == "cuda":
        interface = a.__cuda_array_interface__
        assert interface["typestr"] == dtype.str and interface["descr"] == dtype.descr


@pytest.mark.parametrize("typestr", ["<M8[s]", "<M8[ns]", "<m8[ms]", "<m8[us]"])
def test_datetime_and_timedelta_are_held_as_bytes(typestr):
    # As CuPy: datetime64/timedelta64 arrays travel, view and copy; no arithmetic.
    host = (numpy.arange(6, dtype=numpy.int64) * 1000).view(typestr).reshape(2, 3)
    k = kiln.asarray(host)
    assert k.dtype == numpy.dtype(typestr) and k.shape == (2, 3)
    same(k[:, ::-1].copy(), host[:, ::-1])
    same(k.view("i8"), host.view("i8"))
    same(kiln.asarray(Exported(kiln.asarray(host.view("i8")), typestr)), host)   # through CAI, as CuPy
    numpy.testing.assert_array_equal((k == k[:1]).get(), host == host[:1])
    with pytest.raises(TypeError):
        k + k
