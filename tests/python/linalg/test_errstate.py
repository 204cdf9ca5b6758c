"""kiln.errstate / seterr / geterr (cupyx's): linalg='raise' (the default)
raises LinAlgError for a singular matrix, 'ignore' leaves infs or NaNs in
the result without reading LAPACK's status."""
import threading

import numpy
import pytest

import kiln


def test_default_and_context():
    assert kiln.geterr() == {"linalg": "raise"}
    singular = kiln.asarray([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
        kiln.linalg.inv(singular)
    with kiln.errstate(linalg="ignore"):
        assert kiln.geterr() == {"linalg": "ignore"}
        got = kiln.linalg.inv(singular).get()
        assert not numpy.isfinite(got).all()
        with kiln.errstate(linalg="raise"), pytest.raises(numpy.linalg.LinAlgError):
            kiln.linalg.cholesky(kiln.asarray([[1.0, 2.0], [2.0, 1.0]]))
    assert kiln.geterr() == {"linalg": "raise"}
    numpy.testing.assert_allclose(kiln.linalg.inv(kiln.asarray([[2.0, 0.0], [0.0, 4.0]])).get(),
                                  [[0.5, 0.0], [0.0, 0.25]])


def test_seterr_and_errors():
    old = kiln.seterr(linalg="ignore")
    try:
        assert old == {"linalg": "raise"} and kiln.geterr()["linalg"] == "ignore"
        seen = []
        t = threading.Thread(target=lambda: seen.append(kiln.geterr()["linalg"]))   # per thread
        t.start()
        t.join()
        assert seen == ["raise"]
    finally:
        kiln.seterr(**old)
    with pytest.raises(NotImplementedError, match="'raise' and 'ignore'"):
        kiln.seterr(linalg="warn")
    with pytest.raises(ValueError, match="must be 'raise' or 'ignore'"):
        kiln.seterr(linalg="bogus")
    with kiln.errstate(divide="ignore", invalid="ignore"):   # NumPy's keys: nothing to control
        assert (kiln.asarray([1.0]) / 0).get().tolist() == [numpy.inf]
    with pytest.raises(TypeError, match="unexpected keyword argument 'linalgs'"):
        kiln.seterr(linalgs="raise")
