"""kiln.get_runtime_info / kiln.show_config (CuPy's cupyx.get_runtime_info and cupy.show_config)."""
import io
import contextlib

import numpy

import kiln


def test_runtime_info_rows_and_show_config():
    short, full = str(kiln.get_runtime_info(full=False)), str(kiln.get_runtime_info())
    assert "NumPy Version           : %s\n" % numpy.__version__ in short
    assert "kiln Backend            : %s\n" % kiln.get_backend() in short
    assert full.startswith(short) and "Device 0 Name" in full and "Device 0 Name" not in short
    for full_flag, expected in ((False, short), (True, full)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            kiln.show_config(_full=full_flag)
        assert out.getvalue() == expected
