"""Code lines of kiln's layers, and the rule of issue 20: the Python package's
code lines are at most half of arraycore/ + transpiler/'s.

    python3 tools/code_lines.py            # the table, the ratio, the largest files
    python3 tools/code_lines.py --check    # exit 1 when the rule is broken

A code line is a line that is not blank and not only a comment: for C++,
// and /* */ comments are dropped; for Python, # comments and docstrings (a
string expression standing alone as a statement). CI prints this table.
"""
import ast
import io
import pathlib
import sys
import tokenize

ROOT = pathlib.Path(__file__).resolve().parent.parent
CPP_SUFFIXES = {".cpp", ".h", ".hpp", ".cuh", ".cu"}


def cpp_code_lines(text):
    count, in_block = 0, False
    for line in text.splitlines():
        code, i = [], 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    i = len(line)
                else:
                    in_block, i = False, end + 2
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            elif line[i] in "\"'":   # skip a literal, so "//" inside one is code
                quote, j = line[i], i + 1
                while j < len(line) and line[j] != quote:
                    j += 2 if line[j] == "\\" else 1
                code.append(line[i:j + 1])
                i = j + 1
            else:
                code.append(line[i])
                i += 1
        if "".join(code).strip():
            count += 1
    return count


def python_code_lines(text):
    docstring_lines = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docstring_lines.update(range(node.lineno, node.end_lineno + 1))
    code_lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        for line in range(tok.start[0], tok.end[0] + 1):
            if line not in docstring_lines:
                code_lines.add(line)
    return len(code_lines)


def count(folder, suffixes, counter):
    files = {}
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix in suffixes and path.is_file():
            files[path.relative_to(ROOT).as_posix()] = counter(path.read_text())
    return files


def main():
    layers = {
        "pyfrontend/kiln (Python)": count("pyfrontend/kiln", {".py"}, python_code_lines),
        "pyfrontend (C++ bindings)": count("pyfrontend", CPP_SUFFIXES, cpp_code_lines),
        "arraycore": count("arraycore", CPP_SUFFIXES, cpp_code_lines),
        "transpiler": count("transpiler", CPP_SUFFIXES, cpp_code_lines),
        "runtime": count("runtime", CPP_SUFFIXES, cpp_code_lines),
        "stdlib_kernels": count("stdlib_kernels", CPP_SUFFIXES, cpp_code_lines),
    }
    print("code lines (not blank, not comments or docstrings):")
    for name, files in layers.items():
        print("  %-28s %6d in %3d files" % (name, sum(files.values()), len(files)))
    python = sum(layers["pyfrontend/kiln (Python)"].values())
    core = sum(layers["arraycore"].values()) + sum(layers["transpiler"].values())
    ok = 2 * python <= core
    print("Python package / (arraycore + transpiler) = %d / %d = %.2f (rule: at most 0.50): %s"
          % (python, core, python / core, "ok" if ok else "BROKEN"))
    everything = {}
    for files in layers.values():
        everything.update(files)
    print("largest files (code lines):")
    for path, n in sorted(everything.items(), key=lambda kv: -kv[1])[:10]:
        print("  %5d  %s" % (n, path))
    return 0 if ok or "--check" not in sys.argv else 1


if __name__ == "__main__":
    sys.exit(main())
