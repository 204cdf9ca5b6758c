"""File and buffer I/O through NumPy on the host, as CuPy does: arrays are
downloaded before NumPy writes them and uploaded after NumPy reads them
(numpy.save ... numpy.fromstring keep their signatures and behaviour)."""
import numpy

from kiln._creation import array as _upload
from kiln._type_names import _host


class NpzFile:
    """numpy.lib.npyio.NpzFile whose items are kiln arrays (one upload per
    item read); a context manager, closed by close()."""

    def __init__(self, npz_file):
        self.npz_file = npz_file

    def __enter__(self):
        self.npz_file.__enter__()
        return self

    def __exit__(self, *args):
        self.npz_file.__exit__(*args)

    def __getitem__(self, key):
        return _upload(self.npz_file[key])

    def close(self):
        self.npz_file.close()


def load(file, mmap_mode=None, allow_pickle=None):
    """numpy.load, an array uploaded (an .npz archive as a kiln.NpzFile)."""
    obj = numpy.load(file, mmap_mode, allow_pickle=bool(allow_pickle))
    if isinstance(obj, numpy.ndarray):
        return _upload(obj)
    return NpzFile(obj) if isinstance(obj, numpy.lib.npyio.NpzFile) else obj


def save(file, arr, allow_pickle=None):
    """numpy.save of the downloaded array."""
    numpy.save(file, _host(arr), allow_pickle=True if allow_pickle is None else allow_pickle)


def savez(file, *args, **kwds):
    """numpy.savez of the downloaded arrays."""
    numpy.savez(file, *map(_host, args), **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, **kwds):
    """numpy.savez_compressed of the downloaded arrays."""
    numpy.savez_compressed(file, *map(_host, args), **{k: _host(v) for k, v in kwds.items()})


def savetxt(fname, X, *args, **kwargs):
    """numpy.savetxt of the downloaded array."""
    numpy.savetxt(fname, _host(X), *args, **kwargs)


def _reader(name):
    read = getattr(numpy, name)

    def reader(*args, **kwargs):
        return _upload(read(*args, **kwargs))
    reader.__name__ = name
    reader.__doc__ = "numpy.%s, its result uploaded as a kiln array." % name
    return reader


loadtxt, genfromtxt, fromfile, frombuffer, fromiter, fromstring = map(
    _reader, ("loadtxt", "genfromtxt", "fromfile", "frombuffer", "fromiter", "fromstring"))


def binary_repr(num, width=None):
    """numpy.binary_repr: a Python integer as a string of binary digits
    (two's complement in `width` digits for a negative one)."""
    return numpy.binary_repr(num, width)


def base_repr(number, base=2, padding=0):
    """numpy.base_repr: a Python integer as a string of digits in `base`."""
    return numpy.base_repr(number, base, padding)
