"""The examples users copy run as written: the README's Python blocks and the package's doctest."""

from __future__ import annotations

import doctest
import re

from conftest import REPO_ROOT

import leveldb_bloom


def test_readme_python_examples(capsys):
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", readme, flags=re.DOTALL | re.MULTILINE)
    assert blocks, "README.md has no ```python block"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "__main__"})  # noqa: S102
    assert capsys.readouterr().out == "leveldb.BuiltinBloomFilter2\n[True, False, True]\n"


def test_package_doctest():
    failed, attempted = doctest.testmod(leveldb_bloom)
    assert attempted > 0 and failed == 0
