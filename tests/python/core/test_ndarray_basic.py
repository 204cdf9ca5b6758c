"""The part of the ndarray this issue needs: creation, transfers, attributes."""
import copy
import pickle

import numpy
import pytest

import kiln
from conftest import ALL_DTYPES, LAYOUTS, make, random_array

SHAPES = [(), (0,), (7,), (3, 4), (2, 3, 5), (4, 0, 2)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip(rng, dtype, shape):
    host = random_array(rng, shape, dtype)
    a = kiln.asarray(host)
    assert a.shape == host.shape and a.dtype == host.dtype
    assert a.ndim == host.ndim and a.size == host.size and a.nbytes == host.nbytes
    assert a.itemsize == host.itemsize
    back = kiln.asnumpy(a)
    assert back.dtype == host.dtype and back.shape == host.shape
    numpy.testing.assert_array_equal(back, host)
    numpy.testing.assert_array_equal(a.get(), host)


@pytest.mark.parametrize("layout", ["fortran", "strided", "negative"])
def test_upload_any_host_layout(rng, layout):
    base = random_array(rng, (6, 8), numpy.float64)
    host = {"fortran": numpy.asfortranarray(base), "strided": base[::2, 1::3],
            "negative": base[::-1, ::-2]}[layout]
    numpy.testing.assert_array_equal(kiln.asarray(host).get(), host)


def test_get_fortran_order(rng):
    host = random_array(rng, (3, 5), numpy.int32)
    out = kiln.asarray(host).get(order="F")
    assert out.flags.f_contiguous
    numpy.testing.assert_array_equal(out, host)
    k = kiln.asarray(host)
    kf = kiln.asarray(numpy.asfortranarray(host))
    for a, expected, f_order in ((k, host, False), (kf, host, True), (k[::2, ::2], host[::2, ::2], False),
                                 (kf[::2, ::2], host[::2, ::2], False)):   # order='A': F only for an F array
        out = a.get(order="A")
        assert (out.flags.f_contiguous and not out.flags.c_contiguous) == f_order
        numpy.testing.assert_array_equal(out, expected)


def test_asnumpy_out(rng):
    host = random_array(rng, (4, 4), numpy.float32)
    out = numpy.empty((4, 4), numpy.float32)
    assert kiln.asnumpy(kiln.asarray(host), out=out) is out
    numpy.testing.assert_array_equal(out, host)
    with pytest.raises(ValueError, match="out must have shape"):
        kiln.asnumpy(kiln.asarray(host), out=numpy.empty(3, numpy.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_empty_and_zeros(dtype):
    z = kiln.zeros((3, 2), dtype=dtype)
    assert z.dtype == numpy.dtype(dtype) and z.shape == (3, 2) and z.strides == (2 * z.itemsize, z.itemsize)
    numpy.testing.assert_array_equal(z.get(), numpy.zeros((3, 2), dtype))
    e = kiln.empty(5, dtype=dtype)
    assert e.shape == (5,) and e.data.ptr != 0
    f = kiln.empty((3, 2), dtype=dtype, order="F")
    assert f.strides == (f.itemsize, 3 * f.itemsize)


def test_default_dtype_is_float64():
    assert kiln.zeros(3).dtype == numpy.float64
    assert kiln.empty((2, 2)).dtype == numpy.float64


def test_non_numeric_dtypes_are_refused():
    for bad in (object, str, "S3", "U5"):
        with pytest.raises(ValueError, match="numbers only"):
            kiln.zeros(3, dtype=bad)


def test_bad_shapes():
    with pytest.raises(ValueError, match="negative dimensions"):
        kiln.empty((2, -1))
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        kiln.empty((2, 1.5))
    with pytest.raises(ValueError, match="order must be one of"):
        kiln.empty(3, order="X")


@pytest.mark.parametrize("args,dtype", [((10,), None), ((2, 20, 3), None), ((25,), "float32"),
                                        ((-5, 5), "int8"), ((0.5, 4.0, 0.25), None),
                                        ((10, 0, -3), "int64"), ((5, 1), None),
                                        ((1000,), "uint16"), ((3,), "float64")])
def test_arange_matches_numpy(args, dtype):
    expected = numpy.arange(*args, dtype=dtype)
    got = kiln.arange(*args, dtype=dtype)
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got.get(), expected)


def test_reshape_is_a_view():
    a = kiln.arange(24, dtype=kiln.int32)
    b = a.reshape(2, 3, 4)
    c = a.reshape((4, -1))
    assert b.shape == (2, 3, 4) and c.shape == (4, 6)
    assert b.data.ptr == a.data.ptr == c.data.ptr
    with pytest.raises(ValueError, match="cannot reshape array of size 24"):
        a.reshape(5, 5)


def test_no_implicit_host_conversion():
    a = kiln.zeros(3)
    with pytest.raises(TypeError, match="kiln.asnumpy"):
        numpy.asarray(a)


def test_repr_and_str_match_numpy():
    host = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    a = kiln.asarray(host)
    assert repr(a) == repr(host)
    assert str(a) == str(host)
    assert len(a) == 2
    with pytest.raises(TypeError, match="unsized"):
        len(kiln.zeros(()))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pickle_and_copy_keep_values_dtype_and_layout(rng, dtype, layout):
    k, n = make(rng, layout, dtype)
    for got in (pickle.loads(pickle.dumps(k)), copy.copy(k), copy.deepcopy(k)):
        assert isinstance(got, kiln.ndarray) and got.base is None
        assert got.dtype == n.dtype and got.shape == n.shape
        numpy.testing.assert_array_equal(got.get(), n)
        assert got.flags.c_contiguous == n.copy(order="K").flags.c_contiguous
        assert got.flags.f_contiguous == n.copy(order="K").flags.f_contiguous
    if k.size:   # copies, not views
        c = copy.copy(k)
        c.fill(0)
        numpy.testing.assert_array_equal(k.get(), n)


def test_format_as_numpy():
    a = kiln.asarray(numpy.array([[1.25, -2.5], [3.0, 4.125]]))
    assert format(a[0, 1], ".3f") == format(numpy.float64(-2.5), ".3f") == "-2.500"
    assert f"{kiln.asarray(7, dtype=kiln.int16):05d}" == "00007"
    assert format(a) == str(a) == f"{a}"
    with pytest.raises(TypeError, match="unsupported format string"):
        format(a, ".2f")


def test_flags_are_read_only_except_writeable():
    a = kiln.arange(6).reshape(2, 3)
    for name in ("c_contiguous", "f_contiguous", "owndata"):
        with pytest.raises(AttributeError):
            setattr(a.flags, name, False)
    assert a.flags.c_contiguous and not a.flags.f_contiguous
    a.T.flags.writeable = False   # the one settable flag
    with pytest.raises(KeyError):
        a.flags["C_CONTIGUOUS"] = False


def test_constructor_over_existing_memory():
    base = kiln.arange(12, dtype=kiln.float32)
    view = kiln.ndarray((3, 2), kiln.float32, base.data, (8, 4))
    numpy.testing.assert_array_equal(view.get(), numpy.arange(12, dtype=numpy.float32)[:6].reshape(3, 2))
    view[0, 0] = 100        # the same memory
    assert float(base[0]) == 100
    back = kiln.ndarray((2, 2), kiln.float32, kiln.cuda.MemoryPointer(base.data.mem, 44), (-8, -4))
    numpy.testing.assert_array_equal(back.get(), [[11, 10], [9, 8]])
    f = kiln.ndarray((2, 3), kiln.float32, base.data, order="F")
    assert f.flags.f_contiguous and f.strides == (4, 8)
    assert kiln.ndarray((2, 3)).dtype == numpy.float64 and kiln.ndarray((2, 3), order="F").flags.f_contiguous
    with pytest.raises(ValueError, match="reaches bytes"):
        kiln.ndarray((4, 4), kiln.float32, base.data)            # 64 bytes of a 48-byte allocation
    with pytest.raises(ValueError, match="reaches bytes"):
        kiln.ndarray((2, 2), kiln.float32, kiln.cuda.MemoryPointer(base.data.mem, 4), (-8, 4))
    small = kiln.ndarray((2, 3), kiln.float64, strides=(8, 0))     # new memory of the contiguous size (CuPy's rule)
    assert small.strides == (8, 0) and small.data.mem.size >= 48
    assert kiln.ndarray((2, 0, 4), strides=(8, 128, 1024)).shape == (2, 0, 4)
    with pytest.raises(ValueError, match=r"ndarray\(\) with strides \(8, 16\) reaches bytes \[0, 28\) of the 16"):
        kiln.ndarray((2, 2), kiln.float32, strides=(8, 16))
    with pytest.raises(ValueError, match=r"ndarray\(\) with strides \(-4,\) reaches bytes \[-4, 4\)"):
        kiln.ndarray((2,), kiln.float32, strides=(-4,))
    assert kiln.empty(0).data.ptr == 0 and kiln.zeros((2, 0, 3)).strides == numpy.zeros((2, 0, 3)).strides
    with pytest.raises(TypeError, match="memptr must be a kiln.cuda.MemoryPointer"):
        kiln.ndarray((2,), kiln.float32, memptr=3)
    with pytest.raises(ValueError, match="one entry per dimension"):
        kiln.ndarray((2, 2), kiln.float32, base.data, (4,))


class _Tagged(kiln.ndarray):
    """An ndarray subclass with NumPy's __array_finalize__ protocol."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", None)


class _Plain(kiln.ndarray):
    pass


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative", "0-d", "empty"])
def test_subclasses(rng, layout):
    """Note [Array subclasses]: view(C) and view(type=C) give C instances
    over the same memory, a subclass's view() keeps its class, and ufuncs and
    operators return the first subclass operand's type, __array_finalize__
    run with that operand; other functions return kiln.ndarray."""
    k, x = make(rng, layout, numpy.float32)
    for spelling in (lambda: k.view(_Tagged), lambda: k.view(type=_Tagged), lambda: k.view(numpy.float32, _Tagged)):
        t = spelling()
        assert type(t) is _Tagged and t.tag is None and t.shape == k.shape and t.strides == k.strides
        assert t.size == 0 or t.data.ptr == k.data.ptr
    t = k.view(_Tagged)
    t.tag = "m"
    v = t.view()
    assert type(v) is _Tagged and v.tag == "m" and type(t.view(kiln.ndarray)) is kiln.ndarray
    p = k.view(_Plain)
    for got in (kiln.sin(t), t + 1, 1 + t, -t, kiln.add(k, t), kiln.add(t, p), t * k):
        assert type(got) is _Tagged and got.tag == "m"
        assert got.shape == x.shape
    assert type(kiln.add(p, t)) is _Plain   # the first subclass operand decides
    numpy.testing.assert_array_equal(kiln.sin(t).get(), kiln.sin(k).get())   # the same values as for k
    numpy.testing.assert_array_equal((t + 1).get(), x + 1)
    out = kiln.empty_like(k)
    assert kiln.add(t, 1, out=out) is out and type(out) is kiln.ndarray   # a given out stays itself
    if k.size:
        w = k.view(_Tagged)
        w[...] = 7   # writes through to k's memory
        assert (k.get() == 7).all()
    with pytest.raises(TypeError, match="view's type must be kiln.ndarray"):
        k.view(type=dict)


class _Informed(kiln.ndarray):
    """A subclass whose __new__ takes a keyword of its own (Note [Array construction])."""

    def __new__(cls, *args, info=None, **kwargs):
        obj = super().__new__(cls, *args, **kwargs)
        obj.info = info
        return obj

    def __array_finalize__(self, obj):
        self.seen = obj


def test_subclass_constructor_takes_its_own_keywords():
    a = _Informed((2, 3), numpy.float32, info="i")
    assert type(a) is _Informed and a.shape == (2, 3) and a.dtype == numpy.float32 and a.base is None
    assert a.info == "i" and a.seen is None             # explicit construction: __array_finalize__(None)
    b = _Informed([4], dtype=numpy.int16, order="F")
    assert b.shape == (4,) and b.dtype == numpy.int16 and b.info is None
    v = a.view(_Informed)
    assert v.seen is a and v.base is a
    assert type(kiln.ndarray((2,), numpy.int8)) is kiln.ndarray
    with pytest.raises(TypeError):
        kiln.ndarray((2,), numpy.int8, info="i")      # ndarray's own signature still checks its arguments


def test_plain_arrays_take_no_attributes():
    """Note [View bases]: a view's base is no instance attribute, so plain
    arrays have no __dict__ (as CuPy's); subclass instances have one."""
    a = kiln.arange(4)
    v = a[1:][::2]
    assert v.base is a and a.base is None
    for x in (a, v):
        assert not hasattr(x, "__dict__")
        with pytest.raises(AttributeError):
            x.unit = "m"
    t = a.view(_Tagged)
    t.unit = "m"
    assert t.unit == "m" and t.base is a and t.__dict__["unit"] == "m"


def test_views_keep_their_base_alive_and_cycles_are_collected():
    import gc
    import weakref
    a = kiln.arange(6.0)
    v = a[2:]
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is not None and float(v[0]) == 2.0
    del v
    gc.collect()
    assert ref() is None
    owner = _Tagged((3,), numpy.float32)    # owner -> view (its dict), view -> owner (its base)
    owner.tag = owner[1:]
    ref = weakref.ref(owner)
    del owner
    gc.collect()
    assert ref() is None


def test_at_most_64_axes():
    """NumPy's limit (NPY_MAXDIMS): 64 axes are fine, 65 are NumPy's ValueError
    for new arrays and reshapes alike."""
    assert kiln.zeros([1] * 64, numpy.int8).ndim == 64
    assert kiln.ones(3).reshape([1] * 63 + [3]).ndim == 64
    for make in (lambda: kiln.ndarray(shape=[1] * 65, dtype=numpy.int8), lambda: kiln.empty([1] * 65),
                 lambda: kiln.ones(3).reshape([1] * 64 + [3])):
        with pytest.raises(ValueError, match="maximum supported dimension for an ndarray is currently 64, found 65"):
            make()
