"""kiln.who: the kiln arrays of a namespace, as NumPy 1's numpy.who listed
NumPy arrays (CuPy keeps it as cupy.who).

    x = kiln.ones(10)
    kiln.who()          # x   10   80   float64, then the total bytes
"""
import sys

from kiln._core import ndarray


def who(vardict=None):
    """Print the kiln arrays in ``vardict`` (the caller's globals when None):
    name, shape, bytes and dtype, then the total bytes. Names of one array
    are listed together."""
    if vardict is None:
        vardict = sys._getframe(1).f_globals
    rows, seen, total = [], {}, 0
    for name in sorted(vardict):
        value = vardict[name]
        if not isinstance(value, ndarray):
            continue
        if id(value) in seen:
            rows[seen[id(value)]][0] += " (%s)" % name   # another name of a listed array
            continue
        seen[id(value)] = len(rows)
        rows.append([name, " x ".join(str(n) for n in value.shape), str(value.nbytes), str(value.dtype)])
        total += value.nbytes
    if rows:
        header = ["Name", "Shape", "Bytes", "Type"]
        widths = [max(len(r[k]) for r in rows + [header]) + 2 for k in range(3)]
        line = lambda r: "".join(c.ljust(w) for c, w in zip(r[:3], widths)) + r[3]
        print(line(header))
        print("=" * (sum(widths) + max(len(r[3]) for r in rows + [header])))
        for r in rows:
            print(line(r))
    print("\nUpper bound on total bytes  =       %d" % total)
