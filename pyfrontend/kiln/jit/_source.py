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


def _lambda_candidates(lines, line, start=None):
    """The lambdas starting on lines[line - 1] in every parse of the text
    from lines[start - 1] on (growing it a line at a time, as is, as an
    indented block and inside parentheses: the lambda may sit inside a
    statement or call spanning lines, and a shorter text may parse with a
    truncated body), with the file's line numbers and columns."""
    start = line if start is None else start
    variants = (("", 0, ""), ("if 1:\n", 1, ""), ("(\n", 1, "\n)"))
    for count in range(line - start + 1, min(len(lines) - start + 2, line - start + 40)):
        text = "".join(lines[start - 1:start - 1 + count])
        for prefix, shift, suffix in variants:
            try:
                tree = ast.parse(prefix + text + suffix)
            except (SyntaxError, ValueError):
                continue
            ast.increment_lineno(tree, start - 1 - shift)
            for n in ast.walk(tree):
                if isinstance(n, ast.Lambda) and n.lineno == line:
                    yield n


def _same_bytecode(node, code, file):
    try:
        compiled = compile(ast.Expression(body=node), file, "eval")
    except (SyntaxError, ValueError, TypeError):
        return False
    inner = [c for c in compiled.co_consts if hasattr(c, "co_code")]
    return bool(inner) and inner[0].co_code == code.co_code


def _lambda_ast(func, source):
    """Note [Lambda sources]
    A lambda is found by parsing the text from its code's first line, or from
    a few lines above (growing the text until it parses: the lambda may sit
    inside a call spanning lines), and taking the lambda on that line with the same parameters whose body
    holds every span the code's instructions come from, the tightest (this
    tells two lambdas on one line apart, and a whole body from a truncated
    parse).
    When none is (a piece of a larger text compiled on its own: a Markdown
    example), every lambda of the text with those parameters is a candidate,
    preferring those whose bytecode is the code's. It becomes
    `def lambda(params): return body` with the lambda's own lines and
    columns, so errors point into the lambda."""
    code = func.__code__
    file = code.co_filename
    all_lines = source.splitlines(True) if source is not None else linecache.getlines(file, func.__globals__)
    line = code.co_firstlineno
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])

    def alike(nodes):
        return [n for n in nodes if [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]

    # The code's instructions carry the source spans they come from (the
    # RESUME at column 0 aside): the body holds every one of them.
    spans = [p for p in code.co_positions() if None not in p and (p[2], p[3]) != (0, 0)]
    first = min(((p[0], p[2]) for p in spans), default=None)
    last = max(((p[1], p[3]) for p in spans), default=None)

    def holds(n):
        b = n.body
        return first is not None and (b.lineno, b.col_offset) <= first and (b.end_lineno, b.end_col_offset) >= last

    # Parsing from the lambda's line first, then from up to 20 lines above
    # (the statement around it may start there), until a lambda holds them.
    primary, exact = [], []
    for start in range(line, max(line - 20, 0), -1) if 0 < line <= len(all_lines) else ():
        for n in alike(_lambda_candidates(all_lines, line, start)):
            (exact if holds(n) else primary).append(n)
        if exact:
            break
    exact.sort(key=lambda n: (n.body.end_lineno, n.body.end_col_offset))
    if exact:
        node = exact[0]
    else:
        # The code's lines are not the text's (code compiled from a piece of
        # a larger document, such as a Markdown example): every lambda of the
        # text with these parameters, preferring those compiling to the same
        # bytecode.
        pool = list(primary)
        for k, text in enumerate(all_lines):
            if "lambda" in text:
                pool += [n for n in alike(_lambda_candidates(all_lines, k + 1)) if n not in pool]
        same = [n for n in pool if _same_bytecode(n, code, file)]
        found = same or pool
        if not found:
            raise SourceUnavailableError(
                "kiln cannot find the source of the lambda at %s:%d: lambdas are compiled from their Python "
                "source; define the function with `def` in a file or a notebook cell" % (file, line))
        node = found[0]
    line = node.lineno
    end = getattr(node, "end_lineno", node.lineno) or node.lineno
    ret = ast.Return(value=node.body)
    ast.copy_location(ret, node.body)
    fdef = ast.FunctionDef(name="lambda", args=node.args, body=[ret], decorator_list=[], returns=None)
    ast.copy_location(fdef, node)
    fdef.end_lineno, fdef.end_col_offset = node.end_lineno, node.end_col_offset
    ast.increment_lineno(fdef, -(line - 1))
    lines = [ln.rstrip("\n") for ln in all_lines[line - 1:end]]
    return fdef, file, lines, line, 0


def _without_docstring(found):
    """A leading docstring is documentation, not a statement kernels run."""
    node = found[0]
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        node.body = body[1:] or [ast.copy_location(ast.Pass(), body[0])]
    return found


def function_ast(func, source=None):
    return _without_docstring(_function_ast(func, source))


def _function_ast(func, source=None):
    name = func.__name__
    if name == "<lambda>":
        return _lambda_ast(func, source)
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
