"""The generated docs pages (docs/config.md, docs/cli.md, docs/data-model.md): where they live and
the one write-or-check step their generators share.

Each generator is run in a source checkout, ``python -m <module>`` to rewrite its page and
``python -m <module> --check`` to fail (exit 1, nothing written) when the page differs from what
the code would write; tests/test_docs.py runs the checks, so a page cannot drift from the code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from pipeline import resources


def write_or_check(relative: Path, module: str, render: Callable[[str], str], args: list[str]) -> int:
    """Render the page at ``<checkout>/relative`` from its current text (``""`` if missing) and write
    it, or with ``--check`` in `args` return 1 if it would change. Exit 2 outside a checkout."""
    root = resources.checkout_root()
    if root is None:
        sys.stderr.write(
            f"{relative} is written in a source checkout of antichess-td; pipeline is imported from "
            f"{resources.package_dir()}, an installed package: run this from a clone of the repository\n"
        )
        return 2
    doc = root / relative
    current = doc.read_text(encoding="utf-8") if doc.is_file() else ""
    text = render(current)
    if "--check" in args:
        if current != text:
            sys.stderr.write(f"{doc} is out of date: run python -m {module}\n")
            return 1
        return 0
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text, encoding="utf-8")
    return 0
