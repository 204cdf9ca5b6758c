"""A kernel's source and Python AST, for the transpiler.

``function_ast(func, source=None)`` returns ``(tree, file, lines, first_line,
indent)``: the ``ast.FunctionDef`` of the dedented source, the file name,
the function's original lines, the file line number of ``lines[0]`` and
the indentation that dedenting removed (columns in ``tree`` are that much
to the left of the file's).
"""
import ast
import inspect
import linecache
import textwrap
from tokenize import TokenError


class SourceUnavailableError(OSError):
    """The source of a kernel cannot be found (e.g. defined at a plain REPL prompt)."""


def _block_at(all_lines, start):
    """The decorators and def statement starting at all_lines[start]."""
    return inspect.getblock(all_lines[start:])


def _parse(lines, name):
    text = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    dedented = textwrap.dedent(text)
    tree = ast.parse(dedented)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != name:
        raise ValueError("not the function")
    return node, indent


def _find_def(all_lines, name, first_line):
    """Indices where `def name(` starts a block (decorators included), nearest
    to first_line first: linecache may hold a whole file of which the
    function's code saw only a piece (code exec'd from part of a document)."""
    starts = []
    for i, line in enumerate(all_lines):
        s = line.lstrip()
        if s.startswith("def " + name + "(") or s.startswith("async def " + name + "("):
            j = i
            while j > 0 and all_lines[j - 1].lstrip().startswith("@"):
                j -= 1
            starts.append(j)
    return sorted(starts, key=lambda k: abs(k + 1 - first_line))


def function_ast(func, source=None):
    name = func.__name__
    code = func.__code__
    file = code.co_filename
    if source is not None:
        all_lines = source.splitlines(True)
        for start in _find_def(all_lines, name, 1):
            lines = _block_at(all_lines, start)
            try:
                node, indent = _parse(lines, name)
            except (SyntaxError, ValueError):
                continue
            return node, file, [ln.rstrip("\n") for ln in lines], start + 1, indent
        raise SourceUnavailableError("the source= given for kernel `%s` has no `def %s(...)`" % (name, name))
    all_lines = linecache.getlines(file, func.__globals__)
    first = code.co_firstlineno
    candidates = []
    if 0 < first <= len(all_lines):
        j = first - 1
        candidates.append(j)
    candidates += _find_def(all_lines, name, first)
    for start in candidates:
        try:
            lines = _block_at(all_lines, start)
            node, indent = _parse(lines, name)
        except (SyntaxError, ValueError, IndexError, inspect.EndOfBlock, TokenError):
            continue
        return node, file, [ln.rstrip("\n") for ln in lines], start + 1, indent
    raise SourceUnavailableError(
        "kiln.jit.rawkernel cannot find the source of `%s` (file %r): kernels are transpiled from their "
        "Python source, which a function typed at a plain interactive prompt or built by exec() of a "
        "string does not keep. Define the kernel in a file or a notebook cell, or pass its text: "
        "kiln.jit.rawkernel(source=text) (for exec'd code, the string given to exec)." % (name, file))
