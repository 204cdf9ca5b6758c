"""Every ```python block in README.md and docs/*.md runs (blocks of one file
share a namespace, in order)."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_doc_examples_run(path, capsys):
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), re.S)
    assert blocks, "%s has no python example" % path.name
    namespace = {"__name__": "__doc_example__"}
    for block in blocks:
        exec(compile(block, str(path), "exec"), namespace)
