"""Where kiln.jit finds a kernel's source: files, exec'd strings given with
source=, notebook cells (linecache entries) and the error for a function
without source."""
import linecache

import pytest

import kiln
from kiln import jit

TEXT = '''
def twice(x, n):
    i = jit.grid(1)
    if i < n:
        x[i] = x[i] * 2
'''


def _exec(text, filename):
    ns = {"jit": jit}
    exec(compile(text, filename, "exec"), ns)
    return ns["twice"]


def test_exec_with_source_argument():
    k = jit.rawkernel(source=TEXT)(_exec(TEXT, "<generated>"))
    x = kiln.arange(4, dtype=kiln.float64)
    k[1, 4](x, 4)
    assert kiln.asnumpy(x).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert '#line 5 "<generated>"' in k.cached_code


def test_notebook_cells_are_found_through_linecache():
    name = "<ipython-input-7-kiln>"
    linecache.cache[name] = (len(TEXT), None, TEXT.splitlines(True), name)
    try:
        k = jit.rawkernel()(_exec(TEXT, name))
        x = kiln.arange(4, dtype=kiln.float64)
        k[1, 4](x, 4)
        assert kiln.asnumpy(x).tolist() == [0.0, 2.0, 4.0, 6.0]
    finally:
        del linecache.cache[name]


def test_function_without_source_says_how_to_proceed():
    k = jit.rawkernel()(_exec(TEXT, "<stdin>"))
    with pytest.raises(jit.SourceUnavailableError, match=r"cannot find the source of `twice`.*source=text"):
        k[1, 4](kiln.zeros(4), 4)
