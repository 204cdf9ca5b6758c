"""kiln's file and buffer I/O against NumPy's: save/load, savez(_compressed),
savetxt/loadtxt/genfromtxt, fromfile/frombuffer/fromiter/fromstring (all
through NumPy on the host)."""
import io

import numpy
import pytest

import kiln
from conftest import assert_same_bits


def test_save_load_npy_and_npz(tmp_path):
    a = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    f = io.BytesIO()
    kiln.save(f, kiln.asarray(a))
    f.seek(0)
    got = kiln.load(f)
    assert isinstance(got, kiln.ndarray)
    assert_same_bits(got.get(), a)
    for savez in (kiln.savez, kiln.savez_compressed):
        path = tmp_path / "x.npz"
        savez(path, kiln.asarray(a), b=kiln.arange(3))
        with kiln.load(path) as d:
            assert_same_bits(d["arr_0"].get(), a)
            assert_same_bits(d["b"].get(), numpy.arange(3))
    f = io.BytesIO()
    kiln.save(f, numpy.array([{1: 2}], dtype=object))
    f.seek(0)
    with pytest.raises(ValueError):
        kiln.load(f, allow_pickle=False)


def test_text_and_buffers(tmp_path):
    a = numpy.array([[1.5, 2, 3], [4, 5, 6]])
    kiln.savetxt(tmp_path / "k.txt", kiln.asarray(a))
    numpy.savetxt(tmp_path / "n.txt", a)
    assert (tmp_path / "k.txt").read_bytes() == (tmp_path / "n.txt").read_bytes()
    assert_same_bits(kiln.loadtxt(tmp_path / "k.txt").get(), a)
    assert_same_bits(kiln.genfromtxt(tmp_path / "k.txt").get(), a)
    a.tofile(tmp_path / "a.bin")
    assert_same_bits(kiln.fromfile(tmp_path / "a.bin").get(), a.ravel())
    assert_same_bits(kiln.frombuffer(b"\x01\x02", dtype=numpy.uint8).get(), numpy.array([1, 2], numpy.uint8))
    assert_same_bits(kiln.fromiter(range(4), float).get(), numpy.arange(4.0))
    assert_same_bits(kiln.fromstring("1 2", dtype=int, sep=" ").get(), numpy.array([1, 2]))


def test_who_lists_the_kiln_arrays_of_a_namespace(capsys):
    a, b = kiln.ones(10), kiln.zeros((2, 3), dtype=kiln.int32)
    kiln.who({"a": a, "b": b, "again": a, "n": numpy.ones(3), "s": 1})
    lines = capsys.readouterr().out.split("\n")
    assert lines[0].split() == ["Name", "Shape", "Bytes", "Type"] and set(lines[1]) == {"="}
    assert lines[2].split() == ["a", "(again)", "10", "80", "float64"]   # one array, two names
    assert lines[3].split() == ["b", "2", "x", "3", "24", "int32"]
    assert lines[-2] == "Upper bound on total bytes  =       104"     # each array once
    kiln.who({})
    assert capsys.readouterr().out == "\nUpper bound on total bytes  =       0\n"
