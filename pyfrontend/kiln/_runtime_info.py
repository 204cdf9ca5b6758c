"""kiln.get_runtime_info and kiln.show_config: what kiln runs on (CuPy's
cupyx.get_runtime_info and cupy.show_config), one "name : value" line each."""
import platform
import sys

import numpy

from kiln import _core


class RuntimeInfo:
    """The rows of kiln's runtime report; str() is the report. ``full`` adds each device."""

    def __init__(self, full=True):
        import kiln
        self.rows = [("OS", platform.platform()), ("Python Version", platform.python_version()),
                     ("kiln Version", kiln.__version__), ("kiln Backend", _core.get_backend()), ("NumPy Version", numpy.__version__),
                     ("Device Count", _core.get_device_count())]
        if full:
            self.rows += [("Device %d Name" % d, _core.device_properties(d)["name"])
                          for d in range(_core.get_device_count())]

    def __str__(self):
        return "".join("%-24s: %s\n" % row for row in self.rows)


def get_runtime_info(*, full=True):
    return RuntimeInfo(full)


def show_config(*, _full=False):
    """Print kiln's runtime report (get_runtime_info) to stdout in one write."""
    sys.stdout.write(str(get_runtime_info(full=_full)))
