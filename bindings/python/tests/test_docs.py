"""The examples users copy run as written: the Python blocks of the README and of the package's
own README, the package's doctest, and examples/quickstart.py."""

from __future__ import annotations

import doctest
import re
import runpy

from conftest import REPO_ROOT

import leveldb_bloom


def run_python_blocks(readme: str) -> None:
    text = (REPO_ROOT / readme).read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)
    assert blocks, f"{readme} has no ```python block"
    for block in blocks:
        exec(compile(block, readme, "exec"), {"__name__": "__main__"})  # noqa: S102


def test_readme_python_examples(capsys):
    run_python_blocks("README.md")
    assert capsys.readouterr().out == "leveldb.BuiltinBloomFilter2\n[True, False, True]\n"


def test_package_readme_python_examples():
    run_python_blocks("bindings/python/README.md")


def test_package_doctest():
    failed, attempted = doctest.testmod(leveldb_bloom)
    assert attempted > 0 and failed == 0


def test_quickstart_example(capsys):
    runpy.run_path(str(REPO_ROOT / "examples" / "quickstart.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "members found:   10000 of 10000\n" in out
    assert "filter block: " in out
